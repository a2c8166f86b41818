//! Owned textures laid out as GPU memory (`tld4_pool_image`): texture headers, samplers and
//! texels at GPU addresses, in one flat byte range the caller owns, so that a simulator (or
//! a test) can run the memory form on textures it made with `tld4_pool_add_texture`, and
//! compare both forms.

use tld4_emu::gpu_memory::{pool_image, LayoutChoice, MemTexError};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::pool::tld4_pool;
use crate::ptr::{in_ref, in_slice, out, out_array};

/// How a texture's texels are laid out (`tld4_image_entry::layout`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_layout {
    /// Pitch-linear rows, each padded to `layout_param` bytes (a multiple of 32); 2D only.
    TLD4_LAYOUT_PITCH = 0,
    /// Block-linear, `1 << layout_param` GOBs per block height (`layout_param` 0..=5).
    TLD4_LAYOUT_BLOCK_LINEAR = 1,
}

/// One texture of a pool image: entry `k` becomes texture header `k` and sampler `k`, so its
/// handle is `tld4_handle(k, k)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_image_entry {
    /// The texture's header index in the owned pool.
    pub texture: u32,
    /// The sampler's index in the owned pool.
    pub sampler: u32,
    /// A `tld4_layout` value.
    pub layout: u32,
    /// Pitch: the row alignment in bytes (a multiple of 32; the pitch written into the
    /// header, `tld4_tic_desc::pitch`, is a row's bytes rounded up to it); block-linear: log2
    /// of the GOBs per block height.
    pub layout_param: u32,
}

/// The layout of an entry.
fn layout(e: &tld4_image_entry, k: usize) -> Result<LayoutChoice, Error> {
    layout_choice(e.layout, e.layout_param, &format!("entries[{k}]."))
}

/// A `tld4_layout` value and its parameter (pitch: row alignment; block-linear: log2 GOBs
/// per block height); `at` prefixes the argument names in errors.
pub(crate) fn layout_choice(layout: u32, param: u32, at: &str) -> Result<LayoutChoice, Error> {
    match layout {
        l if l == tld4_layout::TLD4_LAYOUT_PITCH as u32 => Ok(LayoutChoice::Pitch {
            row_alignment: param,
        }),
        l if l == tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR as u32 => {
            let log2 = u8::try_from(param)
                .ok()
                .filter(|&g| g <= 5)
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "{at}layout_param = {param}: block-linear takes 0..=5 (log2 GOBs per block)"
                    ))
                })?;
            Ok(LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: log2,
            })
        }
        l => Err(Error::Invalid(format!(
            "{at}layout = {l}: expected TLD4_LAYOUT_PITCH (0) or TLD4_LAYOUT_BLOCK_LINEAR (1)"
        ))),
    }
}

/// Lays out `count` textures of `pool` (with their samplers) as GPU memory starting at
/// `base` (a multiple of 512, tld4-textures' `pool_image` contract): the texture-header pool
/// at `base`, the sampler pool after it, each texture's texels at the next 4 KiB boundary,
/// exactly as `tld4_exec_run_*_memory` reads them back (docs/sources.md, Descriptors). The
/// image is one flat range from `base`, gaps zeroed: `*needed` (if not NULL) receives its
/// size in bytes in every case, and the bytes go to `bytes` (`cap` bytes; too small is
/// `TLD4_ERR_BUFFER_TOO_SMALL`, nothing else written: call with `cap` 0 first to learn the
/// size). `*header_pool` and `*sampler_pool` receive the pools' addresses, for a
/// `tld4_memory` of kind `TLD4_MEMORY_FLAT` with this `base`. A texture or layout the memory
/// form cannot express (a format with no header format, a pitch row alignment off 32
/// bytes, a pitch array) is `TLD4_ERR_NOT_MODELED`; an unknown layout, a missing texture
/// or sampler slot, or a `base` so high that the image would pass 2^64 (it is never
/// wrapped to address 0; it may end at 2^64 exactly), `TLD4_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `pool` live; `entries` `count` elements; `bytes` NULL or valid for `cap` writes; `needed`
/// NULL or valid; `header_pool`, `sampler_pool` valid for a write; `err` NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_pool_image(
    pool: *const tld4_pool,
    entries: *const tld4_image_entry,
    count: usize,
    base: u64,
    bytes: *mut u8,
    cap: usize,
    needed: *mut usize,
    header_pool: *mut u64,
    sampler_pool: *mut u64,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let pool = &in_ref(pool, "pool")?.0;
        let entries = in_slice(entries, count, "entries")?;
        if header_pool.is_null() {
            return Err(Error::Null("header_pool"));
        }
        if sampler_pool.is_null() {
            return Err(Error::Null("sampler_pool"));
        }
        if !base.is_multiple_of(512) {
            return Err(Error::Invalid(format!(
                "base = {base:#x}: not a multiple of 512"
            )));
        }
        let mut list = Vec::with_capacity(entries.len());
        for (k, e) in entries.iter().enumerate() {
            let at = |what: String| move |source| Error::Texture { what, source };
            let t = pool
                .texture(e.texture)
                .map_err(at(format!("entries[{k}].texture")))?;
            let s = pool
                .sampler(e.sampler)
                .map_err(at(format!("entries[{k}].sampler")))?;
            list.push((t, s, layout(e, k)?));
        }
        let image = pool_image(&list, base).map_err(|source| match source {
            // the image would pass 2^64: the base is too high (refused, never wrapped)
            MemTexError::Memory(e) => Error::Invalid(format!(
                "base = {base:#x}: the pool image passes the end of the address space ({e}); give a lower base"
            )),
            source => Error::Memory {
                what: "pool image".into(),
                source,
                code: None,
                texel: None,
            },
        })?;
        // One past the last byte, in 65 bits: the image may end at 2^64 exactly.
        let end = image
            .memory
            .regions()
            .map(|(b, r)| b as u128 + r.len() as u128)
            .max()
            .unwrap_or(base as u128);
        let size = usize::try_from(end - base as u128)
            .map_err(|_| Error::Invalid("the image does not fit the address space".into()))?;
        let mut flat = Vec::new();
        flat.try_reserve_exact(size).map_err(|_| {
            Error::Invalid(format!("the image of {size} bytes cannot be allocated"))
        })?;
        flat.resize(size, 0u8);
        for (b, r) in image.memory.regions() {
            let at = (b - base) as usize;
            flat[at..at + r.len()].copy_from_slice(r);
        }
        out_array(bytes, cap, needed, "bytes", &flat)?;
        out(header_pool, "header_pool", image.header_pool)?;
        out(sampler_pool, "sampler_pool", image.sampler_pool)
    })
}
