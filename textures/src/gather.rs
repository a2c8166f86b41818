//! The fast path: a [`Gatherer`] prepared once per (texture, sampler, instruction), then
//! [`Gatherer::gather`] per lane, with no allocation.
//!
//! The rules are the pure steps of [`crate::stages`] (address, footprint, wrap, compare,
//! border, corner) and the format's decoders; the per-lane path composes them once, in
//! [`crate::lane`] (the composition every scalar gather shares), and the lane-parallel
//! kernels ([`Gatherer::gather_lanes`]) compute the same rules 32 lanes at a time, handing
//! back to the per-lane path the lanes they do not take.

use crate::cube;
use crate::error::{Error, InvalidInput, NotModeled};
use crate::format::{DecodeKind, Decoder, Format, StorageWidth};
use crate::lane::{compose, LanePlan, PlanShape, TexelReader, NON_RESIDENT};
use crate::layout::Layout;
use crate::op::{GatherOp, GatherQuery, GatherResult, OffsetMode, Precision, Value};
use crate::placement::Placement;
use crate::sampler::{AddressMode, CompareOp, Sampler};
use crate::simd::SimdLevel;
use crate::source::Shape;
use crate::stages::{border_value, lane_value, Quantizer};
use crate::storage::TexelData;
use crate::texture::{Residency, Swizzle, Texture, TextureDesc, TextureKind};
use std::convert::Infallible;

mod convert;
mod found;
mod kernels;
mod lanes;
mod probe;
use convert::{
    Addr, AnyMode, ClampEdge, CompareConv, ConstConv, Convert, DecodeConv, PlainRaw, PlainUnorm,
    UnormConv,
};
pub use found::FoundTexels;
pub use lanes::{LaneQueries, LaneResults, LANES};
use probe::Watch;
pub use probe::{KernelTexels, TexelWatcher};

/// Borrowed texel storage.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Texels<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

impl<'a> Texels<'a> {
    /// An owned texture's storage (None where it is not contiguous).
    #[inline]
    fn owned(texture: &'a Texture) -> Option<Self> {
        Some(match texture.data() {
            TexelData::U8(a) => Texels::U8(a.as_slice()?),
            TexelData::U16(a) => Texels::U16(a.as_slice()?),
            TexelData::U32(a) => Texels::U32(a.as_slice()?),
        })
    }

    /// Storage elements held.
    fn len(&self) -> usize {
        match self {
            Texels::U8(d) => d.len(),
            Texels::U16(d) => d.len(),
            Texels::U32(d) => d.len(),
        }
    }

    /// `bytes` read in place as elements of `width` (little-endian hosts only; None where
    /// the view is misaligned for the element, or on a big-endian host). (Inline: a one-shot
    /// memory call checks its bytes with it twice a warp.)
    #[inline]
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
    /// Storage elements the texels hold (a detached gatherer's: those it will be attached to).
    elements: usize,
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
    /// Where a texel's elements are in `texels` (owned: rows and layers at fixed strides;
    /// memory: the header's layout).
    place: Placement,
    /// The per-lane composition's constants (size, precision, address modes, offsets).
    plan: LanePlan,
    value: Value,
    /// Border value (Fetch/Const), or the border depth's f32 bits (Compare).
    border: u32,
    residency: Option<&'a Residency>,
    /// Seamless cube kinds on the lane-parallel path: the texture, whose faces with their
    /// apron ([`Texture::cube_apron`]) the cube kernel reads.
    cube: Option<&'a Texture>,
    /// Cube kinds whose fixed-point coordinates fit the cube kernel's f32 projection
    /// ([`cube::scaled_f32`]): half = size * 2^bits / 2 and its bracket
    /// ([`cube::scaled_f32_bracket`]); `None` for other kinds and larger textures, which the
    /// kernel projects in f64.
    cube_f32: Option<CubeF32>,
    /// 2D kinds whose coordinate scales (the plan's) are powers of two: power-of-two width and
    /// height, or unnormalized coordinates (scale 2^bits): those scales as f32, by which
    /// the planar kernel scales its coordinates in f32, exactly
    /// ([`Quantizer::origins32_f32`](crate::stages::Quantizer::origins32_f32)); `None`
    /// otherwise (the kernel scales in f64).
    planar_f32: Option<[f32; 2]>,
    /// The texture is small enough for the lane-parallel kernels' 32-bit arithmetic: width
    /// and height at most [`LANES32_MAX_SIZE`] (wrap periods 2 * size fit in i32) and fewer
    /// than 2^31 storage elements (every texel index fits in i32).
    lanes32: bool,
}

/// A gatherer over texels in GPU memory before it is given their bytes: everything
/// [`Gatherer::in_memory`] computes from the layout, the texture's description, the sampler
/// and the instruction, kept (it borrows nothing) for calls that read the same texture from
/// a memory each; [`DetachedGatherer::attach`] gives it a call's bytes. `in_memory` is this
/// and `attach`, so the two give the same gatherer.
#[derive(Debug, Clone)]
pub struct DetachedGatherer {
    /// The gatherer, its texels empty (of the format's storage width).
    gatherer: Gatherer<'static>,
    /// Bytes of the texture: its storage layers as the layout places them.
    extent: usize,
}

impl DetachedGatherer {
    /// [`Gatherer::in_memory`] without the bytes: `Ok(None)` where no bytes could be read
    /// as this texture's storage elements in place (a pitch that is not a whole number of
    /// elements, an extent that is not, or that passes the address space; a big-endian
    /// host). Errors: those of [`Gatherer::new`].
    pub fn in_memory(
        layout: &Layout,
        desc: TextureDesc,
        swizzle: Swizzle,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Option<Self>, Error> {
        let width = desc.format.storage();
        let element = width.bytes() as usize;
        let Some(place) = Placement::of_layout(layout, element as u32) else {
            return Ok(None);
        };
        let extent = (layout.layer_stride as u128) * desc.storage_layers() as u128;
        let Some(extent) = usize::try_from(extent).ok().filter(|n| n % element == 0) else {
            return Ok(None);
        };
        // (elements are little-endian: read in place on little-endian hosts only, as
        // `Texels::of_bytes`; the empty texels of the storage width, `attach` casts to it)
        if cfg!(target_endian = "big") {
            return Ok(None);
        }
        let texels = match width {
            StorageWidth::U8 => Texels::U8(&[]),
            StorageWidth::U16 => Texels::U16(&[]),
            StorageWidth::U32 => Texels::U32(&[]),
        };
        let storage = Storage {
            texels,
            elements: extent / element,
            place,
            residency: None,
            cube: None,
            // block-linear indices are computed in u32 bytes by the kernels
            small: !matches!(place, Placement::BlockLinear(_)) || (extent as u64) < 1 << 32,
        };
        let gatherer = Gatherer::build(desc, swizzle, storage, sampler, op, precision)?;
        Ok(Some(DetachedGatherer { gatherer, extent }))
    }

    /// The gatherer reading `bytes` in place: they start at the texture's first texel and
    /// hold its storage layers as the layout places them. None where they are shorter than
    /// the texture or not aligned to its storage elements (the caller then reads texel by
    /// texel, [`crate::SiteGatherer`], which gives the same results).
    #[inline]
    pub fn attach<'a>(&self, bytes: &'a [u8]) -> Option<Gatherer<'a>> {
        let texels = self.texels_of(bytes)?;
        Some(Gatherer {
            texels,
            ..self.gatherer.clone()
        })
    }

    /// Whether `bytes` can be read in place ([`DetachedGatherer::attach`] gives a gatherer,
    /// [`DetachedGatherer::gather_lane_range`] gathers).
    #[inline]
    pub fn fits(&self, bytes: &[u8]) -> bool {
        self.texels_of(bytes).is_some()
    }

    /// [`Gatherer::gather_lane_range`] of the gatherer `attach(bytes)` gives, without making
    /// it (this one's constants used where they are, `bytes` read in place): for callers
    /// that keep the detached gatherer and gather from a call's bytes each time.
    /// Errors: those of [`Gatherer::gather_lane_range`], and [`InvalidInput::Storage`] where
    /// `bytes` do not fit ([`DetachedGatherer::fits`] is false).
    #[inline]
    pub fn gather_lane_range(
        &self,
        bytes: &[u8],
        level: SimdLevel,
        queries: &LaneQueries,
        range: std::ops::Range<usize>,
        out: &mut LaneResults,
    ) -> Result<(), Error> {
        self.gather_watched_by(bytes, level, queries, range, out, Watch::none())
    }

    /// [`DetachedGatherer::gather_lane_range`] with a watcher that sees the texels the
    /// kernels read ([`Gatherer::gather_lane_range_watched`]); the same results and errors.
    pub fn gather_lane_range_watched(
        &self,
        bytes: &[u8],
        level: SimdLevel,
        queries: &LaneQueries,
        range: std::ops::Range<usize>,
        out: &mut LaneResults,
        watcher: &mut dyn TexelWatcher,
    ) -> Result<(), Error> {
        self.gather_watched_by(bytes, level, queries, range, out, Watch::results(watcher))
    }

    /// The texels [`DetachedGatherer::gather_lane_range_watched`] would report to `watcher`,
    /// and the lanes it would not, for a gather that computes no results: the kernels stop
    /// at the texels' storage indices, loading none (for a watcher that only collects where
    /// the texels lie: what a memory read by its sectors must fetch before the gather,
    /// 32-byte sectors' worth at a time). The same errors.
    pub fn watch_lane_range(
        &self,
        bytes: &[u8],
        level: SimdLevel,
        queries: &LaneQueries,
        range: std::ops::Range<usize>,
        watcher: &mut dyn TexelWatcher,
    ) -> Result<(), Error> {
        // (results the kernels may still write, unread: the apron kernel's, owned only)
        let mut unread = LaneResults::new();
        self.gather_watched_by(
            bytes,
            level,
            queries,
            range,
            &mut unread,
            Watch::addresses(watcher),
        )
    }

    /// [`DetachedGatherer::gather_lane_range`] finished from what
    /// [`DetachedGatherer::watch_lane_range`] of the same lanes, queries and gatherer found
    /// (`found`, cleared before that watch): the texels it named are fetched and converted,
    /// and nothing before them is computed again. The same results and errors where `found`
    /// is such a record; where it holds no single report of those lanes (a gather the
    /// per-lane path took whole, a record cleared since) the whole gather runs. A record of
    /// other queries gives the values of the texels it names (no read leaves `bytes`).
    pub fn gather_found(
        &self,
        bytes: &[u8],
        level: SimdLevel,
        queries: &LaneQueries,
        range: std::ops::Range<usize>,
        found: &FoundTexels,
        out: &mut LaneResults,
    ) -> Result<(), Error> {
        let Some(texels) = self.texels_of(bytes) else {
            return Err(self.unfit(bytes));
        };
        if level == SimdLevel::Scalar || !found.complete(&range) {
            return self.gatherer.gather_lanes_checked(
                texels,
                level,
                queries,
                range,
                out,
                Watch::none(),
            );
        }
        lanes::check_range(queries, &range)?;
        self.gatherer
            .gather_found_over(texels, level, queries, range, found, out);
        Ok(())
    }

    /// The gather of `bytes` in place, watched by `watch`.
    #[inline(always)]
    fn gather_watched_by(
        &self,
        bytes: &[u8],
        level: SimdLevel,
        queries: &LaneQueries,
        range: std::ops::Range<usize>,
        out: &mut LaneResults,
        watch: Watch<'_>,
    ) -> Result<(), Error> {
        let Some(texels) = self.texels_of(bytes) else {
            return Err(self.unfit(bytes));
        };
        self.gatherer
            .gather_lanes_checked(texels, level, queries, range, out, watch)
    }

    /// Why `bytes` cannot be read in place. (Out of line: the error's text is made on the
    /// error path only, and the call's code keeps no frame for it.)
    #[cold]
    #[inline(never)]
    fn unfit(&self, bytes: &[u8]) -> Error {
        InvalidInput::Storage(format!(
            "{} bytes at an address {} mod 4 do not hold the texture's {} bytes as its elements",
            bytes.len(),
            bytes.as_ptr() as usize % 4,
            self.extent
        ))
        .into()
    }

    /// `bytes` as the texels `attach` reads: their first `extent` bytes as storage elements
    /// of this gatherer's width (None where they are shorter or misaligned).
    #[inline(always)]
    fn texels_of<'a>(&self, bytes: &'a [u8]) -> Option<Texels<'a>> {
        let bytes = bytes.get(..self.extent)?;
        let width = match self.gatherer.texels {
            Texels::U8(_) => StorageWidth::U8,
            Texels::U16(_) => StorageWidth::U16,
            Texels::U32(_) => StorageWidth::U32,
        };
        Texels::of_bytes(bytes, width)
    }
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
        let texels = Texels::owned(texture).ok_or_else(layout_err)?;
        let desc = *texture.desc();
        let (w, h) = (desc.width as usize, desc.height as usize);
        let words = desc.format.words();
        // (cubes: the apron's elements too, (w + 2) x (h + 2) a face)
        let apron_elements = desc.storage_layers() * (w + 2) * (h + 2) * words;
        let seamless_kernel = desc.kind.is_cube() && sampler.seamless_cube;
        let storage = Storage {
            elements: texels.len(),
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
        let detached = DetachedGatherer::in_memory(layout, desc, swizzle, sampler, op, precision)?;
        Ok(detached.and_then(|d| d.attach(bytes)))
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
        let shape = Shape {
            kind: desc.kind,
            format: desc.format,
            width: desc.width,
            height: desc.height,
            layers: desc.layers,
            swizzle,
        };
        let Prepared {
            plan,
            value,
            border,
        } = Prepared::new(&shape, sampler, op, precision)?;
        let (kind, format, quant) = (desc.kind, desc.format, plan.quant);
        let Storage {
            texels,
            elements,
            place,
            residency,
            cube,
            small,
        } = storage;
        let (w, h) = (desc.width as usize, desc.height as usize);
        let lanes32 =
            w <= LANES32_MAX_SIZE && h <= LANES32_MAX_SIZE && elements < i32::MAX as usize && small;
        let half64 = w as f64 * quant.scale / 2.0;
        let half = half64 as f32;
        let cube_f32 = (kind.is_cube() && w == h && quant.brackets_f32(w) && half as f64 == half64)
            .then(|| CubeF32 {
                half,
                bracket: cube::scaled_f32_bracket(half),
            });
        // (the scales are the plan's: size * 2^bits, or 2^bits under unnormalized coordinates,
        // a power of two whatever the size)
        let [su, sv] = plan.scale;
        let exact_f32 = |x: f64| x as f32 as f64 == x && (x as u64).is_power_of_two();
        let planar_f32 =
            (!kind.is_cube() && exact_f32(su) && exact_f32(sv)).then_some([su as f32, sv as f32]);
        Ok(Gatherer {
            texels,
            words: format.words(),
            place,
            plan,
            value,
            border,
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
    /// Runs at the process's [`crate::simd_level`]: the per-lane path at
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
            return self.gather_per_lane(queries, out);
        }
        let mut lanes = LaneQueries::new();
        let mut results = LaneResults::new();
        for (qs, os) in queries.chunks(LANES).zip(out.chunks_mut(LANES)) {
            lanes.clear();
            for q in qs {
                lanes.push_unchecked(q);
            }
            let n = qs.len().min(os.len());
            self.gather_lanes_at(level, &lanes, 0..n, &mut results, &mut probe::Watch::none());
            for (k, o) in os[..n].iter_mut().enumerate() {
                *o = results.get_unchecked(k);
            }
        }
    }

    /// One lane by the per-lane pipeline; out of line, for the lanes the
    /// lane-parallel kernels hand back (few, and one copy of the code serves every kernel).
    /// (Owned seamless cubes, whose kernels read the faces with their apron: this
    /// gatherer's own texels. Every other kernel reads the texels the per-lane path reads,
    /// and hands its lanes to [`Gatherer::compose_lanes_apart`] with them.)
    #[inline(never)]
    pub(crate) fn fallback_lane(&self, q: &GatherQuery) -> GatherResult {
        let mut out = [NON_RESIDENT];
        self.gather_per_lane(std::slice::from_ref(q), &mut out);
        out[0]
    }

    /// The per-lane pipeline (`SimdLevel::Scalar`).
    pub(crate) fn gather_per_lane(&self, queries: &[GatherQuery], out: &mut [GatherResult]) {
        self.gather_per_lane_over(self.texels, queries, out)
    }

    /// The per-lane pipeline reading `texels` (this gatherer's, or a detached one's bytes).
    fn gather_per_lane_over(
        &self,
        texels: Texels<'_>,
        queries: &[GatherQuery],
        out: &mut [GatherResult],
    ) {
        let run = PerLane { qs: queries, out };
        match texels {
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
    /// [`Gatherer::compose_lanes`] out of line: the per-lane path, and the lanes the
    /// lane-parallel kernels hand back, read from the texels the kernel reads (one copy of
    /// the code a storage type and value rule serves both).
    #[inline(never)]
    fn compose_lanes_apart<T: Copy + Into<u32>, C: Convert>(
        &self,
        d: &[T],
        element: usize,
        conv: C,
        qs: &[GatherQuery],
        out: &mut [GatherResult],
    ) {
        self.compose_lanes(d, element, conv, qs, out)
    }

    /// The per-lane path: each lane through the one composition ([`compose`]), reading this
    /// gatherer's storage with the value rule `conv` specialized.
    #[inline(always)]
    fn compose_lanes<T: Copy + Into<u32>, C: Convert>(
        &self,
        d: &[T],
        element: usize,
        conv: C,
        qs: &[GatherQuery],
        out: &mut [GatherResult],
    ) {
        for (q, o) in qs.iter().zip(out.iter_mut()) {
            let conv = conv.for_lane(q.dref);
            let reader = StorageReader {
                data: d,
                place: &self.place,
                element,
                border: conv.border(self.border),
                conv,
                residency: self.residency,
            };
            let Ok(r) = compose(&self.plan, &reader, q, &mut ());
            *o = r;
        }
    }
}

/// What every prepared gather (the fast path, the texel-by-texel gather, the trace) derives
/// once from the texture's shape, the sampler, the instruction and the precision model, after
/// the checks ([`check_op`], [`Quantizer::new`]): the per-lane composition's plan, the value
/// rule and the border word (the border depth's f32 bits under compare).
pub(crate) struct Prepared {
    pub(crate) plan: LanePlan,
    pub(crate) value: Value,
    pub(crate) border: u32,
}

impl Prepared {
    pub(crate) fn new(
        shape: &Shape,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, Error> {
        let compare = check_op(shape.kind, shape.format, sampler, op)?;
        let quant = Quantizer::new(precision)?;
        let value = lane_value(shape.format, shape.swizzle, op.component, compare);
        let border = match compare {
            Some(_) => sampler.border.words[0],
            None => border_value(&sampler.border, shape.format, op.component as usize),
        };
        let plan = LanePlan::new(
            PlanShape {
                kind: shape.kind,
                width: shape.width,
                height: shape.height,
                layers: shape.layers,
                integer: shape.format.is_integer() && compare.is_none(),
            },
            sampler,
            op.offsets,
            quant,
            &value,
        );
        Ok(Prepared {
            plan,
            value,
            border,
        })
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
    check_coordinates(kind, sampler)?;
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

/// Unnormalized coordinates are modeled on 2D and 2D array kinds with clamp to edge or clamp
/// to border on both axes, the modes CUDA and Vulkan allow with them; cube kinds and the
/// other address modes are refused as not modeled
/// (docs/sources.md, Unnormalized coordinates: a decision, the hardware's rule for them is
/// unmeasured).
pub(crate) fn check_coordinates(kind: TextureKind, sampler: &Sampler) -> Result<(), Error> {
    if sampler.normalized_coords {
        return Ok(());
    }
    if kind.is_cube() {
        return Err(NotModeled::UnnormalizedCube(kind).into());
    }
    for mode in [sampler.address_u, sampler.address_v] {
        if !matches!(mode, AddressMode::ClampToEdge | AddressMode::ClampToBorder) {
            return Err(NotModeled::UnnormalizedAddressMode(mode).into());
        }
    }
    Ok(())
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

/// The per-lane path over `qs`.
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
        g.compose_lanes_apart(d, element, conv, self.qs, self.out)
    }
}

/// The per-lane path's [`TexelReader`]: storage elements of this gatherer's texels (owned,
/// or GPU memory read in place) through the placement, the value rule specialized.
struct StorageReader<'g, T, C> {
    data: &'g [T],
    place: &'g Placement,
    /// The element of a texel the value rule reads.
    element: usize,
    conv: C,
    /// The border texel's value (compared, under depth compare).
    border: u32,
    residency: Option<&'g Residency>,
}

impl<T: Copy + Into<u32>, C: Convert> TexelReader for StorageReader<'_, T, C> {
    type Error = Infallible;
    #[inline(always)]
    fn value(&self, layer: u32, x: u32, y: u32) -> Result<u32, Infallible> {
        let index = self.place.index(layer as usize, x as usize, y as usize);
        Ok(self.conv.convert(fetch(self.data, index + self.element)))
    }
    #[inline(always)]
    fn border(&self) -> u32 {
        self.border
    }
    #[inline(always)]
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        self.residency
            .is_none_or(|r| r.is_resident(layer as usize, x as usize, y as usize))
    }
}

fn layout_err() -> Error {
    InvalidInput::Storage("texel storage is not contiguous".into()).into()
}

/// Fetch one storage element (0 if the index were ever out of range, which the wrap rules
/// exclude).
#[inline(always)]
fn fetch<T: Copy + Into<u32>>(data: &[T], index: usize) -> u32 {
    data.get(index).map_or(0, |&v| v.into())
}
