//! Texture headers (TIC entries) and samplers (TSC entries) from C: a plain description in,
//! the eight little-endian words a driver writes into the pools out, and back; and a
//! texture's texels written into the caller's memory in pitch or block-linear layout. The bit
//! positions are tld4-textures' tables (`TEXHEAD_V2_BL`, `TEXHEAD_V2_PITCH`, `TEXSAMP`,
//! after NVIDIA's clcd97tex.h: docs/sources.md, Descriptors; rendered in
//! docs/descriptors.md), never restated here.

use tld4_emu::gpu_memory::descriptor::tic::{HeaderLayout, TextureHeader};
use tld4_emu::gpu_memory::descriptor::tsc::{HwAddressMode, SamplerState, TEXSAMP};
use tld4_emu::gpu_memory::descriptor::{field, DescriptorError};
use tld4_emu::gpu_memory::to_memory;
use tld4_emu::textures::{BorderColor, CompareOp, Source, Swizzle};
use tld4_emu::{Format, Sampler};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::image::tld4_layout;
use crate::pool::{format_names, format_of, texture, tld4_sampler_desc, tld4_texture_desc, KINDS};
use crate::ptr::{in_ref, in_str, out, out_opt};

/// A component source of a texture header's swizzle (`tld4_tic_desc::swizzle`). These are
/// tld4's own numbers; the header's X/Y/Z/W_SOURCE fields hold clcd97tex.h's (IN_R = 2, ...),
/// which `tld4_tic_encode` writes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_swizzle {
    /// Component 0 of the texel (red).
    TLD4_SWIZZLE_R = 0,
    /// Component 1 (green).
    TLD4_SWIZZLE_G = 1,
    /// Component 2 (blue).
    TLD4_SWIZZLE_B = 2,
    /// Component 3 (alpha).
    TLD4_SWIZZLE_A = 3,
    /// Constant 0.
    TLD4_SWIZZLE_ZERO = 4,
    /// Constant 1 (1.0, or integer 1 for integer formats).
    TLD4_SWIZZLE_ONE = 5,
}

/// The hardware address modes of a sampler entry (`tld4_tsc_desc::address_u` and so on):
/// clcd97tex.h's `ADDRESS_U_*` numbers, which are NOT Vulkan's. `tld4_sampler_desc` takes
/// VkSamplerAddressMode numbers (4 is MIRROR_CLAMP_TO_EDGE there, CLAMP_OGL here);
/// `tld4_sampler_to_tsc` converts.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_tsc_address_mode {
    /// WRAP (Vulkan's REPEAT).
    TLD4_TSC_WRAP = 0,
    /// MIRROR (Vulkan's MIRRORED_REPEAT).
    TLD4_TSC_MIRROR = 1,
    /// CLAMP_TO_EDGE.
    TLD4_TSC_CLAMP_TO_EDGE = 2,
    /// BORDER (Vulkan's CLAMP_TO_BORDER).
    TLD4_TSC_BORDER = 3,
    /// CLAMP_OGL (OpenGL's GL_CLAMP; a gather with it is not modeled).
    TLD4_TSC_CLAMP_OGL = 4,
    /// MIRROR_ONCE_CLAMP_TO_EDGE (Vulkan's MIRROR_CLAMP_TO_EDGE).
    TLD4_TSC_MIRROR_ONCE_CLAMP_TO_EDGE = 5,
    /// MIRROR_ONCE_BORDER (not modeled).
    TLD4_TSC_MIRROR_ONCE_BORDER = 6,
    /// MIRROR_ONCE_CLAMP_OGL (not modeled).
    TLD4_TSC_MIRROR_ONCE_CLAMP_OGL = 7,
}

/// A texture header (TIC entry) described in plain fields: what `tld4_tic_encode` writes
/// and `tld4_tic_decode` reads. Every field not named here is 0 when encoded, except
/// BORDER_SOURCE (the sampler's colour), which is 1: the only value tld4 models.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_tic_desc {
    /// A `tld4_layout` value: `TEXHEAD_V2_PITCH` or `TEXHEAD_V2_BL`.
    pub layout: u32,
    /// Pitch layout: bytes from one row to the next (a multiple of 32), the header's
    /// PITCH_BITS21TO5. Not `layout_param` of `tld4_texels_write` / `tld4_image_entry`, which
    /// is a row alignment: those lay rows out at the row's bytes rounded up to it and write
    /// that pitch here (8 RGBA8 texels, alignment 64: pitch 64). Block-linear: 0.
    pub pitch: u32,
    /// Block-linear layout: log2 of the GOBs per block height (0..=5). Pitch: 0.
    pub gobs_per_block_height_log2: u32,
    /// GPU address of texel (0, 0) of layer 0 (512-byte aligned for block-linear, 32 for
    /// pitch; below 2^57).
    pub address: u64,
    /// A `tld4_texture_kind` value.
    pub kind: u32,
    /// The format's name (`tld4_format_name`); decoding stores a static string.
    pub format: *const std::ffi::c_char,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Array layers, or whole cubes for the cube kinds; 1 for 2D, cube and every pitch
    /// header (which has no depth field). The same count as `tld4_texture_desc::layers`,
    /// named after the header's DEPTH_MINUS_ONE field.
    pub depth: u32,
    /// The `tld4_swizzle` of result components x, y, z, w. `tld4_texels_write` gives the
    /// identity R, G, B, A for every format (a zeroed struct: R, R, R, R); components a
    /// format lacks then read 0, 0, 1 (G, B, A). NVK writes ZERO and ONE for them instead
    /// (`tld4_swizzle_nvk`): the same gathered values, other header bits.
    pub swizzle: [u32; 4],
    /// DEPTH_TEXTURE (kept; depth compare does not depend on it).
    pub depth_texture: bool,
    /// NORMALIZED_COORDS: true for coordinates normalized to 0..1 across the texture; false
    /// (a zeroed struct) for coordinates in texels, u = s (CUDA's `normalizedCoords = 0`),
    /// unless the sampler forces unnormalized ones anyway
    /// (docs/sources.md, Unnormalized coordinates).
    pub normalized_coords: bool,
}

/// A sampler (TSC entry) described in plain fields, with the hardware's numbers (see
/// `tld4_tsc_address_mode`): what `tld4_tsc_encode` writes and `tld4_tsc_decode` reads.
/// Every field not named here is 0 when encoded.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct tld4_tsc_desc {
    /// ADDRESS_U: a `tld4_tsc_address_mode` (hardware numbers, not Vulkan's).
    pub address_u: u32,
    /// ADDRESS_V, likewise.
    pub address_v: u32,
    /// ADDRESS_P, likewise (a gather ignores it).
    pub address_p: u32,
    /// DEPTH_COMPARE.
    pub depth_compare: bool,
    /// DEPTH_COMPARE_FUNC: ZC_NEVER 0 .. ZC_ALWAYS 7 (VkCompareOp's order).
    pub compare_func: u32,
    /// CUBEMAP_INTERFACE_FILTERING: 0 USE_WRAP (faces one by one), 2 AUTO_SPAN_SEAM
    /// (seamless); 1 and 3 are not modeled.
    pub cube_filtering: u32,
    /// MAG_FILTER raw value (a gather ignores it).
    pub mag_filter: u32,
    /// MIN_FILTER raw value (a gather ignores it).
    pub min_filter: u32,
    /// MIP_FILTER raw value (a gather ignores it).
    pub mip_filter: u32,
    /// MAX_ANISOTROPY raw value (a gather ignores it).
    pub max_anisotropy: u32,
    /// BORDER_COLOR_R, G, B, A words.
    pub border: [u32; 4],
    /// FLOAT_COORD_NORMALIZATION: true for FORCE_UNNORMALIZED_COORDS (coordinates in texels
    /// whatever the texture header says), false for USE_HEADER_SETTING (the header's
    /// NORMALIZED_COORDS decides) (docs/sources.md, Unnormalized coordinates).
    pub force_unnormalized_coords: bool,
}

/// A descriptor error, with what was being encoded or decoded.
pub(crate) fn descriptor(what: &str) -> impl FnOnce(DescriptorError) -> Error + '_ {
    move |source| Error::Descriptor {
        what: what.to_string(),
        source,
    }
}

impl tld4_tic_desc {
    /// The typed header this describes.
    pub(crate) fn header(&self) -> Result<TextureHeader, Error> {
        // SAFETY: the caller of the entry point guarantees `format` is a NUL-terminated string.
        let format = format_of(unsafe { in_str(self.format, "desc.format") }?)?;
        let kind = KINDS
            .iter()
            .find(|(c, _)| *c as u32 == self.kind)
            .map(|&(_, k)| k)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "desc.kind = {}: not a tld4_texture_kind (0..={})",
                    self.kind,
                    KINDS.len() - 1
                ))
            })?;
        for (v, name) in [
            (self.width, "width"),
            (self.height, "height"),
            (self.depth, "depth"),
        ] {
            if v == 0 {
                return Err(Error::Invalid(format!("desc.{name} = 0: at least 1")));
            }
        }
        let layout = match self.layout {
            l if l == tld4_layout::TLD4_LAYOUT_PITCH as u32 => {
                HeaderLayout::Pitch { pitch: self.pitch }
            }
            l if l == tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR as u32 => HeaderLayout::BlockLinear {
                gobs_per_block_height_log2: u8::try_from(self.gobs_per_block_height_log2)
                    .ok()
                    .filter(|&g| g <= 5)
                    .ok_or_else(|| {
                        Error::Invalid(format!(
                            "desc.gobs_per_block_height_log2 = {}: 0..=5",
                            self.gobs_per_block_height_log2
                        ))
                    })?,
            },
            l => {
                return Err(Error::Invalid(format!(
                    "desc.layout = {l}: not a tld4_layout (0 pitch, 1 block-linear)"
                )))
            }
        };
        let mut swizzle = [Source::R; 4];
        for (k, &v) in self.swizzle.iter().enumerate() {
            swizzle[k] = *Source::ALL.get(v as usize).ok_or_else(|| {
                Error::Invalid(format!(
                    "desc.swizzle[{k}] = {v}: not a tld4_swizzle (0..=5)"
                ))
            })?;
        }
        Ok(TextureHeader {
            layout,
            address: self.address,
            kind,
            format,
            width: self.width,
            height: self.height,
            depth: self.depth,
            swizzle: Swizzle(swizzle),
            normalized_coords: self.normalized_coords,
            depth_texture: self.depth_texture,
            border_from_sampler: true,
            words: [0; 8],
        })
    }

    /// The description of a decoded header.
    pub(crate) fn of(h: &TextureHeader) -> Self {
        let (layout, pitch, gobs) = match h.layout {
            HeaderLayout::Pitch { pitch } => (tld4_layout::TLD4_LAYOUT_PITCH, pitch, 0),
            HeaderLayout::BlockLinear {
                gobs_per_block_height_log2,
            } => (
                tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR,
                0,
                gobs_per_block_height_log2 as u32,
            ),
        };
        let format = Format::ALL
            .iter()
            .position(|&f| f == h.format)
            .and_then(|i| format_names().get(i))
            .map_or(std::ptr::null(), |s| s.as_ptr());
        let kind = KINDS
            .iter()
            .find(|(_, k)| *k == h.kind)
            .map_or(0, |(c, _)| *c as u32);
        let source = |s: Source| Source::ALL.iter().position(|&x| x == s).unwrap_or(0) as u32;
        tld4_tic_desc {
            layout: layout as u32,
            pitch,
            gobs_per_block_height_log2: gobs,
            address: h.address,
            kind,
            format,
            width: h.width,
            height: h.height,
            depth: h.depth,
            swizzle: h.swizzle.0.map(source),
            depth_texture: h.depth_texture,
            normalized_coords: h.normalized_coords,
        }
    }
}

impl tld4_tsc_desc {
    /// The typed sampler entry this describes; a value past its field is invalid input
    /// naming the field (the widths are `TEXSAMP`'s).
    pub(crate) fn state(&self) -> Result<SamplerState, Error> {
        let fit = |name: &'static str, what: &str, v: u32| -> Result<u32, Error> {
            let max = field(TEXSAMP, name).map_or(0, |f| f.max());
            if u64::from(v) > max {
                return Err(Error::Invalid(format!(
                    "desc.{what} = {v}: {name} holds 0..={max}"
                )));
            }
            Ok(v)
        };
        let mode = |name, what, v| fit(name, what, v).map(|v| HwAddressMode::ALL[v as usize & 7]);
        Ok(SamplerState {
            address: [
                mode("ADDRESS_U", "address_u", self.address_u)?,
                mode("ADDRESS_V", "address_v", self.address_v)?,
                mode("ADDRESS_P", "address_p", self.address_p)?,
            ],
            depth_compare: self.depth_compare,
            compare_func: CompareOp::ALL
                [fit("DEPTH_COMPARE_FUNC", "compare_func", self.compare_func)? as usize & 7],
            cube_filtering: fit(
                "CUBEMAP_INTERFACE_FILTERING",
                "cube_filtering",
                self.cube_filtering,
            )? as u8,
            filters: [
                fit("MAG_FILTER", "mag_filter", self.mag_filter)? as u8,
                fit("MIN_FILTER", "min_filter", self.min_filter)? as u8,
                fit("MIP_FILTER", "mip_filter", self.mip_filter)? as u8,
            ],
            max_anisotropy: fit("MAX_ANISOTROPY", "max_anisotropy", self.max_anisotropy)? as u8,
            force_unnormalized_coords: self.force_unnormalized_coords,
            border: BorderColor { words: self.border },
            words: [0; 8],
        })
    }

    /// The description of a decoded sampler entry.
    pub(crate) fn of(s: &SamplerState) -> Self {
        tld4_tsc_desc {
            address_u: s.address[0] as u32,
            address_v: s.address[1] as u32,
            address_p: s.address[2] as u32,
            depth_compare: s.depth_compare,
            compare_func: s.compare_func as u32,
            cube_filtering: s.cube_filtering as u32,
            mag_filter: s.filters[0] as u32,
            min_filter: s.filters[1] as u32,
            mip_filter: s.filters[2] as u32,
            max_anisotropy: s.max_anisotropy as u32,
            border: s.border.words,
            force_unnormalized_coords: s.force_unnormalized_coords,
        }
    }
}

/// Writes `words` to the caller's eight.
///
/// # Safety
/// `p` is NULL or valid for eight writes.
pub(crate) unsafe fn out_words(p: *mut u32, words: &[u32; 8]) -> Result<(), Error> {
    if p.is_null() {
        return Err(Error::Null("words"));
    }
    // SAFETY: not NULL, valid for eight writes (the caller's guarantee).
    unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), p, 8) };
    Ok(())
}

/// Reads the caller's eight words.
///
/// # Safety
/// `p` is NULL or valid for eight reads.
pub(crate) unsafe fn in_words(p: *const u32) -> Result<[u32; 8], Error> {
    if p.is_null() {
        return Err(Error::Null("words"));
    }
    let mut w = [0u32; 8];
    // SAFETY: not NULL, valid for eight reads (the caller's guarantee).
    unsafe { std::ptr::copy_nonoverlapping(p, w.as_mut_ptr(), 8) };
    Ok(w)
}

/// Encodes a texture header: `words[0..8]` receive the 32-byte TIC entry (word k is bytes
/// 4k..4k+3 of the entry, little-endian) to store at `header_pool + 32 * index`. The header
/// is checked by decoding it back as an execution would: a value no hardware accepts (an
/// address misaligned for the layout or at or above 2^57, a pitch below a row of texels,
/// a cube that is not square) is `TLD4_ERR_DESCRIPTOR`, a legal header tld4 does not model
/// (block-linear 1- and 2-byte texels, a pitch array or cube) `TLD4_ERR_NOT_MODELED`, and
/// an argument that is no value at all `TLD4_ERR_INVALID_ARGUMENT`; nothing is written then.
///
/// # Safety
/// `desc` valid with a NUL-terminated `format`; `words` valid for 8 writes; `err` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tic_encode(
    desc: *const tld4_tic_desc,
    words: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let h = in_ref(desc, "desc")?.header()?;
        let w = h.encode().map_err(descriptor("texture header"))?;
        TextureHeader::decode(&w).map_err(descriptor("texture header"))?;
        out_words(words, &w)
    })
}

/// Decodes a texture header's eight words (as `tld4_tic_encode` writes them) into `*desc`.
/// A header an execution would refuse is refused the same way: `TLD4_ERR_DESCRIPTOR` for a
/// value no hardware accepts, `TLD4_ERR_NOT_MODELED` for one tld4 does not model (the
/// message names the field and value).
///
/// # Safety
/// `words` valid for 8 reads; `desc` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tic_decode(
    words: *const u32,
    desc: *mut tld4_tic_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let w = in_words(words)?;
        let h = TextureHeader::decode(&w).map_err(descriptor("texture header"))?;
        out(desc, "desc", tld4_tic_desc::of(&h))
    })
}

/// Encodes a sampler: `words[0..8]` receive the 32-byte TSC entry to store at
/// `sampler_pool + 32 * index`. A value past its field is `TLD4_ERR_INVALID_ARGUMENT`
/// naming it. Address modes are the hardware's numbers (`tld4_tsc_address_mode`).
///
/// # Safety
/// `desc` valid; `words` valid for 8 writes; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tsc_encode(
    desc: *const tld4_tsc_desc,
    words: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let s = in_ref(desc, "desc")?.state()?;
        out_words(words, &s.encode())
    })
}

/// Decodes a sampler's eight words into `*desc` (every value of every field it names is
/// defined, so this never refuses; whether a gather models the sampler is decided when it
/// executes, as the fault `TLD4_FAULT_NOT_MODELED`).
///
/// # Safety
/// `words` valid for 8 reads; `desc` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tsc_decode(
    words: *const u32,
    desc: *mut tld4_tsc_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let w = in_words(words)?;
        out(desc, "desc", tld4_tsc_desc::of(&SamplerState::decode(&w)))
    })
}

/// The sampler entry a driver writes for a `tld4_sampler_desc` (Vulkan's numbers) into
/// `*tsc` (hardware numbers): REPEAT becomes WRAP, MIRROR_CLAMP_TO_EDGE (4) becomes
/// MIRROR_ONCE_CLAMP_TO_EDGE (5), ADDRESS_P is set to u's mode (Vulkan's addressModeW, which
/// `tld4_sampler_desc` lacks and no 2D or cube gather reads: a decision, docs/sources.md,
/// Decisions; set `address_p` of the result to change it), cube filtering is AUTO_SPAN_SEAM when
/// seamless and USE_WRAP otherwise (as NVK writes them: docs/sources.md, NAK conventions),
/// filters linear (which a gather ignores).
///
/// # Safety
/// `sampler` valid; `tsc` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_sampler_to_tsc(
    sampler: *const tld4_sampler_desc,
    tsc: *mut tld4_tsc_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let s: Sampler = in_ref(sampler, "sampler")?.sampler()?;
        out(
            tsc,
            "tsc",
            tld4_tsc_desc::of(&SamplerState::from_sampler(&s)),
        )
    })
}

/// Lays a texture's texels out in GPU memory as the hardware reads them, for the caller to
/// place at GPU address `address`: `desc`, `fields` and `count` as for
/// `tld4_pool_set_texture`; `layout` a `tld4_layout` with `layout_param` as in
/// `tld4_image_entry` (pitch: the row alignment in bytes, a multiple of 32, 2D only;
/// block-linear: log2 GOBs per block height, 0..=5, 4-byte texels or wider). `address` must
/// be aligned as the layout requires (512 bytes block-linear, 32 pitch).
///
/// `*needed` (if not NULL) receives the extent in bytes in every case: every layer, padding
/// included, from `address`. The bytes go to `dst` (`cap` bytes; too small is
/// `TLD4_ERR_BUFFER_TOO_SMALL` with nothing else written: call with `cap` 0 to learn the
/// extent). `*header` (if not NULL) receives the texture header describing them (address,
/// layout, pitch, size, format), ready for `tld4_tic_encode`.
///
/// # Safety
/// `desc` valid with a NUL-terminated `format`; `fields` NULL (with `count` 0) or `count`
/// values; `dst` NULL or valid for `cap` writes; `needed`, `header`, `err` NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_texels_write(
    desc: *const tld4_texture_desc,
    fields: *const u32,
    count: usize,
    layout: u32,
    layout_param: u32,
    address: u64,
    dst: *mut u8,
    cap: usize,
    needed: *mut usize,
    header: *mut tld4_tic_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let tex = texture(desc, fields, count)?;
        let choice = crate::image::layout_choice(layout, layout_param, "")?;
        let form = to_memory(&tex, &Sampler::default(), choice, address).map_err(|source| {
            Error::Memory {
                what: "texels".into(),
                source,
                code: None,
                texel: None,
            }
        })?;
        crate::ptr::out_array(dst, cap, needed, "dst", &form.bytes)?;
        out_opt(header, tld4_tic_desc::of(&form.header));
        Ok(())
    })
}
