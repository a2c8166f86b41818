//! The CTS's texture-gather grid (`tld4_conformance::cts_grid`, generated as VK-GL-CTS
//! generates it) run through tld4 and the ported verification: every query of every case
//! accepted (docs/sources.md, Conformance verdicts).

use tld4_conformance::cts_grid::{grid, GatherType, GridFormat, RENDER_SIZE};
use tld4_conformance::{Checker, CtsPrecision};
use tld4_textures::{Precision, Rounding, TextureKind};

/// Runs the cases `filter` picks with tld4's sub-texel model `model` on every `step`-th
/// pixel of every `step`-th row of each iteration's render (1: all 4096); returns the cases,
/// the queries and the first queries the CTS rejects (at most 10).
fn run(
    step: u32,
    model: Precision,
    filter: impl Fn(&tld4_conformance::cts_grid::GridCase) -> bool,
) -> (usize, usize, Vec<String>) {
    let (mut cases, mut queries, mut rejected) = (0, 0, Vec::new());
    for case in grid().iter().filter(|c| filter(c)) {
        let texture = case.texture();
        let sampler = case.sampler();
        let mut checker =
            Checker::new(&texture, &sampler, model, CtsPrecision::for_kind(case.kind));
        for it in case.iterations() {
            for py in (0..RENDER_SIZE).step_by(step as usize) {
                for px in (0..RENDER_SIZE).step_by(step as usize) {
                    let q = case.query(&it, px, py);
                    let r = checker
                        .model_result(&q)
                        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
                    if !checker.cts_accepts(&q, &r) && rejected.len() < 10 {
                        rejected.push(format!("{} {it:?} pixel ({px}, {py}): {r:08x?}", case.name));
                    }
                    queries += 1;
                }
            }
        }
        cases += 1;
    }
    (cases, queries, rejected)
}

#[test]
fn the_grid_is_the_ctss() {
    let g = grid();
    let count = |k: TextureKind| {
        g.iter()
            .filter(|c| c.kind == k && c.swizzle.is_none())
            .count()
    };
    // 7 gather functions x (3 colour formats x 3 wrap pairs + depth x 2 compares x 3 wrap
    // pairs) x 2 sizes; cubes: basic only, with and without corners.
    assert_eq!(count(TextureKind::Tex2D), 7 * 15 * 2);
    assert_eq!(count(TextureKind::Tex2DArray), 7 * 15 * 2);
    assert_eq!(count(TextureKind::Cube), 15 * 2 * 2);
    assert!(g.iter().any(|c| c.swizzle.is_some()));
    // The iterations of a colour 2D case with offsets: 5 components, then 6 more offsets
    // for the implicit component.
    let c = g
        .iter()
        .find(|c| {
            c.kind == TextureKind::Tex2D
                && c.gather == GatherType::Offset
                && c.format == GridFormat::Rgba8
        })
        .unwrap();
    assert_eq!(c.iterations().len(), 11);
}

#[test]
fn every_grid_query_of_tld4_is_accepted() {
    // Every case, every iteration, a pixel in every 4 x 4 block (a 16 x 16 lattice of the
    // 64 x 64 render); the 2D cases at a finer lattice below.
    let (cases, queries, rejected) = run(4, Precision::default(), |_| true);
    println!("CTS grid: {cases} cases, {queries} queries accepted");
    assert!(rejected.is_empty(), "{rejected:#?}");
    assert!(
        cases > 500 && queries > 1_000_000,
        "{cases} cases, {queries} queries"
    );
}

#[test]
fn the_2d_grid_on_a_32_x_32_lattice_is_accepted() {
    let (cases, queries, rejected) = run(2, Precision::default(), |c| {
        c.kind == TextureKind::Tex2D && c.swizzle.is_none()
    });
    println!("CTS grid, 2D on 32 x 32 pixels: {cases} cases, {queries} queries accepted");
    assert!(rejected.is_empty(), "{rejected:#?}");
    assert_eq!(cases, 210);
}

#[test]
fn a_coarser_sub_texel_model_is_rejected() {
    // Truncating u to whole texels moves footprints by up to a texel: outside the CTS's 7
    // sub-texel bits, so the check can fail.
    let coarse = Precision::Fixed {
        fraction_bits: 0,
        rounding: Rounding::TowardZero,
    };
    let (_, _, rejected) = run(4, coarse, |c| {
        c.kind == TextureKind::Tex2D && c.gather == GatherType::Basic
    });
    assert!(!rejected.is_empty());
}
