//! Verdicts: each observed result against tld4's model (exact) and the CTS's bounds (allowed
//! or wrong), following the acceptance test of VK-GL-CTS `isColorValid`
//! (tcuTexLookupVerifier.cpp) and `execCompare` / `isResultInSet` (tcuTexCompareVerifier.cpp).

use std::fmt;

use tld4_textures::trace::trace;
use tld4_textures::{
    Error, GatherOp, Gatherer, OffsetMode, Precision, Sampler, Texture, ValueKind,
};

use crate::bounds::fixed_error;
use crate::candidates::{Anything, Bounds, Candidate, Candidates, Footprint, Reader};
use crate::precision::CtsPrecision;
use crate::query::Query;

/// What one query's observed result is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case", tag = "verdict"))]
pub enum Verdict {
    /// Bit for bit tld4's result (two NaNs count as equal).
    Exact,
    /// Not tld4's result, but inside the CTS's bounds.
    Allowed(Allowed),
    /// Outside the CTS's bounds.
    Wrong(Wrong),
}

/// Why a result that is not tld4's is allowed.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case", tag = "by"))]
pub enum Allowed {
    /// The CTS accepts anything here (a cube corner, or no possible face).
    Anything {
        /// Which.
        why: Anything,
    },
    /// An offset array whose four texels come from different origins within the bounds: each
    /// value within tolerance of its texel in one of them (Vulkan defines an offset-array
    /// gather as four gathers, one an offset, so each may round on its own; the CTS takes one
    /// origin for all four: a decision of this port, docs/sources.md, Conformance verdicts).
    PerTexel {
        /// The footprint each value comes from.
        footprints: [Footprint; 4],
        /// tld4's own footprint.
        model: Option<Footprint>,
        /// The coordinate ranges the CTS allows.
        bounds: Vec<Bounds>,
    },
    /// The values of a footprint within the bounds, within the CTS's value tolerance.
    Footprint {
        /// The footprint that explains the result.
        footprint: Footprint,
        /// tld4's own footprint.
        model: Option<Footprint>,
        /// Largest difference from that footprint's values (0 when they are the same; for a
        /// depth compare, from the nearest outcome the comparison allows).
        difference: f64,
        /// The tolerance it is within.
        tolerance: f64,
        /// The coordinate ranges the CTS allows.
        bounds: Vec<Bounds>,
    },
}

/// How a wrong result misses.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Wrong {
    /// Which of the four values misses most (0..4, gather order).
    pub position: usize,
    /// The observed value there (f32 or integer bits).
    pub observed: u32,
    /// The nearest acceptable footprint's value there (None when no footprint is in bounds).
    pub nearest: Option<u32>,
    /// That footprint.
    pub footprint: Option<Footprint>,
    /// How far the observed value is from it.
    pub difference: f64,
    /// The tolerance it exceeds.
    pub tolerance: f64,
    /// The coordinate ranges the CTS allows (empty: no bound for this query).
    pub bounds: Vec<Bounds>,
}

/// One query's verdict, with what tld4 and the observer returned.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct QueryVerdict {
    /// tld4's four values (bits).
    pub model: [u32; 4],
    /// The observed four values (bits).
    pub observed: [u32; 4],
    /// The verdict.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub verdict: Verdict,
}

/// Checks observed gathers on one texture and sampler.
pub struct Checker<'a> {
    reader: Reader<'a>,
    model: Precision,
    gatherers: Vec<(GatherOp, Gatherer<'a>)>,
}

impl<'a> Checker<'a> {
    /// A checker of gathers on `texture` with `sampler`; `model` is tld4's sub-texel model
    /// (the exact results), `cts` the bounds ([`CtsPrecision::for_kind`] for the CTS's own).
    pub fn new(
        texture: &'a Texture,
        sampler: &'a Sampler,
        model: Precision,
        cts: CtsPrecision,
    ) -> Self {
        Checker {
            reader: Reader {
                texture,
                sampler,
                cts,
            },
            model,
            gatherers: Vec::new(),
        }
    }

    /// tld4's result of a query. Errors: those of [`Gatherer::new`] (an operation tld4 does
    /// not model on this texture and sampler, or invalid input).
    pub fn model_result(&mut self, q: &Query) -> Result<[u32; 4], Error> {
        let (op, lane) = q.to_model(self.reader.texture.kind());
        if let Some((_, g)) = self.gatherers.iter().find(|(o, _)| *o == op) {
            return Ok(g.gather(&lane).values);
        }
        let g = Gatherer::new(self.reader.texture, self.reader.sampler, &op, self.model)?;
        let r = g.gather(&lane).values;
        self.gatherers.push((op, g));
        Ok(r)
    }

    /// The verdict on one observed result (four values as bits: f32 for float, normalized and
    /// depth-compare results, integers for UINT/SINT formats).
    pub fn check(&mut self, q: &Query, observed: [u32; 4]) -> Result<QueryVerdict, Error> {
        let model = self.model_result(q)?;
        let floats = q.dref.is_some() || !self.reader.texture.format().is_integer();
        let verdict = if same_bits(floats, &model, &observed) {
            Verdict::Exact
        } else {
            self.judge(q, model, observed)
        };
        Ok(QueryVerdict {
            model,
            observed,
            verdict,
        })
    }

    /// Whether the CTS itself accepts `observed` for this query: a whole footprint within the
    /// bounds within tolerance, or anything at a cube corner (no extension of this port's
    /// applies: offset arrays take one origin).
    pub fn cts_accepts(&self, q: &Query, observed: &[u32; 4]) -> bool {
        match self.candidates(q) {
            Candidates::Anything(_) => true,
            Candidates::NoBound => false,
            Candidates::Footprints { list, .. } => {
                let values = Values::of(
                    self.reader.texture,
                    self.reader.sampler,
                    q,
                    &self.reader.cts,
                );
                let tolerance = values.tolerance();
                list.iter()
                    .any(|c| values.worst(c, observed).1 <= tolerance)
            }
        }
    }

    /// The CTS's candidates for a query (all the footprints it accepts).
    pub fn candidates(&self, q: &Query) -> Candidates {
        self.reader.candidates(q)
    }

    fn judge(&self, q: &Query, model: [u32; 4], observed: [u32; 4]) -> Verdict {
        let (list, bounds) = match self.candidates(q) {
            Candidates::Anything(why) => return Verdict::Allowed(Allowed::Anything { why }),
            Candidates::NoBound => (Vec::new(), Vec::new()),
            Candidates::Footprints { list, bounds } => (list, bounds),
        };
        let values = Values::of(
            self.reader.texture,
            self.reader.sampler,
            q,
            &self.reader.cts,
        );
        let tolerance = values.tolerance();
        // A footprint within tolerance (the CTS stops at the first; of those, the one nearest
        // tld4's own footprint names the texel choice best).
        let model_fp = self.model_footprint(q, &list, &model);
        if let Some((c, difference)) = list
            .iter()
            .map(|c| (c, values.worst(c, &observed).1))
            .filter(|(_, d)| *d <= tolerance)
            .min_by_key(|(c, _)| model_fp.map_or(0, |m| m.distance(&c.footprint)))
        {
            return Verdict::Allowed(Allowed::Footprint {
                footprint: c.footprint,
                model: model_fp,
                difference,
                tolerance,
                bounds,
            });
        }
        if q.offset_mode == OffsetMode::Ptp {
            let per: Vec<Option<Footprint>> = (0..4)
                .map(|k| {
                    list.iter()
                        .find(|c| values.distance(c.values[k], observed[k]) <= tolerance)
                        .map(|c| c.footprint)
                })
                .collect();
            if let [Some(a), Some(b), Some(c), Some(d)] = per[..] {
                return Verdict::Allowed(Allowed::PerTexel {
                    footprints: [a, b, c, d],
                    model: model_fp,
                    bounds,
                });
            }
        }
        let best: Option<(&Candidate, (usize, f64))> = list
            .iter()
            .map(|c| (c, values.worst(c, &observed)))
            .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
        Verdict::Wrong(match best {
            Some((c, (position, difference))) => Wrong {
                position,
                observed: observed[position],
                nearest: Some(values.nearest(c.values[position], observed[position])),
                footprint: Some(c.footprint),
                difference,
                tolerance,
                bounds,
            },
            None => {
                let position = (0..4).find(|&k| model[k] != observed[k]).unwrap_or(0);
                Wrong {
                    position,
                    observed: observed[position],
                    nearest: None,
                    footprint: None,
                    difference: f64::INFINITY,
                    tolerance,
                    bounds,
                }
            }
        })
    }

    /// tld4's own footprint: from its trace where the gather can be traced, else the first
    /// candidate whose values give tld4's result exactly.
    fn model_footprint(
        &self,
        q: &Query,
        list: &[Candidate],
        model: &[u32; 4],
    ) -> Option<Footprint> {
        let (op, lane) = q.to_model(self.reader.texture.kind());
        if let Ok(t) = trace(
            self.reader.texture,
            self.reader.sampler,
            &op,
            self.model,
            &lane,
        ) {
            return Some(Footprint {
                layer: t.layer.map_or(0, |l| l.used),
                face: t.cube.map(|c| c.face),
                i0: t.u.origin,
                j0: t.v.origin,
            });
        }
        let values = Values::of(
            self.reader.texture,
            self.reader.sampler,
            q,
            &self.reader.cts,
        );
        list.iter()
            .find(|c| values.worst(c, model).1 == 0.0)
            .map(|c| c.footprint)
    }
}

/// Two results with the same bits; for float results (`floats`) two NaNs count as equal.
fn same_bits(floats: bool, a: &[u32; 4], b: &[u32; 4]) -> bool {
    a.iter().zip(b).all(|(&x, &y)| {
        x == y || (floats && f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan())
    })
}

/// How a query's values compare.
enum Values {
    /// Normalized colours: |texel - result| <= threshold, in f32 (`isColorValid`).
    Normalized(f32),
    /// Float colours: equal values (the CTS's gather tests have no float colour format; a
    /// decision of this port, docs/sources.md, Conformance verdicts).
    Float,
    /// Integers: equal (the CTS's integer threshold is 0).
    Integer,
    /// Depth compare: the result within the result error of an outcome the comparison allows
    /// with the reference's error (`execCompare`, `isResultInSet`).
    Compare {
        op: tld4_textures::CompareOp,
        dref: f32,
        fixed_point: bool,
        reference_error: f32,
        result_error: f32,
    },
}

impl Values {
    fn of(texture: &Texture, sampler: &Sampler, q: &Query, cts: &CtsPrecision) -> Self {
        if let (Some(dref), Some(op)) = (q.dref, sampler.compare) {
            return Values::Compare {
                op,
                dref,
                fixed_point: texture.format().is_unorm_depth(),
                reference_error: fixed_error(cts.reference_bits),
                result_error: fixed_error(cts.result_bits),
            };
        }
        match texture.format().value_kind() {
            ValueKind::Normalized => Values::Normalized(cts.color_threshold()),
            ValueKind::Float => Values::Float,
            ValueKind::Uint | ValueKind::Sint => Values::Integer,
        }
    }

    fn tolerance(&self) -> f64 {
        match self {
            Values::Normalized(t) => *t as f64,
            Values::Float | Values::Integer => 0.0,
            Values::Compare { result_error, .. } => *result_error as f64,
        }
    }

    /// The position where `observed` is farthest from a candidate's values, and how far.
    fn worst(&self, c: &Candidate, observed: &[u32; 4]) -> (usize, f64) {
        // (the first of equal distances)
        (0..4)
            .map(|k| (k, self.distance(c.values[k], observed[k])))
            .fold((0, f64::NEG_INFINITY), |best, x| {
                if x.1.total_cmp(&best.1).is_gt() {
                    x
                } else {
                    best
                }
            })
    }

    /// How far an observed value is from what a texel allows.
    fn distance(&self, texel: u32, observed: u32) -> f64 {
        let (t, o) = (f32::from_bits(texel), f32::from_bits(observed));
        match self {
            Values::Integer => (texel as i32 as i64 - observed as i32 as i64).unsigned_abs() as f64,
            Values::Normalized(_) | Values::Float => {
                if t == o {
                    0.0
                } else if t.is_nan() || o.is_nan() {
                    if t.is_nan() && o.is_nan() {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    (t - o).abs() as f64
                }
            }
            Values::Compare { .. } => self
                .outcomes(t)
                .iter()
                .map(|v| (o - v).abs() as f64)
                .fold(f64::INFINITY, f64::min),
        }
    }

    /// The value nearest `observed` that a texel allows (compare: the outcome nearer it).
    fn nearest(&self, texel: u32, observed: u32) -> u32 {
        match self {
            Values::Compare { .. } => {
                let o = f32::from_bits(observed);
                self.outcomes(f32::from_bits(texel))
                    .into_iter()
                    .min_by(|a, b| (o - a).abs().total_cmp(&(o - b).abs()))
                    .map_or(texel, f32::to_bits)
            }
            _ => texel,
        }
    }

    /// The outcomes (1.0 true, 0.0 false) a comparison with this depth may give, the
    /// reference known within its error; both depth and reference clamped to [0, 1] for
    /// fixed-point depth formats. Follows `execCompare` (tcuTexCompareVerifier.cpp).
    fn outcomes(&self, depth: f32) -> Vec<f32> {
        use tld4_textures::CompareOp::*;
        let Values::Compare {
            op,
            dref,
            fixed_point,
            reference_error: e,
            ..
        } = *self
        else {
            return Vec::new();
        };
        let (d, r) = if fixed_point {
            (depth.clamp(0.0, 1.0), dref.clamp(0.0, 1.0))
        } else {
            (depth, dref)
        };
        let within = d >= r - e && d <= r + e;
        let (yes, no) = match op {
            Less => (r - e < d, r + e >= d),
            LessOrEqual => (r - e <= d, r + e > d),
            Greater => (r + e > d, r - e <= d),
            GreaterOrEqual => (r + e >= d, r - e < d),
            Equal => (within, e != 0.0 || d != r),
            NotEqual => (e != 0.0 || d != r, within),
            Always => (true, false),
            Never => (false, true),
        };
        let mut out = Vec::with_capacity(2);
        if yes {
            out.push(1.0);
        }
        if no {
            out.push(0.0);
        }
        out
    }
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allowed::Anything { why: Anything::CubeCorner { footprint } } => write!(
                f,
                "a footprint within the CTS's bounds, {}, has a texel off both edges of its cube face: the CTS accepts any result",
                place(footprint)
            ),
            Allowed::Anything { why: Anything::NoFace } => {
                write!(f, "no cube face is possible for this direction within its error: the result is undefined")
            }
            Allowed::PerTexel { footprints, model, bounds } => {
                write!(f, "an offset array whose texels come from origins ")?;
                let list: Vec<String> = footprints.iter().map(place).collect();
                write!(f, "{}", list.join(", "))?;
                if let Some(m) = model {
                    write!(f, " instead of tld4's {}", place(m))?;
                }
                write!(f, ", each within the CTS's coordinate bounds ({})", bounds_text(bounds))
            }
            Allowed::Footprint { footprint, model, difference, tolerance, bounds } => {
                let same = model.as_ref() == Some(footprint);
                if same {
                    write!(f, "tld4's footprint {}", place(footprint))?;
                } else {
                    write!(f, "footprint {}", place(footprint))?;
                    if let Some(m) = model {
                        write!(f, " instead of tld4's {}", place(m))?;
                    }
                    write!(f, ", within the CTS's coordinate bounds ({})", bounds_text(bounds))?;
                }
                if *difference > 0.0 {
                    write!(f, "; values within {difference:e} of its texels (tolerance {tolerance:e}: conversion or comparison rounding)")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Wrong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = ["x (i0, j1)", "y (i1, j1)", "z (i1, j0)", "w (i0, j0)"][self.position.min(3)];
        match (self.nearest, &self.footprint) {
            (Some(n), Some(fp)) => write!(
                f,
                "value {name} is {:#010x}, {:e} from {:#010x} of the nearest footprint {} (tolerance {:e}; CTS bounds {})",
                self.observed,
                self.difference,
                n,
                place(fp),
                self.tolerance,
                bounds_text(&self.bounds)
            ),
            _ => write!(
                f,
                "value {name} is {:#010x} and differs from tld4's; the CTS has no bound for a non-finite coordinate",
                self.observed
            ),
        }
    }
}

fn place(fp: &Footprint) -> String {
    let mut s = format!("(i0, j0) = ({}, {})", fp.i0, fp.j0);
    if let Some(face) = fp.face {
        s += &format!(
            " on face {}",
            tld4_textures::trace::FACE_NAMES[face as usize % 6]
        );
    }
    if fp.layer != 0 {
        s += &format!(" of layer {}", fp.layer);
    }
    s
}

fn bounds_text(bounds: &[Bounds]) -> String {
    bounds
        .iter()
        .map(|b| {
            let face = b.face.map_or(String::new(), |f| {
                format!("{}: ", tld4_textures::trace::FACE_NAMES[f as usize % 6])
            });
            format!(
                "{face}u in [{}, {}], v in [{}, {}]",
                b.u[0], b.u[1], b.v[0], b.v[1]
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
