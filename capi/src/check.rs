//! `tld4_check`: conformance verdicts on observed gathers (`tld4_conformance`: the Khronos
//! CTS's gather verification; docs/sources.md, Conformance verdicts), from C.

use tld4_conformance::{Allowed, Anything, Checker, CtsPrecision, Footprint, Query, Verdict};
use tld4_emu::textures::OffsetMode;
use tld4_emu::ExecConfig;

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::exec::tld4_exec_config;
use crate::pool::tld4_pool;
use crate::ptr::{in_ref, in_slice, out_opt};

/// Which offsets a query of `tld4_check` carries (`tld4_check_query::offset_mode`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_offset_mode {
    /// No offsets.
    TLD4_OFFSETS_NONE = 0,
    /// One offset, `offsets[0]`, for the whole footprint (textureGatherOffset, AOFFI).
    TLD4_OFFSETS_ONE = 1,
    /// Four offsets, texel k at (i0, j0) + `offsets[k]` (textureGatherOffsets, PTP).
    TLD4_OFFSETS_FOUR = 2,
}

const OFFSET_MODES: [(tld4_offset_mode, OffsetMode); 3] = [
    (tld4_offset_mode::TLD4_OFFSETS_NONE, OffsetMode::None),
    (tld4_offset_mode::TLD4_OFFSETS_ONE, OffsetMode::Aoffi),
    (tld4_offset_mode::TLD4_OFFSETS_FOUR, OffsetMode::Ptp),
];

/// One gather query as a shader makes it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct tld4_check_query {
    /// (s, t) for 2D, (s, t, layer) for 2D arrays, (x, y, z) for cubes, (x, y, z, layer) for
    /// cube arrays; the layer is the float the shader passes. Unused entries are ignored.
    pub coords: [f32; 4],
    /// Component gathered, 0..=3 (ignored with depth compare).
    pub component: u32,
    /// A `tld4_offset_mode` value.
    pub offset_mode: u32,
    /// Offsets (dx, dy), -32..=31: entry 0 for one offset, all four for four.
    pub offsets: [[i8; 2]; 4],
    /// A depth-compare gather (the sampler's compare function must be set).
    pub compare: bool,
    /// Its depth reference.
    pub dref: f32,
}

/// A query's verdict (`tld4_check_result::verdict`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_verdict {
    /// tld4's result bit for bit (two NaNs count as equal).
    TLD4_VERDICT_EXACT = 0,
    /// Not tld4's result, but inside the CTS's bounds.
    TLD4_VERDICT_ALLOWED = 1,
    /// Outside the CTS's bounds.
    TLD4_VERDICT_WRONG = 2,
}

/// What allows an allowed result (`tld4_check_result::allowed_by`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_allowed_by {
    /// Not allowed (exact or wrong).
    TLD4_ALLOWED_NOT = 0,
    /// The values of `footprint`, within `tolerance` (`difference` the largest difference).
    TLD4_ALLOWED_FOOTPRINT = 1,
    /// Four offsets whose texels come from different origins within the bounds.
    TLD4_ALLOWED_PER_TEXEL = 2,
    /// A footprint within the bounds (`footprint`) has a texel off both edges of a cube face.
    TLD4_ALLOWED_CUBE_CORNER = 3,
    /// No cube face is possible for the direction within its error.
    TLD4_ALLOWED_NO_FACE = 4,
}

/// One query's verdict.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct tld4_check_result {
    /// A `tld4_verdict` value.
    pub verdict: u32,
    /// A `tld4_allowed_by` value.
    pub allowed_by: u32,
    /// tld4's four values (f32 bits, or integers for UINT/SINT formats).
    pub model: [u32; 4],
    /// `footprint_*` hold a footprint: allowed, the one that explains it (cube corner: the
    /// footprint with the corner); wrong, the nearest one.
    pub has_footprint: bool,
    /// Its array layer (whole cube for cube arrays).
    pub footprint_layer: u32,
    /// Its cube face (0 +X .. 5 -Z), or -1.
    pub footprint_face: i32,
    /// Its origin i0.
    pub footprint_i0: i64,
    /// Its origin j0.
    pub footprint_j0: i64,
    /// tld4's own footprint (allowed results): layer, face (-1 none), i0, j0.
    pub model_footprint_layer: u32,
    /// See `model_footprint_layer`.
    pub model_footprint_face: i32,
    /// See `model_footprint_layer`.
    pub model_footprint_i0: i64,
    /// See `model_footprint_layer`.
    pub model_footprint_j0: i64,
    /// Wrong: which of the four values misses most (0..4, gather order).
    pub position: u32,
    /// Wrong: how far that value is from the nearest footprint's (infinity where no bound
    /// applies); allowed by a footprint: the largest difference.
    pub difference: f64,
    /// The tolerance of the values (0 for integers and float formats).
    pub tolerance: f64,
}

/// How many queries got each verdict.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct tld4_check_summary {
    /// Queries checked.
    pub queries: usize,
    /// Exact.
    pub exact: usize,
    /// Allowed.
    pub allowed: usize,
    /// Wrong.
    pub wrong: usize,
}

fn put(fp: &Footprint) -> (u32, i32, i64, i64) {
    (fp.layer, fp.face.map_or(-1, |f| f as i32), fp.i0, fp.j0)
}

fn result_of(v: &tld4_conformance::QueryVerdict) -> tld4_check_result {
    let mut r = tld4_check_result {
        model: v.model,
        footprint_face: -1,
        model_footprint_face: -1,
        ..Default::default()
    };
    let mut set = |fp: &Footprint| {
        r.has_footprint = true;
        (
            r.footprint_layer,
            r.footprint_face,
            r.footprint_i0,
            r.footprint_j0,
        ) = put(fp);
    };
    let mut model_fp = None;
    match &v.verdict {
        Verdict::Exact => r.verdict = tld4_verdict::TLD4_VERDICT_EXACT as u32,
        Verdict::Allowed(a) => {
            r.verdict = tld4_verdict::TLD4_VERDICT_ALLOWED as u32;
            r.allowed_by = match a {
                Allowed::Footprint {
                    footprint,
                    model,
                    difference,
                    tolerance,
                    ..
                } => {
                    set(footprint);
                    model_fp = *model;
                    r.difference = *difference;
                    r.tolerance = *tolerance;
                    tld4_allowed_by::TLD4_ALLOWED_FOOTPRINT
                }
                Allowed::PerTexel { model, .. } => {
                    model_fp = *model;
                    tld4_allowed_by::TLD4_ALLOWED_PER_TEXEL
                }
                Allowed::Anything {
                    why: Anything::CubeCorner { footprint },
                } => {
                    set(footprint);
                    tld4_allowed_by::TLD4_ALLOWED_CUBE_CORNER
                }
                Allowed::Anything {
                    why: Anything::NoFace,
                } => tld4_allowed_by::TLD4_ALLOWED_NO_FACE,
            } as u32;
        }
        Verdict::Wrong(w) => {
            r.verdict = tld4_verdict::TLD4_VERDICT_WRONG as u32;
            if let Some(fp) = &w.footprint {
                set(fp);
            }
            r.position = w.position as u32;
            r.difference = w.difference;
            r.tolerance = w.tolerance;
        }
    }
    if let Some(m) = model_fp {
        (
            r.model_footprint_layer,
            r.model_footprint_face,
            r.model_footprint_i0,
            r.model_footprint_j0,
        ) = put(&m);
    }
    r
}

/// Judges `count` observed gathers of the texture at header index `texture` with the sampler
/// at index `sampler` of `pool`: each is exact (tld4's result with `config`'s sub-texel model,
/// NULL the defaults), allowed (inside the Khronos CTS's gather bounds) or wrong
/// (docs/sources.md, Conformance verdicts). `observed[k]` holds query k's four values as
/// bits (f32, or integers for UINT/SINT formats without compare). Writes `results[k]` (NULL:
/// none) and the counts to `summary` (NULL: none). Nothing is written when an error is
/// returned (a bad index, an operation tld4 does not model, a bad `offset_mode`).
///
/// # Safety
/// `pool` is live; `config` NULL or valid; `queries` and `observed` point to `count`
/// elements (NULL with `count` 0); `results` NULL or valid for `count` writes; `summary` NULL
/// or valid; `err` NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_check(
    pool: *const tld4_pool,
    texture: u32,
    sampler: u32,
    config: *const tld4_exec_config,
    queries: *const tld4_check_query,
    observed: *const [u32; 4],
    count: usize,
    results: *mut tld4_check_result,
    summary: *mut tld4_check_summary,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let pool = in_ref(pool, "pool")?;
        let config = if config.is_null() {
            ExecConfig::default()
        } else {
            in_ref(config, "config")?.config()?
        };
        let queries = in_slice(queries, count, "queries")?;
        let observed = in_slice(observed, count, "observed")?;
        let tex = pool.0.texture(texture).map_err(|source| Error::Texture {
            what: format!("texture {texture}"),
            source,
        })?;
        let smp = pool.0.sampler(sampler).map_err(|source| Error::Texture {
            what: format!("sampler {sampler}"),
            source,
        })?;
        let mut checker = Checker::new(
            tex,
            smp,
            config.precision,
            CtsPrecision::for_kind(tex.kind()),
        );
        let mut out = Vec::with_capacity(count);
        let mut sum = tld4_check_summary {
            queries: count,
            ..Default::default()
        };
        for (k, (q, o)) in queries.iter().zip(observed).enumerate() {
            let offset_mode = OFFSET_MODES
                .iter()
                .find(|(c, _)| *c as u32 == q.offset_mode)
                .map(|&(_, m)| m)
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "queries[{k}].offset_mode = {}: not a tld4_offset_mode (0..=2)",
                        q.offset_mode
                    ))
                })?;
            if q.component > 3 {
                return Err(Error::Invalid(format!(
                    "queries[{k}].component = {}: outside 0..=3",
                    q.component
                )));
            }
            if let Some(o) = q
                .offsets
                .iter()
                .flatten()
                .find(|o| !(-32..=31).contains(*o))
            {
                return Err(Error::Invalid(format!(
                    "queries[{k}].offsets: {o} is outside -32..=31"
                )));
            }
            let query = Query {
                coords: q.coords,
                component: q.component as u8,
                offset_mode,
                offsets: q.offsets,
                dref: q.compare.then_some(q.dref),
            };
            let v = checker.check(&query, *o).map_err(|source| Error::Texture {
                what: format!("queries[{k}]"),
                source,
            })?;
            match v.verdict {
                Verdict::Exact => sum.exact += 1,
                Verdict::Allowed(_) => sum.allowed += 1,
                Verdict::Wrong(_) => sum.wrong += 1,
            }
            out.push(result_of(&v));
        }
        if !results.is_null() {
            for (k, r) in out.into_iter().enumerate() {
                // SAFETY: `results` is not NULL and valid for `count` writes (the caller's
                // guarantee); `k < count`.
                results.add(k).write(r);
            }
        }
        // SAFETY: `summary` is NULL or valid (the caller's guarantee).
        out_opt(summary, sum);
        Ok(())
    })
}
