//! The library's version, for C: `TLD4_VERSION_MAJOR`, `_MINOR`, `_PATCH` in the header (what
//! a program was compiled against) and `tld4_version()` (what it runs against). The macros
//! are literals for cbindgen; a test checks them against the package's version.

use std::ffi::c_char;

/// The major version this header belongs to.
pub const TLD4_VERSION_MAJOR: u32 = 0;
/// The minor version this header belongs to.
pub const TLD4_VERSION_MINOR: u32 = 1;
/// The patch version this header belongs to.
pub const TLD4_VERSION_PATCH: u32 = 0;

/// The version of the library linked in, `"MAJOR.MINOR.PATCH"` (a static string: never free
/// it); compare with the `TLD4_VERSION_*` macros of the header compiled against.
#[no_mangle]
pub extern "C" fn tld4_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_macros_are_the_package_version() {
        let v = format!("{TLD4_VERSION_MAJOR}.{TLD4_VERSION_MINOR}.{TLD4_VERSION_PATCH}");
        assert_eq!(v, env!("CARGO_PKG_VERSION"));
        let s = unsafe { std::ffi::CStr::from_ptr(tld4_version()) };
        assert_eq!(s.to_str().unwrap(), v);
    }
}
