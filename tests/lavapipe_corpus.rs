//! The texture unit against lavapipe (docs/sources.md, The oracles), without Vulkan: the golden corpus
//! tests/golden/lavapipe_gather.json holds random gathers whose results lavapipe (Mesa's
//! conformant software Vulkan driver) computed; its sidecar lavapipe_gather.meta.json records
//! the generator seed and the Mesa version. Regenerate both with
//! `oracles/lavapipe/run-live.sh --golden` (see oracles/lavapipe/README.md).
//!
//! Agreement rules (docs/sources.md, Agreement rules): bit-exact, except normalized formats within 1 ulp (docs/sources.md:
//! lavapipe's UNORM/SNORM -> float is not correctly rounded) and sRGB colour channels compared
//! as 8-bit codes (lavapipe's sRGB decoding is an approximation, up to 1.2e-3 off). At the
//! ambiguous spots (within 2^-8 texel of a texel boundary, cube corners, cube face-selection
//! ties, layers where Vulkan's round-to-even and NVIDIA's floor(l + 0.5) differ, depth
//! references within 1 ulp of a UNORM depth) disagreements are classified and counted;
//! anywhere else a disagreement fails the test.

use std::path::PathBuf;

use tld4_gather_cases::{self as cases, CasesFile};
use tld4_lavapipe::classify::Report;
use tld4_lavapipe::corpus::{self, Meta};
use tld4_lavapipe::generate;
use tld4_textures::{CompareOp, Format, TextureKind};

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/lavapipe_gather.json")
}

fn load() -> (CasesFile, Meta) {
    let path = golden();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = cases::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let meta = corpus::read_meta(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("{} has no .meta.json sidecar", path.display()));
    (file, meta)
}

#[test]
fn the_texture_unit_agrees_with_lavapipe_away_from_ambiguous_spots() {
    let (file, _) = load();
    let report: Report = corpus::compare_with_texture_unit(&file).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.render(20));
    assert!(report.total >= 20_000, "{} queries", report.total);
    assert!(
        report.real.is_empty(),
        "{} real disagreements with lavapipe (a bug on one side):\n{}",
        report.real.len(),
        report
            .real
            .iter()
            .take(20)
            .map(|d| format!("{d}\n"))
            .collect::<String>()
    );
    // The tolerances must not be carrying the corpus: most results are bit-identical, and the
    // ambiguous spots stay a small share (a texture-unit change that moved texel selection
    // everywhere would show up here even if every query sat near some boundary).
    assert!(
        report.exact * 10 >= report.total * 9,
        "only {} of {} bit-identical",
        report.exact,
        report.total
    );
    let ambiguous: usize = report.ambiguous_disagreements.values().sum();
    assert!(
        ambiguous * 20 <= report.total,
        "{ambiguous} disagreements at ambiguous spots out of {}",
        report.total
    );
    assert_eq!(report.agreeing() + ambiguous, report.total);
    // Most disagreements at texel boundaries are the 8-bit sub-texel model's choice alone.
    let at_boundary = report
        .ambiguous
        .iter()
        .filter(|d| {
            d.ambiguities
                .contains(tld4_lavapipe::classify::Ambiguity::Boundary)
        })
        .count();
    assert!(
        report.boundary_explained * 4 >= at_boundary * 3,
        "{} of {at_boundary} boundary disagreements explained by the precision model",
        report.boundary_explained
    );
}

#[test]
fn the_golden_corpus_records_its_seed_and_driver_and_regenerates() {
    let (file, meta) = load();
    let generator = meta.generator.expect("generator seed recorded");
    let driver = meta.filled_by.expect("driver recorded");
    assert!(driver.driver_info.contains("Mesa"), "{driver:?}");
    assert_eq!(driver.driver_id, "MESA_LLVMPIPE");
    assert!(
        meta.skipped.is_empty(),
        "lavapipe skipped {:?}",
        meta.skipped
    );
    assert_eq!(meta.queries, corpus::query_count(&file));
    assert_eq!(meta.cases, file.cases.len());
    assert_eq!(
        generator.version,
        generate::GENERATOR_VERSION,
        "regenerate the corpus"
    );
    // The seed reproduces every query (results aside).
    let (again, _) = generate::generate(generator.seed, generator.count);
    assert_eq!(corpus::same_queries(&again, &file), Ok(()));
    assert!(file
        .cases
        .iter()
        .all(|c| c.queries.iter().all(|q| q.result.is_some())));
}

#[test]
fn the_golden_corpus_covers_every_kind_format_mode_and_compare() {
    let (file, _) = load();
    let has = |f: &dyn Fn(&cases::Case) -> bool| file.cases.iter().any(f);
    for k in [
        TextureKind::Tex2D,
        TextureKind::Tex2DArray,
        TextureKind::Cube,
        TextureKind::CubeArray,
    ] {
        assert!(has(&|c| c.texture.dim == k), "{k:?}");
    }
    for f in Format::ALL {
        assert!(has(&|c| c.texture.format == f), "{}", f.name());
    }
    for op in CompareOp::ALL {
        assert!(has(&|c| c.sampler.compare == Some(op)), "{op:?}");
    }
    let queries: Vec<_> = file.cases.iter().flat_map(|c| &c.queries).collect();
    let offsets: Vec<i64> = queries.iter().filter_map(|q| q.offset).flatten().collect();
    assert!(offsets.contains(&-32) && offsets.contains(&31));
    assert!(queries.iter().any(|q| q.offsets.is_some()), "PTP");
    assert!(has(&|c| matches!(
        c.sampler.border,
        cases::BorderSpec::Float { .. } | cases::BorderSpec::Int { .. }
    )));
    assert!(has(&|c| c.texture.swizzle.is_some()));
}
