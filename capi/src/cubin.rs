//! A TLD4 from a cubin (or a fat binary, host ELF file or archive holding cubins of any
//! architecture the decoder knows), by kernel name and byte offset, through tld4-cubin.

use std::ffi::c_char;

use tld4_cubin::{find_kernel, read_file, supported, LookupError};
use tld4_emu::decoder::{ArchTld4, DecodeError, Family};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::insn::{tld4_insn, tld4_word};
use crate::ptr::{in_slice, in_str, out, out_opt};

/// A TLD4 found in a cubin: its word, and its decoding with the cubin's architecture's
/// tables.
struct Found {
    word: u128,
    insn: ArchTld4,
}

/// The TLD4 at `offset` of `kernel` in the one cubin of `data` that has the kernel (of any
/// architecture; where several have it, the one sm_100 cubin): a kernel in two such cubins of
/// the file is refused, as scenario references refuse it (`tld4_cubin::find_kernel`,
/// docs/sources.md, Decisions).
fn find(data: &[u8], kernel: &str, offset: u64) -> Result<Found, Error> {
    let (_, site) = find_kernel(data, supported(), kernel, |image| {
        image
            .cubin
            .tld4_at(kernel, offset)
            .map(|site| (site.word, site.decoded))
    })?;
    let (word, decoded) = site?;
    match decoded {
        Ok(insn) => Ok(Found { word, insn }),
        Err(source @ DecodeError::FormNotModeled { .. }) => {
            Err(Error::Lookup(LookupError::FormNotModeled {
                kernel: kernel.to_string(),
                offset,
                source,
            }))
        }
        Err(e) => Err(Error::Decode(e)),
    }
}

/// Stores the results of [`find`].
///
/// # Safety
/// `word` is valid for a write; `insn` NULL or valid for a write.
unsafe fn store(
    found: Found,
    kernel: &str,
    offset: u64,
    word: *mut tld4_word,
    insn: *mut *mut tld4_insn,
) -> Result<(), Error> {
    // SAFETY: the caller's guarantee on `word`.
    unsafe { out(word, "word", tld4_word::of(found.word)) }?;
    if !insn.is_null() {
        // A `tld4_insn` is the sm_100 family's instruction (what tld4 executes).
        if found.insn.arch.family() != Family::Sm100 {
            return Err(Error::Lookup(LookupError::OtherFamily {
                kernel: kernel.to_string(),
                offset,
                arch: found.insn.arch,
                text: found.insn.listing_text(),
            }));
        }
        let boxed = Box::into_raw(Box::new(tld4_insn(found.insn.insn)));
        // SAFETY: not NULL; the caller guarantees it is valid for a write.
        unsafe { out_opt(insn, boxed) };
    }
    Ok(())
}

/// The TLD4 at byte `offset` (as nvdisasm prints it, `/*0090*/`) of kernel `kernel` in the
/// `len` bytes at `data`: a cubin, a fat binary, a host ELF file or an archive with device
/// code of any architecture from sm_75 to sm_121 (each word decoded with its own
/// architecture's tables; where several cubins have the kernel, the one sm_100 cubin).
/// `word` receives the word; `insn`, if not NULL, a new decoded instruction (free it with
/// `tld4_insn_free`): the sm_100 family's only (sm_100, sm_101, sm_103, sm_110 and variants;
/// for another architecture's TLD4 `word` is written and the status is
/// `TLD4_ERR_NOT_MODELED`, naming its text). Errors: `TLD4_ERR_CUBIN` (a damaged file, no
/// such kernel, an offset past the code or between instructions, another instruction there,
/// a kernel in two cubins of the file or a name several code sections share),
/// `TLD4_ERR_NOT_MODELED` (an architecture the decoder does not know, a TLD4 form tld4 does
/// not model yet, another family's TLD4 with `insn`), `TLD4_ERR_ILLEGAL_ENCODING` (a word
/// with TLD4's opcode that nvdisasm refuses).
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
        store(find(data, kernel, offset)?, kernel, offset, word, insn)
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
        let data = read_file(path.as_ref())?;
        store(find(&data, kernel, offset)?, kernel, offset, word, insn)
    })
}
