//! Texture and sampler pools of owned textures: create, fill, free; format names; handles.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use tld4_emu::textures::{AddressMode, BorderColor, CompareOp};
use tld4_emu::{Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool};

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::ptr::{in_mut, in_ref, in_slice, in_str, out, out_opt};

/// Texture headers and samplers (opaque), indexed as a handle's bits 19:0 and 31:20. Made by
/// `tld4_pool_new`, freed with `tld4_pool_free`.
///
/// Thread safety: a pool has no lock of its own. Calls that take it as `const tld4_pool *`
/// (`tld4_exec_run_flat`, `tld4_exec_run_callbacks`, `tld4_pool_image`) only read it, so any
/// number of threads may make them on one pool at the same time; `tld4_pool_set_*`,
/// `tld4_pool_add_*` and `tld4_pool_free` change it, and must not overlap any other call on
/// the same pool (the caller serializes them, as for a `std::vector`). Different pools are
/// independent.
pub struct tld4_pool(pub(crate) TexturePool);

/// The kind of a texture (`tld4_texture_desc::kind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_texture_kind {
    /// 2D, one layer (the instruction's `2D`).
    TLD4_KIND_2D = 0,
    /// 2D array (`ARRAY_2D`).
    TLD4_KIND_2D_ARRAY = 1,
    /// Cube: six faces stored as layers +X, -X, +Y, -Y, +Z, -Z (`CUBE`).
    TLD4_KIND_CUBE = 2,
    /// Cube array: whole cubes, storage layer = cube * 6 + face (`ARRAY_CUBE`).
    TLD4_KIND_CUBE_ARRAY = 3,
}

/// Each C kind and its texture kind (the instruction's dimension names the same four).
pub(crate) const KINDS: [(tld4_texture_kind, TextureKind); 4] = [
    (tld4_texture_kind::TLD4_KIND_2D, TextureKind::Tex2D),
    (
        tld4_texture_kind::TLD4_KIND_2D_ARRAY,
        TextureKind::Tex2DArray,
    ),
    (tld4_texture_kind::TLD4_KIND_CUBE, TextureKind::Cube),
    (
        tld4_texture_kind::TLD4_KIND_CUBE_ARRAY,
        TextureKind::CubeArray,
    ),
];

/// A texture's kind, format and size.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_texture_desc {
    /// A `tld4_texture_kind` value.
    pub kind: u32,
    /// The format's name, as `tld4_format_name` lists them (`"rgba8_unorm"`, `"d32_float"`).
    pub format: *const c_char,
    /// Width in texels.
    pub width: u32,
    /// Height in texels (equal to the width for cubes).
    pub height: u32,
    /// Array layers, or whole cubes; 1 for 2D and cube (a texture header's
    /// `tld4_tic_desc::depth` holds the same count).
    pub layers: u32,
}

/// A sampler, with Vulkan's numbering for address modes and compare functions.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct tld4_sampler_desc {
    /// VkSamplerAddressMode of u (x): 0 repeat, 1 mirrored repeat, 2 clamp to edge, 3 clamp
    /// to border, 4 mirror clamp to edge.
    pub address_u: u32,
    /// VkSamplerAddressMode of v (y).
    pub address_v: u32,
    /// Border colour R, G, B, A as raw words (f32 bits for float formats, integers for
    /// integer formats).
    pub border: [u32; 4],
    /// Depth compare on.
    pub compare_enable: bool,
    /// VkCompareOp, with `compare_enable`: 0 never, 1 less, ... 7 always (`dref OP texel`).
    pub compare_op: u32,
    /// Seamless cube edges.
    pub seamless_cube: bool,
    /// Normalized coordinates (0..1 across the texture; `tld4_sampler_default` sets it);
    /// false: coordinates in texels, u = s (CUDA's `normalizedCoords = 0`), modeled with
    /// clamp to edge or clamp to border on 2D and 2D array textures (docs/sources.md,
    /// Unnormalized coordinates).
    pub normalized_coords: bool,
}

impl tld4_sampler_desc {
    pub(crate) fn sampler(&self) -> Result<Sampler, Error> {
        let mode = |v: u32, what: &str| {
            AddressMode::from_vulkan(v).ok_or_else(|| {
                Error::Invalid(format!(
                    "sampler.{what} = {v}: not a VkSamplerAddressMode (0..=4)"
                ))
            })
        };
        let compare = if self.compare_enable {
            Some(CompareOp::from_vulkan(self.compare_op).ok_or_else(|| {
                Error::Invalid(format!(
                    "sampler.compare_op = {}: not a VkCompareOp (0..=7)",
                    self.compare_op
                ))
            })?)
        } else {
            None
        };
        Ok(Sampler {
            address_u: mode(self.address_u, "address_u")?,
            address_v: mode(self.address_v, "address_v")?,
            border: BorderColor { words: self.border },
            compare,
            seamless_cube: self.seamless_cube,
            normalized_coords: self.normalized_coords,
        })
    }

    fn of(s: &Sampler) -> Self {
        tld4_sampler_desc {
            address_u: s.address_u as u32,
            address_v: s.address_v as u32,
            border: s.border.words,
            compare_enable: s.compare.is_some(),
            compare_op: s.compare.map_or(0, |c| c as u32),
            seamless_cube: s.seamless_cube,
            normalized_coords: s.normalized_coords,
        }
    }
}

/// The format names, NUL-terminated, built once from `Format::name` (immutable after that).
pub(crate) fn format_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    NAMES.get_or_init(|| {
        Format::ALL
            .iter()
            .map(|f| CString::new(f.name()).unwrap_or_default())
            .collect()
    })
}

/// The format of a name.
pub(crate) fn format_of(name: &str) -> Result<Format, Error> {
    Format::ALL
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "desc.format = {name:?}: no such format (tld4_format_name lists the {})",
                Format::ALL.len()
            ))
        })
}

/// How many formats there are.
#[no_mangle]
pub extern "C" fn tld4_format_count() -> usize {
    quiet(0, || Format::ALL.len())
}

/// The name of format `index` (0 .. `tld4_format_count()`), or NULL past the end. The string
/// is static: never free it.
#[no_mangle]
pub extern "C" fn tld4_format_name(index: usize) -> *const c_char {
    quiet(std::ptr::null(), || {
        format_names()
            .get(index)
            .map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// Creates empty pools (`*out`; free them with `tld4_pool_free`).
///
/// # Safety
/// `out` is valid for a write of a pointer; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_pool_new(
    out_ptr: *mut *mut tld4_pool,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        if out_ptr.is_null() {
            return Err(Error::Null("out"));
        }
        out(
            out_ptr,
            "out",
            Box::into_raw(Box::new(tld4_pool(TexturePool::new()))),
        )
    })
}

/// Frees pools and every texture and sampler in them; NULL is ignored.
///
/// # Safety
/// `pool` is NULL or came from `tld4_pool_new` and was not freed before; no execution that
/// uses it is running.
#[no_mangle]
pub unsafe extern "C" fn tld4_pool_free(pool: *mut tld4_pool) {
    if !pool.is_null() {
        // SAFETY: made by `Box::into_raw` in `tld4_pool_new`, not freed before.
        quiet((), || drop(unsafe { Box::from_raw(pool) }));
    }
}

/// A texture from its description and raw texel fields.
///
/// # Safety
/// `desc` points to a valid description whose `format` is a NUL-terminated string;
/// `fields` is NULL (with `count` 0) or points to `count` values.
pub(crate) unsafe fn texture(
    desc: *const tld4_texture_desc,
    fields: *const u32,
    count: usize,
) -> Result<Texture, Error> {
    // SAFETY: the caller's guarantees.
    let d = unsafe { in_ref(desc, "desc") }?;
    // SAFETY: the caller's guarantee on `desc.format`.
    let format = format_of(unsafe { in_str(d.format, "desc.format") }?)?;
    let kind = KINDS
        .iter()
        .find(|(c, _)| *c as u32 == d.kind)
        .map(|&(_, k)| k)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "desc.kind = {}: not a tld4_texture_kind (0..={})",
                d.kind,
                KINDS.len() - 1
            ))
        })?;
    // SAFETY: the caller's guarantee on `fields`.
    let fields = unsafe { in_slice(fields, count, "fields") }?;
    let desc = TextureDesc {
        kind,
        format,
        width: d.width,
        height: d.height,
        layers: d.layers,
    };
    Texture::from_fields(desc, fields).map_err(|source| Error::Texture {
        what: "texture".into(),
        source,
    })
}

/// Puts a texture at header index `index` (0 ..= 2^20 - 1; replacing any there). The texels
/// are `count` raw field values: layer-major, then rows (y), then texels (x), then the
/// format's fields (raw integers for UNORM/SNORM/UINT/SINT, f16 or f32 bits for floats, the
/// bit fields of packed formats), each within its field's width: a negative SNORM or SINT
/// value is its two's complement in the field's width (-1 in an 8-bit field is 0xff;
/// `tld4_field_from_int` makes it). They are copied: `fields` may be freed after the call.
///
/// # Safety
/// `pool` is live; `desc` valid with a NUL-terminated `format`; `fields` NULL (with `count`
/// 0) or `count` values; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_pool_set_texture(
    pool: *mut tld4_pool,
    index: u32,
    desc: *const tld4_texture_desc,
    fields: *const u32,
    count: usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let pool = in_mut(pool, "pool")?;
        let tex = texture(desc, fields, count)?;
        pool.0
            .set_texture(index, tex)
            .map_err(|source| Error::Texture {
                what: format!("texture header {index}"),
                source,
            })
    })
}

/// Appends a texture after the highest header index used so far; `index`, if not NULL,
/// receives its index. Texels as for `tld4_pool_set_texture`. After index 2^20 - 1 (the
/// last a handle can name) it is `TLD4_ERR_INVALID_ARGUMENT`, as `tld4_pool_set_texture`
/// gives for that index, and the pool is unchanged.
///
/// # Safety
/// As `tld4_pool_set_texture`; `index` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn tld4_pool_add_texture(
    pool: *mut tld4_pool,
    desc: *const tld4_texture_desc,
    fields: *const u32,
    count: usize,
    index: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let pool = in_mut(pool, "pool")?;
        let tex = texture(desc, fields, count)?;
        let at = pool.0.add_texture(tex).map_err(|source| Error::Texture {
            what: "the texture appended".into(),
            source,
        })?;
        out_opt(index, at);
        Ok(())
    })
}

/// The default sampler: clamp to edge on both axes, border (0, 0, 0, 0), compare off,
/// seamless cube edges.
///
/// # Safety
/// `out` is valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_sampler_default(
    out_ptr: *mut tld4_sampler_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        out(out_ptr, "out", tld4_sampler_desc::of(&Sampler::default()))
    })
}

/// Puts a sampler at sampler index `index` (0 ..= 4095; replacing any there).
///
/// # Safety
/// `pool` is live; `sampler` valid; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_pool_set_sampler(
    pool: *mut tld4_pool,
    index: u32,
    sampler: *const tld4_sampler_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let pool = in_mut(pool, "pool")?;
        let s = in_ref(sampler, "sampler")?.sampler()?;
        pool.0
            .set_sampler(index, s)
            .map_err(|source| Error::Texture {
                what: format!("sampler {index}"),
                source,
            })
    })
}

/// Appends a sampler after the highest sampler index used so far; `index`, if not NULL,
/// receives its index. After index 4095 (the last a handle can name) it is
/// `TLD4_ERR_INVALID_ARGUMENT`, as `tld4_pool_set_sampler` gives for that index, and the
/// pool is unchanged.
///
/// # Safety
/// `pool` is live; `sampler` valid; `index`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_pool_add_sampler(
    pool: *mut tld4_pool,
    sampler: *const tld4_sampler_desc,
    index: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let pool = in_mut(pool, "pool")?;
        let s = in_ref(sampler, "sampler")?.sampler()?;
        let at = pool.0.add_sampler(s).map_err(|source| Error::Texture {
            what: "the sampler appended".into(),
            source,
        })?;
        out_opt(index, at);
        Ok(())
    })
}

/// The handle word naming header `header` (bits 19:0) and sampler `sampler` (bits 31:20)
/// (docs/sources.md, NAK conventions); indices too large are `TLD4_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `handle` is valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_handle(
    header: u32,
    sampler: u32,
    handle: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let h = Handle::new(header, sampler).map_err(|source| Error::Texture {
            what: "handle".into(),
            source,
        })?;
        out(handle, "handle", h.0)
    })
}
