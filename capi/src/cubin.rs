//! A TLD4 from a cubin (or a fat binary or host ELF file holding SM100 cubins), by kernel
//! name and byte offset, through tld4-cubin.

use std::ffi::c_char;

use tld4_cubin::{find_kernel, map_file, SUPPORTED};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::insn::{tld4_insn, tld4_word};
use crate::ptr::{in_slice, in_str, out, out_opt};

/// The word at `offset` of `kernel` in the one SM100 cubin of `data` that has the kernel: a
/// kernel in two cubins of the file is refused, as scenario references refuse it
/// (`tld4_cubin::find_kernel`, docs/sources.md, Decisions).
fn find(data: &[u8], kernel: &str, offset: u64) -> Result<(u128, tld4_emu::Tld4), Error> {
    let (_, site) = find_kernel(data, SUPPORTED, kernel, |image| {
        image
            .cubin
            .tld4_at(kernel, offset)
            .map(|site| (site.word, site.decoded))
    })?;
    let (word, decoded) = site?;
    Ok((word, decoded.map_err(Error::Decode)?))
}

/// Stores the results of [`find`].
///
/// # Safety
/// `word` is valid for a write; `insn` NULL or valid for a write.
unsafe fn store(
    found: (u128, tld4_emu::Tld4),
    word: *mut tld4_word,
    insn: *mut *mut tld4_insn,
) -> Result<(), Error> {
    // SAFETY: the caller's guarantee on `word`.
    unsafe { out(word, "word", tld4_word::of(found.0)) }?;
    if !insn.is_null() {
        let boxed = Box::into_raw(Box::new(tld4_insn(found.1)));
        // SAFETY: not NULL; the caller guarantees it is valid for a write.
        unsafe { out_opt(insn, boxed) };
    }
    Ok(())
}

/// The TLD4 at byte `offset` (as nvdisasm prints it, `/*0090*/`) of kernel `kernel` in the
/// `len` bytes at `data`: a cubin, a fat binary or a host ELF file with SM100 device code.
/// `word` receives the word; `insn`, if not NULL, a new decoded instruction (free it with
/// `tld4_insn_free`). Errors: `TLD4_ERR_CUBIN` (a damaged file, no such kernel, an offset
/// past the code or between instructions, another instruction there, a kernel in two SM100
/// cubins of the file or a name several code sections share), `TLD4_ERR_NOT_MODELED` (no
/// SM100 cubin: another architecture), `TLD4_ERR_ILLEGAL_ENCODING` (a word with
/// TLD4's opcode that nvdisasm refuses).
///
/// # Safety
/// `data` points to `len` bytes; `kernel` is NUL-terminated; `word` valid for a write;
/// `insn`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_cubin_find(
    data: *const u8,
    len: usize,
    kernel: *const c_char,
    offset: u64,
    word: *mut tld4_word,
    insn: *mut *mut tld4_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let data = in_slice(data, len, "data")?;
        let kernel = in_str(kernel, "kernel")?;
        if word.is_null() {
            return Err(Error::Null("word"));
        }
        store(find(data, kernel, offset)?, word, insn)
    })
}

/// As `tld4_cubin_find`, mapping the file at `path` (`TLD4_ERR_IO` if it cannot be read or
/// is not a regular file: a device or FIFO is refused without reading from it).
///
/// # Safety
/// `path` and `kernel` are NUL-terminated; `word` valid for a write; `insn`, `err` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_cubin_find_file(
    path: *const c_char,
    kernel: *const c_char,
    offset: u64,
    word: *mut tld4_word,
    insn: *mut *mut tld4_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let path = in_str(path, "path")?;
        let kernel = in_str(kernel, "kernel")?;
        if word.is_null() {
            return Err(Error::Null("word"));
        }
        let data = map_file(path.as_ref())?;
        store(find(&data, kernel, offset)?, word, insn)
    })
}
