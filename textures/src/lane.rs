//! The one per-lane composition of the gather: address -> footprint -> wrap -> fetch ->
//! convert -> select (or compare) -> corner fill and residency, for one lane.
//!
//! Every scalar gather goes through `compose`: the fast path's per-lane fallback (the
//! lanes the lane-parallel kernels hand back, and the whole warp at `SimdLevel::Scalar`),
//! the gather over any texel source (texels in GPU memory read one by one,
//! [`crate::SiteGatherer`]) and the trace behind `tld4 explain` ([`crate::trace`]). What
//! differs between them is only
//! - where the texel values come from: a `TexelReader` (owned storage with the value rule
//!   specialized and infallible, or any [`crate::TexelSource`] whose reads may fail), and
//! - who is watching: a [`Probe`] (`()` records nothing and compiles away; the trace and the
//!   texel addresses are probes that record what the composition computed, never computing
//!   it a second time).
//!
//! The lane-parallel kernels (`gather::kernels`) compute the same rules for 32 lanes at a
//! time; every kernel is tested lane for lane against this composition.

use crate::cube;
use crate::op::{GatherQuery, GatherResult, OffsetMode, Value};
use crate::sampler::{AddressMode, Sampler};
use crate::stages::{array_layer, cube_corner_unchecked, footprint_unchecked, wrap_in, Quantizer};
use crate::texture::TextureKind;

/// Where one footprint texel is read from (after wrapping and cube-face hops).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Site {
    /// Texel (x, y) of storage layer `layer` (cube kinds: cube * 6 + face).
    Texel {
        /// Storage layer.
        layer: u32,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// The border colour (clamp to border, outside the texture): no texel is read.
    Border,
    /// A seamless cube footprint's corner, on no face (filled from the other three).
    #[default]
    Corner,
}

/// What the address step computed for a lane.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LaneAddress {
    /// Cube kinds: the selected face (storage order 0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z).
    pub face: Option<u32>,
    /// The coordinate s as the unit uses it: normalized, or in texels under unnormalized
    /// coordinates (a face coordinate for cubes).
    pub s: f64,
    /// The coordinate t.
    pub t: f64,
    /// The array layer (whole cube for cube arrays) used: the operand clamped to
    /// layers - 1 ([`array_layer`]); 0 for kinds without layers.
    pub layer: u32,
    /// The storage layer sampled (cube kinds: cube * 6 + face).
    pub storage_layer: u32,
}

/// Who is watching one lane's composition. Every hook has a default that does nothing;
/// `()` is the probe that watches nothing, and with `ACTIVE = false` the composition skips
/// the hooks altogether, so watching costs nothing when nobody does (the design of
/// yaxpeax-arch's annotating decoder: one routine, a sink, the null sink free).
pub trait Probe {
    /// False for a probe whose hooks do nothing.
    const ACTIVE: bool;
    /// The address step: face, normalized coordinates, layer.
    #[inline(always)]
    fn address(&mut self, _address: &LaneAddress) {}
    /// The footprint origin (i0, j0) the precision model gave.
    #[inline(always)]
    fn origin(&mut self, _i0: i64, _j0: i64) {}
    /// Texel `k` (gather order): its footprint position (i, j) before wrapping (on the
    /// sampled face for cube kinds), and where it is read after wrapping.
    #[inline(always)]
    fn texel(&mut self, _k: usize, _position: (i64, i64), _site: Site) {}
    /// Texel `k`'s value after convert, select or compare, and the corner fill (before a
    /// non-resident footprint zeroes the results).
    #[inline(always)]
    fn value(&mut self, _k: usize, _value: u32) {}
}

impl Probe for () {
    const ACTIVE: bool = false;
}

/// Where the composition reads texel values from, with the value rule applied: a real
/// texel's value after convert and swizzle/select (or compare with the lane's reference),
/// the border's value, and residency.
pub(crate) trait TexelReader {
    /// Why a read failed (`Infallible` for owned storage).
    type Error;
    /// The value texel (x, y) of storage layer `layer` yields.
    fn value(&self, layer: u32, x: u32, y: u32) -> Result<u32, Self::Error>;
    /// The value a border texel yields.
    fn border(&self) -> u32;
    /// Whether the texel lies in a resident tile.
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool;
}

/// What a footprint touching a non-resident tile returns: all values 0 (docs/sources.md,
/// Decisions: sparse residency).
pub(crate) const NON_RESIDENT: GatherResult = GatherResult {
    values: [0; 4],
    resident: false,
};

/// The per-gather constants of the composition, prepared once per (texture, sampler,
/// instruction) from what every prepared gather checks first (`gather::check_op`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LanePlan {
    pub(crate) kind: TextureKind,
    pub(crate) width: i64,
    pub(crate) height: i64,
    /// layers - 1 (whole cubes for cube arrays).
    pub(crate) max_layer: u32,
    pub(crate) quant: Quantizer,
    /// (width, height) * 2^bits for normalized coordinates, (1, 1) * 2^bits for unnormalized
    /// ones ([`Sampler::coordinate_scale`]): the coordinates' scale to fixed point.
    pub(crate) scale: [f64; 2],
    pub(crate) address: [AddressMode; 2],
    /// A cube kind sampled with seamless edges (the footprint may cross faces).
    pub(crate) seamless: bool,
    pub(crate) offsets: OffsetMode,
    /// The corner fill's value rule: a constant value rule stays its constant, integer
    /// results copy a texel, others average ([`crate::cube_corner_value`]).
    pub(crate) corner: CornerFill,
}

/// How a seamless cube footprint's corner texel is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CornerFill {
    /// A swizzle constant stays that constant.
    Constant(u32),
    /// [`crate::cube_corner_value`] with `integer` (UINT/SINT results without compare).
    FromTexels { integer: bool },
}

/// The texture's shape as the plan needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlanShape {
    pub(crate) kind: TextureKind,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) layers: u32,
    /// The results are UINT/SINT integers (an integer format without compare).
    pub(crate) integer: bool,
}

impl LanePlan {
    /// The plan of a gather on `shape` with `sampler`, `offsets`, the precision model and
    /// the value rule (all checked by the caller).
    pub(crate) fn new(
        shape: PlanShape,
        sampler: &Sampler,
        offsets: OffsetMode,
        quant: Quantizer,
        value: &Value,
    ) -> Self {
        LanePlan {
            kind: shape.kind,
            width: shape.width as i64,
            height: shape.height as i64,
            max_layer: shape.layers - 1,
            scale: [
                sampler.coordinate_scale(shape.width) as f64 * quant.scale,
                sampler.coordinate_scale(shape.height) as f64 * quant.scale,
            ],
            quant,
            address: [sampler.address_u, sampler.address_v],
            seamless: shape.kind.is_cube() && sampler.seamless_cube,
            offsets,
            corner: match *value {
                Value::Const(c) => CornerFill::Constant(c),
                _ => CornerFill::FromTexels {
                    integer: shape.integer,
                },
            },
        }
    }

    /// address: the face and face coordinates for cube kinds ([`cube::project`]), the
    /// clamped layer ([`array_layer`]) and the storage layer.
    #[inline(always)]
    pub(crate) fn address(&self, q: &GatherQuery) -> LaneAddress {
        let layer = if self.kind.is_array() {
            array_layer(q.layer, self.max_layer)
        } else {
            0
        };
        if self.kind.is_cube() {
            let (face, s, t) = cube::project(q.coords[0], q.coords[1], q.coords[2]);
            LaneAddress {
                face: Some(face),
                s,
                t,
                layer,
                storage_layer: layer * 6 + face,
            }
        } else {
            LaneAddress {
                face: None,
                s: q.coords[0] as f64,
                t: q.coords[1] as f64,
                layer,
                storage_layer: layer,
            }
        }
    }

    /// address -> footprint -> wrap: where the lane's four texels are read, in gather order.
    #[inline(always)]
    pub(crate) fn sites<P: Probe>(&self, q: &GatherQuery, probe: &mut P) -> [Site; 4] {
        let a = self.address(q);
        let i0 = self.quant.origin(a.s * self.scale[0]);
        let j0 = self.quant.origin(a.t * self.scale[1]);
        if P::ACTIVE {
            probe.address(&a);
            probe.origin(i0, j0);
        }
        let (w, h) = (self.width, self.height);
        let (positions, sites) = match a.face {
            Some(face) if self.seamless => {
                // (cube kinds take no offsets: `gather::check_op`)
                let pos = footprint_unchecked(i0, j0, OffsetMode::None, &[[0; 2]; 4]);
                (pos, self.seamless_sites(face, a.storage_layer - face, &pos))
            }
            _ => {
                let pos = footprint_unchecked(i0, j0, self.offsets, &q.offsets);
                let [au, av] = self.address;
                let layer = a.storage_layer;
                let site = |(i, j): (i64, i64)| match (wrap_in(i, w, au), wrap_in(j, h, av)) {
                    (Some(x), Some(y)) => Site::Texel {
                        layer,
                        x: x as u32,
                        y: y as u32,
                    },
                    _ => Site::Border,
                };
                (pos, pos.map(site))
            }
        };
        if P::ACTIVE {
            for k in 0..4 {
                probe.texel(k, positions[k], sites[k]);
            }
        }
        sites
    }

    /// wrap, for a seamless cube footprint at `positions` on `face` of the cube whose first
    /// storage layer is `cube_base`: each position on the face, on the face across the edge
    /// it lies past ([`cube::seamless_texel`]), or a corner.
    #[inline(always)]
    pub(crate) fn seamless_sites(
        &self,
        face: u32,
        cube_base: u32,
        positions: &[(i64, i64); 4],
    ) -> [Site; 4] {
        let site = |(i, j): (i64, i64)| match cube::seamless_texel(face, i, j, self.width) {
            Some((f, x, y)) => Site::Texel {
                layer: cube_base + f,
                x: x as u32,
                y: y as u32,
            },
            None => Site::Corner,
        };
        // (element by element: `array::map` leaves the closure out of line)
        let [p0, p1, p2, p3] = *positions;
        [site(p0), site(p1), site(p2), site(p3)]
    }
}

/// One lane's gather: the plan's sites, then fetch -> convert -> select or compare through
/// `reader`, the corner fill, and residency (a footprint touching a non-resident tile gives
/// [`NON_RESIDENT`]). The texels are read in gather order; the first failed read stops the
/// lane with its error.
#[inline(always)]
pub(crate) fn compose<R: TexelReader, P: Probe>(
    plan: &LanePlan,
    reader: &R,
    q: &GatherQuery,
    probe: &mut P,
) -> Result<GatherResult, R::Error> {
    let sites = plan.sites(q, probe);
    let mut values = [0u32; 4];
    let mut resident = true;
    let mut corner = None;
    for (k, site) in sites.into_iter().enumerate() {
        values[k] = match site {
            Site::Texel { layer, x, y } => {
                resident &= reader.resident(layer, x, y);
                reader.value(layer, x, y)?
            }
            Site::Border => reader.border(),
            Site::Corner => {
                // the last corner is filled: two corners only where a NaN direction selects
                // a face its coordinates lie off, and the other one then reads 0
                corner = Some(k);
                0
            }
        };
    }
    if let Some(c) = corner {
        values[c] = match plan.corner {
            CornerFill::Constant(v) => v,
            CornerFill::FromTexels { integer } => cube_corner_unchecked(&values, c, integer),
        };
    }
    if P::ACTIVE {
        for (k, v) in values.into_iter().enumerate() {
            probe.value(k, v);
        }
    }
    if !resident {
        return Ok(NON_RESIDENT);
    }
    Ok(GatherResult {
        values,
        resident: true,
    })
}
