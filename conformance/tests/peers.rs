//! The peers' gather tests as tld4 test cases (docs/sources.md, Conformance verdicts;
//! docs/sources.md, Sub-texel model): vkd3d's hlsl/gather.shader_test with its expected
//! values, and vkd3d-proton's test_sampler_rounding sweep with its expectation; where each
//! comes from is recorded in its data file under conformance/tests/peers/.

use std::path::PathBuf;

use serde::Deserialize;
use tld4_conformance::{check_file, Checker, CtsPrecision, Query, Verdict};
use tld4_gather_cases::{self as cases, CasesFile, SamplerSpec, TextureSpec};
use tld4_textures::{OffsetMode, Precision, Rounding, TextureKind};

fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Deserialize)]
struct Vkd3dGather {
    source: String,
    cases: CasesFile,
}

#[test]
fn vkd3ds_gather_shader_test_values_are_tld4s_exactly() {
    let file: Vkd3dGather = serde_json::from_str(&data("vkd3d_gather.json")).unwrap();
    assert!(file.source.contains("gather.shader_test"));
    let report = check_file(&file.cases).unwrap();
    assert_eq!(report.summary.queries, 7);
    assert_eq!(
        report.summary.exact,
        7,
        "{:#?}",
        report.not_exact().collect::<Vec<_>>()
    );
    // The same through `tld4 gather --check`'s comparison.
    let text = serde_json::to_string(&file.cases).unwrap();
    assert!(cases::check(&text).unwrap().mismatches.is_empty());
}

#[derive(Deserialize)]
struct Sweep {
    source: String,
    texture: TextureSpec,
    sampler: SamplerSpec,
    start: [f32; 2],
    step: f32,
    count: u32,
    boundary: f32,
    window: f32,
}

impl Sweep {
    /// Query j: (start.s + j * step, start.t) in f32, as the shader computes it.
    fn query(&self, j: u32) -> Query {
        let s = self.start[0] + j as f32 * self.step;
        Query {
            coords: [s, self.start[1], 0.0, 0.0],
            component: 0,
            offset_mode: OffsetMode::None,
            offsets: [[0; 2]; 4],
            dref: None,
        }
    }

    /// The values of .w test_sampler_rounding accepts for query j: [lo, hi] from the
    /// coordinate in 1/256 texels rounded within `window` of a unit (its rule for every GPU
    /// but WARP).
    fn expected(&self, j: u32) -> [f32; 2] {
        let u = self.query(j).coords[0] * self.texture.width as f32 * 256.0;
        let side = |x: f32| if x < self.boundary { 0.0 } else { 1.0 };
        [
            side((u - self.window).ceil()),
            side((u + self.window).floor()),
        ]
    }

    /// The queries whose .w lies outside the expectation under tld4's sub-texel `model`.
    fn misses(&self, model: Precision) -> Vec<u32> {
        let case = cases::Case {
            texture: self.texture.clone(),
            sampler: self.sampler.clone(),
            precision: None,
            queries: vec![],
        };
        let p = cases::prepare(&case, 0).unwrap();
        let mut checker = Checker::new(
            &p.texture,
            &p.sampler,
            model,
            CtsPrecision::for_kind(TextureKind::Tex2D),
        );
        (0..self.count)
            .filter(|&j| {
                let w = f32::from_bits(checker.model_result(&self.query(j)).unwrap()[3]);
                let [lo, hi] = self.expected(j);
                !(lo..=hi).contains(&w)
            })
            .collect()
    }
}

#[test]
fn vkd3d_protons_sampler_rounding_sweep_passes_with_tld4s_sub_texel_model() {
    let sweep: Sweep = serde_json::from_str(&data("vkd3d_proton_sampler_rounding.json")).unwrap();
    assert!(sweep.source.contains("test_sampler_rounding"));
    assert_eq!(sweep.misses(Precision::default()), Vec::<u32>::new());
    // The sweep tells rounding to nearest from truncation: 8 bits toward zero or floor miss
    // the queries within 0.6 of a unit below the boundary.
    for rounding in [Rounding::TowardZero, Rounding::Floor] {
        let misses = sweep.misses(Precision::Fixed {
            fraction_bits: 8,
            rounding,
        });
        assert!(misses.len() >= 20, "{rounding:?}: {} misses", misses.len());
    }
    // Both texel choices its window allows are inside the CTS's bounds.
    let case = cases::Case {
        texture: sweep.texture.clone(),
        sampler: sweep.sampler.clone(),
        precision: None,
        queries: vec![],
    };
    let p = cases::prepare(&case, 0).unwrap();
    let mut checker = Checker::new(
        &p.texture,
        &p.sampler,
        Precision::default(),
        CtsPrecision::for_kind(TextureKind::Tex2D),
    );
    for j in 0..sweep.count {
        let q = sweep.query(j);
        for side in sweep.expected(j) {
            // (i0 = side: the texels (i0, 0), (i0 + 1 clamped, 0), twice.)
            let (a, b) = if side == 0.0 {
                (0.0f32, 1.0f32)
            } else {
                (1.0, 1.0)
            };
            let observed = [a, b, b, a].map(f32::to_bits);
            let v = checker.check(&q, observed).unwrap();
            assert!(!matches!(v.verdict, Verdict::Wrong(_)), "query {j}: {v:?}");
        }
    }
}
