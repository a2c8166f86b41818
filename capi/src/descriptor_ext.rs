//! The descriptor fields a gather does not read but a driver writes (NVK: the LOD quality
//! and anisotropy bits, SECTOR_PROMOTION, TWO_D_NO_MIPMAP for pitch textures; the sampler's
//! sRGB conversion, font filter, sRGB border colour and LOD fields), set and read from C
//! beside `tld4_tic_desc` / `tld4_tsc_desc` in structs of their own, so the existing structs
//! and functions keep their layout and meaning (the ABI of 0.1 callers is unchanged). The
//! model keeps them as raw bits in the descriptor's words (`TextureHeader::words`,
//! `SamplerState::words`): no source says they change a gather's values (docs/sources.md,
//! Descriptors). Bit positions are tld4-gpu-memory's tables, named here, never restated.

use tld4_emu::gpu_memory::descriptor::tic::TEXTURE_TYPES;
use tld4_emu::gpu_memory::descriptor::tsc::{SamplerState, TEXSAMP};
use tld4_emu::gpu_memory::descriptor::{field, DescField};
use tld4_emu::gpu_memory::TextureHeader;
use tld4_emu::textures::TextureKind;

use crate::descriptor::{descriptor, in_words, out_words, tld4_tic_desc, tld4_tsc_desc};
use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::ptr::{in_ref, out, out_opt};

/// Texture-header fields beyond `tld4_tic_desc` (raw values of the clcd97tex.h fields each
/// member names; a zeroed struct is what `tld4_tic_encode` writes). None changes a gather.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tld4_tic_extra {
    /// TEXTURE_TYPE TWO_D_NO_MIPMAP instead of TWO_D, for a 2D texture (what NVK writes for
    /// pitch textures); the texture unit reads both as 2D (level 0).
    pub two_d_no_mipmap: bool,
    /// SECTOR_PROMOTION (2 bits: L1 sector promotion).
    pub sector_promotion: u32,
    /// LOD_ANISO_QUALITY2 (1 bit).
    pub lod_aniso_quality2: u32,
    /// LOD_ANISO_QUALITY (1 bit).
    pub lod_aniso_quality: u32,
    /// LOD_ISO_QUALITY (1 bit).
    pub lod_iso_quality: u32,
    /// ANISO_COARSE_SPREAD_MODIFIER (2 bits).
    pub aniso_coarse_spread_modifier: u32,
    /// ANISO_SPREAD_SCALE (5 bits).
    pub aniso_spread_scale: u32,
    /// ANISO_SPREAD_MAX_LOG2 (3 bits).
    pub aniso_spread_max_log2: u32,
    /// ANISO_FINE_SPREAD_FUNC (2 bits).
    pub aniso_fine_spread_func: u32,
    /// ANISO_COARSE_SPREAD_FUNC (2 bits).
    pub aniso_coarse_spread_func: u32,
    /// ANISO_FINE_SPREAD_MODIFIER (2 bits).
    pub aniso_fine_spread_modifier: u32,
    /// MAX_ANISOTROPY (3 bits).
    pub max_anisotropy: u32,
    /// ANISO_BIAS (4 bits).
    pub aniso_bias: u32,
    /// USE_HEADER_OPT_CONTROL (1 bit; block-linear headers only: the pitch header has no
    /// such field, and a non-zero value there is `TLD4_ERR_INVALID_ARGUMENT`).
    pub use_header_opt_control: u32,
    /// TRILIN_OPT (5 bits).
    pub trilin_opt: u32,
    /// MIP_LOD_BIAS (13 bits).
    pub mip_lod_bias: u32,
    /// MIN_LOD_CLAMP (12 bits).
    pub min_lod_clamp: u32,
}

impl tld4_tic_extra {
    /// Each raw member with the field it holds: the one list of the mapping.
    fn members(&mut self) -> [(&'static str, &'static str, &mut u32); 16] {
        [
            (
                "sector_promotion",
                "SECTOR_PROMOTION",
                &mut self.sector_promotion,
            ),
            (
                "lod_aniso_quality2",
                "LOD_ANISO_QUALITY2",
                &mut self.lod_aniso_quality2,
            ),
            (
                "lod_aniso_quality",
                "LOD_ANISO_QUALITY",
                &mut self.lod_aniso_quality,
            ),
            (
                "lod_iso_quality",
                "LOD_ISO_QUALITY",
                &mut self.lod_iso_quality,
            ),
            (
                "aniso_coarse_spread_modifier",
                "ANISO_COARSE_SPREAD_MODIFIER",
                &mut self.aniso_coarse_spread_modifier,
            ),
            (
                "aniso_spread_scale",
                "ANISO_SPREAD_SCALE",
                &mut self.aniso_spread_scale,
            ),
            (
                "aniso_spread_max_log2",
                "ANISO_SPREAD_MAX_LOG2",
                &mut self.aniso_spread_max_log2,
            ),
            (
                "aniso_fine_spread_func",
                "ANISO_FINE_SPREAD_FUNC",
                &mut self.aniso_fine_spread_func,
            ),
            (
                "aniso_coarse_spread_func",
                "ANISO_COARSE_SPREAD_FUNC",
                &mut self.aniso_coarse_spread_func,
            ),
            (
                "aniso_fine_spread_modifier",
                "ANISO_FINE_SPREAD_MODIFIER",
                &mut self.aniso_fine_spread_modifier,
            ),
            ("max_anisotropy", "MAX_ANISOTROPY", &mut self.max_anisotropy),
            ("aniso_bias", "ANISO_BIAS", &mut self.aniso_bias),
            (
                "use_header_opt_control",
                "USE_HEADER_OPT_CONTROL",
                &mut self.use_header_opt_control,
            ),
            ("trilin_opt", "TRILIN_OPT", &mut self.trilin_opt),
            ("mip_lod_bias", "MIP_LOD_BIAS", &mut self.mip_lod_bias),
            ("min_lod_clamp", "MIN_LOD_CLAMP", &mut self.min_lod_clamp),
        ]
    }
}

/// Sampler fields beyond `tld4_tsc_desc` (raw values of the clcd97tex.h TEXSAMP fields each
/// member names; a zeroed struct is what `tld4_tsc_encode` writes). The model reads none of
/// them: a border texel is the BORDER_COLOR_R..A words (`tld4_tsc_desc::border`) whatever
/// S_R_G_B_CONVERSION and the sRGB border bytes say (docs/sources.md, Decisions).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tld4_tsc_extra {
    /// S_R_G_B_CONVERSION (1 bit: sRGB conversion of the border colour).
    pub s_r_g_b_conversion: u32,
    /// FONT_FILTER (word 0 bits 19:14, 6 bits: NVK's font filter width and height, which
    /// clcd97tex.h leaves unnamed).
    pub font_filter: u32,
    /// S_R_G_B_BORDER_COLOR_R (8 bits).
    pub srgb_border_r: u32,
    /// S_R_G_B_BORDER_COLOR_G (8 bits).
    pub srgb_border_g: u32,
    /// S_R_G_B_BORDER_COLOR_B (8 bits).
    pub srgb_border_b: u32,
    /// MIP_LOD_BIAS (13 bits).
    pub mip_lod_bias: u32,
    /// MIN_LOD_CLAMP (12 bits).
    pub min_lod_clamp: u32,
    /// MAX_LOD_CLAMP (12 bits).
    pub max_lod_clamp: u32,
    /// TRILIN_OPT (5 bits).
    pub trilin_opt: u32,
}

impl tld4_tsc_extra {
    /// Each member with the field it holds: the one list of the mapping.
    fn members(&mut self) -> [(&'static str, &'static str, &mut u32); 9] {
        [
            (
                "s_r_g_b_conversion",
                "S_R_G_B_CONVERSION",
                &mut self.s_r_g_b_conversion,
            ),
            ("font_filter", "FONT_FILTER", &mut self.font_filter),
            (
                "srgb_border_r",
                "S_R_G_B_BORDER_COLOR_R",
                &mut self.srgb_border_r,
            ),
            (
                "srgb_border_g",
                "S_R_G_B_BORDER_COLOR_G",
                &mut self.srgb_border_g,
            ),
            (
                "srgb_border_b",
                "S_R_G_B_BORDER_COLOR_B",
                &mut self.srgb_border_b,
            ),
            ("mip_lod_bias", "MIP_LOD_BIAS", &mut self.mip_lod_bias),
            ("min_lod_clamp", "MIN_LOD_CLAMP", &mut self.min_lod_clamp),
            ("max_lod_clamp", "MAX_LOD_CLAMP", &mut self.max_lod_clamp),
            ("trilin_opt", "TRILIN_OPT", &mut self.trilin_opt),
        ]
    }
}

/// Writes each member into `words` at its field of `table`; a value past the field, or a
/// non-zero value for a field the table lacks, is invalid input naming the member.
fn put(
    members: &[(&'static str, &'static str, &mut u32)],
    table: &[DescField],
    words: &mut [u32; 8],
) -> Result<(), Error> {
    for (member, name, v) in members {
        let v = u64::from(**v);
        match field(table, name) {
            Some(f) if v <= f.max() => f
                .set(words, v)
                .map_err(|_| Error::Invalid(format!("extra.{member}: {name}")))?,
            Some(f) => {
                return Err(Error::Invalid(format!(
                    "extra.{member} = {v}: {name} holds 0..={}",
                    f.max()
                )))
            }
            None if v == 0 => {}
            None => {
                return Err(Error::Invalid(format!(
                    "extra.{member} = {v}: this header version has no {name}"
                )))
            }
        }
    }
    Ok(())
}

/// Reads each member from `words` at its field of `table` (0 where the table lacks it).
fn get(
    members: &mut [(&'static str, &'static str, &mut u32)],
    table: &[DescField],
    words: &[u32; 8],
) {
    for (_, name, v) in members.iter_mut() {
        **v = field(table, name).map_or(0, |f| f.get(words) as u32);
    }
}

/// TEXTURE_TYPE TWO_D_NO_MIPMAP's value (clcd97tex.h, the `TEXTURE_TYPES` table).
fn two_d_no_mipmap() -> u64 {
    TEXTURE_TYPES
        .iter()
        .find(|t| t.1 == "TWO_D_NO_MIPMAP")
        .map_or(7, |t| t.0)
}

/// As `tld4_tic_encode`, with the fields of `*extra` (NULL: all 0, as `tld4_tic_encode`)
/// written too; a member past its field, or `two_d_no_mipmap` on a kind other than 2D, is
/// `TLD4_ERR_INVALID_ARGUMENT` naming it.
///
/// # Safety
/// `desc` valid with a NUL-terminated `format`; `extra` NULL or valid; `words` valid for 8
/// writes; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tic_encode_ext(
    desc: *const tld4_tic_desc,
    extra: *const tld4_tic_extra,
    words: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let mut h: TextureHeader = in_ref(desc, "desc")?.header()?;
        // NULL or valid (the caller's guarantee)
        let mut x = extra.as_ref().copied().unwrap_or_default();
        let table = h.table();
        put(&x.members(), table, &mut h.words)?;
        if x.two_d_no_mipmap {
            if h.kind != TextureKind::Tex2D {
                return Err(Error::Invalid(format!(
                    "extra.two_d_no_mipmap: TWO_D_NO_MIPMAP is a 2D type, the kind is {:?}",
                    h.kind
                )));
            }
            if let Some(f) = field(table, "TEXTURE_TYPE") {
                f.set(&mut h.words, two_d_no_mipmap())
                    .map_err(descriptor("texture header"))?;
            }
        }
        let w = h.encode().map_err(descriptor("texture header"))?;
        TextureHeader::decode(&w).map_err(descriptor("texture header"))?;
        out_words(words, &w)
    })
}

/// As `tld4_tic_decode`, with the fields `tld4_tic_extra` names into `*extra` (if not NULL).
///
/// # Safety
/// `words` valid for 8 reads; `desc` valid for a write; `extra`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tic_decode_ext(
    words: *const u32,
    desc: *mut tld4_tic_desc,
    extra: *mut tld4_tic_extra,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let w = in_words(words)?;
        let h = TextureHeader::decode(&w).map_err(descriptor("texture header"))?;
        out(desc, "desc", tld4_tic_desc::of(&h))?;
        let mut x = tld4_tic_extra::default();
        get(&mut x.members(), h.table(), &w);
        x.two_d_no_mipmap = h.field("TEXTURE_TYPE") == Some(two_d_no_mipmap());
        out_opt(extra, x);
        Ok(())
    })
}

/// As `tld4_tsc_encode`, with the fields of `*extra` (NULL: all 0) written too; a member
/// past its field is `TLD4_ERR_INVALID_ARGUMENT` naming it.
///
/// # Safety
/// `desc` valid; `extra` NULL or valid; `words` valid for 8 writes; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tsc_encode_ext(
    desc: *const tld4_tsc_desc,
    extra: *const tld4_tsc_extra,
    words: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let s: SamplerState = in_ref(desc, "desc")?.state()?;
        // NULL or valid (the caller's guarantee)
        let mut x = extra.as_ref().copied().unwrap_or_default();
        let mut raw = s.words;
        put(&x.members(), TEXSAMP, &mut raw)?;
        out_words(words, &SamplerState { words: raw, ..s }.encode())
    })
}

/// As `tld4_tsc_decode`, with the fields `tld4_tsc_extra` names into `*extra` (if not NULL).
///
/// # Safety
/// `words` valid for 8 reads; `desc` valid for a write; `extra`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tsc_decode_ext(
    words: *const u32,
    desc: *mut tld4_tsc_desc,
    extra: *mut tld4_tsc_extra,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let w = in_words(words)?;
        out(desc, "desc", tld4_tsc_desc::of(&SamplerState::decode(&w)))?;
        let mut x = tld4_tsc_extra::default();
        get(&mut x.members(), TEXSAMP, &w);
        out_opt(extra, x);
        Ok(())
    })
}
