//! Names and presets a C caller would otherwise write itself: each status's stable name, a
//! format's bytes per texel, Vulkan's named border colours as border words, and NVK's
//! swizzle for a format's missing components.

use std::ffi::c_char;

use tld4_emu::textures::{BorderColor, Format};

use crate::descriptor::tld4_swizzle;
use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::pool::format_of;
use crate::ptr::{in_str, out};

/// Every status with its stable name (the variant's name without `TLD4_ERR_`, lower case;
/// `"ok"`), one row a status.
const STATUS_NAMES: &[(tld4_status, &std::ffi::CStr)] = &[
    (tld4_status::TLD4_OK, c"ok"),
    (tld4_status::TLD4_ERR_NULL_POINTER, c"null_pointer"),
    (tld4_status::TLD4_ERR_INVALID_ARGUMENT, c"invalid_argument"),
    (tld4_status::TLD4_ERR_ILLEGAL_ENCODING, c"illegal_encoding"),
    (tld4_status::TLD4_ERR_PARSE, c"parse"),
    (tld4_status::TLD4_ERR_NOT_MODELED, c"not_modeled"),
    (tld4_status::TLD4_ERR_WARP_FAULT, c"warp_fault"),
    (tld4_status::TLD4_ERR_CUBIN, c"cubin"),
    (tld4_status::TLD4_ERR_IO, c"io"),
    (tld4_status::TLD4_ERR_BUFFER_TOO_SMALL, c"buffer_too_small"),
    (tld4_status::TLD4_ERR_PANIC, c"panic"),
    (tld4_status::TLD4_ERR_DESCRIPTOR, c"descriptor"),
    (tld4_status::TLD4_ERR_MEMORY, c"memory"),
    (tld4_status::TLD4_ERR_UNKNOWN_ARCH, c"unknown_arch"),
];

/// The stable name of a status (`"ok"`, `"illegal_encoding"`: the enum's name without
/// `TLD4_` / `TLD4_ERR_`, lower case), or NULL for a value that is no status. The string is
/// static: never free it.
#[no_mangle]
pub extern "C" fn tld4_status_name(status: i32) -> *const c_char {
    quiet(std::ptr::null(), || {
        STATUS_NAMES
            .iter()
            .find(|(s, _)| *s as i32 == status)
            .map_or(std::ptr::null(), |(_, n)| n.as_ptr())
    })
}

/// Bytes one texel of the format `format` (a name `tld4_format_name` lists) takes in memory:
/// its storage elements times their width (packed formats: 4), into `bytes`.
///
/// # Safety
/// `format` is NULL or a NUL-terminated string; `bytes` and `err` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_format_bytes_per_texel(
    format: *const c_char,
    bytes: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let f: Format = format_of(in_str(format, "format")?)?;
        out(bytes, "bytes", f.texel_bytes())
    })
}

/// Vulkan's named border colours, by their VkBorderColor value: 0 FLOAT_TRANSPARENT_BLACK,
/// 1 INT_TRANSPARENT_BLACK, 2 FLOAT_OPAQUE_BLACK, 3 INT_OPAQUE_BLACK, 4 FLOAT_OPAQUE_WHITE,
/// 5 INT_OPAQUE_WHITE (the Vulkan specification's VkBorderColor; the words are
/// tld4-textures' `BorderColor` constants: f32 bits for the float ones, integers for the int
/// ones). The custom and sRGB colours have no preset: give their words.
const VK_BORDERS: [BorderColor; 6] = [
    BorderColor::FLOAT_TRANSPARENT_BLACK,
    BorderColor::INT_TRANSPARENT_BLACK,
    BorderColor::FLOAT_OPAQUE_BLACK,
    BorderColor::INT_OPAQUE_BLACK,
    BorderColor::FLOAT_OPAQUE_WHITE,
    BorderColor::INT_OPAQUE_WHITE,
];

/// The border words (for `tld4_sampler_desc.border`) of Vulkan's named border colour
/// `vk_border_color` (a VkBorderColor value, 0..5), into `words` (four).
///
/// # Safety
/// `words` is NULL or points to four writable `uint32_t`; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_border_vulkan(
    vk_border_color: u32,
    words: *mut [u32; 4],
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let b = VK_BORDERS.get(vk_border_color as usize).ok_or_else(|| {
            Error::Invalid(format!(
                "vk_border_color = {vk_border_color}: VkBorderColor's named colours are 0..5 (custom colours: give the words)"
            ))
        })?;
        out(words, "words", b.words)
    })
}

/// The swizzle NVK writes into a header for `format` (a name `tld4_format_name` lists), into
/// `swizzle` (four `tld4_swizzle` values for `tld4_tic_desc::swizzle`): each component the
/// format has from itself, a missing G or B from ZERO and a missing A from ONE (R8: R, 0, 0,
/// 1; RG16: R, G, 0, 1), where `tld4_texels_write` and a zeroed description give the
/// identity R, G, B, A. tld4 gathers the same values from both (a missing component reads
/// the (0, 0, 0, 1) fill, Vulkan's conversion to RGBA); the headers' X/Y/Z/W_SOURCE bits
/// differ, and what the hardware reads for IN_G of a one-component format is unmeasured
/// (docs/sources.md, Descriptors).
///
/// # Safety
/// `format` is NULL or a NUL-terminated string; `swizzle` NULL or valid for four writes;
/// `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_swizzle_nvk(
    format: *const c_char,
    swizzle: *mut [u32; 4],
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        use tld4_swizzle::*;
        let f: Format = format_of(in_str(format, "format")?)?;
        let own = [
            TLD4_SWIZZLE_R,
            TLD4_SWIZZLE_G,
            TLD4_SWIZZLE_B,
            TLD4_SWIZZLE_A,
        ];
        let s: [u32; 4] = std::array::from_fn(|c| {
            if c < f.components() {
                own[c] as u32
            } else if c == 3 {
                TLD4_SWIZZLE_ONE as u32
            } else {
                TLD4_SWIZZLE_ZERO as u32
            }
        });
        out(swizzle, "swizzle", s)
    })
}

/// The raw value of field `field` (0-based, as `tld4_pool_set_texture` orders a texel's
/// fields) of `format` holding the integer `value`, into `*raw`: for an SNORM or SINT field
/// its two's complement in the field's width (-1 in an 8-bit SNORM field is 0xff, not
/// 0xffffffff, which `tld4_pool_set_texture` refuses as too wide), for any other field
/// `value` itself. A value outside the field's range (-2^(w-1) .. 2^(w-1) - 1 signed,
/// 0 .. 2^w - 1 otherwise) is `TLD4_ERR_INVALID_ARGUMENT` (the widths and signedness are
/// tld4-textures' format table).
///
/// # Safety
/// `format` is NULL or a NUL-terminated string; `raw` and `err` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_field_from_int(
    format: *const c_char,
    field: u32,
    value: i64,
    raw: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let name = in_str(format, "format")?;
        let f: Format = format_of(name)?;
        let i = field as usize;
        if i >= f.fields() {
            return Err(Error::Invalid(format!(
                "field = {field}: {name} has {} fields a texel",
                f.fields()
            )));
        }
        let w = f.field_bits(i);
        let (lo, hi) = if f.field_is_signed(i) {
            (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
        } else {
            (0, (1i64 << w) - 1)
        };
        if !(lo..=hi).contains(&value) {
            return Err(Error::Invalid(format!(
                "value = {value}: field {field} of {name} holds {lo}..={hi}"
            )));
        }
        let mask = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
        out(raw, "raw", value as u32 & mask)
    })
}
