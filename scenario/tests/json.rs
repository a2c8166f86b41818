//! Scenario files: the example runs, and lax or damaged input is an error naming its JSON
//! path and the valid forms, never a panic and never silently resolved.

use proptest::prelude::*;
use tld4_scenario::{load, run, Lanes, Scenario};

use crate::common;

const EXAMPLE: &str = include_str!("../../examples/scenarios/gather_green.json");

#[test]
fn the_example_runs_and_passes() {
    let outcome = run(&load(EXAMPLE).expect("example loads"));
    assert_eq!(outcome.failed, 0, "{:?}", outcome.lines);
    assert_eq!(outcome.passed, 32);
    assert!(outcome
        .lines
        .last()
        .unwrap()
        .contains("32 passed, 0 failed"));
}

/// The example with `from` replaced by `to` fails at `path`, with `why` in the message.
fn refused(from: &str, to: &str, path: &str, why: &str) {
    common::refused_in(EXAMPLE, from, to, path, why)
}

#[test]
fn lax_register_names_and_values_are_refused() {
    refused("\"R21\": 0.5", "\"R+5\": 0.5", "lanes[0].R+5", "R0..R254");
    refused(
        "\"R21\": 0.5",
        "\"R021\": 0.5",
        "lanes[0].R021",
        "leading zero",
    );
    refused(
        "\"UR4\": \"albedo\"",
        "\"UR04\": \"albedo\"",
        "uniform.UR04",
        "UR0..UR254",
    );
    refused("\"R21\": 0.5", "\"P+1\": true", "lanes[0].P+1", "P0..P6");
    refused(
        "\"R24\": \"0x0000003f\"",
        "\"R24\": \"0x+ff\"",
        "lanes[1].R24",
        "hex digits",
    );
    refused(
        "\"lanes\": \"16-31\", \"R24\"",
        "\"lanes\": \"+1\", \"R24\"",
        "lanes[1].lanes",
        "\"all\"",
    );
    refused(
        "\"lanes\": \"16-31\", \"R24\"",
        "\"lanes\": \"00-01\", \"R24\"",
        "lanes[1].lanes",
        "\"all\"",
    );
    refused(
        "\"R21\": 0.5",
        "\"R21\": 18446744073709551616",
        "lanes[0].R21",
        "does not fit in 32 bits",
    );
    refused("\"R21\": 0.5", "\"R21\": 1e39", "lanes[0].R21", "f32 range");
    refused(
        "\"R21\": 0.5",
        "\"R21\": [1]",
        "lanes[0].R21",
        "\"0x3f800000\"",
    );
}

#[test]
fn duplicate_keys_are_refused() {
    refused(
        "\"R21\": 0.5",
        "\"R21\": 0.5, \"R21\": 0.25",
        "lanes[0]",
        "`R21` is given twice",
    );
    refused(
        "\"UR4\": \"albedo\"",
        "\"UR4\": \"albedo\", \"UR4\": 0",
        "uniform",
        "`UR4` is given twice",
    );
    refused(
        "\"albedo\": {\"texture\": 0, \"sampler\": 0}",
        "\"albedo\": {\"texture\": 0, \"sampler\": 0}, \"albedo\": {\"texture\": 1, \"sampler\": 0}",
        "handles",
        "`albedo` is given twice",
    );
}

#[test]
fn handle_names_that_look_like_values_are_refused() {
    for name in ["inf", "0x5", "nan", "7"] {
        refused(
            "\"albedo\": {",
            &format!("\"{name}\": {{"),
            &format!("handles.{name}"),
            "cannot name a handle",
        );
    }
}

#[test]
fn lax_textures_samplers_and_tolerances_are_refused() {
    let gen = |g: &str| {
        format!(
            r#"{{"textures": [{{"dim": "2d", "format": "r8_unorm", "width": 2, "height": 2, "generate": {g}}}],
               "samplers": [], "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;"}}"#
        )
    };
    let e = load(&gen(r#"{"pattern": "gradient", "cell": 2}"#)).unwrap_err();
    assert_eq!(e.path, "textures[0].generate", "{e}");
    assert!(load(&gen(r#"{"pattern": "gradient"}"#)).is_ok());
    refused(
        "\"address_v\": \"clamp_to_edge\"}",
        "\"address_v\": \"clamp_to_edge\", \"border\": {\"words\": [0, 0, 0, 0], \"float\": [0, 0, 0, 0]}}",
        "samplers[0].border",
        "`words` and `float`",
    );
    refused(
        "\"tolerance\": {\"ulps\": 1}",
        "\"tolerance\": {\"abs\": -0.001}",
        "expect.tolerance",
        ">= 0",
    );
}

#[test]
fn precision_fraction_bits_are_checked_at_load() {
    for bits in [21, 255] {
        let text = EXAMPLE.replacen(
            "\"textures\"",
            &format!("\"config\": {{\"precision\": {{\"fraction_bits\": {bits}}}}}, \"textures\""),
            1,
        );
        let e = load(&text).unwrap_err();
        assert_eq!(e.path, "config.precision.fraction_bits", "{e}");
        assert!(e.message.contains("0..=20"), "{e}");
    }
}

#[test]
fn more_samplers_than_a_handle_reaches_are_refused() {
    let samplers = vec![r#"{"address_u": "repeat", "address_v": "repeat"}"#; 4097].join(",");
    let text = EXAMPLE.replacen(
        "\"samplers\": [{\"address_u\": \"clamp_to_edge\", \"address_v\": \"clamp_to_edge\"}]",
        &format!("\"samplers\": [{samplers}]"),
        1,
    );
    assert_ne!(text, EXAMPLE);
    let e = load(&text).unwrap_err();
    assert_eq!(e.path, "samplers[4096]", "{e}");
    assert!(e.message.contains("4096"), "{e}");
}

#[test]
fn text_after_the_document_is_refused() {
    for tail in ["x", "{}"] {
        let e = load(&format!("{EXAMPLE}\n{tail}")).unwrap_err();
        assert!(
            e.message.contains("line") && e.message.contains("column"),
            "{e}"
        );
    }
}

#[test]
fn wrong_length_words_are_refused_as_such() {
    refused(
        "\"TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\"",
        "\"0x081e9f0a20ff041814087f63\"",
        "instruction",
        "wrong length",
    );
}

/// Register decimals are rounded once, to f32: a decimal just above the midpoint of two
/// neighbouring f32 (computed here) gives the upper one.
#[test]
fn register_decimals_just_above_f32_midpoints_give_the_upper_f32() {
    for k in 0..200u32 {
        let lo = f32::from_bits(0x3e00_0000 + k * 40_009);
        let hi = f32::from_bits(lo.to_bits() + 1);
        let mid = (lo as f64 + hi as f64) / 2.0;
        let above = format!("{}1", format!("{mid:.45}").trim_end_matches('0'));
        assert_eq!(above.parse::<f64>().unwrap(), mid);
        let s = load(&EXAMPLE.replacen("\"R21\": 0.5", &format!("\"R21\": {above}"), 1)).unwrap();
        assert_eq!(s.warp.reg(3, 21), hi.to_bits(), "{above}");
    }
}

#[test]
fn a_layer_register_holding_a_float_is_warned_about() {
    let text = r#"{"textures": [{"dim": "2d_array", "format": "r8_uint", "width": 2, "height": 2, "layers": 3, "generate": {"pattern": "gradient"}}],
        "samplers": [{"address_u": "repeat", "address_v": "repeat"}],
        "handles": {"t": {"texture": 0, "sampler": 0}},
        "instruction": "TLD4.R R10, R8, R20, UR4, ARRAY_2D ;", "uniform": {"UR4": "t"},
        "lanes": [{"lanes": "all", "R20": 2, "R21": 0.5, "R22": 0.5}, {"lanes": "4-5", "R20": 2.0}]}"#;
    let s = load(text).unwrap();
    let w = tld4_scenario::warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("R20") && w[0].contains("lanes 4-5") && w[0].contains("0x40000000"),
        "{}",
        w[0]
    );
    let ok = load(&text.replace(", {\"lanes\": \"4-5\", \"R20\": 2.0}", "")).unwrap();
    assert!(tld4_scenario::warnings(&ok).is_empty());
}

#[test]
fn the_builder_and_the_loader_make_the_same_model() {
    let json = load(EXAMPLE).unwrap();
    let mut b = Scenario::builder();
    let texels = [
        0, 10, 20, 255, 51, 61, 71, 255, 102, 112, 122, 255, 255, 205, 195, 255,
    ];
    let desc = tld4_textures::TextureDesc {
        kind: tld4_textures::TextureKind::Tex2D,
        format: tld4_textures::Format::Rgba8Unorm,
        width: 2,
        height: 2,
        layers: 1,
    };
    let t = b
        .texture(tld4_textures::Texture::from_fields(desc, &texels).unwrap())
        .unwrap();
    let smp = b.sampler(tld4_textures::Sampler::default()).unwrap();
    let h = b.handle("albedo", t, smp).unwrap();
    b.instruction("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;")
        .unwrap()
        .uniform(4, h)
        .unwrap();
    b.reg(Lanes::ALL, 20, 0.5f32)
        .unwrap()
        .reg(Lanes::ALL, 21, 0.5f32)
        .unwrap()
        .reg(Lanes::ALL, 24, 0u32)
        .unwrap();
    b.reg(Lanes::range(16, 31).unwrap(), 24, 0x3fu32).unwrap();
    let built = b.build().unwrap();
    assert_eq!(built.word, json.word);
    let (a, c) = (built.execute().unwrap(), json.execute().unwrap());
    for lane in 0..32 {
        for r in 8..12 {
            assert_eq!(a.reg(lane, r), c.reg(lane, r), "lane {lane} R{r}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Damaged scenarios give errors or results, never a panic.
    #[test]
    fn damaged_scenarios_never_panic(cut in 0usize..EXAMPLE.len(), junk in "[ -~]{0,8}", drop in 0usize..40) {
        let end = (cut + drop).min(EXAMPLE.len());
        let (a, b) = (&EXAMPLE[..cut], &EXAMPLE[end..]);
        let text = format!("{a}{junk}{b}");
        if let Ok(s) = load(&text) {
            let _ = run(&s);
        }
    }
}

/// Found by the fuzzer: a generated texture with a zero size and huge other sizes needs 0
/// bytes, passed the storage bound, and panicked in ndarray when shaped.
#[test]
fn a_generated_texture_with_a_zero_size_is_refused_not_shaped() {
    for (w, h, layers) in [
        (2147483648u64, 2147483648u64, 0u64),
        (0, 2147483648, 4),
        (4, 0, 1),
    ] {
        let text = format!(
            r#"{{"textures": [{{"dim": "cube_array", "format": "rgba8_unorm", "width": {w}, "height": {h},
               "layers": {layers}, "generate": {{"pattern": "checker", "cell": 1}}}}],
               "samplers": [], "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;"}}"#
        );
        let e = load(&text).unwrap_err();
        assert_eq!(e.path, "textures[0]", "{e}");
        assert!(e.message.contains("at least 1"), "{e}");
    }
}
