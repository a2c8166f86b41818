//! Range tests for every immediate field of every form on every architecture, generated from
//! the field table (`tld4_decoder::immediates`): the largest value each field holds parses and
//! prints back; one more is refused at that operand's column, naming the field.

use tld4_decoder::{
    decode_arch, immediates, parse, parse_arch, Arch, ArchTld4, HandleForm, ImmediateSlot,
    ParseError, FORMS,
};

/// A legal instruction of `arch`'s form `opcode`, every immediate 0 (the base fields from a
/// text nvdisasm prints; the form's own bits from its row).
fn instance(arch: Arch, opcode: u16, modeled_as: HandleForm) -> ArchTld4 {
    let base = match modeled_as {
        HandleForm::Register => "TLD4.G.B.AOFFI R10, R8, R28, R24, 2D, 0x0 ;",
        HandleForm::Uniform => "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D, 0x0 ;",
    };
    let mut insn = ArchTld4::base(arch, parse(base).unwrap());
    insn.opcode = opcode;
    insn.b_flag = modeled_as == HandleForm::Register;
    insn
}

/// The 1-based column of the only `token` operand of `text`.
fn column_of(text: &str, token: &str) -> usize {
    let hits: Vec<usize> = text
        .match_indices(token)
        .filter(|(i, _)| {
            let end = i + token.len();
            text[end..].starts_with(',') || text[end..].starts_with(' ')
        })
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits.len(), 1, "`{token}` in {text}");
    hits[0]
}

#[test]
fn every_immediate_of_every_form_is_range_checked_with_its_column() {
    let mut checked = 0;
    for arch in Arch::ALL {
        for form in FORMS.iter().filter(|f| f.family == arch.family()) {
            let Some(modeled_as) = form.modeled_as else {
                continue;
            };
            let fields = immediates(arch.family(), form.opcode);
            for imm in &fields {
                let mut insn = instance(arch, form.opcode, modeled_as);
                // The mask's largest value prints nothing (0xf is every component): use
                // 0xe, the largest that prints.
                let top = if imm.slot == ImmediateSlot::WriteMask {
                    imm.max() - 1
                } else {
                    imm.max()
                };
                insn.set_immediate(imm.slot, top);
                let word = insn.try_encode().unwrap_or_else(|e| {
                    panic!("{arch} {:#05x} {}: {e}", form.opcode, imm.spec.name)
                });
                let text = decode_arch(arch, word).unwrap().text();
                let back = parse_arch(arch, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(back.immediate(imm.slot), top, "{arch} {text}");
                assert_eq!(back.encode(), word, "{arch} {text}");
                // One more than the field holds: refused at the operand, naming the field.
                let token = format!("{top:#x}");
                let column = column_of(&text, &token);
                let wide = text.replacen(
                    &format!("{token},"),
                    &format!("{:#x},", imm.max() as u64 + 1),
                    1,
                );
                let wide = if wide == text {
                    text.replacen(
                        &format!("{token} "),
                        &format!("{:#x} ", imm.max() as u64 + 1),
                        1,
                    )
                } else {
                    wide
                };
                assert_ne!(wide, text);
                let e: ParseError = parse_arch(arch, &wide).unwrap_err();
                assert_eq!(e.column, column, "{arch} {wide}: {e}");
                assert!(e.expected.contains(imm.spec.name), "{arch} {wide}: {e}");
                assert!(e.expected.contains(&imm.spec.bits()), "{arch} {wide}: {e}");
                checked += 1;
            }
        }
    }
    // Every modeled form has at least the write mask; the constant-bank and 0xb65 forms and
    // the pre-SM100 0xf63 have their own immediates besides.
    assert!(checked >= 20, "{checked}");
}

#[test]
fn the_constant_bank_form_refuses_a_bank_or_offset_too_wide() {
    // Bank 0x20 (5 bits) and word offset 0x4000 (14 bits) were cut to 0 before.
    for (text, column, field) in [
        (
            "TLD4.G.AOFFI R10, R8, R20, R24, 0x20, 0x10, 2D",
            33,
            "cbank",
        ),
        (
            "TLD4.G.AOFFI R10, R8, R20, R24, 0x3, 0x4000, 2D",
            38,
            "cbank_offset",
        ),
    ] {
        for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm90] {
            let e = parse_arch(arch, text).unwrap_err();
            assert_eq!(e.column, column, "{e}");
            assert!(e.expected.contains(field), "{e}");
        }
    }
    let ok = parse_arch(
        Arch::Sm90,
        "TLD4.G.AOFFI R10, R8, R20, R24, 0x1f, 0x3fff, 2D",
    )
    .unwrap();
    assert_eq!(ok.imms[..2], [0x1f, 0x3fff]);
}

#[test]
fn registers_printed_as_unknown_are_refused_under_another_name() {
    // Ra = 255 prints `???255`: `RZ` is never printed there, on any family.
    for (arch, text) in [
        (Arch::Sm90, "TLD4.R R8, R0, RZ, UR4, 0x0, 2D"),
        (Arch::Sm100, "TLD4.R R8, R0, RZ, UR4, 2D"),
        (Arch::Sm120, "TLD4.R R8, R0, RZ, UR4, 2D"),
    ] {
        let e = parse_arch(arch, text).unwrap_err();
        assert_eq!(e.column, 16, "{arch}: {e}");
    }
    // SM80's 6-bit URc prints 63 as `???63`: `UR63` is never printed, `UR64` is no register.
    assert!(parse_arch(Arch::Sm90, "TLD4.G R10, R8, R28, R24, ???63, 0x0, 2D").is_ok());
    for (text, column) in [
        ("TLD4.G R10, R8, R28, R24, UR63, 0x0, 2D", 27),
        ("TLD4.G R10, R8, R28, R24, UR64, 0x0, 2D", 27),
    ] {
        let e = parse_arch(Arch::Sm90, text).unwrap_err();
        assert_eq!(e.column, column, "{text}: {e}");
    }
    // A base-parser error after the family's operands are taken out keeps the original
    // column (the rebuilt text is shorter).
    let e = parse_arch(Arch::Sm90, "TLD4.G R10, R8, R28, R24, UR4, 0x0, 2D, 0x10").unwrap_err();
    assert_eq!(e.column, 41, "{e}");
}
