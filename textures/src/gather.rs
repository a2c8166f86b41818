//! The fast path: a [`Gatherer`] prepared once per (texture, sampler, instruction), then
//! [`Gatherer::gather`] per lane, with no allocation.
//!
//! The pipeline, one small function per step:
//! address ([`crate::cube::project`], [`array_layer`]) -> footprint ([`texel_origin`],
//! [`footprint`]) -> wrap ([`wrap`], [`crate::cube::seamless_texel`]) -> fetch -> convert
//! (the format's decoder) -> swizzle and select (resolved once per [`Gatherer`]) or compare
//! ([`clamp_dref`], [`depth_compare`]), plus [`border_value`] and [`cube_corner_value`].

use crate::cube;
use crate::error::{Error, InvalidInput, NotModeled};
use crate::format::{DecodeKind, Decoder, Format, StorageWidth};
use crate::layout::Layout;
use crate::placement::Placement;
use crate::sampler::{AddressMode, CompareOp, Sampler};
use crate::simd::SimdLevel;
use crate::texture::{Residency, Swizzle, TexelData, Texture, TextureDesc, TextureKind};

pub use crate::stages::*;

mod convert;
mod kernels;
mod lanes;
mod probe;
use convert::{
    Addr, AnyMode, ClampEdge, CompareConv, ConstConv, Convert, DecodeConv, PlainRaw, PlainUnorm,
    UnormConv,
};
pub use lanes::{LaneQueries, LaneResults, LANES};
pub use probe::{KernelTexels, LaneProbe};

/// Which texel offsets a gather instruction carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OffsetMode {
    /// No offsets.
    #[default]
    None,
    /// One (dx, dy) for the whole footprint: `GatherQuery::offsets[0]`.
    Aoffi,
    /// Four per-texel offsets: `GatherQuery::offsets[0..4]`.
    Ptp,
}

/// What one gather instruction asks for, fixed for all its lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GatherOp {
    /// The dimension the instruction names; must equal the texture's kind.
    pub dim: TextureKind,
    /// Component to gather, 0..=3 (R, G, B, A after the swizzle); ignored with `compare`.
    pub component: u8,
    /// Texel offsets.
    pub offsets: OffsetMode,
    /// Depth compare (`.DC`).
    pub compare: bool,
}

impl GatherOp {
    /// A gather of `component` on a `dim` texture, no offsets, no compare.
    pub fn new(dim: TextureKind, component: u8) -> Self {
        GatherOp {
            dim,
            component,
            offsets: OffsetMode::None,
            compare: false,
        }
    }
}

/// How u = s * width becomes a fixed-point number before the footprint's floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "json", serde(rename_all = "snake_case"))]
pub enum Rounding {
    /// Round to nearest, ties to even.
    #[default]
    #[cfg_attr(feature = "json", serde(alias = "nearest"))]
    NearestEven,
    /// Truncate toward zero.
    #[cfg_attr(feature = "json", serde(alias = "truncate"))]
    TowardZero,
    /// Round toward negative infinity.
    Floor,
}

/// The sub-texel precision model of texel selection.
///
/// Default: 8 fractional bits, round to nearest. Backing: the drivers (and lavapipe) report
/// `subTexelPrecisionBits = 8`, and yuzu (PR 10030) and Ryujinx (PR 4703) had to bias other
/// GPUs' coordinates to reproduce NVIDIA's texel choice at texel boundaries, which points at
/// rounding to nearest; the rounding rule itself is unmeasured (docs/sources.md, Open questions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// u * 2^fraction_bits is rounded to an integer, then i0 = floor(u - 0.5) on that value.
    Fixed {
        /// Fractional bits, 0..=20.
        fraction_bits: u8,
        /// How the product is rounded.
        rounding: Rounding,
    },
    /// No quantization: i0 = floor(s * width - 0.5) computed exactly (as `reference` does).
    Exact,
}

impl Default for Precision {
    fn default() -> Self {
        Precision::Fixed {
            fraction_bits: 8,
            rounding: Rounding::NearestEven,
        }
    }
}

/// One lane's gather arguments.
///
/// ```
/// use tld4_textures::GatherQuery;
/// let q = GatherQuery::at(0.25, 0.5).with_layer(3).with_aoffi(-32, 31).with_dref(0.5);
/// assert_eq!(q.offsets[0], [-32, 31]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GatherQuery {
    /// (s, t) for 2D kinds (the third entry unused), (x, y, z) for cube kinds.
    pub coords: [f32; 3],
    /// Array layer (whole cube for a cube array) as the instruction receives it; clamped to
    /// layers - 1. Ignored by 2D and cube textures.
    pub layer: u32,
    /// Texel offsets (dx, dy): entry 0 for AOFFI, entries 0..4 for PTP. Each is read as a 6-bit
    /// signed value (the hardware reads 6 bits; docs/sources.md), so only -32..=31 are distinct.
    pub offsets: [[i8; 2]; 4],
    /// Depth reference, used with depth compare.
    pub dref: f32,
}

impl GatherQuery {
    /// A query at (s, t).
    pub fn at(s: f32, t: f32) -> Self {
        GatherQuery {
            coords: [s, t, 0.0],
            ..Self::default()
        }
    }

    /// A query at cube direction (x, y, z).
    pub fn at_cube(x: f32, y: f32, z: f32) -> Self {
        GatherQuery {
            coords: [x, y, z],
            ..Self::default()
        }
    }

    /// With array layer `layer`.
    pub fn with_layer(mut self, layer: u32) -> Self {
        self.layer = layer;
        self
    }

    /// With AOFFI offset (dx, dy).
    pub fn with_aoffi(mut self, dx: i8, dy: i8) -> Self {
        self.offsets[0] = [dx, dy];
        self
    }

    /// With PTP offsets.
    pub fn with_ptp(mut self, offsets: [[i8; 2]; 4]) -> Self {
        self.offsets = offsets;
        self
    }

    /// With depth reference `dref`.
    pub fn with_dref(mut self, dref: f32) -> Self {
        self.dref = dref;
        self
    }
}

/// The four gathered values, in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
///
/// Each is an f32 bit pattern for float, normalized and depth formats (and for every depth
/// compare), or the raw 32-bit integer for UINT and SINT formats (SINT sign-extended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GatherResult {
    /// The four values' bits.
    pub values: [u32; 4],
    /// False when the footprint touched a non-resident sparse tile (then all values are 0).
    pub resident: bool,
}

impl GatherResult {
    /// The values read as f32.
    pub fn as_f32(&self) -> [f32; 4] {
        self.values.map(f32::from_bits)
    }

    /// The values read as i32.
    pub fn as_i32(&self) -> [i32; 4] {
        self.values.map(|v| v as i32)
    }
}

/// Which value a real (non-border) texel yields, resolved once per [`Gatherer`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value {
    /// Read storage element `element` of the texel and convert it.
    Fetch { element: usize, decoder: Decoder },
    /// A constant (swizzle ZERO/ONE, or a component the format lacks).
    Const(u32),
    /// Compare the depth component with dref.
    Compare {
        op: CompareOp,
        decoder: Decoder,
        clamp_dref: bool,
    },
}

/// Borrowed texel storage.
#[derive(Debug, Clone, Copy)]
enum Texels<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

impl<'a> Texels<'a> {
    /// `bytes` read in place as elements of `width` (little-endian hosts only; None where
    /// the view is misaligned for the element, or on a big-endian host).
    fn of_bytes(bytes: &'a [u8], width: StorageWidth) -> Option<Self> {
        if cfg!(target_endian = "big") {
            return None;
        }
        Some(match width {
            StorageWidth::U8 => Texels::U8(bytes),
            StorageWidth::U16 => Texels::U16(bytemuck::try_cast_slice(bytes).ok()?),
            StorageWidth::U32 => Texels::U32(bytemuck::try_cast_slice(bytes).ok()?),
        })
    }
}

/// Where a gatherer's texels are, as its constructor found them.
struct Storage<'a> {
    texels: Texels<'a>,
    place: Placement,
    residency: Option<&'a Residency>,
    /// Owned seamless cubes: the texture, whose faces with their apron the cube kernel reads.
    cube: Option<&'a Texture>,
    /// Small enough for the kernels' 32-bit arithmetic, beyond the sizes `build` checks.
    small: bool,
}

/// Everything a lane's gather needs, precomputed from a texture, a sampler and a [`GatherOp`].
///
/// ```
/// use tld4_textures::*;
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
/// // texels (x, y): (0,0)=1, (1,0)=2, (0,1)=3, (1,1)=4
/// let tex = Texture::from_fields(desc, &[1, 2, 3, 4]).unwrap();
/// let g = Gatherer::new(&tex, &Sampler::default(), &GatherOp::new(TextureKind::Tex2D, 0), Precision::default()).unwrap();
/// let r = g.gather(&GatherQuery::at(0.5, 0.5));
/// // (i0, j1), (i1, j1), (i1, j0), (i0, j0)
/// assert_eq!(r.values, [3, 4, 2, 1]);
/// assert!(r.resident);
/// ```
#[derive(Debug, Clone)]
pub struct Gatherer<'a> {
    texels: Texels<'a>,
    words: usize,
    width: i64,
    height: i64,
    /// Where a texel's elements are in `texels` (owned: rows and layers at fixed strides;
    /// memory: the header's layout).
    place: Placement,
    scale_u: f64,
    scale_v: f64,
    quant: Quantizer,
    kind: TextureKind,
    max_layer: u32,
    address: [AddressMode; 2],
    seamless: bool,
    offsets: OffsetMode,
    value: Value,
    /// Border value (Fetch/Const), or the border depth's f32 bits (Compare).
    border: u32,
    integer: bool,
    residency: Option<&'a Residency>,
    /// Seamless cube kinds on the lane-parallel path: the texture, whose faces with their
    /// apron ([`Texture::cube_apron`]) the cube kernel reads.
    cube: Option<&'a Texture>,
    /// Cube kinds whose fixed-point coordinates fit the cube kernel's f32 projection
    /// ([`cube::scaled_f32`]): half = size * 2^bits / 2 and its bracket
    /// ([`cube::scaled_f32_bracket`]); `None` for other kinds and larger textures, which the
    /// kernel projects in f64.
    cube_f32: Option<CubeF32>,
    /// 2D kinds of power-of-two width and height: the scales size * 2^bits as f32, by which
    /// the planar kernel scales its coordinates in f32, exactly
    /// ([`Quantizer::origins32_f32`](crate::stages::Quantizer::origins32_f32)); `None`
    /// otherwise (the kernel scales in f64).
    planar_f32: Option<[f32; 2]>,
    /// The texture is small enough for the lane-parallel kernels' 32-bit arithmetic: width
    /// and height at most [`LANES32_MAX_SIZE`] (wrap periods 2 * size fit in i32) and fewer
    /// than 2^31 storage elements (every texel index fits in i32).
    lanes32: bool,
}

/// The cube kernel's f32 projection constants (see `Gatherer::cube_f32`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CubeF32 {
    /// size * 2^bits / 2, exact in f32.
    pub(crate) half: f32,
    /// [`cube::scaled_f32_bracket`] of `half`.
    pub(crate) bracket: f32,
}

/// Largest width or height the lane-parallel kernels compute in 32 bits (2^24).
pub(crate) const LANES32_MAX_SIZE: usize = 1 << 24;

impl<'a> Gatherer<'a> {
    /// Check that `op` can run on this texture and sampler, and precompute what the lanes need.
    ///
    /// Errors: [`NotModeled`] for a texture kind differing from `op.dim`, offsets on cube kinds,
    /// compare with the sampler's compare off or on a non-depth format (docs/sources.md, Decisions);
    /// [`InvalidInput`] for a component above 3 or more than 20 fractional bits.
    pub fn new(
        texture: &'a Texture,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, Error> {
        let texels = match texture.data() {
            TexelData::U8(a) => Texels::U8(a.as_slice().ok_or_else(layout_err)?),
            TexelData::U16(a) => Texels::U16(a.as_slice().ok_or_else(layout_err)?),
            TexelData::U32(a) => Texels::U32(a.as_slice().ok_or_else(layout_err)?),
        };
        let desc = *texture.desc();
        let (w, h) = (desc.width as usize, desc.height as usize);
        let words = desc.format.words();
        // (cubes: the apron's elements too, (w + 2) x (h + 2) a face)
        let apron_elements = desc.storage_layers() * (w + 2) * (h + 2) * words;
        let seamless_kernel = desc.kind.is_cube() && sampler.seamless_cube;
        let storage = Storage {
            texels,
            place: Placement::owned(w, h, words),
            residency: texture.residency(),
            cube: (seamless_kernel && texture.residency().is_none()).then_some(texture),
            small: !desc.kind.is_cube() || apron_elements < i32::MAX as usize,
        };
        Self::build(desc, texture.swizzle(), storage, sampler, op, precision)
    }

    /// A gatherer over texels in GPU memory, read in place: `bytes` starts at the texture's
    /// first texel (`layout.address`) and holds every storage layer as `layout` places them
    /// (the caller's memory hands out such a view where it has one). `Ok(None)` where these
    /// bytes cannot be read as the format's storage elements in place: a view not aligned to
    /// the element size, shorter than the texture, a pitch that is not a whole number of
    /// elements, or a big-endian host (the elements are little-endian); the caller then reads
    /// texel by texel ([`crate::SiteGatherer`]), which gives the same results. Errors: those of
    /// [`Gatherer::new`].
    pub fn in_memory(
        bytes: &'a [u8],
        layout: &Layout,
        desc: TextureDesc,
        swizzle: Swizzle,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Option<Self>, Error> {
        let elem = match desc.format.storage() {
            StorageWidth::U8 => 1u32,
            StorageWidth::U16 => 2,
            StorageWidth::U32 => 4,
        };
        let Some(place) = Placement::of_layout(layout, elem) else {
            return Ok(None);
        };
        let extent = (layout.layer_stride as u128) * desc.storage_layers() as u128;
        let Some(bytes) = usize::try_from(extent).ok().and_then(|n| bytes.get(..n)) else {
            return Ok(None);
        };
        let Some(texels) = Texels::of_bytes(bytes, desc.format.storage()) else {
            return Ok(None);
        };
        let storage = Storage {
            texels,
            place,
            residency: None,
            cube: None,
            // block-linear indices are computed in u32 bytes by the kernels
            small: !matches!(place, Placement::BlockLinear(_)) || (bytes.len() as u64) < 1 << 32,
        };
        Self::build(desc, swizzle, storage, sampler, op, precision).map(Some)
    }

    /// What every constructor shares: the checks, the value rule and the constants.
    fn build(
        desc: TextureDesc,
        swizzle: Swizzle,
        storage: Storage<'a>,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, Error> {
        let TextureDesc { kind, format, .. } = desc;
        let compare = check_op(kind, format, sampler, op)?;
        let quant = Quantizer::new(precision)?;
        let value = lane_value(format, swizzle, op.component, compare);
        let border = match compare {
            Some(_) => sampler.border.words[0],
            None => border_value(&sampler.border, format, op.component as usize),
        };
        let Storage {
            texels,
            place,
            residency,
            cube,
            small,
        } = storage;
        let (w, h) = (desc.width as usize, desc.height as usize);
        let elements = match texels {
            Texels::U8(d) => d.len(),
            Texels::U16(d) => d.len(),
            Texels::U32(d) => d.len(),
        };
        let lanes32 =
            w <= LANES32_MAX_SIZE && h <= LANES32_MAX_SIZE && elements < i32::MAX as usize && small;
        let half64 = w as f64 * quant.scale / 2.0;
        let half = half64 as f32;
        let cube_f32 = (kind.is_cube() && w == h && quant.brackets_f32(w) && half as f64 == half64)
            .then(|| CubeF32 {
                half,
                bracket: cube::scaled_f32_bracket(half),
            });
        let planar_f32 =
            (!kind.is_cube() && w.is_power_of_two() && h.is_power_of_two()).then_some([
                (w as f64 * quant.scale) as f32,
                (h as f64 * quant.scale) as f32,
            ]);
        Ok(Gatherer {
            texels,
            words: format.words(),
            width: w as i64,
            height: h as i64,
            place,
            scale_u: w as f64 * quant.scale,
            scale_v: h as f64 * quant.scale,
            quant,
            kind,
            max_layer: desc.layers - 1,
            address: [sampler.address_u, sampler.address_v],
            seamless: sampler.seamless_cube,
            offsets: op.offsets,
            value,
            border,
            integer: format.is_integer() && compare.is_none(),
            residency,
            cube,
            cube_f32,
            planar_f32,
            lanes32,
        })
    }

    /// Gather one lane. Never fails: everything that can be wrong was checked by [`Gatherer::new`].
    #[inline]
    pub fn gather(&self, q: &GatherQuery) -> GatherResult {
        let mut out = [NON_RESIDENT];
        self.gather_many(std::slice::from_ref(q), &mut out);
        out[0]
    }

    /// Gather many lanes: `out[k]` = `gather(&queries[k])` for k < min(len, len). Faster than
    /// one call per lane: the texture's format, kind and address modes are dispatched once,
    /// and the lane loop runs monomorphized code.
    ///
    /// ```
    /// use tld4_textures::*;
    /// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
    /// let tex = Texture::from_fields(desc, &[1, 2, 3, 4]).unwrap();
    /// let g = Gatherer::new(&tex, &Sampler::default(), &GatherOp::new(TextureKind::Tex2D, 0), Precision::default()).unwrap();
    /// let lanes = [GatherQuery::at(0.5, 0.5), GatherQuery::at(0.0, 0.0)];
    /// let mut out = [GatherResult::default(); 2];
    /// g.gather_many(&lanes, &mut out);
    /// assert_eq!(out[0].values, [3, 4, 2, 1]);
    /// assert_eq!(out[1].values, [1, 1, 1, 1]);
    /// ```
    ///
    /// Runs at the process's [`crate::simd_level`]: the per-lane reference path at
    /// `Scalar`, else the lanes go through the lane-parallel pipeline
    /// ([`Gatherer::gather_lanes`]) 32 at a time; the results are identical.
    pub fn gather_many(&self, queries: &[GatherQuery], out: &mut [GatherResult]) {
        self.gather_many_at(crate::simd_level(), queries, out)
    }

    /// [`Gatherer::gather_many`] at a given level (see [`crate::SimdLevel`]).
    pub fn gather_many_at(
        &self,
        level: SimdLevel,
        queries: &[GatherQuery],
        out: &mut [GatherResult],
    ) {
        if level == SimdLevel::Scalar
            || !self.lane_parallel()
            || queries.len().min(out.len()) < lanes::MIN_PARALLEL_LANES
        {
            return self.gather_reference(queries, out);
        }
        let mut lanes = LaneQueries::new();
        let mut results = LaneResults::new();
        for (qs, os) in queries.chunks(LANES).zip(out.chunks_mut(LANES)) {
            lanes.clear();
            for q in qs {
                lanes.push_unchecked(q);
            }
            let n = qs.len().min(os.len());
            self.gather_lanes_at(level, &lanes, 0..n, &mut results, &mut ());
            for (k, o) in os[..n].iter_mut().enumerate() {
                *o = results.get_unchecked(k);
            }
        }
    }

    /// One lane by the per-lane reference pipeline; out of line, for the lanes the
    /// lane-parallel kernels hand back (few, and one copy of the code serves every kernel).
    #[inline(never)]
    pub(crate) fn reference_lane(&self, q: &GatherQuery) -> GatherResult {
        let mut out = [NON_RESIDENT];
        self.gather_reference(std::slice::from_ref(q), &mut out);
        out[0]
    }

    /// The per-lane reference pipeline (`SimdLevel::Scalar`).
    pub(crate) fn gather_reference(&self, queries: &[GatherQuery], out: &mut [GatherResult]) {
        let run = PerLane { qs: queries, out };
        match self.texels {
            Texels::U8(d) => self.with_convert(d, run),
            Texels::U16(d) => self.with_convert(d, run),
            Texels::U32(d) => self.with_convert(d, run),
        }
    }

    /// Dispatch on the value rule (convert, compare or constant), then hand the specialized
    /// rule to `run` (the per-lane path or the lane-parallel one); which rules are
    /// specialized for which storage type is [`Texel::with_convert`]'s list.
    #[inline(always)]
    fn with_convert<T: Texel, V: Run>(&self, d: &[T], run: V) {
        T::with_convert(self, d, run)
    }
    /// Dispatch on the addressing path, then run the lane loop.
    #[inline(always)]
    fn with_path<T: Copy + Into<u32>, C: Convert>(
        &self,
        d: &[T],
        element: usize,
        conv: C,
        qs: &[GatherQuery],
        out: &mut [GatherResult],
    ) {
        let lanes = qs.iter().zip(out.iter_mut());
        if self.kind.is_cube() {
            if self.seamless {
                for (q, o) in lanes {
                    *o = self.lane_cube(d, element, conv.for_lane(q.dref), q);
                }
            } else {
                for (q, o) in lanes {
                    *o = self.lane_planar::<T, C, AnyMode, true>(
                        d,
                        element,
                        conv.for_lane(q.dref),
                        q,
                    );
                }
            }
        } else if self.address == [AddressMode::ClampToEdge; 2] {
            for (q, o) in lanes {
                *o = self.lane_planar::<T, C, ClampEdge, false>(
                    d,
                    element,
                    conv.for_lane(q.dref),
                    q,
                );
            }
        } else {
            for (q, o) in lanes {
                *o = self.lane_planar::<T, C, AnyMode, false>(d, element, conv.for_lane(q.dref), q);
            }
        }
    }

    /// address -> footprint for the planar kinds: (i0, j0, storage layer).
    #[inline(always)]
    fn planar_origin<const CUBE: bool>(&self, q: &GatherQuery) -> (i64, i64, usize) {
        let layer = array_layer(q.layer, self.max_layer);
        let (s, t, layer) = if CUBE {
            let (face, s, t) = cube::project(q.coords[0], q.coords[1], q.coords[2]);
            let per_cube = if self.kind == TextureKind::CubeArray {
                6
            } else {
                0
            };
            (s, t, layer * per_cube + face)
        } else {
            (q.coords[0] as f64, q.coords[1] as f64, layer)
        };
        (
            self.quant.origin(s * self.scale_u),
            self.quant.origin(t * self.scale_v),
            layer as usize,
        )
    }

    /// One lane on a 2D kind, or a cube kind without seamless edges: wrap with the address modes.
    #[inline(always)]
    fn lane_planar<T: Copy + Into<u32>, C: Convert, A: Addr, const CUBE: bool>(
        &self,
        data: &[T],
        element: usize,
        conv: C,
        q: &GatherQuery,
    ) -> GatherResult {
        let (i0, j0, layer) = self.planar_origin::<CUBE>(q);
        let (w, h) = (self.width, self.height);
        let [au, av] = self.address;
        // wrap: the 2x2 footprint has two columns and two rows unless PTP moves each texel
        let (xs, ys) = if self.offsets == OffsetMode::Ptp {
            let p = footprint_unchecked(i0, j0, self.offsets, &q.offsets);
            let x = |k: usize| A::wrap(p[k].0, w, au);
            let y = |k: usize| A::wrap(p[k].1, h, av);
            ([x(0), x(1), x(2), x(3)], [y(0), y(1), y(2), y(3)])
        } else {
            let [_, _, _, (i, j)] = footprint_unchecked(i0, j0, self.offsets, &q.offsets);
            let (x0, x1) = (A::wrap(i, w, au), A::wrap(i + 1, w, au));
            let (y0, y1) = (A::wrap(j, h, av), A::wrap(j + 1, h, av));
            ([x0, x1, x1, x0], [y1, y1, y0, y0])
        };
        // fetch offsets: rows and columns apart, so the 2x2 case needs two of each
        let base = layer * self.place.layer_stride() + element;
        // (border texels, -1, get a harmless offset that is never read)
        let row = |y: i64| base + self.place.row(y.max(0) as usize);
        let col = |x: i64| self.place.col(x.max(0) as usize);
        let index = if self.offsets == OffsetMode::Ptp {
            [
                row(ys[0]) + col(xs[0]),
                row(ys[1]) + col(xs[1]),
                row(ys[2]) + col(xs[2]),
                row(ys[3]) + col(xs[3]),
            ]
        } else {
            let (r0, r1) = (row(ys[3]), row(ys[0]));
            let (c0, c1) = (col(xs[0]), col(xs[1]));
            [r1 + c0, r1 + c1, r0 + c1, r0 + c0]
        };
        let border = conv.border(self.border);
        let mut values = [border; 4];
        let mut resident = true;
        for k in 0..4 {
            if A::BORDERLESS || (xs[k] >= 0 && ys[k] >= 0) {
                if let Some(r) = self.residency {
                    resident &= r.is_resident(layer, xs[k] as usize, ys[k] as usize);
                }
                values[k] = conv.convert(fetch(data, index[k]));
            }
        }
        if !resident {
            return NON_RESIDENT;
        }
        GatherResult {
            values,
            resident: true,
        }
    }

    /// One lane on a cube kind with seamless edges.
    #[inline(always)]
    fn lane_cube<T: Copy + Into<u32>, C: Convert>(
        &self,
        data: &[T],
        element: usize,
        conv: C,
        q: &GatherQuery,
    ) -> GatherResult {
        let (face, s, t) = cube::project(q.coords[0], q.coords[1], q.coords[2]);
        let cube_base = if self.kind == TextureKind::CubeArray {
            array_layer(q.layer, self.max_layer) as usize * 6
        } else {
            0
        };
        let i0 = self.quant.origin(s * self.scale_u);
        let j0 = self.quant.origin(t * self.scale_v);
        let n = self.width;
        if i0 >= 0 && j0 >= 0 && i0 + 1 < n && j0 + 1 < n {
            // the whole footprint on the face: no edge to cross
            let layer = cube_base + face as usize;
            let (x0, y0) = (i0 as usize, j0 as usize);
            if let Some(r) = self.residency {
                let ok = r.is_resident(layer, x0, y0)
                    && r.is_resident(layer, x0 + 1, y0)
                    && r.is_resident(layer, x0, y0 + 1)
                    && r.is_resident(layer, x0 + 1, y0 + 1);
                if !ok {
                    return NON_RESIDENT;
                }
            }
            let p = &self.place;
            let base = layer * p.layer_stride() + element;
            let (r0, r1) = (base + p.row(y0), base + p.row(y0 + 1));
            let (c0, c1) = (p.col(x0), p.col(x0 + 1));
            return GatherResult {
                values: [
                    conv.convert(fetch(data, r1 + c0)),
                    conv.convert(fetch(data, r1 + c1)),
                    conv.convert(fetch(data, r0 + c1)),
                    conv.convert(fetch(data, r0 + c0)),
                ],
                resident: true,
            };
        }
        self.lane_cube_edge(data, element, conv, face, cube_base, i0, j0)
    }

    /// Texel (i, j) of `face` under seamless addressing ([`cube::seamless_texel`]): its
    /// value, None at a corner; clears `resident` where it is not.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn seamless_read<T: Copy + Into<u32>, C: Convert>(
        &self,
        data: &[T],
        element: usize,
        conv: &C,
        face: u32,
        cube_base: usize,
        i: i64,
        j: i64,
        resident: &mut bool,
    ) -> Option<u32> {
        let (f, x, y) = cube::seamless_texel(face, i, j, self.width)?;
        let (layer, x, y) = (cube_base + f as usize, x as usize, y as usize);
        if let Some(r) = self.residency {
            *resident &= r.is_resident(layer, x, y);
        }
        let index = self.place.index(layer, x, y);
        Some(conv.convert(fetch(data, index + element)))
    }

    /// The seamless cube footprint that crosses a face edge or corner.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn lane_cube_edge<T: Copy + Into<u32>, C: Convert>(
        &self,
        data: &[T],
        element: usize,
        conv: C,
        face: u32,
        cube_base: usize,
        i0: i64,
        j0: i64,
    ) -> GatherResult {
        let pos = footprint_unchecked(i0, j0, OffsetMode::None, &[[0; 2]; 4]);
        let mut resident = true;
        // the four texels read one by one into a value each (not into an array indexed in
        // a loop, which would be stored word by word and reloaded whole)
        let read = |(i, j): (i64, i64), resident: &mut bool| {
            self.seamless_read(data, element, &conv, face, cube_base, i, j, resident)
        };
        let texels = [
            read(pos[0], &mut resident),
            read(pos[1], &mut resident),
            read(pos[2], &mut resident),
            read(pos[3], &mut resident),
        ];
        // The last corner, as the reference (`reference::gather`) and the per-read path fill
        // it: a footprint has two corners only where a NaN direction selects a face its
        // coordinates lie off, and the other one then reads 0.
        let corner = texels.iter().rposition(Option::is_none);
        let or0 = |k: usize| texels[k].unwrap_or(0);
        let found = [or0(0), or0(1), or0(2), or0(3)];
        if !resident {
            return NON_RESIDENT;
        }
        // the corner's value (rare) chosen in, not stored into the array at a varying index
        let corner_value = match (corner, self.value) {
            (None, _) => 0,
            (Some(_), Value::Const(v)) => v,
            (Some(c), _) => cube_corner_unchecked(&found, c, self.integer),
        };
        let pick = |k: usize| {
            if corner == Some(k) {
                corner_value
            } else {
                found[k]
            }
        };
        let values = [pick(0), pick(1), pick(2), pick(3)];
        GatherResult {
            values,
            resident: true,
        }
    }
}

/// The checks every gather makes once, on the header's kind and format, the sampler and the
/// instruction: the kind must equal the instruction's dimension, cube kinds take no offsets
/// (NotModeled), the component is 0..=3, depth compare needs the sampler's compare on and a
/// depth format (NotModeled otherwise; docs/sources.md, Decisions). Returns the compare
/// function.
pub(crate) fn check_op(
    kind: TextureKind,
    format: Format,
    sampler: &Sampler,
    op: &GatherOp,
) -> Result<Option<CompareOp>, Error> {
    if op.dim != kind {
        return Err(NotModeled::KindMismatch {
            texture: kind,
            requested: op.dim,
        }
        .into());
    }
    if kind.is_cube() && op.offsets != OffsetMode::None {
        return Err(NotModeled::OffsetsOnCube(kind).into());
    }
    if op.component > 3 {
        return Err(InvalidInput::Component(op.component as u32).into());
    }
    if !op.compare {
        return Ok(None);
    }
    let Some(cmp) = sampler.compare else {
        return Err(NotModeled::CompareOff.into());
    };
    if !format.is_depth() {
        return Err(NotModeled::CompareOnColor(format).into());
    }
    Ok(Some(cmp))
}

/// The lane loop a specialized value rule is handed to ([`Gatherer::with_convert`]).
trait Run {
    fn run<T: Copy + Into<u32>, C: Convert>(
        self,
        g: &Gatherer<'_>,
        d: &[T],
        element: usize,
        conv: C,
    );
}

/// The storage element types, each with the value rules its formats use specialized (a
/// rule of its own, monomorphized into every lane loop); every other rule goes through the
/// format's general decoder ([`DecodeConv`]), which is correct for every format. The lists
/// follow the format table: 8- and 16-bit components stored whole (UNORM, UINT, and D16
/// compared), 32-bit words holding f32 or UINT whole, or UNORM fields (RGB10A2, D24).
trait Texel: Copy + Into<u32> {
    fn with_convert<V: Run>(g: &Gatherer<'_>, d: &[Self], run: V);
}

/// True when the decoder's component is a whole element of `bits` bits (no field to extract).
#[inline(always)]
fn plain(decoder: &Decoder, bits: u32) -> bool {
    decoder.shift == 0 && decoder.mask as u64 >= (1u64 << bits) - 1
}

/// The fetch rules of a component stored whole in `bits`-bit elements (UNORM, UINT), else
/// the format's general decoder.
#[inline(always)]
fn whole_element_fetch<T: Copy + Into<u32>, V: Run>(
    g: &Gatherer<'_>,
    d: &[T],
    run: V,
    element: usize,
    decoder: Decoder,
    bits: u32,
) {
    match decoder.kind {
        DecodeKind::Unorm(inv) if plain(&decoder, bits) => run.run(g, d, element, PlainUnorm(inv)),
        DecodeKind::Uint if plain(&decoder, bits) => run.run(g, d, element, PlainRaw),
        _ => run.run(g, d, element, DecodeConv(decoder)),
    }
}

/// Depth compare of a value the format's general decoder reads.
#[inline(always)]
fn decoded_compare<T: Copy + Into<u32>, V: Run>(
    g: &Gatherer<'_>,
    d: &[T],
    run: V,
    op: CompareOp,
    decoder: Decoder,
    clamp_dref: bool,
) {
    run.run(
        g,
        d,
        0,
        CompareConv::new(op, DecodeConv(decoder), clamp_dref),
    )
}

impl Texel for u8 {
    #[inline(always)]
    fn with_convert<V: Run>(g: &Gatherer<'_>, d: &[u8], run: V) {
        match g.value {
            Value::Fetch { element, decoder } => {
                whole_element_fetch(g, d, run, element, decoder, 8)
            }
            Value::Const(c) => run.run(g, d, 0, ConstConv(c)),
            Value::Compare {
                op,
                decoder,
                clamp_dref,
            } => decoded_compare(g, d, run, op, decoder, clamp_dref),
        }
    }
}

impl Texel for u16 {
    #[inline(always)]
    fn with_convert<V: Run>(g: &Gatherer<'_>, d: &[u16], run: V) {
        match g.value {
            Value::Fetch { element, decoder } => {
                whole_element_fetch(g, d, run, element, decoder, 16)
            }
            Value::Const(c) => run.run(g, d, 0, ConstConv(c)),
            Value::Compare {
                op,
                decoder,
                clamp_dref,
            } => match decoder.kind {
                DecodeKind::Unorm(inv) if plain(&decoder, 16) => {
                    run.run(g, d, 0, CompareConv::new(op, PlainUnorm(inv), clamp_dref))
                }
                _ => decoded_compare(g, d, run, op, decoder, clamp_dref),
            },
        }
    }
}

impl Texel for u32 {
    #[inline(always)]
    fn with_convert<V: Run>(g: &Gatherer<'_>, d: &[u32], run: V) {
        match g.value {
            Value::Fetch { element, decoder } => match decoder.kind {
                DecodeKind::F32 | DecodeKind::Uint if plain(&decoder, 32) => {
                    run.run(g, d, element, PlainRaw)
                }
                DecodeKind::Unorm(inv) => {
                    let (shift, mask) = (decoder.shift, decoder.mask);
                    run.run(g, d, element, UnormConv { shift, mask, inv })
                }
                _ => run.run(g, d, element, DecodeConv(decoder)),
            },
            Value::Const(c) => run.run(g, d, 0, ConstConv(c)),
            Value::Compare {
                op,
                decoder,
                clamp_dref,
            } => match decoder.kind {
                DecodeKind::F32 if plain(&decoder, 32) => {
                    run.run(g, d, 0, CompareConv::new(op, PlainRaw, clamp_dref))
                }
                DecodeKind::Unorm(inv) => {
                    let (shift, mask) = (decoder.shift, decoder.mask);
                    let depth = UnormConv { shift, mask, inv };
                    run.run(g, d, 0, CompareConv::new(op, depth, clamp_dref))
                }
                _ => decoded_compare(g, d, run, op, decoder, clamp_dref),
            },
        }
    }
}

/// The per-lane reference path over `qs`.
struct PerLane<'q, 'o> {
    qs: &'q [GatherQuery],
    out: &'o mut [GatherResult],
}

impl Run for PerLane<'_, '_> {
    #[inline(always)]
    fn run<T: Copy + Into<u32>, C: Convert>(
        self,
        g: &Gatherer<'_>,
        d: &[T],
        element: usize,
        conv: C,
    ) {
        g.with_path(d, element, conv, self.qs, self.out)
    }
}

/// What a footprint touching a non-resident tile returns.
const NON_RESIDENT: GatherResult = GatherResult {
    values: [0; 4],
    resident: false,
};

fn layout_err() -> Error {
    InvalidInput::Storage("texel storage is not contiguous".into()).into()
}

/// Fetch one storage element (0 if the index were ever out of range, which the wrap rules
/// exclude).
#[inline(always)]
fn fetch<T: Copy + Into<u32>>(data: &[T], index: usize) -> u32 {
    data.get(index).map_or(0, |&v| v.into())
}
