//! The only places raw pointers from C are turned into Rust references: small functions,
//! each checking for NULL (an error naming the argument) before the one unsafe step.

use std::ffi::{c_char, CStr};

use crate::error::Error;

/// `p` as a shared reference, or [`Error::Null`] naming `what`.
///
/// # Safety
/// `p` is NULL or points to a valid, initialized `T` that nothing writes while `'a` lasts.
pub(crate) unsafe fn in_ref<'a, T>(p: *const T, what: &'static str) -> Result<&'a T, Error> {
    // SAFETY: the caller's guarantee; `as_ref` checks for NULL.
    unsafe { p.as_ref() }.ok_or(Error::Null(what))
}

/// `p` as an exclusive reference, or [`Error::Null`] naming `what`.
///
/// # Safety
/// `p` is NULL or points to a valid, initialized `T` that nothing else reads or writes while
/// `'a` lasts.
pub(crate) unsafe fn in_mut<'a, T>(p: *mut T, what: &'static str) -> Result<&'a mut T, Error> {
    // SAFETY: the caller's guarantee; `as_mut` checks for NULL.
    unsafe { p.as_mut() }.ok_or(Error::Null(what))
}

/// Writes `value` to `p` (its old content is neither read nor dropped), or [`Error::Null`].
///
/// # Safety
/// `p` is NULL or valid for a write of a `T`.
pub(crate) unsafe fn out<T>(p: *mut T, what: &'static str, value: T) -> Result<(), Error> {
    if p.is_null() {
        return Err(Error::Null(what));
    }
    // SAFETY: not NULL, and the caller guarantees it is valid for a write.
    unsafe { p.write(value) };
    Ok(())
}

/// Writes `value` to `p` if `p` is not NULL (an optional output).
///
/// # Safety
/// `p` is NULL or valid for a write of a `T`.
pub(crate) unsafe fn out_opt<T>(p: *mut T, value: T) {
    if !p.is_null() {
        // SAFETY: not NULL, and the caller guarantees it is valid for a write.
        unsafe { p.write(value) };
    }
}

/// `len` elements from `p` (NULL is accepted when `len` is 0).
///
/// # Safety
/// `p` is NULL or points to `len` valid, initialized elements that nothing writes while `'a`
/// lasts.
pub(crate) unsafe fn in_slice<'a, T>(
    p: *const T,
    len: usize,
    what: &'static str,
) -> Result<&'a [T], Error> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::Null(what));
    }
    if len
        .checked_mul(std::mem::size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(Error::Invalid(format!(
            "{what}: {len} elements is too many"
        )));
    }
    // SAFETY: not NULL, the length fits isize, and the caller guarantees `len` valid
    // elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// `len` writable elements from `p` (NULL is accepted when `len` is 0).
///
/// # Safety
/// `p` is NULL or points to `len` valid, initialized elements that nothing else reads or
/// writes while `'a` lasts.
pub(crate) unsafe fn in_slice_mut<'a, T>(
    p: *mut T,
    len: usize,
    what: &'static str,
) -> Result<&'a mut [T], Error> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Error::Null(what));
    }
    if len
        .checked_mul(std::mem::size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(Error::Invalid(format!(
            "{what}: {len} elements is too many"
        )));
    }
    // SAFETY: not NULL, the length fits isize, and the caller guarantees `len` valid
    // elements with no other access.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// A NUL-terminated UTF-8 string, or an error naming `what`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that nothing writes while `'a` lasts.
pub(crate) unsafe fn in_str<'a>(p: *const c_char, what: &'static str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(Error::Null(what));
    }
    // SAFETY: not NULL, and the caller guarantees a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map_err(|e| Error::Invalid(format!("{what} is not UTF-8: {e}")))
}

/// Copies `text` and a NUL into `buf` (`cap` bytes). `needed`, if not NULL, receives the
/// bytes needed (NUL included) in every case; a `cap` too small is
/// [`Error::BufferTooSmall`] and writes nothing into `buf` (which may then be NULL).
///
/// # Safety
/// `buf` is NULL or valid for writes of `cap` bytes; `needed` is NULL or valid for a write.
pub(crate) unsafe fn out_text(
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
    what: &'static str,
    text: &str,
) -> Result<(), Error> {
    let n = text.len() + 1;
    // SAFETY: the caller's guarantee on `needed`.
    unsafe { out_opt(needed, n) };
    if cap < n {
        return Err(Error::BufferTooSmall {
            what,
            needed: n,
            given: cap,
        });
    }
    if buf.is_null() {
        return Err(Error::Null(what));
    }
    // SAFETY: `buf` is not NULL and the caller guarantees `cap >= n` writable bytes; the
    // source is a distinct Rust string. Raw writes: `buf` may be uninitialized.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
    }
    Ok(())
}

/// Writes `items` to the array `p` of `cap` elements; `count`, if not NULL, receives
/// `items.len()` in every case. A `cap` too small is [`Error::BufferTooSmall`] and writes
/// nothing into `p` (which may then be NULL).
///
/// # Safety
/// `p` is NULL or valid for writes of `cap` elements; `count` is NULL or valid for a write.
pub(crate) unsafe fn out_array<T: Copy>(
    p: *mut T,
    cap: usize,
    count: *mut usize,
    what: &'static str,
    items: &[T],
) -> Result<(), Error> {
    // SAFETY: the caller's guarantee on `count`.
    unsafe { out_opt(count, items.len()) };
    if cap < items.len() {
        return Err(Error::BufferTooSmall {
            what,
            needed: items.len(),
            given: cap,
        });
    }
    if items.is_empty() {
        return Ok(());
    }
    if p.is_null() {
        return Err(Error::Null(what));
    }
    // SAFETY: `p` is not NULL and valid for `cap >= items.len()` element writes (the
    // caller's guarantee); the source is a distinct Rust slice.
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), p, items.len()) };
    Ok(())
}
