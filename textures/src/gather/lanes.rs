//! The lane-parallel pipeline: up to 32 lanes held as structure of arrays
//! ([`LaneQueries`], [`LaneResults`]), each stage run over 8 lanes at a time
//! (address -> footprint -> wrap -> fetch -> convert -> compare), compiled at the
//! [`SimdLevel`] chosen at run time (see [`crate::simd`]).
//!
//! Every stage calls the same rule as the per-lane reference path ([`texel_origin`],
//! [`footprint`], [`wrap`], the format's conversion, [`depth_compare`], and
//! [`crate::cube::project_select`], proven equal to [`crate::cube::project`]), so results are
//! bit-identical at every level; the tests `lanes_*` in `textures/tests/lanes.rs` check it
//! for every format, kind, address mode, offset mode, compare function and precision.
//! Sparse textures, and seamless cube footprints that cross a face edge, take the per-lane
//! path lane by lane.

use std::marker::PhantomData;
use std::ops::Range;

use super::{
    fetch, footprint_unchecked, wrap_or_border, Addr, AnyMode, ClampEdge, Convert, GatherQuery,
    GatherResult, Gatherer, OffsetMode, Run, Texels,
};
use crate::cube;
use crate::error::{Error, InvalidInput};
use crate::sampler::AddressMode;
use crate::simd::{self, Kernel, SimdLevel};
use crate::texture::TextureKind;

/// Lanes a [`LaneQueries`] holds: a warp.
pub const LANES: usize = 32;

/// Lanes per step of the pipeline (one AVX2 register of i32 or f32, two of f64).
const CHUNK: usize = 8;

/// Up to [`LANES`] lanes' gather arguments as structure of arrays (the fields of
/// [`GatherQuery`], one array each), filled once per warp.
///
/// ```
/// use tld4_textures::{GatherQuery, LaneQueries};
/// let mut q = LaneQueries::new();
/// q.push(&GatherQuery::at(0.25, 0.5).with_layer(2))?;
/// assert_eq!(q.len(), 1);
/// assert_eq!(q.get(0), Some(GatherQuery::at(0.25, 0.5).with_layer(2)));
/// # Ok::<(), tld4_textures::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LaneQueries {
    len: usize,
    /// `coords[a][k]`: coordinate `a` of lane `k` ([`GatherQuery::coords`]).
    pub coords: [[f32; LANES]; 3],
    /// The array layer of each lane ([`GatherQuery::layer`]).
    pub layer: [u32; LANES],
    /// The texel offsets of each lane ([`GatherQuery::offsets`]).
    pub offsets: [[[i8; 2]; 4]; LANES],
    /// The depth reference of each lane ([`GatherQuery::dref`]).
    pub dref: [f32; LANES],
}

impl Default for LaneQueries {
    fn default() -> Self {
        Self::new()
    }
}

impl LaneQueries {
    /// No lanes.
    pub fn new() -> Self {
        LaneQueries {
            len: 0,
            coords: [[0.0; LANES]; 3],
            layer: [0; LANES],
            offsets: [[[0; 2]; 4]; LANES],
            dref: [0.0; LANES],
        }
    }

    /// Lanes held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no lane is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Holds lanes 0..len, as the arrays are (filled directly, a field at a time). Error:
    /// [`InvalidInput::TooManyLanes`] past [`LANES`].
    pub fn set_len(&mut self, len: usize) -> Result<(), Error> {
        if len > LANES {
            return Err(InvalidInput::TooManyLanes { max: LANES }.into());
        }
        self.len = len;
        Ok(())
    }

    /// Forgets every lane.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends a lane; returns its index. Error: [`InvalidInput::TooManyLanes`] when
    /// [`LANES`] are held already.
    pub fn push(&mut self, q: &GatherQuery) -> Result<usize, Error> {
        if self.len >= LANES {
            return Err(InvalidInput::TooManyLanes { max: LANES }.into());
        }
        Ok(self.push_unchecked(q))
    }

    /// [`LaneQueries::push`] for callers that never hold more than [`LANES`] (a warp).
    #[inline(always)]
    pub(crate) fn push_unchecked(&mut self, q: &GatherQuery) -> usize {
        let k = self.len & (LANES - 1);
        self.coords[0][k] = q.coords[0];
        self.coords[1][k] = q.coords[1];
        self.coords[2][k] = q.coords[2];
        self.layer[k] = q.layer;
        self.offsets[k] = q.offsets;
        self.dref[k] = q.dref;
        self.len = k + 1;
        k
    }

    /// Lane `k`, if held.
    pub fn get(&self, k: usize) -> Option<GatherQuery> {
        (k < self.len).then(|| self.get_unchecked(k))
    }

    #[inline(always)]
    fn get_unchecked(&self, k: usize) -> GatherQuery {
        GatherQuery {
            coords: [self.coords[0][k], self.coords[1][k], self.coords[2][k]],
            layer: self.layer[k],
            offsets: self.offsets[k],
            dref: self.dref[k],
        }
    }
}

/// The results of up to [`LANES`] lanes as structure of arrays: `values[c][k]` is value `c`
/// (in gather order (i0, j1), (i1, j1), (i1, j0), (i0, j0)) of lane `k`, and bit `k` of
/// `nonresident` is set when lane `k`'s footprint touched a non-resident tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneResults {
    /// The four values of each lane.
    pub values: [[u32; LANES]; 4],
    /// Lanes whose footprint was not resident (their values are 0).
    pub nonresident: u32,
}

impl Default for LaneResults {
    fn default() -> Self {
        Self::new()
    }
}

impl LaneResults {
    /// All zero, all resident.
    pub fn new() -> Self {
        LaneResults {
            values: [[0; LANES]; 4],
            nonresident: 0,
        }
    }

    /// Lane `k` as a [`GatherResult`] (None past [`LANES`]).
    pub fn get(&self, k: usize) -> Option<GatherResult> {
        (k < LANES).then(|| self.get_unchecked(k))
    }

    #[inline(always)]
    pub(crate) fn get_unchecked(&self, k: usize) -> GatherResult {
        let k = k & (LANES - 1);
        GatherResult {
            values: [
                self.values[0][k],
                self.values[1][k],
                self.values[2][k],
                self.values[3][k],
            ],
            resident: self.nonresident >> k & 1 == 0,
        }
    }

    #[inline(always)]
    fn set(&mut self, k: usize, r: &GatherResult) {
        for c in 0..4 {
            self.values[c][k] = r.values[c];
        }
        let bit = 1u32 << k;
        self.nonresident = (self.nonresident & !bit) | if r.resident { 0 } else { bit };
    }
}

impl<'a> Gatherer<'a> {
    /// Gather every lane of `queries` into `out` (lane `k` into `out`'s lane `k`) at the
    /// process's [`crate::simd_level`]; identical to [`Gatherer::gather`] lane by lane.
    ///
    /// ```
    /// use tld4_textures::*;
    /// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
    /// let tex = Texture::from_fields(desc, &[1, 2, 3, 4])?;
    /// let g = Gatherer::new(&tex, &Sampler::default(), &GatherOp::new(TextureKind::Tex2D, 0), Precision::default())?;
    /// let mut q = LaneQueries::new();
    /// q.push(&GatherQuery::at(0.5, 0.5))?;
    /// let mut out = LaneResults::new();
    /// g.gather_lanes(&q, &mut out);
    /// assert_eq!(out.get(0).unwrap().values, [3, 4, 2, 1]);
    /// # Ok::<(), tld4_textures::Error>(())
    /// ```
    pub fn gather_lanes(&self, queries: &LaneQueries, out: &mut LaneResults) {
        self.gather_lanes_at(crate::simd_level(), queries, 0..queries.len, out)
    }

    /// Gather lanes `range` of `queries` (a run of lanes sharing this gatherer's handle)
    /// into the same lanes of `out`, at `level`; the other lanes of `out` are untouched.
    /// Error: [`InvalidInput::LaneRange`] when `range` is not within `0..queries.len()`.
    pub fn gather_lane_range(
        &self,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
    ) -> Result<(), Error> {
        if range.start > range.end || range.end > queries.len {
            return Err(InvalidInput::LaneRange {
                start: range.start,
                end: range.end,
                len: queries.len,
            }
            .into());
        }
        self.gather_lanes_at(level, queries, range, out);
        Ok(())
    }

    /// False where the lane-parallel path is not taken (sparse textures).
    #[inline(always)]
    pub(crate) fn lane_parallel(&self) -> bool {
        self.residency.is_none()
    }

    /// [`Gatherer::gather_lane_range`] for a range known to be valid.
    #[inline]
    pub(crate) fn gather_lanes_at(
        &self,
        level: SimdLevel,
        q: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
    ) {
        let range = range.start.min(LANES)..range.end.min(LANES);
        if level == SimdLevel::Scalar || !self.lane_parallel() {
            let mut qs = [GatherQuery::default(); LANES];
            let mut rs = [GatherResult::default(); LANES];
            let n = range.len();
            for (k, lane) in range.clone().enumerate() {
                qs[k] = q.get_unchecked(lane);
            }
            self.gather_reference(&qs[..n], &mut rs[..n]);
            for (k, lane) in range.enumerate() {
                out.set(lane, &rs[k]);
            }
            return;
        }
        let run = Parallel {
            level,
            q,
            range,
            out,
        };
        match self.texels {
            Texels::U8(d) => self.with_convert(d, run),
            Texels::U16(d) => self.with_convert(d, run),
            Texels::U32(d) => self.with_convert(d, run),
        }
    }
}

/// The lane-parallel lane loop over `range`.
struct Parallel<'q, 'o> {
    level: SimdLevel,
    q: &'q LaneQueries,
    range: Range<usize>,
    out: &'o mut LaneResults,
}

impl Run for Parallel<'_, '_> {
    #[inline(always)]
    fn run<T: Copy + Into<u32>, C: Convert>(
        self,
        g: &Gatherer<'_>,
        d: &[T],
        element: usize,
        conv: C,
    ) {
        let Parallel {
            level,
            q,
            range,
            out,
        } = self;
        // Every lane of the range is written: clear their non-resident bits.
        let bits = range_bits(&range);
        out.nonresident &= !bits;
        let l = Lanes {
            g,
            d,
            element,
            conv,
            q,
            range,
        };
        if g.kind.is_cube() {
            if g.seamless {
                simd::run(level, Cube { l, out })
            } else {
                let k = Planar::<T, C, AnyMode, true> {
                    l,
                    out,
                    _a: PhantomData,
                };
                simd::run(level, k)
            }
        } else if g.address == [AddressMode::ClampToEdge; 2] {
            let k = Planar::<T, C, ClampEdge, false> {
                l,
                out,
                _a: PhantomData,
            };
            simd::run(level, k)
        } else {
            let k = Planar::<T, C, AnyMode, false> {
                l,
                out,
                _a: PhantomData,
            };
            simd::run(level, k)
        }
    }
}

/// Bits of the lanes in `range`.
fn range_bits(range: &Range<usize>) -> u32 {
    let hi = if range.end >= 32 {
        u32::MAX
    } else {
        (1u32 << range.end) - 1
    };
    let lo = if range.start >= 32 {
        u32::MAX
    } else {
        (1u32 << range.start) - 1
    };
    hi & !lo
}

/// What every kernel reads.
struct Lanes<'a, 'g, T, C> {
    g: &'a Gatherer<'g>,
    d: &'a [T],
    element: usize,
    conv: C,
    q: &'a LaneQueries,
    range: Range<usize>,
}

/// One chunk's inputs, lanes past the range read as zeros.
struct Chunk {
    coords: [[f32; CHUNK]; 3],
    layer: [u32; CHUNK],
    n: usize,
}

impl<T, C> Lanes<'_, '_, T, C> {
    /// The chunk of lanes base..base + 8 (clipped to the range).
    #[inline(always)]
    fn chunk(&self, base: usize) -> Chunk {
        let n = (self.range.end - base).min(CHUNK);
        let mut c = Chunk {
            coords: [[0.0; CHUNK]; 3],
            layer: [0; CHUNK],
            n,
        };
        for k in 0..n {
            for a in 0..3 {
                c.coords[a][k] = self.q.coords[a][base + k];
            }
            c.layer[k] = self.q.layer[base + k];
        }
        c
    }
}

/// 2D and 2D array kinds, and cube kinds without seamless edges.
struct Planar<'a, 'g, 'o, T, C, A, const CUBE: bool> {
    l: Lanes<'a, 'g, T, C>,
    out: &'o mut LaneResults,
    _a: PhantomData<A>,
}

impl<T: Copy + Into<u32>, C: Convert, A: Addr, const CUBE: bool> Kernel
    for Planar<'_, '_, '_, T, C, A, CUBE>
{
    #[inline(always)]
    fn run(self) {
        let mut base = self.l.range.start;
        while base < self.l.range.end {
            planar_chunk::<T, C, A, CUBE>(&self.l, base, self.out);
            base += CHUNK;
        }
    }
}

/// address -> footprint -> wrap -> fetch -> convert for lanes base..base + 8.
#[inline(always)]
fn planar_chunk<T: Copy + Into<u32>, C: Convert, A: Addr, const CUBE: bool>(
    l: &Lanes<'_, '_, T, C>,
    base: usize,
    out: &mut LaneResults,
) {
    let g = l.g;
    let c = l.chunk(base);
    // address: (s, t) in f64 and the storage layer
    let mut u = [0f64; CHUNK];
    let mut v = [0f64; CHUNK];
    let mut layer = [0usize; CHUNK];
    if CUBE {
        let per_cube = if g.kind == TextureKind::CubeArray {
            6
        } else {
            0
        };
        for k in 0..CHUNK {
            let (face, s, t) = cube::project_select(c.coords[0][k], c.coords[1][k], c.coords[2][k]);
            u[k] = s * g.scale_u;
            v[k] = t * g.scale_v;
            layer[k] = (super::array_layer(c.layer[k], g.max_layer) * per_cube + face) as usize;
        }
    } else {
        for k in 0..CHUNK {
            u[k] = c.coords[0][k] as f64 * g.scale_u;
            v[k] = c.coords[1][k] as f64 * g.scale_v;
            layer[k] = super::array_layer(c.layer[k], g.max_layer) as usize;
        }
    }
    // footprint origin (the precision model)
    let i0 = g.quant.origins(&u);
    let j0 = g.quant.origins(&v);
    // footprint and wrap
    let (w, h) = (g.width, g.height);
    let [au, av] = g.address;
    let mut xs = [[0i64; CHUNK]; 4];
    let mut ys = [[0i64; CHUNK]; 4];
    if g.offsets == OffsetMode::Ptp {
        for k in 0..c.n {
            let p = footprint_unchecked(i0[k], j0[k], OffsetMode::Ptp, &l.q.offsets[base + k]);
            for t in 0..4 {
                xs[t][k] = p[t].0;
                ys[t][k] = p[t].1;
            }
        }
        for t in 0..4 {
            xs[t] = wrap_lanes::<A>(&xs[t], w, au);
            ys[t] = wrap_lanes::<A>(&ys[t], h, av);
        }
    } else {
        let (mut i, mut j) = (i0, j0);
        if g.offsets == OffsetMode::Aoffi {
            for k in 0..c.n {
                let [_, _, _, (a, b)] =
                    footprint_unchecked(i0[k], j0[k], OffsetMode::Aoffi, &l.q.offsets[base + k]);
                i[k] = a;
                j[k] = b;
            }
        }
        let x0 = wrap_lanes::<A>(&i, w, au);
        let y0 = wrap_lanes::<A>(&j, h, av);
        let x1 = wrap_lanes::<A>(&i.map(|a| a + 1), w, au);
        let y1 = wrap_lanes::<A>(&j.map(|b| b + 1), h, av);
        xs = [x0, x1, x1, x0];
        ys = [y1, y1, y0, y0];
    }
    // texel addressing, fetch, convert (border texels, -1, read nothing)
    let words = g.words;
    for k in 0..c.n {
        let lane = base + k;
        let conv = l.conv.for_lane(l.q.dref[lane]);
        let border = conv.border(g.border);
        let origin = layer[k] * g.layer_stride + l.element;
        for t in 0..4 {
            let (x, y) = (xs[t][k], ys[t][k]);
            out.values[t][lane] = if A::BORDERLESS || (x >= 0 && y >= 0) {
                let index = origin + y.max(0) as usize * g.row_stride + x.max(0) as usize * words;
                conv.convert(fetch(l.d, index))
            } else {
                border
            };
        }
    }
}

/// [`wrap`](super::wrap) of 8 lanes with one address mode (-1 for a border texel), the mode
/// dispatched once outside the lane loop.
#[inline(always)]
fn wrap_lanes<A: Addr>(i: &[i64; CHUNK], size: i64, mode: AddressMode) -> [i64; CHUNK] {
    #[inline(always)]
    fn each<A: Addr>(i: &[i64; CHUNK], size: i64, mode: AddressMode) -> [i64; CHUNK] {
        i.map(|a| A::wrap(a, size, mode))
    }
    if A::BORDERLESS {
        return each::<A>(i, size, mode);
    }
    // AnyMode: a literal mode per arm, so each loop is specialized.
    #[inline(always)]
    fn any(i: &[i64; CHUNK], size: i64, mode: AddressMode) -> [i64; CHUNK] {
        i.map(|a| wrap_or_border(a, size, mode))
    }
    match mode {
        AddressMode::ClampToEdge => any(i, size, AddressMode::ClampToEdge),
        // the power-of-two test hoisted out of the lane loop (a vectorized loop would
        // otherwise compute the division of every lane)
        AddressMode::Repeat if size & (size - 1) == 0 => i.map(|a| super::repeat_pow2(a, size)),
        AddressMode::Repeat => any(i, size, AddressMode::Repeat),
        AddressMode::MirroredRepeat => any(i, size, AddressMode::MirroredRepeat),
        AddressMode::ClampToBorder => any(i, size, AddressMode::ClampToBorder),
        AddressMode::MirrorClampToEdge => any(i, size, AddressMode::MirrorClampToEdge),
    }
}

/// Cube kinds with seamless edges.
struct Cube<'a, 'g, 'o, T, C> {
    l: Lanes<'a, 'g, T, C>,
    out: &'o mut LaneResults,
}

impl<T: Copy + Into<u32>, C: Convert> Kernel for Cube<'_, '_, '_, T, C> {
    #[inline(always)]
    fn run(self) {
        let mut base = self.l.range.start;
        while base < self.l.range.end {
            cube_chunk(&self.l, base, self.out);
            base += CHUNK;
        }
    }
}

/// Seamless cube lanes base..base + 8: projection and face selection, footprint origin,
/// then the footprint on the face, or (lanes crossing an edge) the per-lane edge path.
#[inline(always)]
fn cube_chunk<T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    base: usize,
    out: &mut LaneResults,
) {
    let g = l.g;
    let c = l.chunk(base);
    let mut face = [0u32; CHUNK];
    let mut u = [0f64; CHUNK];
    let mut v = [0f64; CHUNK];
    for k in 0..CHUNK {
        let (f, s, t) = cube::project_select(c.coords[0][k], c.coords[1][k], c.coords[2][k]);
        face[k] = f;
        u[k] = s * g.scale_u;
        v[k] = t * g.scale_v;
    }
    let i0 = g.quant.origins(&u);
    let j0 = g.quant.origins(&v);
    let n = g.width;
    let array = g.kind == TextureKind::CubeArray;
    for k in 0..c.n {
        let lane = base + k;
        let cube_base = if array {
            super::array_layer(c.layer[k], g.max_layer) as usize * 6
        } else {
            0
        };
        let conv = l.conv.for_lane(l.q.dref[lane]);
        let (i, j) = (i0[k], j0[k]);
        if i >= 0 && j >= 0 && i + 1 < n && j + 1 < n {
            // the whole footprint on the face
            let layer = cube_base + face[k] as usize;
            let r0 = layer * g.layer_stride
                + j as usize * g.row_stride
                + i as usize * g.words
                + l.element;
            let r1 = r0 + g.row_stride;
            let w = g.words;
            out.values[0][lane] = conv.convert(fetch(l.d, r1));
            out.values[1][lane] = conv.convert(fetch(l.d, r1 + w));
            out.values[2][lane] = conv.convert(fetch(l.d, r0 + w));
            out.values[3][lane] = conv.convert(fetch(l.d, r0));
        } else {
            let r = g.lane_cube_edge(l.d, l.element, conv, face[k], cube_base, i, j);
            out.set(lane, &r);
        }
    }
}
