//! A TLD4 from a cubin (or a fat binary or host ELF file holding SM100 cubins), by kernel
//! name and byte offset, through tld4-cubin.

use std::ffi::c_char;

use tld4_cubin::{open, LookupError, SM100};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::insn::{tld4_insn, tld4_word};
use crate::ptr::{in_slice, in_str, out, out_opt};

/// The word at `offset` of `kernel` in the first SM100 cubin of `data` that has the kernel.
fn find(data: &[u8], kernel: &str, offset: u64) -> Result<(u128, tld4_emu::Tld4), Error> {
    let images = open(data, &[SM100])?;
    let mut first_err = None;
    for image in &images {
        match image.cubin.tld4_at(kernel, offset) {
            Ok(site) => {
                let insn = site.decoded.map_err(Error::Decode)?;
                return Ok((site.word, insn));
            }
            // Another cubin of a fat binary may hold the kernel.
            Err(e @ LookupError::NoSuchKernel { .. }) => {
                first_err.get_or_insert(e);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(first_err.map_or_else(
        || Error::Invalid("the file holds no SM100 cubin".into()),
        Error::Lookup,
    ))
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
/// past the code or between instructions, another instruction there), `TLD4_ERR_NOT_MODELED`
/// (another architecture, a compressed entry), `TLD4_ERR_ILLEGAL_ENCODING` (a word with
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

/// As `tld4_cubin_find`, reading the file at `path` (`TLD4_ERR_IO` if it cannot be read).
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
        let data = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_string(),
            source,
        })?;
        store(find(&data, kernel, offset)?, word, insn)
    })
}
