//! Names and presets a C caller would otherwise write itself: each status's stable name, a
//! format's bytes per texel, and Vulkan's named border colours as border words.

use std::ffi::c_char;

use tld4_emu::textures::{BorderColor, Format};

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
