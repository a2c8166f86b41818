//! The fast decode path ([`decode`], with AVX2 where the CPU has it), its portable form
//! ([`decode_portable`]) and the detailed path ([`decode_detailed`], the field by field
//! reading with a `Result` per field) agree: the same words accepted and refused,
//! the same decoded value, the same error, on random words, on words near legality and on
//! every raw value of every field; and [`decode_many`] gives each word of a slice the same.

use proptest::prelude::*;
use tld4_decoder::*;

/// A random word made legal or nearly so: each of the three checks (opcode, bit 91, opex)
/// is passed or failed at random, so every mix of refusals comes up.
fn near_legal_word() -> impl Strategy<Value = u128> {
    (
        any::<u128>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0usize..LEGAL_OPEX_VALUES.len(),
    )
        .prop_map(|(w, opcode, bit91, opex, k)| {
            let mut w = w;
            if opcode {
                w = field::form.set(w, if w >> 100 & 1 == 0 { 0xd64 } else { 0xf63 });
            }
            if bit91 {
                w = field::bit_91.set(w, 1);
            }
            if opex {
                let v = LEGAL_OPEX_VALUES[k] as u32;
                w = field::batch_t.set(field::usched_info.set(w, v & 0x1f), v >> 5);
            }
            w
        })
}

/// Both paths on one word: equal results, and a legal word decodes to each field's raw bits.
fn agree(w: u128) -> Result<(), TestCaseError> {
    let fast = decode(w);
    let detailed = decode_detailed(w);
    prop_assert_eq!(&fast, &detailed, "{:032x}", w);
    // The fast path's portable shifts (what `decode` uses without AVX2) agree too.
    prop_assert_eq!(&decode_portable(w), &detailed, "{:032x}", w);
    if let Ok(insn) = fast {
        // Each member reads back as its field's raw bits (independent of either path).
        for (spec, raw, _) in insn.field_values() {
            prop_assert_eq!(raw, spec.get(w), "{} of {:032x}", spec.name, w);
        }
        prop_assert_eq!(insn.encode(), w);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(50_000))]

    #[test]
    fn fast_and_detailed_agree_on_random_words(w in any::<u128>()) {
        agree(w)?;
    }

    #[test]
    fn fast_and_detailed_agree_near_legality(w in near_legal_word()) {
        agree(w)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// `decode_many` gives each slot what the detailed path gives its word, legal or not, and
    /// writes every slot (the slots start as a value no word decodes to).
    #[test]
    fn decode_many_is_the_detailed_decode_of_each_word(
        words in proptest::collection::vec(
            prop_oneof![near_legal_word(), any::<u128>()], 0..300)
    ) {
        let sentinel = Err(DecodeError::UndefinedOpex { opex: 0, usched_info: 0xff, batch_t: 0xff });
        let mut out = vec![sentinel; words.len()];
        decode_many(&words, &mut out).unwrap();
        for (i, (&w, got)) in words.iter().zip(&out).enumerate() {
            prop_assert_eq!(got, &decode_detailed(w), "word {} = {:032x}", i, w);
        }
    }
}

#[test]
fn decode_many_refuses_slices_of_different_lengths_and_writes_nothing() {
    let word = assemble("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
    let mut out = vec![Err(DecodeError::Bit91Clear); 3];
    assert_eq!(
        decode_many(&[word, word], &mut out),
        Err(LengthMismatch {
            words: 2,
            results: 3
        })
    );
    assert!(out.iter().all(|r| *r == Err(DecodeError::Bit91Clear)));
    let err = decode_many(&[word; 4], &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "decode_many was given 4 words and room for 3 results; the two must be equally long"
    );
    decode_many(&[word; 3], &mut out).unwrap();
    assert!(out
        .iter()
        .all(|r| r.as_ref().is_ok_and(|i| i.encode() == word)));
}

#[test]
fn fast_and_detailed_agree_on_every_value_of_every_field() {
    let base = assemble(
        "@P3 TLD4.SCR.G.F16.RN.PTP.DC.EL.NODEP P2, R201, R200, R28, R24, UR4, ARRAY_CUBE, 0x3 ;",
    )
    .expect("base word");
    let mut legal = 0;
    for spec in FIELDS {
        let values = 1u64 << spec.width().min(12);
        for raw in 0..values {
            let w = spec.set(base, raw as u32);
            agree(w).unwrap();
            legal += decode(w).is_ok() as u32;
            // And with every other bit flipped, so that neighbours of the field vary too.
            let flipped = spec.set(!base, raw as u32);
            agree(flipped).unwrap();
        }
    }
    // The base is legal, so most of these words are: the fast path really ran.
    assert!(legal > 4000, "{legal}");
}

#[test]
fn each_refusal_is_the_detailed_paths_error() {
    let ok = assemble("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
    // Opcode first, then bit 91, then opex: the order of the detailed path's checks.
    let all_wrong = field::bit_91.set(field::form.set(ok, 0xf62), 0) | 1 << 109;
    assert_eq!(
        decode(all_wrong),
        Err(DecodeError::NotTld4 { opcode: 0xf62 })
    );
    assert_eq!(
        decode(field::form.set(all_wrong, 0xf63)),
        Err(DecodeError::Bit91Clear)
    );
    assert!(matches!(
        decode(field::bit_91.set(field::form.set(all_wrong, 0xf63), 1)),
        Err(DecodeError::UndefinedOpex { .. })
    ));
}

#[test]
fn decode_from_many_threads_at_once_agrees_with_the_detailed_path() {
    // The first calls choose the path at run time; threads racing on that choice all get
    // the same answers.
    let words: Vec<u128> = (0..64u32)
        .map(|i| {
            let w = assemble("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
            field::rd.set(w, i)
        })
        .chain([0, u128::MAX])
        .collect();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for &w in &words {
                    assert_eq!(decode(w), decode_detailed(w), "{w:032x}");
                }
            });
        }
    });
}
