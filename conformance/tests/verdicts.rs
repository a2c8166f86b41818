//! The verifier on three sets (docs/sources.md, Conformance verdicts): tld4's own results (all
//! exact), lavapipe's golden corpus (every query exact or allowed, the ambiguous spots of the
//! agreement rules allowed), and deliberately wrong results (caught).

use std::path::PathBuf;

use tld4_conformance::*;
use tld4_gather_cases::{self as cases, CasesFile};
use tld4_lavapipe::classify::ambiguities;
use tld4_textures::{Format, OffsetMode, Precision, Sampler, Texture, TextureDesc, TextureKind};

fn golden() -> CasesFile {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/lavapipe_gather.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    cases::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn tld4s_own_results_are_all_exact() {
    let mut file = golden();
    cases::annotate(&mut file).unwrap();
    let report = check_file(&file).unwrap();
    assert!(report.summary.queries >= 20_000, "{:?}", report.summary);
    assert_eq!(
        report.summary.exact, report.summary.queries,
        "{:?}",
        report.summary
    );
}

#[test]
fn lavapipes_corpus_is_exact_or_allowed_and_its_ambiguous_spots_allowed() {
    let file = golden();
    let report = check_file(&file).unwrap();
    let s = report.summary;
    println!("lavapipe corpus: {s:?}");
    let wrong: Vec<String> = report
        .cases
        .iter()
        .flat_map(|c| &c.queries)
        .filter(|q| matches!(q.verdict.verdict, Verdict::Wrong(_)))
        .take(10)
        .map(|q| format!("{}: {}", q.path, q.explanation))
        .collect();
    assert_eq!(s.wrong, 0, "{wrong:#?}");
    assert_eq!(s.exact + s.allowed, s.queries);
    // Most queries are bit-identical, so the bounds are not carrying the corpus.
    assert!(s.exact * 10 >= s.queries * 9, "{s:?}");
    // Every disagreement at an ambiguous spot of the agreement rules comes out allowed, with
    // a footprint or the cube-corner rule to say why.
    let mut ambiguous_allowed = 0;
    for (ci, case) in file.cases.iter().enumerate() {
        for (qi, q) in case.queries.iter().enumerate() {
            let v = &report.cases[ci].queries[qi];
            if v.verdict.verdict == Verdict::Exact || ambiguities(case, q).is_empty() {
                continue;
            }
            assert!(
                matches!(v.verdict.verdict, Verdict::Allowed(_)),
                "{}: {:?}",
                v.path,
                v.verdict
            );
            assert!(!v.explanation.is_empty());
            ambiguous_allowed += 1;
        }
    }
    assert!(
        ambiguous_allowed >= 500,
        "{ambiguous_allowed} allowed at ambiguous spots"
    );
    // Some are explained by a footprint other than tld4's (the sub-texel rounding) ...
    assert!(report.not_exact().any(|q| matches!(
        &q.verdict.verdict,
        Verdict::Allowed(Allowed::Footprint { footprint, model: Some(m), .. }) if footprint != m
    )));
    // ... some by the cube-corner rule, and some by value rounding within the CTS's threshold
    // (lavapipe's UNORM and sRGB conversions).
    assert!(report.not_exact().any(|q| matches!(
        &q.verdict.verdict,
        Verdict::Allowed(Allowed::Anything {
            why: Anything::CubeCorner { .. }
        })
    )));
    assert!(report.not_exact().any(|q| matches!(
        &q.verdict.verdict,
        Verdict::Allowed(Allowed::Footprint { footprint, model: Some(m), difference, .. }) if footprint == m && *difference > 0.0
    )));
}

/// A value at `position` that no candidate footprint allows: beyond every candidate's value
/// there by more than the tolerance (compare: 0.5, halfway between the outcomes).
fn wrong_value(c: &Candidates, position: usize, compare: bool, integer: bool) -> Option<u32> {
    let Candidates::Footprints { list, .. } = c else {
        return None;
    };
    if compare {
        return Some(0.5f32.to_bits());
    }
    if integer {
        let max = list.iter().map(|c| c.values[position] as i32).max()?;
        return Some(max.checked_add(1)? as u32);
    }
    let max = list
        .iter()
        .map(|c| f32::from_bits(c.values[position]))
        .filter(|v| v.is_finite())
        .fold(f32::NEG_INFINITY, f32::max);
    max.is_finite().then(|| (max + 1.0).to_bits())
}

#[test]
fn deliberately_wrong_results_are_caught() {
    let file = golden();
    let mut caught = 0;
    for (ci, case) in file.cases.iter().enumerate().step_by(7) {
        let prepared = cases::prepare(case, ci).unwrap();
        let cts = CtsPrecision::for_kind(case.texture.dim);
        let mut checker = Checker::new(
            &prepared.texture,
            &prepared.sampler,
            prepared.precision,
            cts,
        );
        for (qi, spec) in case.queries.iter().enumerate().step_by(5) {
            let q = Query::from_spec(case, spec, "").unwrap();
            let model = checker.model_result(&q).unwrap();
            let position = qi % 4;
            let integer = q.dref.is_none() && prepared.texture.format().is_integer();
            let Some(bad) =
                wrong_value(&checker.candidates(&q), position, q.dref.is_some(), integer)
            else {
                continue;
            };
            let mut observed = model;
            observed[position] = bad;
            let v = checker.check(&q, observed).unwrap();
            let Verdict::Wrong(w) = &v.verdict else {
                panic!("cases[{ci}].queries[{qi}]: {observed:?} not caught: {v:?}");
            };
            assert_eq!(w.observed, observed[w.position]);
            assert!(w.difference > w.tolerance, "{w:?}");
            assert!(w.to_string().contains("nearest footprint"));
            caught += 1;
        }
    }
    assert!(caught >= 300, "{caught} wrong results caught");
}

fn r8(w: u32, h: u32, fields: &[u32]) -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Unorm,
        width: w,
        height: h,
        layers: 1,
    };
    Texture::from_fields(desc, fields).unwrap()
}

fn at(s: f32, t: f32) -> Query {
    Query {
        coords: [s, t, 0.0, 0.0],
        component: 0,
        offset_mode: OffsetMode::None,
        offsets: [[0; 2]; 4],
        dref: None,
    }
}

#[test]
fn a_neighbouring_footprint_is_allowed_only_within_the_sub_texel_bounds() {
    // 4x1, texels 0, 85, 170, 255: at u = 1.5 exactly (s = 0.375) tld4 takes i0 = 1.
    let tex = r8(4, 1, &[0, 85, 170, 255]);
    let sampler = Sampler::default();
    let mut c = Checker::new(
        &tex,
        &sampler,
        Precision::default(),
        CtsPrecision::for_kind(TextureKind::Tex2D),
    );
    let v = |x: u32| (x as f32 / 255.0).to_bits();
    // i0 = 0 instead: the CTS's 7 sub-texel bits reach u - 0.5 = 0.999.
    let near = at(0.375 - 1.0 / 4096.0, 0.5);
    assert_eq!(
        c.check(&near, [v(85), v(170), v(170), v(85)])
            .unwrap()
            .verdict,
        Verdict::Exact
    );
    let other = c.check(&near, [v(0), v(85), v(85), v(0)]).unwrap();
    let Verdict::Allowed(Allowed::Footprint {
        footprint, model, ..
    }) = &other.verdict
    else {
        panic!("{other:?}");
    };
    assert_eq!((footprint.i0, model.unwrap().i0), (0, 1));
    // A quarter texel away, the same footprint is wrong.
    let far = at(0.375 - 1.0 / 16.0, 0.5);
    let w = c.check(&far, [v(170), v(255), v(255), v(170)]).unwrap();
    assert!(matches!(w.verdict, Verdict::Wrong(_)), "{w:?}");
    // A value 1/255 off is within the CTS's threshold (7 bits), 1/64 off is not.
    let (x, y) = (0.375 + 1.0 / 16.0, 0.5);
    let m = c.model_result(&at(x, y)).unwrap();
    let mut o = m;
    o[0] = (f32::from_bits(m[0]) + 1.0 / 255.0).to_bits();
    assert!(matches!(
        c.check(&at(x, y), o).unwrap().verdict,
        Verdict::Allowed(_)
    ));
    o[0] = (f32::from_bits(m[0]) + 1.0 / 64.0).to_bits();
    assert!(matches!(
        c.check(&at(x, y), o).unwrap().verdict,
        Verdict::Wrong(_)
    ));
}
