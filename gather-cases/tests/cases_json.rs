//! The JSON model of `tld4 gather`: results, --check tolerances, optional keys, and errors
//! that name their JSON path.

use serde_json::{json, Value};
use tld4_gather_cases::{self as cases, Num};
use tld4_textures::ValueKind;

/// A 2x2 RGBA8 UNORM texture: texel (x, y) has red 51 * (1 + x + 2y).
fn rgba8_case(queries: Value) -> Value {
    json!({"cases": [{
        "texture": {"dim": "2d", "format": "rgba8_unorm", "width": 2, "height": 2, "layers": 1,
                    "texels": [51, 0, 0, 255,  102, 0, 0, 255,  153, 0, 0, 255,  204, 0, 0, 255]},
        "sampler": {"address_u": "clamp_to_edge", "address_v": "clamp_to_edge",
                    "border": "float_transparent_black", "compare": null},
        "queries": queries
    }]})
}

fn results(out: &str) -> Vec<Vec<Value>> {
    let v: Value = serde_json::from_str(out).expect("output is JSON");
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["queries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| q["result"].as_array().unwrap().clone())
        })
        .collect()
}

fn run(doc: &Value) -> String {
    cases::run(&doc.to_string()).unwrap()
}

fn error(doc: &Value) -> String {
    cases::run(&doc.to_string()).unwrap_err().to_string()
}

#[test]
fn the_issue_schema_runs_and_prints_results() {
    let doc = rgba8_case(json!([
        {"coord": [0.5, 0.5], "component": 0, "offset": null, "offsets": null, "dref": null},
        {"coord": [0.5, 0.5], "component": 3},
        {"coord": [0.5, 0.5], "component": 0, "offset": [-1, 0]},
    ]));
    let out = run(&doc);
    let r = results(&out);
    // (i0, j1), (i1, j1), (i1, j0), (i0, j0) = (0,1), (1,1), (1,0), (0,0): 153, 204, 102, 51 / 255
    assert_eq!(r[0], vec![json!(0.6), json!(0.8), json!(0.4), json!(0.2)]);
    assert_eq!(r[1], vec![json!(1.0); 4]);
    // offset -1: i = -1, 0 -> clamped to 0, 0
    assert_eq!(r[2], vec![json!(0.6), json!(0.6), json!(0.2), json!(0.2)]);
    // shortest decimals, and the input is printed back
    assert!(
        out.contains("0.6") && !out.contains("0.6000000238"),
        "{out}"
    );
    assert!(out.contains("\"texels\": [51, 0, 0, 255, 102"), "{out}");
    let texture_at = out.find("\"texture\"").unwrap();
    assert!(
        texture_at < out.find("\"sampler\"").unwrap()
            && out.find("\"sampler\"").unwrap() < out.find("\"queries\"").unwrap(),
        "{out}"
    );
    // checking our own output finds nothing
    let report = cases::check(&out).unwrap();
    assert_eq!(report.checked, 3);
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
}

#[test]
fn check_lists_mismatches_with_their_path() {
    let mut doc = rgba8_case(json!([
        {"coord": [0.5, 0.5], "result": [0.6, 0.8, 0.4, 0.2]},
        {"coord": [0.5, 0.5], "result": [0.6, 0.8, 0.4, 0.25]},
        {"coord": [0.5, 0.5]},
    ]));
    let report = cases::check(&doc.to_string()).unwrap();
    assert_eq!(report.checked, 3);
    assert_eq!(report.mismatches.len(), 2);
    assert_eq!(report.mismatches[0].path, "cases[0].queries[1]");
    assert!(report.mismatches[0]
        .to_string()
        .contains("expected [0.6, 0.8, 0.4, 0.25], got [0.6, 0.8, 0.4, 0.2]"));
    assert_eq!(report.mismatches[1].path, "cases[0].queries[2]");
    assert!(report.mismatches[1].to_string().contains("no result"));
    // a result of the wrong length is an error, not a mismatch
    doc["cases"][0]["queries"][0]["result"] = json!([0.6]);
    let e = cases::check(&doc.to_string()).unwrap_err();
    assert_eq!(e.path, "cases[0].queries[0].result");
}

#[test]
fn normalized_results_compare_within_one_ulp() {
    let next = |x: f32, n: i32| f32::from_bits((x.to_bits() as i32 + n) as u32);
    let g = 0.6f32.to_bits();
    assert!(cases::value_matches(
        ValueKind::Normalized,
        Num::Float(next(0.6, 1) as f64),
        g
    ));
    assert!(cases::value_matches(
        ValueKind::Normalized,
        Num::Float(next(0.6, -1) as f64),
        g
    ));
    assert!(!cases::value_matches(
        ValueKind::Normalized,
        Num::Float(next(0.6, 2) as f64),
        g
    ));
    // floats are exact
    assert!(!cases::value_matches(
        ValueKind::Float,
        Num::Float(next(0.6, 1) as f64),
        g
    ));
    assert!(cases::value_matches(ValueKind::Float, Num::Float(0.6), g));
    assert!(cases::value_matches(ValueKind::Float, Num::Float(-0.0), 0));
    assert!(cases::value_matches(
        ValueKind::Float,
        Num::Float(f64::NAN),
        f32::NAN.to_bits()
    ));
    assert!(!cases::value_matches(
        ValueKind::Float,
        Num::Float(1.0),
        f32::NAN.to_bits()
    ));
    // integers exact; SINT written signed or as its bit pattern
    assert!(cases::value_matches(
        ValueKind::Sint,
        Num::Int(-5),
        (-5i32) as u32
    ));
    assert!(cases::value_matches(
        ValueKind::Sint,
        Num::Int(0xffff_fffb),
        (-5i32) as u32
    ));
    assert!(!cases::value_matches(ValueKind::Uint, Num::Int(6), 5));
    assert!(!cases::value_matches(ValueKind::Uint, Num::Float(5.5), 5));
    assert!(cases::value_matches(ValueKind::Uint, Num::Float(5.0), 5));
    // through the file: a normalized result off by one ulp passes --check
    let doc = rgba8_case(json!([{"coord": [0.5, 0.5], "result": [next(0.6, 1), 0.8, 0.4, 0.2]}]));
    assert!(cases::check(&doc.to_string())
        .unwrap()
        .mismatches
        .is_empty());
}

#[test]
fn integer_formats_print_integers() {
    let doc = json!({"cases": [{
        "texture": {"dim": "2d", "format": "rg8_sint", "width": 1, "height": 1, "layers": 1, "texels": [-5, 127]},
        "sampler": {"address_u": "repeat", "address_v": "repeat", "border": "int_opaque_black", "compare": null},
        "queries": [{"coord": [0.5, 0.5], "component": 0}, {"coord": [0.5, 0.5], "component": 1},
                    {"coord": [0.5, 0.5], "component": 3}]
    }, {
        "texture": {"dim": "2d", "format": "r32_uint", "width": 1, "height": 1, "layers": 1, "texels": [4294967295u64]},
        "sampler": {"address_u": "clamp_to_border", "address_v": "clamp_to_border", "border": "int_opaque_white", "compare": null},
        "queries": [{"coord": [0.5, 0.5]}, {"coord": [3.0, 0.5]}]
    }]});
    let r = results(&run(&doc));
    assert_eq!(r[0], vec![json!(-5); 4]);
    assert_eq!(r[1], vec![json!(127); 4]);
    assert_eq!(r[2], vec![json!(1); 4]);
    // clamp to border on a 1x1 texture at (0.5, 0.5): i0 = j0 = 0 is the texel, i1 = j1 = 1 border (1)
    assert_eq!(
        r[3],
        vec![json!(1), json!(1), json!(1), json!(4294967295u64)]
    );
    assert_eq!(r[4], vec![json!(1); 4]);
}

#[test]
fn array_layers_convert_as_mesa_does() {
    // three layers, texel value = layer
    let doc = json!({"cases": [{
        "texture": {"dim": "2d_array", "format": "r8_uint", "width": 1, "height": 1, "layers": 3, "texels": [0, 1, 2]},
        "sampler": {"address_u": "repeat", "address_v": "repeat", "border": "int_opaque_black", "compare": null},
        "queries": [{"coord": [0.5, 0.5, 0.49]}, {"coord": [0.5, 0.5, 0.5]}, {"coord": [0.5, 0.5, 1.5]},
                    {"coord": [0.5, 0.5, -3.0]}, {"coord": [0.5, 0.5, 1e9]}, {"coord": [0.5, 0.5, "NaN"]}]
    }]});
    let firsts: Vec<i64> = results(&run(&doc))
        .iter()
        .map(|r| r[0].as_i64().unwrap())
        .collect();
    // floor(l + 0.5): 0.49 -> 0; 0.5 -> 1 (not to even); 1.5 -> 2; -3 -> 0; 1e9 -> 65535 -> 2; NaN -> 0
    assert_eq!(firsts, vec![0, 1, 2, 0, 2, 0]);
    assert_eq!(cases::float_layer(2.5), 3);
    assert_eq!(cases::float_layer(70000.0), 65535);
}

#[test]
fn optional_keys() {
    // swizzle, custom border words, precision, residency, seamless_cube
    let doc = json!({"cases": [{
        "texture": {"dim": "2d", "format": "rgba8_uint", "width": 4, "height": 1, "layers": 1,
                    "texels": [1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16],
                    "swizzle": ["a", "one", "zero", "r"],
                    "residency": {"tile_width": 2, "tile_height": 1, "non_resident": [[0, 1, 0]]}},
        "sampler": {"address_u": "clamp_to_border", "address_v": "clamp_to_edge", "border": {"int": [-1, 2, 3, 4]}},
        "precision": {"fraction_bits": 8, "rounding": "toward_zero"},
        "queries": [
            // u = 1.0: i0 = 0, i1 = 1 (tile 0); v = 0.5: j0 = 0, j1 = 1 -> 0. A = 4, 8
            {"coord": [0.25, 0.5], "component": 0},
            {"coord": [0.25, 0.5], "component": 1},
            {"coord": [0.25, 0.5], "component": 2},
            // u = 0: i0 = -1 is border (component 3 word = 4), i1 = 0: R = 1
            {"coord": [0.0, 0.5], "component": 3},
            // u = 2: i0 = 1, i1 = 2: touches the non-resident tile
            {"coord": [0.5, 0.5]},
            // u = 1.5 - 2^-10 = 1.4990234375: toward zero -> i0 = 0 (nearest would pick 1)
            {"coord": [0.374755859375, 0.5]}
        ]
    }, {
        "texture": {"dim": "2d", "format": "r32_float", "width": 1, "height": 1, "layers": 1, "texels": ["NaN"]},
        "sampler": {"address_u": "clamp_to_border", "address_v": "clamp_to_border", "border": {"float": [0.5, 0, 0, 0]}},
        "precision": "exact",
        "queries": [{"coord": [0.5, 0.5]}]
    }, {
        "texture": {"dim": "2d", "format": "r32_uint", "width": 1, "height": 1, "layers": 1, "texels": [9]},
        "sampler": {"address_u": "clamp_to_border", "address_v": "clamp_to_border", "border": {"words": [7, 0, 0, 0]}},
        "queries": [{"coord": [0.5, 0.5]}]
    }]});
    let out = run(&doc);
    let r = results(&out);
    assert_eq!(r[0], vec![json!(4), json!(8), json!(8), json!(4)]);
    assert_eq!(r[1], vec![json!(1); 4]);
    assert_eq!(r[2], vec![json!(0); 4]);
    assert_eq!(r[3], vec![json!(4), json!(1), json!(1), json!(4)]);
    assert_eq!(r[4], vec![json!(0); 4]);
    assert_eq!(r[5], vec![json!(4), json!(8), json!(8), json!(4)]);
    // 1x1 under clamp to border: only (i0, j0) is the texel
    assert_eq!(r[6], vec![json!(0.5), json!(0.5), json!(0.5), json!("NaN")]);
    assert_eq!(r[7], vec![json!(7), json!(7), json!(7), json!(9)]);
    assert!(cases::check(&out).unwrap().mismatches.is_empty());
}

#[test]
fn depth_compare_and_cube_queries() {
    let face = |d: f32| vec![json!(d); 4];
    let texels: Vec<Value> = (0..6).flat_map(|f| face(f as f32 / 10.0)).collect();
    let doc = json!({"cases": [{
        "texture": {"dim": "cube", "format": "d32_float", "width": 2, "height": 2, "layers": 1, "texels": texels},
        "sampler": {"address_u": "clamp_to_edge", "address_v": "clamp_to_edge", "border": "float_opaque_white",
                    "compare": "less_or_equal"},
        "queries": [{"coord": [0.0, 0.0, 1.0], "dref": 0.4}, {"coord": [0.0, 0.0, 1.0], "dref": 0.45},
                    {"coord": [0.0, 0.0, 1.0]}]
    }]});
    let r = results(&run(&doc));
    // +Z (face 4) holds 0.4 everywhere
    assert_eq!(r[0], vec![json!(1.0); 4]);
    assert_eq!(r[1], vec![json!(0.0); 4]);
    assert_eq!(r[2], vec![json!(0.4); 4]);
}

#[test]
fn errors_name_their_json_path() {
    let q = |query: Value| rgba8_case(json!([{"coord": [0.5, 0.5]}, query]));
    let cases = [
        (
            q(json!({"coord": [0.5, 0.5], "offset": [40, 0]})),
            "cases[0].queries[1].offset[0]: offset 40 is outside -32..=31",
        ),
        (
            q(json!({"coord": [0.5, 0.5], "offsets": [[0, 0], [0, 0], [0, -33], [0, 0]]})),
            "cases[0].queries[1].offsets[2][1]",
        ),
        (
            q(
                json!({"coord": [0.5, 0.5], "offset": [1, 0], "offsets": [[0, 0], [0, 0], [0, 0], [0, 0]]}),
            ),
            "cases[0].queries[1].offsets: give either",
        ),
        (
            q(json!({"coord": [0.5]})),
            "cases[0].queries[1].coord: a 2d texture takes 2 coordinates, got 1",
        ),
        (
            q(json!({"coord": [0.5, 0.5], "component": 4})),
            "cases[0].queries[1].component",
        ),
        (
            q(json!({"coord": [0.5, 0.5], "dref": 0.5})),
            "cases[0].queries[1].dref: not modeled",
        ),
        (
            q(json!({"coord": [0.5, 0.5], "offest": [1, 0]})),
            "cases[0].queries[1].offest: unknown field `offest`",
        ),
        (
            q(json!({"coord": [0.5, "x"]})),
            "cases[0].queries[1].coord[1]",
        ),
        (
            q(json!({"coord": [0.5, 0.5], "offset": [1]})),
            "cases[0].queries[1].offset",
        ),
    ];
    for (doc, want) in cases {
        let e = error(&doc);
        assert!(e.starts_with(want), "got {e:?}, want {want:?}");
    }
    let mut doc = rgba8_case(json!([]));
    doc["cases"][0]["texture"]["texels"][5] = json!(300);
    assert!(
        error(&doc).starts_with("cases[0].texture.texels[5]: 300 does not fit"),
        "{}",
        error(&doc)
    );
    doc["cases"][0]["texture"]["texels"] = json!([1, 2, 3]);
    assert!(error(&doc).starts_with("cases[0].texture.texels: a 2x2 2d texture with 1 layer(s) of rgba8_unorm needs 16 values"), "{}", error(&doc));
    let mut doc = rgba8_case(json!([]));
    doc["cases"][0]["texture"]["format"] = json!("rgba9_unorm");
    assert!(
        error(&doc).starts_with("cases[0].texture.format: unknown variant `rgba9_unorm`"),
        "{}",
        error(&doc)
    );
    let mut doc = rgba8_case(json!([]));
    doc["cases"][0]["sampler"]["address_v"] = json!("wrap_around");
    assert!(
        error(&doc).starts_with("cases[0].sampler.address_v"),
        "{}",
        error(&doc)
    );
    let mut doc = rgba8_case(json!([]));
    doc["cases"][0]["texture"]["dim"] = json!("cube");
    doc["cases"][0]["texture"]["height"] = json!(1);
    doc["cases"][0]["texture"]["texels"] = json!(vec![0; 48]);
    assert!(
        error(&doc).starts_with("cases[0].texture: invalid input: bad texture size"),
        "{}",
        error(&doc)
    );
    // offsets on a cube
    let doc = json!({"cases": [{
        "texture": {"dim": "cube", "format": "r8_unorm", "width": 1, "height": 1, "layers": 1, "texels": [0, 0, 0, 0, 0, 0]},
        "sampler": {"address_u": "repeat", "address_v": "repeat"},
        "queries": [{"coord": [1, 0, 0], "offset": [1, 1]}]
    }]});
    assert!(
        error(&doc)
            .starts_with("cases[0].queries[0].offset: not modeled: texel offsets on a Cube gather"),
        "{}",
        error(&doc)
    );
    // syntax errors give a line and column
    let e = cases::run("{\"cases\": [\n  {]}").unwrap_err().to_string();
    assert!(e.contains("line 2"), "{e}");
    assert!(cases::run("").is_err());
    assert!(cases::run("[]").is_err());
}

#[test]
fn texel_values_of_every_kind() {
    // snorm accepts negatives and raw patterns; floats accept numbers and strings; halves round
    let one = |format: &str, texels: Value, component: u32| {
        let doc = json!({"cases": [{
            "texture": {"dim": "2d", "format": format, "width": 1, "height": 1, "layers": 1, "texels": texels},
            "sampler": {"address_u": "repeat", "address_v": "repeat"},
            "queries": [{"coord": [0.5, 0.5], "component": component}]
        }]});
        results(&run(&doc))[0][0].clone()
    };
    assert_eq!(one("r8_snorm", json!([-127]), 0), json!(-1.0));
    assert_eq!(one("r8_snorm", json!([129]), 0), json!(-1.0)); // raw 0x81 = -127
    assert_eq!(one("r16_float", json!([0.1]), 0), json!(0.099975586)); // nearest half to 0.1
    assert_eq!(
        one("rgba16_float", json!([0, "-inf", 0, 0]), 1),
        json!("-inf")
    );
    assert_eq!(one("r32_float", json!([1e-3]), 0), json!(0.001));
    assert_eq!(one("rgb9e5", json!([256, 0, 0, 15]), 0), json!(0.5));
    assert_eq!(one("r11g11b10_float", json!([960, 0, 0]), 0), json!(1.0));
    assert_eq!(one("rgb10a2_unorm", json!([0, 0, 0, 3]), 3), json!(1.0));
    assert_eq!(
        one("d24_unorm_s8_uint", json!([16777215, 200]), 0),
        json!(1.0)
    );
    assert_eq!(one("rgba8_srgb", json!([255, 0, 0, 0]), 0), json!(1.0));
}
