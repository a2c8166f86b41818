//! Status codes, the caller-owned error record, and the boundary every entry point runs
//! behind: null checks become [`tld4_status::TLD4_ERR_NULL_POINTER`], panics are caught and
//! become [`tld4_status::TLD4_ERR_PANIC`] without a word on the host's standard error (a
//! panic hook, installed once, is silent inside an entry point and passes other panics to
//! the hook before it); no error is kept in global or thread-local state (the record is the
//! caller's).

use std::cell::Cell;
use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use tld4_cubin::{CubinError, ErrorKind, FileError, FindError, LookupError};
use tld4_emu::decoder::{DecodeError, ParseError, UnknownArch};
use tld4_emu::gpu_memory::{ClassError, DescriptorError, MemTexError};
use tld4_emu::textures::MemoryError;
use tld4_emu::{ArchExecError, MemoryExecError, MemoryRead, TextureError, WarpFault};

use crate::detail::tld4_error_detail;
use crate::fault::tld4_fault_kind;
use crate::memory::CMemory;

/// Bytes of [`tld4_error::message`], the terminating NUL included.
pub const TLD4_ERROR_MESSAGE_LEN: usize = 256;

/// What an entry point returns. `TLD4_OK` is 0; every other value is an error, described
/// in the optional [`tld4_error`] record.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_status {
    /// Success.
    TLD4_OK = 0,
    /// A required pointer argument is NULL (the message names it).
    TLD4_ERR_NULL_POINTER = 1,
    /// Invalid input: a bad argument, size, index, name, texel value or register (the
    /// message names it).
    TLD4_ERR_INVALID_ARGUMENT = 2,
    /// A 128-bit word that nvdisasm refuses (not TLD4, bit 91 clear, an undefined scheduling
    /// pair).
    TLD4_ERR_ILLEGAL_ENCODING = 3,
    /// Text that is not a TLD4 in nvdisasm's syntax (the message names the column).
    TLD4_ERR_PARSE = 4,
    /// Valid input whose behaviour tld4 does not model.
    TLD4_ERR_NOT_MODELED = 5,
    /// The instruction raised a warp exception: [`tld4_error::fault`] says which, and
    /// [`tld4_error::lane`] the lowest lane concerned. Nothing was written.
    TLD4_ERR_WARP_FAULT = 6,
    /// A damaged cubin, or no TLD4 at the kernel and offset asked for.
    TLD4_ERR_CUBIN = 7,
    /// A file could not be read (the message names the path).
    TLD4_ERR_IO = 8,
    /// An output buffer is too small: the size needed was stored and nothing else written.
    TLD4_ERR_BUFFER_TOO_SMALL = 9,
    /// tld4 panicked (a bug): caught at the boundary; the message is the panic's.
    TLD4_ERR_PANIC = 10,
    /// A texture header or sampler in GPU memory holds a value no hardware accepts (the
    /// message names the field and value; a legal value that is not modeled is
    /// `TLD4_ERR_NOT_MODELED`, or in a warp execution the fault `TLD4_FAULT_NOT_MODELED`).
    /// Nothing was written; [`tld4_error::lane`] is the lowest lane using the handle, and
    /// [`tld4_error::fault`] the fault kind the warp raises.
    TLD4_ERR_DESCRIPTOR = 11,
    /// A read of GPU memory failed: an address outside the flat range, or the read callback
    /// returned nonzero (the message names the address, the size and the value returned).
    /// Nothing was written; [`tld4_error::lane`] is the lane whose read failed, and
    /// [`tld4_error::fault`] the fault kind the warp raises.
    TLD4_ERR_MEMORY = 12,
    /// An architecture name or `tld4_arch` value that is not one of nvdisasm's (the message
    /// lists them).
    TLD4_ERR_UNKNOWN_ARCH = 13,
}

/// An error record the caller owns and passes, optionally (NULL: no details), as the last
/// argument of every call. Every call that takes one writes it: `status` (also the return
/// value), `fault`, `lane` and a NUL-terminated `message` (empty on success).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_error {
    /// The status the call returned.
    pub status: tld4_status,
    /// The fault kind the warp raises: for `TLD4_ERR_WARP_FAULT`, and for every
    /// `TLD4_ERR_DESCRIPTOR` and `TLD4_ERR_MEMORY` of a warp execution over memory (an
    /// empty or unmapped texture-header slot is `TLD4_FAULT_UNKNOWN_TEXTURE_HEADER`, as an
    /// index past an owned pool is); else `TLD4_FAULT_NONE`.
    pub fault: tld4_fault_kind,
    /// For a fault that depends on a lane (and for `TLD4_ERR_DESCRIPTOR` and
    /// `TLD4_ERR_MEMORY` from a warp execution): the lowest lane concerned; else -1.
    pub lane: i32,
    /// What was being read, where, and the typed reason of a "not modeled": the same facts
    /// as the message, for a program (all zero / NULL where they do not apply).
    pub detail: tld4_error_detail,
    /// What went wrong, UTF-8, NUL-terminated, cut at a character boundary if longer.
    pub message: [c_char; TLD4_ERROR_MESSAGE_LEN],
}

impl tld4_error {
    /// An empty record (status OK), for Rust callers and tests.
    pub const fn new() -> Self {
        tld4_error {
            status: tld4_status::TLD4_OK,
            fault: tld4_fault_kind::TLD4_FAULT_NONE,
            lane: -1,
            detail: tld4_error_detail::NONE,
            message: [0; TLD4_ERROR_MESSAGE_LEN],
        }
    }

    /// The message as a Rust string (up to the first NUL).
    pub fn message(&self) -> String {
        let bytes: Vec<u8> = self
            .message
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Default for tld4_error {
    fn default() -> Self {
        Self::new()
    }
}

/// Every error an entry point can report, typed; [`Error::status`] maps each to its code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A NULL where a pointer is required; names the argument.
    #[error("{0} is NULL")]
    Null(&'static str),
    /// Invalid input from the caller; the message names the argument.
    #[error("{0}")]
    Invalid(String),
    /// A word the decoder refuses.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Text the parser refuses.
    #[error("line 1, {0}")]
    Parse(#[from] ParseError),
    /// The texture unit refuses a texture, sampler or handle.
    #[error("{what}: {source}")]
    Texture {
        /// What was being built ("texture 3", "sampler 0", "handle").
        what: String,
        /// The texture unit's error.
        source: TextureError,
    },
    /// A texture header or sampler, described or as words, that tld4 refuses.
    #[error("{what}: {source}")]
    Descriptor {
        /// What was being encoded or decoded.
        what: String,
        /// The field, value and why.
        source: DescriptorError,
    },
    /// A texture in memory the texture unit cannot gather from (a failed read, a bad or
    /// unmodeled descriptor).
    #[error("{what}: {source}{}", code_note(*code))]
    Memory {
        /// Where: a handle, a query.
        what: String,
        /// Why.
        source: MemTexError,
        /// The read callback's last nonzero return value, if it failed.
        code: Option<c_int>,
        /// The footprint texel whose read failed (a lane gather's texel read).
        texel: Option<MemoryRead>,
    },
    /// A warp execution over memory that stopped (a warp fault, a bad descriptor, a failed
    /// read; the lane is in the record).
    #[error("{source}{}", code_note(*code))]
    MemExec {
        /// The executor's error.
        source: MemoryExecError,
        /// The read callback's last nonzero return value, if it failed.
        code: Option<c_int>,
    },
    /// A warp fault.
    #[error(transparent)]
    Fault(#[from] WarpFault),
    /// A file that is not a usable cubin.
    #[error(transparent)]
    Cubin(#[from] CubinError),
    /// No TLD4 at the kernel and offset.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// No single kernel of the name in the file (none, or in several cubins).
    #[error(transparent)]
    Find(#[from] FindError),
    /// A file that cannot be read (missing, not a regular file, too large).
    #[error(transparent)]
    File(#[from] FileError),
    /// An output buffer too small.
    #[error("{what}: room for {needed} needed (bytes with the NUL, or elements), {given} given")]
    BufferTooSmall {
        /// The argument.
        what: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        given: usize,
    },
    /// A name or `tld4_arch` value that is no architecture of nvdisasm's.
    #[error(transparent)]
    UnknownArch(#[from] UnknownArch),
    /// An architecture whose GPU class (its descriptor layouts) is not known.
    #[error(transparent)]
    Class(#[from] ClassError),
    /// An execution of an architecture's TLD4 that stopped for a reason beyond the base
    /// executor's faults: a constant-bank TLD4 whose constant the embedder does not hold
    /// (`ArchExecError::NoConstant`). Its warp faults and memory errors are `Fault` and
    /// `MemExec` (`crate::arch_exec`).
    #[error(transparent)]
    Arch(ArchExecError),
    /// A caught panic.
    #[error("panic in tld4 (a bug; please report it): {0}")]
    Panic(String),
}

fn code_note(code: Option<c_int>) -> String {
    code.map(|c| format!(" (the read callback returned {c})"))
        .unwrap_or_default()
}

impl Error {
    /// A memory-form gather error, with the callback's return value if a read failed.
    pub(crate) fn memory(what: String, source: MemTexError, mem: &CMemory) -> Self {
        let code = matches!(source, MemTexError::Memory(_))
            .then(|| mem.callback_code())
            .flatten();
        Error::Memory {
            what,
            source,
            code,
            texel: None,
        }
    }

    /// A lane gather's failed texel read, naming the texel.
    pub(crate) fn texel(what: String, source: MemoryError, texel: MemoryRead, m: &CMemory) -> Self {
        match Error::memory(what, source.into(), m) {
            Error::Memory {
                what, source, code, ..
            } => Error::Memory {
                what,
                source,
                code,
                texel: Some(texel),
            },
            other => other,
        }
    }

    /// A memory-form execution error, with the callback's return value if a read failed.
    pub(crate) fn mem_exec(source: MemoryExecError, mem: &CMemory) -> Self {
        let code = matches!(source, MemoryExecError::Memory { .. })
            .then(|| mem.callback_code())
            .flatten();
        Error::MemExec { source, code }
    }

    /// The status code of this error.
    pub fn status(&self) -> tld4_status {
        use tld4_status::*;
        match self {
            Error::Null(_) => TLD4_ERR_NULL_POINTER,
            Error::Invalid(_) => TLD4_ERR_INVALID_ARGUMENT,
            Error::Decode(_) => TLD4_ERR_ILLEGAL_ENCODING,
            Error::Parse(_) => TLD4_ERR_PARSE,
            Error::Texture { source, .. } if source.is_not_modeled() => TLD4_ERR_NOT_MODELED,
            Error::Texture { .. } => TLD4_ERR_INVALID_ARGUMENT,
            Error::Descriptor { source, .. } if source.is_not_modeled() => TLD4_ERR_NOT_MODELED,
            Error::Descriptor { .. } => TLD4_ERR_DESCRIPTOR,
            Error::Memory { source, .. } if source.is_not_modeled() => TLD4_ERR_NOT_MODELED,
            Error::Memory {
                source: MemTexError::Memory(_),
                ..
            } => TLD4_ERR_MEMORY,
            Error::Memory {
                source: MemTexError::Descriptor(_),
                ..
            } => TLD4_ERR_DESCRIPTOR,
            Error::Memory { .. } => TLD4_ERR_INVALID_ARGUMENT,
            Error::MemExec {
                source: MemoryExecError::Fault(_),
                ..
            } => TLD4_ERR_WARP_FAULT,
            Error::MemExec {
                source: MemoryExecError::BadDescriptor { .. },
                ..
            } => TLD4_ERR_DESCRIPTOR,
            Error::MemExec {
                source: MemoryExecError::Memory { .. },
                ..
            } => TLD4_ERR_MEMORY,
            Error::Fault(_) => TLD4_ERR_WARP_FAULT,
            Error::Cubin(e) if e.kind() == ErrorKind::NotModeled => TLD4_ERR_NOT_MODELED,
            Error::Cubin(_) => TLD4_ERR_CUBIN,
            Error::Lookup(LookupError::IllegalTld4 { .. }) => TLD4_ERR_ILLEGAL_ENCODING,
            Error::Lookup(e) if e.is_not_modeled() => TLD4_ERR_NOT_MODELED,
            Error::Lookup(_) => TLD4_ERR_CUBIN,
            Error::Find(FindError::Open(e)) if e.kind() == ErrorKind::NotModeled => {
                TLD4_ERR_NOT_MODELED
            }
            Error::Find(_) => TLD4_ERR_CUBIN,
            Error::File(_) => TLD4_ERR_IO,
            Error::BufferTooSmall { .. } => TLD4_ERR_BUFFER_TOO_SMALL,
            Error::Panic(_) => TLD4_ERR_PANIC,
            Error::UnknownArch(_) => TLD4_ERR_UNKNOWN_ARCH,
            Error::Class(_) => TLD4_ERR_NOT_MODELED,
            Error::Arch(_) => TLD4_ERR_WARP_FAULT,
        }
    }

    /// The fault kind of a warp fault, and the lane (-1 where none) of a warp fault or of a
    /// memory execution's bad descriptor or failed read.
    fn fault(&self) -> (tld4_fault_kind, i32) {
        let of = |f: &WarpFault| {
            (
                tld4_fault_kind::of(f.kind()),
                f.lane().map_or(-1, i32::from),
            )
        };
        match self {
            Error::Fault(f)
            | Error::MemExec {
                source: MemoryExecError::Fault(f),
                ..
            } => of(f),
            Error::MemExec { source, .. } => (
                tld4_fault_kind::of(source.kind()),
                source.lane().map_or(-1, i32::from),
            ),
            Error::Arch(ArchExecError::NoConstant { .. }) => {
                (tld4_fault_kind::TLD4_FAULT_NO_CONSTANT, -1)
            }
            Error::Arch(_) => (tld4_fault_kind::TLD4_FAULT_OTHER, -1),
            _ => (tld4_fault_kind::TLD4_FAULT_NONE, -1),
        }
    }
}

/// Copies `text` into `out` as a NUL-terminated string, cut at a character boundary so that
/// it fits; interior NULs become spaces.
fn fill_message(out: &mut [c_char; TLD4_ERROR_MESSAGE_LEN], text: &str) {
    let mut end = text.len().min(TLD4_ERROR_MESSAGE_LEN - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    for (o, &b) in out.iter_mut().zip(&text.as_bytes()[..end]) {
        *o = if b == 0 { b' ' } else { b } as c_char;
    }
    out[end] = 0;
}

/// Stores `status`, the fault and `message` into the caller's record, if there is one.
///
/// # Safety
/// `err` is NULL or points to memory valid for writes of a [`tld4_error`] (its old content
/// is never read, so it may be uninitialized).
unsafe fn store(err: *mut tld4_error, status: tld4_status, failure: Option<&Error>) {
    if err.is_null() {
        return;
    }
    let (fault, lane) = failure.map_or((tld4_fault_kind::TLD4_FAULT_NONE, -1), Error::fault);
    let mut record = tld4_error {
        status,
        fault,
        lane,
        detail: failure.map_or(tld4_error_detail::NONE, crate::detail::of),
        message: [0; TLD4_ERROR_MESSAGE_LEN],
    };
    if let Some(e) = failure {
        fill_message(&mut record.message, &e.to_string());
    }
    // SAFETY: the caller guarantees `err` is valid for a write of a `tld4_error`; `write`
    // does not read or drop the old value.
    unsafe { err.write(record) };
}

/// The text of a panic payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

thread_local! {
    /// How many tld4 entry points this thread is inside (callbacks may call back in).
    static INSIDE: Cell<u32> = const { Cell::new(0) };
    /// Where the last panic inside an entry point happened (`file:line`), for its message.
    static PANIC_AT: Cell<Option<String>> = const { Cell::new(None) };
}

/// Installs, once, a panic hook that prints nothing for a panic inside a tld4 entry point (a
/// library never writes to its host's standard error: the panic becomes `TLD4_ERR_PANIC`
/// with its message) and passes every other panic to the hook that was there before (a
/// Rust host's own panics print as before).
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if INSIDE.with(Cell::get) > 0 {
                PANIC_AT.with(|at| {
                    at.set(
                        info.location()
                            .map(|l| format!("{}:{}", l.file(), l.line())),
                    )
                });
            } else {
                before(info);
            }
        }));
    });
}

/// Runs `body` behind `catch_unwind`, counted as inside an entry point (the quiet hook).
fn guarded<T>(body: impl FnOnce() -> T) -> std::thread::Result<T> {
    install_quiet_hook();
    INSIDE.with(|d| d.set(d.get() + 1));
    let r = catch_unwind(AssertUnwindSafe(body));
    INSIDE.with(|d| d.set(d.get().saturating_sub(1)));
    r
}

/// Runs the body of an entry point: catches a panic (printing nothing: the quiet hook),
/// fills the caller's record and returns the status. Every `extern "C"` function of this
/// crate goes through it.
///
/// # Safety
/// `err` is NULL or valid for writes of a [`tld4_error`].
pub unsafe fn boundary(
    err: *mut tld4_error,
    body: impl FnOnce() -> Result<(), Error>,
) -> tld4_status {
    let outcome = match guarded(body) {
        Ok(r) => r,
        Err(payload) => {
            let mut text = panic_text(&*payload);
            if let Some(at) = PANIC_AT.with(Cell::take) {
                text.push_str(&format!(" (at {at})"));
            }
            Err(Error::Panic(text))
        }
    };
    let status = match &outcome {
        Ok(()) => tld4_status::TLD4_OK,
        Err(e) => e.status(),
    };
    // SAFETY: the caller's guarantee on `err`, passed on.
    unsafe { store(err, status, outcome.as_ref().err()) };
    status
}

/// The one shape of every entry point with an error record: the body (a block whose value
/// is `Result<(), Error>`) runs behind [`boundary`], which catches a panic and fills `err`.
/// Pointer arguments become references only through `crate::ptr`, which checks for NULL.
macro_rules! entry {
    ($err:ident, $body:block) => {
        // SAFETY: the entry point's own `# Safety` section: every pointer argument (`err`
        // included) is NULL or valid as it documents; `crate::ptr` refuses NULL.
        unsafe { $crate::error::boundary($err, || $body) }
    };
}
pub(crate) use entry;

/// Runs `body` catching a panic, for functions with no error record (the `_free` functions
/// and the name look-ups): a panic is swallowed (printing nothing), and `fallback` returned.
pub fn quiet<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    guarded(body).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_at_a_character_boundary() {
        let mut m = [1 as c_char; TLD4_ERROR_MESSAGE_LEN];
        let text = "é".repeat(200); // 400 bytes, two per character
        fill_message(&mut m, &text);
        let e = tld4_error {
            message: m,
            ..tld4_error::new()
        };
        let back = e.message();
        assert_eq!(back.len(), 254);
        assert!(back.chars().all(|c| c == 'é'));
        fill_message(&mut m, "a\0b");
        assert_eq!(
            tld4_error {
                message: m,
                ..tld4_error::new()
            }
            .message(),
            "a b"
        );
    }
}
