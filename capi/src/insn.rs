//! Words, decoding, nvdisasm's text, the operand lists and the scheduling fields.

use std::ffi::c_char;

use tld4_emu::decoder::{self, Access, Location, OperandRole, Tld4, MAX_USED_REGISTERS};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::ptr::{in_ref, in_str, out, out_array, out_text};

/// A 128-bit instruction word as nvdisasm's two 64-bit halves: `lo` is bits 63:0 (the first
/// 8 bytes in memory, little-endian), `hi` bits 127:64.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct tld4_word {
    /// Bits 63:0.
    pub lo: u64,
    /// Bits 127:64.
    pub hi: u64,
}

impl tld4_word {
    /// The word as `hi << 64 | lo`.
    pub const fn get(self) -> u128 {
        (self.hi as u128) << 64 | self.lo as u128
    }
    /// The halves of `hi << 64 | lo`.
    pub const fn of(w: u128) -> Self {
        tld4_word {
            lo: w as u64,
            hi: (w >> 64) as u64,
        }
    }
}

/// A decoded TLD4 (opaque). Made by `tld4_decode`, `tld4_parse` or `tld4_cubin_find`; freed
/// with `tld4_insn_free`.
pub struct tld4_insn(pub(crate) Tld4);

/// The most entries `tld4_insn_used_registers` writes (guard, 4 Ra, 4 Rb, the handle, 2 Rd,
/// 2 Rd2 and the predicate destination).
pub const TLD4_MAX_USED_REGISTERS: usize = 15;
const _: () = assert!(TLD4_MAX_USED_REGISTERS == MAX_USED_REGISTERS);

/// The most entries `tld4_insn_operand_vectors` writes (Ra, Rb, Rd, Rd2).
pub const TLD4_MAX_OPERAND_VECTORS: usize = 4;

/// The register file of a [`tld4_used_register`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_reg_file {
    /// A per-lane general register R0..R254.
    TLD4_FILE_REG = 0,
    /// A uniform register UR0..UR254.
    TLD4_FILE_UREG = 1,
    /// A per-lane predicate P0..P6.
    TLD4_FILE_PRED = 2,
}

/// How an instruction touches a register (tld4-decoder's `Access`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_access {
    /// Read by every active lane (the guard predicate).
    TLD4_ACCESS_READ = 0,
    /// Read only by the lanes that execute (Ra, Rb, the uniform handle).
    TLD4_ACCESS_COND_READ = 1,
    /// Written only by the lanes that execute (Rd, Rd2, the predicate destination).
    TLD4_ACCESS_COND_WRITE = 2,
}

/// The operand a register belongs to (tld4-decoder's `OperandRole`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_role {
    /// The guard predicate.
    TLD4_ROLE_GUARD = 0,
    /// Ra, the coordinate vector.
    TLD4_ROLE_RA = 1,
    /// Rb: handle, offsets, depth reference.
    TLD4_ROLE_RB = 2,
    /// The uniform register holding the texture handle.
    TLD4_ROLE_HANDLE = 3,
    /// Rd, the first one or two results.
    TLD4_ROLE_RD = 4,
    /// Rd2, the remaining results.
    TLD4_ROLE_RD2 = 5,
    /// The predicate destination (set when the footprint is not resident).
    TLD4_ROLE_PRED_DST = 6,
    /// A second uniform register (SM120 family, `tld4_arch_insn_used_registers`).
    TLD4_ROLE_SECOND_UR = 7,
    /// A role this version of the C interface does not name yet.
    TLD4_ROLE_OTHER = 255,
}

/// One register the instruction reads or writes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_used_register {
    /// Which file.
    pub file: tld4_reg_file,
    /// The register's number in its file.
    pub number: u8,
    /// Its position in its operand vector (0 for single operands).
    pub index: u8,
    /// How it is touched.
    pub access: tld4_access,
    /// The operand it belongs to.
    pub role: tld4_role,
}

/// An operand vector of general registers: `count` consecutive registers from `first`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_operand_vector {
    /// Ra, Rb, Rd or Rd2.
    pub role: tld4_role,
    /// The first register.
    pub first: u8,
    /// How many registers (1..=4); the span may pass R254 (executing it then faults).
    pub count: u8,
    /// Read or written.
    pub access: tld4_access,
}

/// The scheduling-control fields, raw, under nvdisasm's names (docs/sources.md, Encoding).
/// The executor changes no value for any of them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct tld4_scheduling {
    /// Bits 109:105: stall and yield control.
    pub usched_info: u8,
    /// Bits 124:122.
    pub batch_t: u8,
    /// Bits 112:110: the scoreboard the destinations' write releases (6 and 7: none, a guess;
    /// docs/sources.md, Open questions).
    pub dst_wr_sb: u8,
    /// Bits 115:113: the scoreboard released when the sources are read.
    pub src_rel_sb: u8,
    /// Bits 121:116: bit k set, wait on scoreboard k before issue.
    pub req_bit_set: u8,
    /// Bits 103:102: the performance-monitor predicate.
    pub pm_pred: u8,
    /// nvdisasm's opex value, `usched_info | batch_t << 5`.
    pub opex: u8,
}

fn access(a: Access) -> tld4_access {
    match a {
        Access::Read => tld4_access::TLD4_ACCESS_READ,
        Access::CondRead => tld4_access::TLD4_ACCESS_COND_READ,
        // Unknown future kinds are writes only if the decoder says so.
        other if other.is_write() => tld4_access::TLD4_ACCESS_COND_WRITE,
        _ => tld4_access::TLD4_ACCESS_COND_READ,
    }
}

fn role(r: OperandRole) -> tld4_role {
    use tld4_role::*;
    match r {
        OperandRole::Guard => TLD4_ROLE_GUARD,
        OperandRole::Ra => TLD4_ROLE_RA,
        OperandRole::Rb => TLD4_ROLE_RB,
        OperandRole::Handle => TLD4_ROLE_HANDLE,
        OperandRole::Rd => TLD4_ROLE_RD,
        OperandRole::Rd2 => TLD4_ROLE_RD2,
        OperandRole::PredDst => TLD4_ROLE_PRED_DST,
        OperandRole::SecondUr => TLD4_ROLE_SECOND_UR,
        _ => TLD4_ROLE_OTHER,
    }
}

pub(crate) fn used(u: &decoder::UsedRegister) -> tld4_used_register {
    let (file, number) = match u.location {
        Location::Reg(r) => (tld4_reg_file::TLD4_FILE_REG, r),
        Location::UReg(r) => (tld4_reg_file::TLD4_FILE_UREG, r),
        Location::Pred(p) => (tld4_reg_file::TLD4_FILE_PRED, p),
    };
    tld4_used_register {
        file,
        number,
        index: u.index,
        access: access(u.access),
        role: role(u.role),
    }
}

/// Stores a new boxed instruction into `*out`.
///
/// # Safety
/// `out` is NULL or valid for a write of a pointer.
unsafe fn store_insn(out_ptr: *mut *mut tld4_insn, insn: Tld4) -> Result<(), Error> {
    if out_ptr.is_null() {
        return Err(Error::Null("out"));
    }
    let boxed = Box::into_raw(Box::new(tld4_insn(insn)));
    // SAFETY: not NULL; the caller guarantees it is valid for a write.
    unsafe { out(out_ptr, "out", boxed) }
}

/// Decodes a word into a new instruction (`*out`, free it with `tld4_insn_free`). Fails with
/// `TLD4_ERR_ILLEGAL_ENCODING` exactly where nvdisasm refuses the word.
///
/// # Safety
/// `out` is valid for a write of a pointer; `err` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn tld4_decode(
    word: tld4_word,
    out: *mut *mut tld4_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, { store_insn(out, decoder::decode(word.get())?) })
}

/// Parses one line of nvdisasm's text into a new instruction (`*out`, free it with
/// `tld4_insn_free`); `TLD4_ERR_PARSE` names the column.
///
/// # Safety
/// `text` is a NUL-terminated string; `out` is valid for a write; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_parse(
    text: *const c_char,
    out: *mut *mut tld4_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let text = in_str(text, "text")?;
        store_insn(out, decoder::parse(text)?)
    })
}

/// Frees an instruction; NULL is ignored.
///
/// # Safety
/// `insn` is NULL or came from this library and was not freed before.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_free(insn: *mut tld4_insn) {
    if !insn.is_null() {
        // SAFETY: made by `Box::into_raw` in this crate and not freed before (the caller's
        // guarantee).
        crate::error::quiet((), || drop(unsafe { Box::from_raw(insn) }));
    }
}

/// Assembles one line of nvdisasm's text into a word.
///
/// # Safety
/// `text` is a NUL-terminated string; `word` is valid for a write; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_assemble(
    text: *const c_char,
    word: *mut tld4_word,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let w = decoder::assemble(in_str(text, "text")?)?;
        out(word, "word", tld4_word::of(w))
    })
}

/// Writes nvdisasm's text of a word into `buf` (`cap` bytes, NUL-terminated). `needed`, if
/// not NULL, receives the bytes needed; a small `cap` gives `TLD4_ERR_BUFFER_TOO_SMALL`
/// (call with `buf = NULL, cap = 0` to ask the size). 128 bytes always suffice.
///
/// # Safety
/// `buf` is NULL or valid for `cap` bytes; `needed` and `err` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_disassemble(
    word: tld4_word,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let text = decoder::disassemble(word.get())?;
        out_text(buf, cap, needed, "buf", &text)
    })
}

/// The instruction's text, as `tld4_disassemble`.
///
/// # Safety
/// `insn` is a live instruction; `buf` NULL or valid for `cap` bytes; `needed`, `err` NULL
/// or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_text(
    insn: *const tld4_insn,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        out_text(buf, cap, needed, "buf", &insn.0.text())
    })
}

/// The instruction's word.
///
/// # Safety
/// `insn` is a live instruction; `word` is valid for a write; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_word(
    insn: *const tld4_insn,
    word: *mut tld4_word,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        out(word, "word", tld4_word::of(insn.0.encode()))
    })
}

/// Every register, uniform register and predicate the instruction reads or writes (RZ, URZ
/// and PT left out), in the order guard, Ra, Rb, handle, Rd, Rd2, predicate destination,
/// into `regs` (room for `cap`; `TLD4_MAX_USED_REGISTERS` always suffices). `count`, if not
/// NULL, receives how many there are.
///
/// # Safety
/// `insn` is a live instruction; `regs` NULL or valid for `cap` writes; `count`, `err` NULL
/// or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_used_registers(
    insn: *const tld4_insn,
    regs: *mut tld4_used_register,
    cap: usize,
    count: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let list = insn.0.used_registers();
        let mut items = [used(&BLANK); TLD4_MAX_USED_REGISTERS];
        for (o, u) in items.iter_mut().zip(list.iter()) {
            *o = used(u);
        }
        out_array(regs, cap, count, "regs", &items[..list.len()])
    })
}

/// A placeholder entry (never returned).
const BLANK: decoder::UsedRegister = decoder::UsedRegister {
    location: Location::Reg(0),
    access: Access::Read,
    role: OperandRole::Guard,
    index: 0,
};

/// The general-register operand vectors in the order Ra, Rb, Rd, Rd2 (Rb left out when the
/// form reads none; Rd or Rd2 when RZ or receiving no result) into `vectors` (room for
/// `cap`; `TLD4_MAX_OPERAND_VECTORS` always suffices); `count` as for
/// `tld4_insn_used_registers`.
///
/// # Safety
/// `insn` is a live instruction; `vectors` NULL or valid for `cap` writes; `count`, `err`
/// NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_operand_vectors(
    insn: *const tld4_insn,
    vectors: *mut tld4_operand_vector,
    cap: usize,
    count: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let list = insn.0.operand_vectors();
        let blank = tld4_operand_vector {
            role: tld4_role::TLD4_ROLE_RA,
            first: 0,
            count: 0,
            access: tld4_access::TLD4_ACCESS_COND_READ,
        };
        let mut items = [blank; TLD4_MAX_OPERAND_VECTORS];
        for (o, v) in items.iter_mut().zip(list.iter()) {
            *o = tld4_operand_vector {
                role: role(v.role),
                first: v.first,
                count: v.count,
                access: access(v.access),
            };
        }
        out_array(vectors, cap, count, "vectors", &items[..list.len()])
    })
}

/// The scheduling-control fields.
///
/// # Safety
/// `insn` is a live instruction; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_scheduling(
    insn: *const tld4_insn,
    out_ptr: *mut tld4_scheduling,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let s = insn.0.scheduling();
        out(
            out_ptr,
            "out",
            tld4_scheduling {
                usched_info: s.usched_info.0,
                batch_t: s.batch_t.0,
                dst_wr_sb: s.dst_wr_sb.0,
                src_rel_sb: s.src_rel_sb.0,
                req_bit_set: s.req_bit_set.0,
                pm_pred: s.pm_pred.0,
                opex: s.opex(),
            },
        )
    })
}
