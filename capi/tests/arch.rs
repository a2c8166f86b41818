//! Every architecture through the C ABI: names and values, and decoding, printing, parsing
//! and assembling against nvdisasm's golden corpora (`tests/golden/nvdisasm_arch_*.tsv`)
//! and tld4-decoder. Execution: capi/tests/arch_exec.rs.

use crate::arch_fixture;

use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};

use arch_fixture::{arch, word, B63, F63};
use tld4_capi::*;
use tld4_emu::decoder::{decode_arch, Arch, Family};

use tld4_status::*;

const CORPORA: [(Family, &str); 5] = [
    (
        Family::Sm75,
        include_str!("../../tests/golden/nvdisasm_arch_sm_75.tsv"),
    ),
    (
        Family::Sm80,
        include_str!("../../tests/golden/nvdisasm_arch_sm_80.tsv"),
    ),
    (
        Family::Sm100,
        include_str!("../../tests/golden/nvdisasm_arch_sm_100.tsv"),
    ),
    (
        Family::Sm107,
        include_str!("../../tests/golden/nvdisasm_arch_sm_107.tsv"),
    ),
    (
        Family::Sm120,
        include_str!("../../tests/golden/nvdisasm_arch_sm_120.tsv"),
    ),
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn disassemble(a: u32, w: tld4_word) -> Result<String, (tld4_status, String)> {
    let mut buf = [0 as std::ffi::c_char; 128];
    let mut e = tld4_error::new();
    let st =
        unsafe { tld4_disassemble_arch(a, w, buf.as_mut_ptr(), buf.len(), null_mut(), &mut e) };
    if st != TLD4_OK {
        return Err((st, e.message()));
    }
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string())
}

#[test]
fn names_and_values_cover_every_architecture() {
    let mut all = vec![0u32; 64];
    let mut count = 0usize;
    let mut e = tld4_error::new();
    let st = unsafe { tld4_arch_list(all.as_mut_ptr(), all.len(), &mut count, &mut e) };
    assert_eq!(st, TLD4_OK);
    assert_eq!(count, Arch::ALL.len());
    for (&v, a) in all[..count].iter().zip(Arch::ALL) {
        assert_eq!(arch(a.name()), v, "{a}");
        assert_eq!(arch(a.nvdisasm_name()), v, "{a}");
        let name = unsafe { CStr::from_ptr(tld4_arch_name(v)) };
        assert_eq!(name.to_str().unwrap(), a.name());
    }
    assert_eq!(arch("sm_90"), tld4_arch::TLD4_ARCH_SM_90 as u32);
    assert_eq!(arch("SM100a"), tld4_arch::TLD4_ARCH_SM_100A as u32);
    // The header's enum names exactly the architectures, each with its value.
    let header = include_str!("../include/tld4.h");
    let listed: Vec<(String, u32)> = header
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("TLD4_ARCH_SM_")?;
            let (name, value) = l.split_once(" = ")?;
            Some((
                format!("sm_{}", name.to_ascii_lowercase()),
                value.trim_end_matches(',').parse().ok()?,
            ))
        })
        .collect();
    assert_eq!(listed.len(), Arch::ALL.len(), "{listed:?}");
    for (name, value) in &listed {
        assert_eq!(arch(name), *value, "{name}");
    }
}

#[test]
fn unknown_architectures_are_typed_errors() {
    let mut a = 7u32;
    let mut e = tld4_error::new();
    for bad in ["sm_91", "sm_100b", "", "hopper"] {
        let c = CString::new(bad).unwrap();
        let st = unsafe { tld4_arch_from_name(c.as_ptr(), &mut a, &mut e) };
        assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH, "{bad}");
        assert_eq!(e.status, TLD4_ERR_UNKNOWN_ARCH);
        assert!(e.message().contains(&format!("`{bad}`")), "{}", e.message());
        assert!(e.message().contains("sm_75, sm_80"), "{}", e.message());
        assert_eq!(a, 7, "nothing written");
    }
    let st = unsafe { tld4_arch_from_name(null(), &mut a, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(tld4_arch_name(0).is_null());
    assert!(tld4_arch_name(905).is_null());
    let mut insn = null_mut();
    let st = unsafe { tld4_decode_arch(905, word(B63), &mut insn, &mut e) };
    assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH);
    assert!(insn.is_null());
    assert_eq!(
        disassemble(12345, word(F63)).unwrap_err().0,
        TLD4_ERR_UNKNOWN_ARCH
    );
    let mut exec = null_mut();
    let st = unsafe { tld4_arch_exec_from_word(1, word(F63), null(), &mut exec, &mut e) };
    assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH);
}

/// For every family corpus and every architecture of the family: `tld4_disassemble_arch`
/// prints what tld4-decoder prints and, where nvdisasm printed a TLD4, nvdisasm's text;
/// where tld4-decoder refuses the word, the C call refuses it as an illegal encoding; the
/// text assembles back to the word, and decodes through `tld4_decode_arch` alike.
#[test]
fn disassembly_is_the_decoders_text_on_every_architecture() {
    let mut checked = [0usize; 2];
    for (family, corpus) in CORPORA {
        for a in family.archs() {
            let v = arch(a.name());
            for line in corpus
                .lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
            {
                let (hex, verdict) = line.split_once('\t').unwrap();
                let w = word(hex);
                let c = disassemble(v, w);
                match decode_arch(a, w.get()) {
                    Ok(insn) => {
                        let text = c.unwrap_or_else(|e| panic!("{a} {hex}: {e:?}"));
                        assert_eq!(text, insn.text(), "{a} {hex}");
                        assert_eq!(collapse(&text), verdict, "{a} {hex}");
                        checked[0] += 1;
                        round_trip(a, v, w, &text);
                    }
                    Err(_) => {
                        let (st, _) = c.unwrap_err();
                        assert_eq!(st, TLD4_ERR_ILLEGAL_ENCODING, "{a} {hex}");
                        checked[1] += 1;
                    }
                }
            }
        }
    }
    // Both outcomes occur in the corpora.
    assert!(checked[0] > 10_000 && checked[1] > 10_000, "{checked:?}");
}

fn round_trip(a: Arch, v: u32, w: tld4_word, text: &str) {
    let c = CString::new(text).unwrap();
    let mut back = tld4_word::default();
    let mut e = tld4_error::new();
    let st = unsafe { tld4_assemble_arch(v, c.as_ptr(), &mut back, &mut e) };
    assert_eq!(st, TLD4_OK, "{a} `{text}`: {}", e.message());
    assert_eq!(disassemble(v, back).unwrap(), text, "{a}");
    let mut insn = null_mut();
    unsafe {
        assert_eq!(tld4_decode_arch(v, w, &mut insn, &mut e), TLD4_OK);
        let mut again = tld4_word::default();
        assert_eq!(tld4_arch_insn_word(insn, &mut again, &mut e), TLD4_OK);
        assert_eq!(again, w, "{a}");
        let mut buf = [0 as std::ffi::c_char; 128];
        let st = tld4_arch_insn_text(insn, buf.as_mut_ptr(), 128, null_mut(), &mut e);
        assert_eq!(st, TLD4_OK);
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), text);
        tld4_arch_insn_free(insn);
    }
}

#[test]
fn the_constant_bank_form_names_its_slot_and_reads_no_uniform_register() {
    let mut e = tld4_error::new();
    let mut insn = null_mut();
    unsafe {
        assert_eq!(
            tld4_decode_arch(arch("sm_90"), word(B63), &mut insn, &mut e),
            TLD4_OK
        );
        let (mut a, mut op) = (0u32, 0u16);
        assert_eq!(tld4_arch_insn_form(insn, &mut a, &mut op, &mut e), TLD4_OK);
        assert_eq!((a, op), (tld4_arch::TLD4_ARCH_SM_90 as u32, 0xb63));
        let mut slot = tld4_constant_slot::default();
        assert_eq!(
            tld4_arch_insn_constant_slot(insn, &mut slot, &mut e),
            TLD4_OK
        );
        // The text prints bank 0x3 and word offset 0x3f04: c[3][4 * 0x3f04].
        assert!(slot.present);
        assert_eq!((slot.bank, slot.offset), (3, 4 * 0x3f04));
        let mut regs = [std::mem::zeroed::<tld4_used_register>(); TLD4_MAX_ARCH_USED_REGISTERS];
        let mut n = 0usize;
        let st = tld4_arch_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, &mut e);
        assert_eq!(st, TLD4_OK);
        assert!(n > 0);
        assert!(regs[..n]
            .iter()
            .all(|r| r.file != tld4_reg_file::TLD4_FILE_UREG));
        tld4_arch_insn_free(insn);

        // SM100's uniform form names no slot and reads UR4.
        assert_eq!(
            tld4_decode_arch(arch("sm_100"), word(F63), &mut insn, &mut e),
            TLD4_OK
        );
        assert_eq!(
            tld4_arch_insn_constant_slot(insn, &mut slot, &mut e),
            TLD4_OK
        );
        assert!(!slot.present);
        let st = tld4_arch_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, &mut e);
        assert_eq!(st, TLD4_OK);
        assert!(regs[..n]
            .iter()
            .any(|r| r.file == tld4_reg_file::TLD4_FILE_UREG && r.number == 4));
        tld4_arch_insn_free(insn);
    }
}

/// The C entry points give the decoder's range errors, with the column: an immediate too
/// wide for its field (0xb63's 5-bit bank and 14-bit word offset were cut before), and a
/// register text nvdisasm never prints (`RZ` as Ra: it prints `???255`).
#[test]
fn assembly_refuses_immediates_too_wide_and_unprinted_registers_with_the_column() {
    for (name, text, column) in [
        (
            "sm_90",
            "TLD4.G.AOFFI R10, R8, R20, R24, 0x20, 0x10, 2D",
            33,
        ),
        (
            "sm_90",
            "TLD4.G.AOFFI R10, R8, R20, R24, 0x3, 0x4000, 2D",
            38,
        ),
        ("sm_75", "TLD4.G R10, R8, R28, R24, UR4, 0x100, 2D", 32),
        ("sm_100", "TLD4.R R8, R0, RZ, UR4, 2D", 16),
    ] {
        let c = CString::new(text).unwrap();
        let mut w = tld4_word::default();
        let mut e = tld4_error::new();
        let st = unsafe { tld4_assemble_arch(arch(name), c.as_ptr(), &mut w, &mut e) };
        assert_eq!(st, TLD4_ERR_PARSE, "{text}");
        let want = tld4_emu::decoder::parse_arch(name.parse().unwrap(), text).unwrap_err();
        assert_eq!(want.column, column, "{text}");
        assert_eq!(e.message(), format!("line 1, {want}"), "{text}");
        let mut insn = null_mut();
        let mut e2 = tld4_error::new();
        let st = unsafe { tld4_parse_arch(arch(name), c.as_ptr(), &mut insn, &mut e2) };
        assert_eq!(st, TLD4_ERR_PARSE, "{text}");
        assert!(insn.is_null());
        assert_eq!(e2.message(), e.message());
    }
}
