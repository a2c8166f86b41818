//! Round trips, text rules and errors. The expected texts are nvdisasm 13.5's output for
//! these words (`nvdisasm -b SM100`, one word per file).

use proptest::prelude::*;
use tld4_decoder::*;

/// (word, nvdisasm's text), each printed by nvdisasm for a file holding that word alone.
const NVDISASM: &[(u128, &str)] = &[
    (0x0000000008000000_0000000000000d64, "@P0 TLD4.R.B.EF P0, R0, R0, R0, R0, INVALID0, 0x0 ;"),
    (0x0000000008000000_0000000000000f63, "@P0 TLD4.R.EF P0, R0, R0, R0, R0, UR0, INVALID0, 0x0 ;"),
    (0x89e1f0a20ff0418ff083f63, "@P3 TLD4.G.AOFFI R10, R8,     ???255, R24, UR4, 2D ;"),
    (0x89e1f0a20ff04ffff083d64, "@P3 TLD4.G.B.AOFFI R10, R8,     ???255, ???255, 2D ;"),
    (0x89e1f0a20ff04ff1c083f63, "@P3 TLD4.G.AOFFI R10, R8, R28, UR4, 2D ;"),
    (0x89e1f0a20ff04ff1c083d64, "@P3 TLD4.G.B.AOFFI R10, R8, R28,     ???255, 2D ;"),
    (0x89e1f0a20ff04181c08ff63, "@!PT TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;"),
    (0x894100a20ff04181c083d64, "@P3 TLD4.G.B.AOFFI P2, R10, R8, R28, R24, 2D, 0x0 ;"),
    (0x89e1fff20ff04181cff3f63, "@P3 TLD4.G.AOFFI RZ, RZ, R28, R24, UR4, 2D ;"),
    (0x89e1f0a20ffff181c083f63, "@P3 TLD4.G.AOFFI R10, R8, R28, R24, URZ, 2D ;"),
    (0x000000000ce5ffc9_30ff04ff1cc83d64, "@P3 TLD4.SCR.G.B.INVALID3.INVALID3.DC.INVALID6.NODEP P2, R201, R200, R28,     ???255, 2D ;"),
];

#[test]
fn prints_and_parses_what_nvdisasm_prints() {
    for &(word, text) in NVDISASM {
        let insn = decode(word).unwrap_or_else(|e| panic!("{word:032x}: {e}"));
        assert_eq!(insn.text(), text, "{word:032x}");
        assert_eq!(insn.encode(), word, "{word:032x}");
        assert_eq!(parse(text).unwrap().text(), text);
        assert_eq!(disassemble(assemble(text).unwrap()).unwrap(), text);
    }
}

#[test]
fn refuses_what_nvdisasm_refuses() {
    let ok = 0x89e1f0a20ff04181c083f63u128;
    assert!(decode(ok).is_ok());
    assert_eq!(decode(ok ^ 1), Err(DecodeError::NotTld4 { opcode: 0xf62 }));
    assert_eq!(decode(ok & !(1 << 91)), Err(DecodeError::Bit91Clear));
    // usched_info = 0x10 (bit 109): nvdisasm says "undefined value 0x10 for table 'TABLES_opex_0'".
    assert_eq!(
        decode(ok | 1 << 109),
        Err(DecodeError::UndefinedOpex {
            opex: 0x10,
            usched_info: 0x10,
            batch_t: 0
        })
    );
    let refused = decode(ok | 1 << 124).unwrap_err().to_string();
    assert!(refused.contains("TABLES_opex_0"), "{refused}");
    assert_eq!(LEGAL_OPEX_VALUES.len(), 157);
    assert_eq!((0..=255u8).filter(|&v| is_legal_opex(v)).count(), 157);
}

#[test]
fn parse_errors_name_the_column() {
    let e = parse("TLD4.G.AOFFI R10, R8, R28, R24, UR4, 3D ;").unwrap_err();
    assert_eq!(e.column, 38);
    assert!(e.expected.contains("dimension"), "{e}");
    assert_eq!(e.found, "`3D`");
    let e = parse("TLD4.AOFFI.G R10, R8, R28, R24, UR4, 2D ;").unwrap_err();
    assert_eq!(e.column, 6);
    let e = parse("TLD4.G.DC.AOFFI R10, R8, R28, R24, UR4, 2D ;").unwrap_err();
    assert_eq!((e.column, e.found.as_str()), (11, "`AOFFI`"));
    let e = parse("TLD4.G R10, R8, R28, R24, 2D ;").unwrap_err();
    assert!(e.expected.contains("URc"), "{e}");
    let e = parse("TLD4.G R10, R8, R28, R24, UR4, 2D, 0x7 ; junk").unwrap_err();
    assert_eq!((e.column, e.found.as_str()), (42, "`junk`"));
    let e = parse("@P9 TLD4.G R10, R8, R28, UR4, 2D ;").unwrap_err();
    assert_eq!(e.column, 2);
    let e = parse("TLD4.G R10, R255, R28, UR4, 2D ;").unwrap_err();
    assert_eq!(e.column, 13);
    assert!(parse("").is_err());
    assert!(parse("TLD4.G.F16.RX R10, R8, R28, UR4, 2D ;").is_err());
}

#[test]
fn the_hidden_fields_take_documented_values() {
    let u = parse("TLD4.R R22, R20, R20, UR4, ARRAY_2D ;").unwrap();
    assert_eq!(u.ignored_48_59, PARSE_DEFAULT_IGNORED_48_59_UNIFORM);
    assert_eq!(
        (u.rb, u.pred_dst, u.write_mask, u.guard_pred),
        (Reg::RZ, Pred::PT, WriteMask::ALL, Pred::PT)
    );
    assert_eq!(u.eviction, Eviction::Normal);
    let r = parse("TLD4.R.B R22, R20, R20, R24, ARRAY_2D ;").unwrap();
    assert_eq!((r.ignored_48_59, r.ur), (0, UReg(0)));
    assert_eq!(r.opex(), 0);
    // A lone INVALID3 is the offset field; two are F16 then offsets.
    assert_eq!(
        parse("TLD4.R.INVALID3 R1, R2, R3, UR4, 2D ;")
            .unwrap()
            .offset_mode,
        OffsetMode::Invalid3
    );
    let two = parse("TLD4.R.INVALID3.INVALID3 R1, R2, R3, UR4, 2D ;").unwrap();
    assert_eq!(
        (two.f16_mode, two.offset_mode),
        (F16Mode::Invalid3, OffsetMode::Invalid3)
    );
    let f = parse("TLD4.R.INVALID3.PTP R1, R2, R3, UR4, 2D ;").unwrap();
    assert_eq!(
        (f.f16_mode, f.offset_mode),
        (F16Mode::Invalid3, OffsetMode::Ptp)
    );
    // Register 255 is read only as nvdisasm spells it: `???255` as Ra and as Rb of the
    // register form (never `RZ`), `RZ` or nothing as Rb of the uniform form (never `???255`).
    assert_eq!(
        parse("TLD4.R.B R1, R2, ???255, ???255, 2D ;")
            .unwrap()
            .text(),
        "TLD4.R.B R1, R2, ???255, ???255, 2D ;"
    );
    for (text, column) in [
        ("TLD4.R.B R1, R2, RZ, R4, 2D ;", 18),
        ("TLD4.R.B R1, R2, R3, RZ, 2D ;", 22),
        ("TLD4.R R8, R0, RZ, UR4, 2D", 16),
        ("TLD4.R R8, R0, R2, ???255, UR4, 2D", 20),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.column, column, "{text}: {e}");
        assert!(
            e.expected.contains("???255") || e.expected.contains("RZ"),
            "{e}"
        );
    }
    assert_eq!(
        parse("TLD4.R R8, R0, R2, RZ, UR4, 2D").unwrap().text(),
        "TLD4.R R8, R0, R2, UR4, 2D ;"
    );
}

#[test]
fn try_encode_refuses_values_too_wide_for_their_field() {
    let mut insn = parse("TLD4.R R22, R20, R20, UR4, ARRAY_2D ;").unwrap();
    assert!(insn.try_encode().is_ok());
    insn.usched_info = 0x40;
    match insn.try_encode() {
        Err(EncodeError::TooWide { field, width, .. }) => {
            assert_eq!((field, width), ("usched_info", 5))
        }
        other => panic!("{other:?}"),
    }
    insn.usched_info = 0x10;
    assert!(matches!(
        insn.try_encode(),
        Err(EncodeError::Illegal(DecodeError::UndefinedOpex { .. }))
    ));
}

/// Random words biased toward legal ones: a random word with a TLD4 opcode, bit 91 and a
/// legal opex value put in.
fn legal_word() -> impl Strategy<Value = u128> {
    (any::<u128>(), any::<bool>(), 0..LEGAL_OPEX_VALUES.len()).prop_map(|(w, uniform, k)| {
        let form = if uniform {
            HandleForm::Uniform
        } else {
            HandleForm::Register
        };
        let opex = LEGAL_OPEX_VALUES[k] as u32;
        let w = field::form.set(w, form.opcode() as u32);
        let w = field::bit_91.set(w, 1);
        let w = field::usched_info.set(w, opex & 0x1f);
        field::batch_t.set(w, opex >> 5)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn decoding_never_panics_and_round_trips(w in any::<u128>()) {
        if let Ok(insn) = decode(w) {
            prop_assert_eq!(insn.encode(), w);
        }
    }

    #[test]
    fn legal_words_round_trip_through_bits_and_text(w in legal_word()) {
        let insn = decode(w).unwrap();
        prop_assert_eq!(insn.encode(), w);
        let text = insn.text();
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(back.text(), text);
        prop_assert_eq!(back.try_encode().map(|w2| decode(w2).unwrap().text()).unwrap(), insn.text());
    }

    #[test]
    fn parsing_never_panics(s in "\\PC{0,80}") {
        let _ = parse(&s);
    }

    #[test]
    fn parsing_near_misses_never_panics(cut in 0usize..60, junk in "[ ,.;@!?A-Z0-9x]{0,6}") {
        let base = "@!P3 TLD4.SCR.G.B.F16.RN.PTP.DC.EL.NODEP P2, R201, R200, R28, ???255, ARRAY_CUBE, 0x3 ;";
        let cut = cut.min(base.len());
        let s = format!("{}{}{}", &base[..cut], junk, &base[cut..]);
        if let Ok(insn) = parse(&s) {
            prop_assert!(decode(insn.encode()).is_ok());
        }
    }
}
