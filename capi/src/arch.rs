//! Every architecture nvdisasm 13.5 knows, for C: architectures by name or `tld4_arch`
//! value, and decoding, printing, parsing and assembling a TLD4 word for one of them
//! (tld4-decoder's `decode_arch` / `parse_arch`; text exactly as `tld4 disasm --arch`
//! prints it). The families and what differs between them:
//! docs/sources.md, TLD4 on every architecture.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use tld4_emu::decoder::{decode_arch, parse_arch, Arch, ArchTld4, UnknownArch};

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::insn::{tld4_insn, tld4_scheduling, tld4_used_register, tld4_word, used};
use crate::ptr::{in_ref, in_str, out, out_array, out_text};

/// An architecture nvdisasm 13.5 accepts with `-b` (tld4-decoder's `Arch`). The value is
/// `10 * SM number`, plus 1 for the `a` (architecture-specific) and 2 for the `f`
/// (family-specific) variant: `TLD4_ARCH_SM_90A = 901`. Functions take it as a `uint32_t`;
/// any other value is `TLD4_ERR_UNKNOWN_ARCH`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_arch {
    /// sm_75 (Turing).
    TLD4_ARCH_SM_75 = 750,
    /// sm_80 (Ampere A100).
    TLD4_ARCH_SM_80 = 800,
    /// sm_86 (Ampere GA10x).
    TLD4_ARCH_SM_86 = 860,
    /// sm_87 (Ampere Orin).
    TLD4_ARCH_SM_87 = 870,
    /// sm_88.
    TLD4_ARCH_SM_88 = 880,
    /// sm_89 (Ada).
    TLD4_ARCH_SM_89 = 890,
    /// sm_90 (Hopper: H100, H200).
    TLD4_ARCH_SM_90 = 900,
    /// sm_90a.
    TLD4_ARCH_SM_90A = 901,
    /// sm_100 (Blackwell B200): the architecture of the functions without `_arch`.
    TLD4_ARCH_SM_100 = 1000,
    /// sm_100a.
    TLD4_ARCH_SM_100A = 1001,
    /// sm_100f.
    TLD4_ARCH_SM_100F = 1002,
    /// sm_101.
    TLD4_ARCH_SM_101 = 1010,
    /// sm_101a.
    TLD4_ARCH_SM_101A = 1011,
    /// sm_101f.
    TLD4_ARCH_SM_101F = 1012,
    /// sm_103 (Blackwell Ultra B300).
    TLD4_ARCH_SM_103 = 1030,
    /// sm_103a.
    TLD4_ARCH_SM_103A = 1031,
    /// sm_103f.
    TLD4_ARCH_SM_103F = 1032,
    /// sm_107 (nvdisasm 13.5 knows no texture instruction on it: every word is refused).
    TLD4_ARCH_SM_107 = 1070,
    /// sm_107a.
    TLD4_ARCH_SM_107A = 1071,
    /// sm_107f.
    TLD4_ARCH_SM_107F = 1072,
    /// sm_110 (Thor).
    TLD4_ARCH_SM_110 = 1100,
    /// sm_110a.
    TLD4_ARCH_SM_110A = 1101,
    /// sm_110f.
    TLD4_ARCH_SM_110F = 1102,
    /// sm_120 (Blackwell consumer, RTX 50).
    TLD4_ARCH_SM_120 = 1200,
    /// sm_120a.
    TLD4_ARCH_SM_120A = 1201,
    /// sm_120f.
    TLD4_ARCH_SM_120F = 1202,
    /// sm_121 (DGX Spark).
    TLD4_ARCH_SM_121 = 1210,
    /// sm_121a.
    TLD4_ARCH_SM_121A = 1211,
    /// sm_121f.
    TLD4_ARCH_SM_121F = 1212,
}

/// The C value of an architecture, computed from its name (`sm_90a` -> 901), so that the
/// values cannot drift from tld4-decoder's list (a test checks the enum against it).
pub(crate) fn arch_value(arch: Arch) -> u32 {
    let rest = &arch.name()[3..];
    let (digits, variant) = match rest.as_bytes().last() {
        Some(b'a') => (&rest[..rest.len() - 1], 1),
        Some(b'f') => (&rest[..rest.len() - 1], 2),
        _ => (rest, 0),
    };
    digits.parse::<u32>().map_or(0, |sm| sm * 10 + variant)
}

/// The architecture of a C value, or `TLD4_ERR_UNKNOWN_ARCH`.
pub(crate) fn arch_of(value: u32) -> Result<Arch, Error> {
    Arch::ALL
        .into_iter()
        .find(|&a| arch_value(a) == value)
        .ok_or_else(|| {
            Error::UnknownArch(UnknownArch {
                name: format!("tld4_arch value {value}"),
            })
        })
}

/// The most entries `tld4_arch_insn_used_registers` writes: the base form's 15 and the
/// SM120 family's two uniform registers.
pub const TLD4_MAX_ARCH_USED_REGISTERS: usize = 17;

/// A TLD4 decoded for an architecture (opaque). Made by `tld4_decode_arch` or
/// `tld4_parse_arch`; freed with `tld4_arch_insn_free`.
pub struct tld4_arch_insn(pub(crate) ArchTld4);

/// Where a constant-bank TLD4 (SM75 to SM90a, form 0xb63) reads its texture handle:
/// `c[bank][offset]` (`tld4_arch_insn_constant_slot`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct tld4_constant_slot {
    /// Whether the form names a constant-bank slot (false: `bank` and `offset` are 0).
    pub present: bool,
    /// The constant bank.
    pub bank: u8,
    /// The byte offset in the bank (4 times the word offset the instruction prints).
    pub offset: u32,
}

/// The names, NUL-terminated, in `Arch::ALL` order (built once, immutable after).
fn names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    NAMES.get_or_init(|| {
        Arch::ALL
            .iter()
            .map(|a| CString::new(a.name()).unwrap_or_default())
            .collect()
    })
}

/// The architecture named `name` (`"sm_90"`, `"SM90a"`, `"sm90a"` or `"90a"`, as
/// `tld4 --arch` reads it) into `*arch` (a `tld4_arch` value); an unknown name is
/// `TLD4_ERR_UNKNOWN_ARCH`, whose message lists the names.
///
/// # Safety
/// `name` is a NUL-terminated string; `arch` is valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_from_name(
    name: *const c_char,
    arch: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let a: Arch = in_str(name, "name")?.parse()?;
        out(arch, "arch", arch_value(a))
    })
}

/// The name of a `tld4_arch` value as ptxas writes it (`"sm_90a"`), or NULL for a value that
/// is no architecture. The string is static: never free it.
#[no_mangle]
pub extern "C" fn tld4_arch_name(arch: u32) -> *const c_char {
    quiet(std::ptr::null(), || {
        Arch::ALL
            .iter()
            .position(|&a| arch_value(a) == arch)
            .and_then(|i| names().get(i))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// Every architecture, oldest first (nvdisasm's order), as `tld4_arch` values into `archs`
/// (room for `cap`; `count`, if not NULL, receives how many there are; call with
/// `archs = NULL, cap = 0` to ask).
///
/// # Safety
/// `archs` NULL or valid for `cap` writes; `count`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_list(
    archs: *mut u32,
    cap: usize,
    count: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let all = Arch::ALL.map(arch_value);
        out_array(archs, cap, count, "archs", &all)
    })
}

/// Stores a new boxed instruction into `*out_ptr`.
///
/// # Safety
/// `out_ptr` is NULL or valid for a write of a pointer.
unsafe fn store(out_ptr: *mut *mut tld4_arch_insn, insn: ArchTld4) -> Result<(), Error> {
    if out_ptr.is_null() {
        return Err(Error::Null("out"));
    }
    // SAFETY: not NULL; the caller guarantees it is valid for a write.
    unsafe {
        out(
            out_ptr,
            "out",
            Box::into_raw(Box::new(tld4_arch_insn(insn))),
        )
    }
}

/// Decodes `word` as nvdisasm `-b <arch>` reads it, into a new instruction (`*out`; free it
/// with `tld4_arch_insn_free`). Fails with `TLD4_ERR_ILLEGAL_ENCODING` where nvdisasm
/// refuses the word or does not print it as TLD4 on the architecture, and with
/// `TLD4_ERR_UNKNOWN_ARCH` for an `arch` that is no `tld4_arch`. A TLD4 form tld4 does not
/// model (0xb65) is `TLD4_ERR_ILLEGAL_ENCODING` too, its message saying so.
///
/// # Safety
/// `out` is valid for a write of a pointer; `err` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn tld4_decode_arch(
    arch: u32,
    word: tld4_word,
    out: *mut *mut tld4_arch_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        store(out, decode_arch(arch_of(arch)?, word.get())?)
    })
}

/// Parses one line of nvdisasm `-b <arch>`'s text into a new instruction (`*out`; free it
/// with `tld4_arch_insn_free`); `TLD4_ERR_PARSE` names the column.
///
/// # Safety
/// `text` is a NUL-terminated string; `out` is valid for a write; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_parse_arch(
    arch: u32,
    text: *const c_char,
    out: *mut *mut tld4_arch_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let arch = arch_of(arch)?;
        store(out, parse_arch(arch, in_str(text, "text")?)?)
    })
}

/// Frees an instruction; NULL is ignored.
///
/// # Safety
/// `insn` is NULL or came from this library and was not freed before.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_free(insn: *mut tld4_arch_insn) {
    if !insn.is_null() {
        // SAFETY: made by `Box::into_raw` in `store` and not freed before (the caller's
        // guarantee).
        quiet((), || drop(unsafe { Box::from_raw(insn) }));
    }
}

/// Writes the text of `word` on `arch`, exactly as `tld4 disasm --arch` and nvdisasm
/// `-b <arch>` print it, into `buf` (`cap` bytes, NUL-terminated; `needed` and a small
/// `cap` as for `tld4_disassemble`; 128 bytes always suffice). Refusals as
/// `tld4_decode_arch`.
///
/// # Safety
/// `buf` is NULL or valid for `cap` bytes; `needed` and `err` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_disassemble_arch(
    arch: u32,
    word: tld4_word,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = decode_arch(arch_of(arch)?, word.get())?;
        out_text(buf, cap, needed, "buf", &insn.text())
    })
}

/// Assembles one line of nvdisasm `-b <arch>`'s text into a word, as `tld4 asm --arch`.
///
/// # Safety
/// `text` is a NUL-terminated string; `word` is valid for a write; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_assemble_arch(
    arch: u32,
    text: *const c_char,
    word: *mut tld4_word,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let arch = arch_of(arch)?;
        let w = parse_arch(arch, in_str(text, "text")?)?.encode();
        out(word, "word", tld4_word::of(w))
    })
}

/// The instruction's text, as `tld4_disassemble_arch`.
///
/// # Safety
/// `insn` is a live instruction; `buf` NULL or valid for `cap` bytes; `needed`, `err` NULL
/// or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_text(
    insn: *const tld4_arch_insn,
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
pub unsafe extern "C" fn tld4_arch_insn_word(
    insn: *const tld4_arch_insn,
    word: *mut tld4_word,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        out(word, "word", tld4_word::of(insn.0.encode()))
    })
}

/// The instruction's architecture (`*arch`, a `tld4_arch` value) and its form's opcode on
/// it (`*opcode`, bits 11:0: 0xf63, 0xb63, ...); either pointer may be NULL.
///
/// # Safety
/// `insn` is a live instruction; `arch`, `opcode`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_form(
    insn: *const tld4_arch_insn,
    arch: *mut u32,
    opcode: *mut u16,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        crate::ptr::out_opt(arch, arch_value(insn.0.arch));
        crate::ptr::out_opt(opcode, insn.0.opcode);
        Ok(())
    })
}

/// Where the instruction reads its texture handle from constant memory (the 0xb63 form:
/// `c[bank][4 * offset]`, Mesa's NAK; docs/sources.md, TLD4 on every architecture), or
/// `present = false`.
///
/// # Safety
/// `insn` is a live instruction; `slot` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_constant_slot(
    insn: *const tld4_arch_insn,
    slot: *mut tld4_constant_slot,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let s = insn
            .0
            .constant_slot()
            .map_or_else(Default::default, |s| tld4_constant_slot {
                present: true,
                bank: s.bank,
                offset: s.offset,
            });
        out(slot, "slot", s)
    })
}

/// Every register the instruction reads or writes on its architecture (tld4-decoder's
/// `ArchTld4::used_registers`: the constant-bank form reads no uniform register; the SM120
/// family's second uniform register has role `TLD4_ROLE_SECOND_UR`), into `regs` (room for
/// `cap`; `TLD4_MAX_ARCH_USED_REGISTERS` always suffices); `count` as for
/// `tld4_insn_used_registers`.
///
/// # Safety
/// `insn` is a live instruction; `regs` NULL or valid for `cap` writes; `count`, `err` NULL
/// or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_used_registers(
    insn: *const tld4_arch_insn,
    regs: *mut tld4_used_register,
    cap: usize,
    count: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let items: Vec<tld4_used_register> = insn.0.used_registers().iter().map(used).collect();
        out_array(regs, cap, count, "regs", &items)
    })
}

/// The scheduling-control fields (at the same bits on every architecture).
///
/// # Safety
/// `insn` is a live instruction; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_scheduling(
    insn: *const tld4_arch_insn,
    out_ptr: *mut tld4_scheduling,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let s = in_ref(insn, "insn")?.0.scheduling();
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

/// The fields the instruction shares with SM100's table, as a new SM100 instruction
/// (`*out`; free it with `tld4_insn_free`): what `tld4_insn_operand_layout` and
/// `tld4_insn_operand_vectors` read. Its text and word are SM100's, not the architecture's.
///
/// # Safety
/// `insn` is a live instruction; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_base(
    insn: *const tld4_arch_insn,
    out_ptr: *mut *mut tld4_insn,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let base = in_ref(insn, "insn")?.0.insn;
        if out_ptr.is_null() {
            return Err(Error::Null("out"));
        }
        out(out_ptr, "out", Box::into_raw(Box::new(tld4_insn(base))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_arch_has_its_c_value_and_back() {
        let mut seen = std::collections::BTreeSet::new();
        for a in Arch::ALL {
            let v = arch_value(a);
            assert!(v >= 750, "{a}: {v}");
            assert!(seen.insert(v), "{a}: {v} twice");
            assert_eq!(arch_of(v).unwrap(), a);
        }
        assert!(arch_of(0).is_err());
        assert!(arch_of(999).is_err());
    }
}
