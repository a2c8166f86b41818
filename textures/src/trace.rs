//! A tracing gather: one lane's gather, step by step, with every number on the way (for
//! `tld4 explain`).
//!
//! [`trace`] is the one per-lane composition of the gather ([`crate::lane`]) watched by a
//! probe that records every step: the address ([`crate::cube::project`],
//! [`crate::array_layer`]), the fixed-point footprint origin ([`crate::texel_origin`]), each
//! texel's position and site after wrapping ([`crate::wrap`], [`crate::cube::seamless_texel`]),
//! and each value after convert, select or compare ([`crate::depth_compare`]), the border
//! ([`crate::border_value`]) and the corner fill ([`crate::cube_corner_value`]). It computes
//! nothing a second time: the values it shows are the composition's, and the raw fields and
//! converted components beside them are read from the same texels. It checks what every
//! gather checks, with the same errors (and [`trace`] what [`Gatherer::new`] checks of owned
//! storage), and a test checks that the trace's four values equal [`Gatherer::gather`]'s.
//!
//! It is slow (it allocates and records everything) and meant for one lane at a time.

use crate::error::Error;
use crate::format::Format;
use crate::gather::{Gatherer, Prepared};
use crate::lane::{compose, LaneAddress, Probe, Site, TexelReader};
use crate::memory_error::MemoryError;
use crate::op::{GatherOp, GatherQuery, OffsetMode, Precision, Rounding, Value};
use crate::sampler::{AddressMode, CompareOp, Sampler};
use crate::source::{SourceReader, TexelSource};
use crate::stages::{footprint, resolve_value, texel_origin, COORD_LIMIT};
use crate::texture::{Source, Texture, TextureKind};
use std::convert::Infallible;

/// Cube face names in storage order (0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z; [`crate::cube`]).
pub const FACE_NAMES: [&str; 6] = ["+X", "-X", "+Y", "-Y", "+Z", "-Z"];

/// The footprint origin along one axis: from the coordinate to i0 (or j0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisTrace {
    /// The coordinate s (or t) as the unit uses it (f64; a face coordinate for cubes):
    /// normalized, or in texels under unnormalized coordinates.
    pub coord: f64,
    /// The axis' size in texels (width or height).
    pub size: u32,
    /// The coordinate's scale to texels: `size` for normalized coordinates, 1 for
    /// unnormalized ones ([`Sampler::coordinate_scale`]).
    pub scale: u32,
    /// coord * scale: the position in texels (u * W or v * H; u itself when unnormalized).
    pub texels: f64,
    /// The fixed-point value n = coord * scale * 2^bits rounded to an integer by the
    /// precision model, and the number of fractional bits; None with [`Precision::Exact`].
    pub fixed: Option<(i64, u32, Rounding)>,
    /// floor(coord * scale - 0.5) computed exactly, without quantization.
    pub exact_origin: i64,
    /// The origin the unit uses: [`texel_origin`] of the fixed-point value.
    pub origin: i64,
}

impl AxisTrace {
    /// True when the fixed-point rounding chose another texel than exact arithmetic would.
    pub fn rounding_decided(&self) -> bool {
        self.exact_origin != self.origin
    }
}

/// Cube face selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeTrace {
    /// The direction (x, y, z) as given.
    pub direction: [f32; 3],
    /// The selected face (storage order, [`FACE_NAMES`]).
    pub face: u32,
    /// The face coordinates (s, t) in [0, 1] ([`crate::cube::project`]).
    pub s: f64,
    /// See `s`.
    pub t: f64,
}

/// The array layer: as the instruction received it, and as used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerTrace {
    /// The layer operand (an unsigned integer).
    pub given: u32,
    /// The layer (or whole cube, for cube arrays) used: [`crate::array_layer`], clamped to layers - 1.
    pub used: u32,
    /// The texture's last layer (layers - 1).
    pub last: u32,
}

/// Where one footprint texel is read from: the composition's own [`Site`] (one type, under
/// the name the trace has always used).
pub use crate::lane::Site as TexelSite;

/// How a footprint texel's value came about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TexelValue {
    /// The post-swizzle component read from the texel and converted.
    Fetched,
    /// A constant: a swizzle ZERO or ONE, or a component the format lacks.
    Constant,
    /// The border colour's component ([`crate::border_value`]).
    Border,
    /// Depth compare: `dref OP depth`, depth being the texel's (or the border's) depth.
    Compared {
        /// The depth compared against.
        depth: f32,
    },
    /// The corner fill ([`crate::cube_corner_value`]).
    CornerFill,
}

/// One texel of the footprint, in gather order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexelTrace {
    /// The footprint position (i, j) before wrapping, on the sampled face for cube kinds
    /// ([`footprint`]).
    pub position: (i64, i64),
    /// The offset (dx, dy) that moved it, as the unit read it (6-bit signed); None without
    /// offsets.
    pub offset: Option<(i64, i64)>,
    /// Where it is read from.
    pub site: TexelSite,
    /// True when wrapping moved it: an address mode, or a hop to another cube face.
    pub wrapped: bool,
    /// The texel's raw fields (unused entries 0), for a real texel.
    pub raw: Option<[u32; 4]>,
    /// The texel's converted components (f32 bits or raw integers; entries past
    /// [`Format::components`] are 0), for a real texel.
    pub converted: Option<[u32; 4]>,
    /// Whether the texel lies in a resident tile (true for border and corner texels).
    pub resident: bool,
    /// The read that failed, for a texel in memory that cannot be read (then `raw`,
    /// `converted` and the value are missing: the gather faults).
    pub read_error: Option<MemoryError>,
    /// How the value came about.
    pub how: TexelValue,
    /// The value (f32 bits, or the raw integer for UINT/SINT formats).
    pub value: u32,
}

/// What the swizzle selects for the gathered component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Converted component 0..=3 of the texel.
    Component(usize),
    /// A constant (bits), from a ZERO/ONE swizzle or a component the format lacks.
    Constant(u32),
    /// Depth compare: the texel's depth (component 0), whatever the component and swizzle.
    Depth,
}

/// The depth comparison of a `.DC` gather.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareTrace {
    /// The sampler's compare function.
    pub op: CompareOp,
    /// The depth reference as given.
    pub dref: f32,
    /// The reference compared: clamped to [0, 1] for UNORM depth formats ([`clamp_dref`](crate::clamp_dref)).
    pub used: f32,
    /// True for UNORM depth formats (the clamp applies).
    pub clamps: bool,
}

/// One lane's gather, every step.
#[derive(Debug, Clone, PartialEq)]
pub struct GatherTrace {
    /// The texture's kind.
    pub kind: TextureKind,
    /// Its format.
    pub format: Format,
    /// Width, height, layers (whole cubes for cube arrays).
    pub size: [u32; 3],
    /// The operation.
    pub op: GatherOp,
    /// The query.
    pub query: GatherQuery,
    /// The precision model.
    pub precision: Precision,
    /// The sampler's address modes (u, v).
    pub address: [AddressMode; 2],
    /// Cube kinds: the face selection.
    pub cube: Option<CubeTrace>,
    /// Cube kinds: true when edges are seamless (the footprint may cross faces).
    pub seamless: bool,
    /// The sampler's coordinates: normalized (u = s * W) or unnormalized (u = s, in texels;
    /// docs/sources.md, Unnormalized coordinates).
    pub normalized_coords: bool,
    /// Array kinds: the layer.
    pub layer: Option<LayerTrace>,
    /// The storage layer sampled (cube kinds: cube * 6 + face).
    pub storage_layer: u32,
    /// u to i0.
    pub u: AxisTrace,
    /// v to j0.
    pub v: AxisTrace,
    /// The swizzle source of the gathered component (identity with depth compare).
    pub swizzle_source: Source,
    /// What is selected.
    pub selection: Selection,
    /// The comparison, with `.DC`.
    pub compare: Option<CompareTrace>,
    /// The four texels in gather order x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0).
    pub texels: [TexelTrace; 4],
    /// The corner texel of a seamless cube footprint, if any (index in gather order).
    pub corner: Option<usize>,
    /// False when a texel lies in a non-resident tile: then every value is 0.
    pub resident: bool,
    /// The first footprint texel (gather order) whose read failed, and why: then the gather
    /// faults and `values` are not results.
    pub read_error: Option<(usize, MemoryError)>,
    /// The four results, as [`Gatherer::gather`] returns them.
    pub values: [u32; 4],
}

/// The fixed-point value n that [`texel_origin`] floors: `x_scaled` (= coordinate * size *
/// 2^bits) clamped to +-2^50, NaN as 0, rounded by `rounding`. [`texel_origin`] of n itself
/// gives the same origin (a test checks it for every traced query).
pub fn fixed_point(x_scaled: f64, rounding: Rounding) -> i64 {
    let x = x_scaled.clamp(-COORD_LIMIT, COORD_LIMIT);
    if x.is_nan() {
        return 0;
    }
    (match rounding {
        Rounding::NearestEven => x.round_ties_even(),
        Rounding::TowardZero => x.trunc(),
        Rounding::Floor => x.floor(),
    }) as i64
}

/// One axis: the origin the composition used, beside the exact origin and the fixed-point
/// value it came from (the product coord * (size * 2^bits), as the composition computes it).
fn axis(coord: f64, size: u32, scale: u32, precision: Precision, origin: i64) -> AxisTrace {
    let exact_origin = texel_origin(coord * scale as f64, 0, Rounding::NearestEven, true);
    let fixed = match precision {
        Precision::Exact => None,
        Precision::Fixed {
            fraction_bits,
            rounding,
        } => {
            let bits = fraction_bits as u32;
            let x = coord * (scale as f64 * (1u64 << bits) as f64);
            Some((fixed_point(x, rounding), bits, rounding))
        }
    };
    AxisTrace {
        coord,
        size,
        scale,
        texels: coord * scale as f64,
        fixed,
        exact_origin,
        origin,
    }
}

/// Texel (x, y) of storage layer `layer`: its raw fields and its converted components
/// (the format's decoders, as the fast path converts), or None outside the texture.
pub fn texel_components(
    texture: &Texture,
    layer: usize,
    x: usize,
    y: usize,
) -> Option<([u32; 4], [u32; 4])> {
    texture.raw_fields(layer, x, y)?;
    texel_components_in(texture, layer as u32, x as u32, y as u32).ok()
}

/// [`texel_components`] of any texel source (texels in memory: the reads may fail).
pub fn texel_components_in<S: TexelSource + ?Sized>(
    source: &S,
    layer: u32,
    x: u32,
    y: u32,
) -> Result<([u32; 4], [u32; 4]), MemoryError> {
    let f = source.shape().format;
    let mut elements = [0u32; 4];
    let n = if f.is_packed() { 1 } else { f.fields() };
    for (e, out) in elements.iter_mut().enumerate().take(n) {
        *out = source.element(layer, x, y, e).map_err(Into::into)?;
    }
    let raw = f.raw_fields_of(&elements);
    let mut conv = [0u32; 4];
    for (c, out) in conv.iter_mut().enumerate().take(f.components()) {
        let element = if f.is_packed() { 0 } else { c };
        *out = f.decoder(c).decode(elements[element]);
    }
    Ok((raw, conv))
}

/// What a gather of post-swizzle `component` reads from texel (x, y) of storage layer
/// `layer` (the fast path's swizzle resolution), or None outside the texture.
pub fn texel_selected(
    texture: &Texture,
    component: u8,
    layer: usize,
    x: usize,
    y: usize,
) -> Option<u32> {
    texture.raw_fields(layer, x, y)?;
    texel_selected_in(texture, component, layer as u32, x as u32, y as u32).ok()
}

/// [`texel_selected`] of any texel source.
pub fn texel_selected_in<S: TexelSource + ?Sized>(
    source: &S,
    component: u8,
    layer: u32,
    x: u32,
    y: u32,
) -> Result<u32, MemoryError> {
    let shape = source.shape();
    Ok(
        match resolve_value(shape.format, shape.swizzle, component as usize) {
            Value::Const(c) => {
                // (the texel is read all the same, as the gather reads it)
                source.element(layer, x, y, 0).map_err(Into::into)?;
                c
            }
            Value::Fetch { element, decoder } => {
                decoder.decode(source.element(layer, x, y, element).map_err(Into::into)?)
            }
            Value::Compare { decoder, .. } => {
                decoder.decode(source.element(layer, x, y, 0).map_err(Into::into)?)
            }
        },
    )
}

/// The depth (component 0, converted) of texel (x, y) of storage layer `layer`.
pub fn texel_depth(texture: &Texture, layer: usize, x: usize, y: usize) -> Option<f32> {
    texture.raw_fields(layer, x, y)?;
    texel_depth_in(texture, layer as u32, x as u32, y as u32).ok()
}

/// [`texel_depth`] of any texel source.
pub fn texel_depth_in<S: TexelSource + ?Sized>(
    source: &S,
    layer: u32,
    x: u32,
    y: u32,
) -> Result<f32, MemoryError> {
    let d = source.shape().format.decoder(0);
    Ok(f32::from_bits(d.decode(
        source.element(layer, x, y, 0).map_err(Into::into)?,
    )))
}

/// Traces one lane's gather. Errors: exactly those of [`Gatherer::new`].
pub fn trace(
    texture: &Texture,
    sampler: &Sampler,
    op: &GatherOp,
    precision: Precision,
    q: &GatherQuery,
) -> Result<GatherTrace, Error> {
    // The fast path's checks, unchanged.
    Gatherer::new(texture, sampler, op, precision)?;
    trace_in(texture, sampler, op, precision, q)
}

/// Traces one lane's gather from any texel source (texels in GPU memory: only the lane's
/// footprint texels are read, and a read that fails is recorded, not raised). Errors: the
/// checks every gather makes ([`Gatherer::new`]'s, but for owned storage's own).
pub fn trace_in<S: TexelSource + ?Sized>(
    source: &S,
    sampler: &Sampler,
    op: &GatherOp,
    precision: Precision,
    q: &GatherQuery,
) -> Result<GatherTrace, Error> {
    let shape = source.shape();
    let Prepared {
        plan,
        value,
        border,
    } = Prepared::new(&shape, sampler, op, precision)?;
    let (kind, format) = (shape.kind, shape.format);
    let (w, h) = (shape.width, shape.height);
    let reader = SourceReader::for_lane(source, value, border, q.dref);
    let compare = match value {
        Value::Compare { op, clamp_dref, .. } => Some(CompareTrace {
            op,
            dref: q.dref,
            used: reader.dref,
            clamps: clamp_dref,
        }),
        _ => None,
    };
    // The one composition, watched; a failed read counts as 0 there and is recorded below.
    let mut seen = TraceProbe::default();
    let Ok(result) = compose(&plan, &Lenient(reader), q, &mut seen);
    let a = seen.address;
    let (i0, j0) = seen.origin;
    let offsets = if plan.seamless {
        OffsetMode::None
    } else {
        op.offsets
    };
    let base = footprint(i0, j0, OffsetMode::None, &q.offsets);
    let texels: [TexelTrace; 4] = std::array::from_fn(|k| {
        let position = seen.positions[k];
        let offset = match offsets {
            OffsetMode::None => None,
            OffsetMode::Aoffi => Some((position.0 - base[k].0, position.1 - base[k].1)),
            OffsetMode::Ptp => Some((position.0 - i0, position.1 - j0)),
        };
        texel_trace(source, &value, border, &seen, k, a.storage_layer, offset)
    });
    let swizzle_source = if compare.is_some() {
        Source::R
    } else {
        shape.swizzle.0[op.component.min(3) as usize]
    };
    let selection = match value {
        Value::Compare { .. } => Selection::Depth,
        Value::Const(c) => Selection::Constant(c),
        Value::Fetch { .. } => Selection::Component(swizzle_source as usize),
    };
    let last = shape.layers - 1;
    Ok(GatherTrace {
        kind,
        format,
        size: [w, h, shape.layers],
        op: *op,
        query: *q,
        precision,
        address: [sampler.address_u, sampler.address_v],
        cube: a.face.map(|face| CubeTrace {
            direction: q.coords,
            face,
            s: a.s,
            t: a.t,
        }),
        seamless: plan.seamless,
        layer: kind.is_array().then_some(LayerTrace {
            given: q.layer,
            used: a.layer,
            last,
        }),
        storage_layer: a.storage_layer,
        normalized_coords: sampler.normalized_coords,
        u: axis(a.s, w, sampler.coordinate_scale(w), precision, i0),
        v: axis(a.t, h, sampler.coordinate_scale(h), precision, j0),
        swizzle_source,
        selection,
        compare,
        corner: seen.sites.iter().rposition(|s| *s == Site::Corner),
        resident: texels.iter().all(|t| t.resident),
        read_error: texels
            .iter()
            .enumerate()
            .find_map(|(k, t)| t.read_error.map(|e| (k, e))),
        texels,
        values: result.values,
    })
}

/// Texel `k` of the footprint as the composition saw it, with its raw fields, converted
/// components and how its value came about (a failed read recorded, not raised).
fn texel_trace<S: TexelSource + ?Sized>(
    source: &S,
    value: &Value,
    border: u32,
    seen: &TraceProbe,
    k: usize,
    storage_layer: u32,
    offset: Option<(i64, i64)>,
) -> TexelTrace {
    let (i, j) = seen.positions[k];
    let site = seen.sites[k];
    let mut t = TexelTrace {
        position: (i, j),
        offset,
        site,
        wrapped: match site {
            Site::Texel { layer, x, y } => layer != storage_layer || x as i64 != i || y as i64 != j,
            _ => true,
        },
        raw: None,
        converted: None,
        resident: true,
        read_error: None,
        how: TexelValue::CornerFill,
        value: seen.values[k],
    };
    let depth_how = |d: f32| TexelValue::Compared { depth: d };
    match site {
        Site::Texel { layer, x, y } => {
            t.resident = source.resident(layer, x, y);
            match texel_components_in(source, layer, x, y) {
                Ok((raw, conv)) => {
                    t.raw = Some(raw);
                    t.converted = Some(conv);
                }
                Err(e) => t.read_error = Some(e),
            }
            t.how = match value {
                Value::Const(_) => TexelValue::Constant,
                Value::Fetch { .. } => TexelValue::Fetched,
                Value::Compare { .. } => {
                    depth_how(texel_depth_in(source, layer, x, y).unwrap_or(f32::NAN))
                }
            };
        }
        Site::Border => {
            t.how = match value {
                Value::Compare { .. } => depth_how(f32::from_bits(border)),
                _ => TexelValue::Border,
            };
        }
        Site::Corner => {}
    }
    t
}

/// What the trace watches of the composition: the address, the origin, each texel's
/// position, site and value.
#[derive(Default)]
struct TraceProbe {
    address: LaneAddress,
    origin: (i64, i64),
    positions: [(i64, i64); 4],
    sites: [Site; 4],
    values: [u32; 4],
}

impl Probe for TraceProbe {
    const ACTIVE: bool = true;
    fn address(&mut self, a: &LaneAddress) {
        self.address = *a;
    }
    fn origin(&mut self, i0: i64, j0: i64) {
        self.origin = (i0, j0);
    }
    fn texel(&mut self, k: usize, position: (i64, i64), site: Site) {
        self.positions[k] = position;
        self.sites[k] = site;
    }
    fn value(&mut self, k: usize, value: u32) {
        self.values[k] = value;
    }
}

/// A reader whose failed reads count as 0 (the trace records the failure per texel).
struct Lenient<R>(R);

impl<R: TexelReader> TexelReader for Lenient<R> {
    type Error = Infallible;
    fn value(&self, layer: u32, x: u32, y: u32) -> Result<u32, Infallible> {
        Ok(self.0.value(layer, x, y).unwrap_or(0))
    }
    fn border(&self) -> u32 {
        self.0.border()
    }
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        self.0.resident(layer, x, y)
    }
}
