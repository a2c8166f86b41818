//! The cases model refuses lax input with the JSON path and the valid forms, and reads
//! decimals exactly (rounded once, to f32).

use tld4_gather_cases::{self as cases, BorderSpec, Num};

fn case(texture_extra: &str, sampler_extra: &str, precision: &str, query: &str) -> String {
    format!(
        r#"{{"cases": [{{"texture": {{"dim": "2d", "format": "r32_float", "width": 2, "height": 1, "texels": [0.25, 0.75]{texture_extra}}},
           "sampler": {{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"{sampler_extra}}}{precision},
           "queries": [{query}]}}]}}"#
    )
}

const Q: &str = r#"{"coord": [0.5, 0.5]}"#;

fn parse_err(text: &str) -> cases::CaseError {
    match cases::parse(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e,
    }
}

#[test]
fn the_plain_case_parses() {
    let f = cases::parse(&case("", "", "", Q)).expect("parses");
    assert_eq!(
        f.cases[0].texture.texels,
        vec![Num::Float(0.25), Num::Float(0.75)]
    );
}

#[test]
fn a_border_takes_exactly_one_form() {
    let e = parse_err(&case(
        "",
        r#", "border": {"words": [0,0,0,0], "float": [0,0,0,0]}"#,
        "",
        Q,
    ));
    assert_eq!(e.path, "cases[0].sampler.border");
    assert!(e.message.contains("`words` and `float`"), "{e}");
    let e = parse_err(&case("", r#", "border": "pink""#, "", Q));
    assert!(
        e.message.contains("float_opaque_white") && e.message.contains("\"words\""),
        "{e}"
    );
    let e = parse_err(&case("", r#", "border": {"colour": [0,0,0,0]}"#, "", Q));
    assert!(e.message.contains("unknown border key `colour`"), "{e}");
    let f = cases::parse(&case(
        "",
        r#", "border": {"float": [0.5, "0x3f800000", 0, 1]}"#,
        "",
        Q,
    ))
    .unwrap();
    assert_eq!(
        f.cases[0].sampler.border,
        BorderSpec::Float {
            float: [0.5, 1.0, 0.0, 1.0]
        }
    );
}

#[test]
fn fraction_bits_above_20_are_refused_when_read() {
    for bits in ["21", "255", "256", "-1", "2.5"] {
        let e = parse_err(&case(
            "",
            "",
            &format!(r#", "precision": {{"fraction_bits": {bits}}}"#),
            Q,
        ));
        assert_eq!(e.path, "cases[0].precision.fraction_bits", "{bits}: {e}");
        assert!(e.message.contains("0..=20"), "{e}");
    }
    assert!(cases::parse(&case(
        "",
        "",
        r#", "precision": {"fraction_bits": 20, "rounding": "floor"}"#,
        Q
    ))
    .is_ok());
    let e = parse_err(&case("", "", r#", "precision": "sloppy""#, Q));
    assert!(e.message.contains("\"exact\""), "{e}");
}

#[test]
fn text_after_the_document_is_an_error_with_line_and_column() {
    for tail in ["\nxyz", "\n{\"cases\": []}"] {
        let text = format!("{}{tail}", case("", "", "", Q));
        let e = parse_err(&text);
        assert!(e.message.contains("line 4"), "{e}");
        assert!(e.message.contains("column"), "{e}");
    }
}

#[test]
fn out_of_range_numbers_are_errors_not_floats() {
    for (texel, why) in [
        ("1e39", "f32 range"),
        ("-1e39", "f32 range"),
        ("18446744073709551616", "64-bit integer"),
        ("\"0x+ff\"", "not a number"),
        ("\"0x123456789\"", "not a number"),
    ] {
        let e = parse_err(&case(
            "",
            "",
            "",
            &format!(r#"{{"coord": [{texel}, 0.5]}}"#),
        ));
        assert_eq!(e.path, "cases[0].queries[0].coord[0]", "{texel}");
        assert!(e.message.contains(why), "{texel}: {e}");
    }
}

/// Decimals just above the midpoint of two neighbouring f32 (computed here): the f64 nearest
/// such a decimal is the midpoint itself, so decimal -> f64 -> f32 rounds to even, often down;
/// the correct f32 is the upper neighbour.
#[test]
fn decimals_just_above_f32_midpoints_read_as_the_upper_f32() {
    let mut wrong_if_double_rounded = 0;
    for k in 0..400u32 {
        let lo = f32::from_bits(0x3f80_0000 + k * 9973); // in [1, 2)
        let hi = f32::from_bits(lo.to_bits() + 1);
        let mid = (lo as f64 + hi as f64) / 2.0; // exact in f64
                                                 // The exact decimal expansion of the midpoint (it is finite), plus a digit far below
                                                 // an f64 ulp.
        let exact = format!("{mid:.40}");
        let above = format!("{}1", exact.trim_end_matches('0'));
        assert_eq!(above.parse::<f64>().unwrap(), mid, "{above}");
        if (mid as f32) != hi {
            wrong_if_double_rounded += 1;
        }
        let text = case("", "", "", &format!(r#"{{"coord": [{above}, 0.5]}}"#));
        let f = cases::parse(&text).expect("parses");
        assert_eq!(
            f.cases[0].queries[0].coord[0].as_f32().to_bits(),
            hi.to_bits(),
            "{above}"
        );
        let t = cases::parse(&format!(
            r#"{{"cases": [{{"texture": {{"dim": "2d", "format": "r32_float", "width": 1, "height": 1, "texels": [{above}]}},
               "sampler": {{"address_u": "repeat", "address_v": "repeat"}}, "queries": [{Q}]}}]}}"#
        ))
        .unwrap();
        assert_eq!(
            t.cases[0].texture.texels[0].as_f32().to_bits(),
            hi.to_bits()
        );
    }
    // Half of them go wrong when rounded twice: the test would catch double rounding.
    assert!(wrong_if_double_rounded > 100, "{wrong_if_double_rounded}");
}

#[test]
fn raw_bits_are_accepted_for_texels_and_coordinates() {
    let f = cases::parse(
        r#"{"cases": [{"texture": {"dim": "2d", "format": "r32_float", "width": 1, "height": 1, "texels": ["0x3f000000"]},
           "sampler": {"address_u": "repeat", "address_v": "repeat"}, "queries": [{"coord": ["0x3f000000", 0.5]}]}]}"#,
    )
    .unwrap();
    assert_eq!(f.cases[0].texture.texels[0].as_f32(), 0.5);
    let out = cases::run(&serde_json::to_string(&f).unwrap()).unwrap();
    assert!(out.contains("\"result\": [0.5, 0.5, 0.5, 0.5]"), "{out}");
}

/// serde_json with `float_roundtrip` reads 17-digit decimals exactly, so `gather` prints back
/// the numbers it read.
#[test]
fn seventeen_digit_decimals_print_back_unchanged() {
    let mut x = 0.123456789012345_f64;
    for _ in 0..200 {
        x = (x * 7.77 + 0.1).fract();
        let text17 = format!("{x:.17e}");
        let d: f64 = text17.parse().unwrap();
        let doc = format!(
            r#"{{"cases": [{{"texture": {{"dim": "2d", "format": "r32_float", "width": 1, "height": 1, "texels": [0.5]}},
               "sampler": {{"address_u": "repeat", "address_v": "repeat"}}, "queries": [{{"coord": [{text17}, 0.5]}}]}}]}}"#
        );
        let f = cases::parse(&doc).unwrap();
        match f.cases[0].queries[0].coord[0] {
            Num::Float(v) if v.to_bits() == d.to_bits() => {}
            other => panic!("{text17}: read {other:?}"),
        }
        let out = cases::run(&doc).unwrap();
        let printed = format!("{}", serde_json::Value::from(d));
        assert!(out.contains(&printed), "{text17} -> {printed} not in {out}");
    }
}
