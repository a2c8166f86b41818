//! The lane-parallel pipeline: up to 32 lanes held as structure of arrays
//! ([`LaneQueries`], [`LaneResults`]), each stage one loop over the warp's lanes
//! (address -> footprint -> wrap -> fetch -> convert -> compare; the kernels are in
//! `kernels.rs`), compiled at the
//! [`SimdLevel`] chosen at run time (see [`crate::simd`]).
//!
//! Every stage calls the same rule as the per-lane path ([`texel_origin`],
//! [`footprint`], [`wrap`], the format's conversion, [`depth_compare`], and
//! [`crate::cube::project_select`], proven equal to [`crate::cube::project`]), so results are
//! bit-identical at every level; the tests `lanes_*` in `textures/tests/lanes.rs` check it
//! for every format, kind, address mode, offset mode, compare function and precision.
//! Sparse textures take the per-lane path, and so do seamless cube footprints that take a
//! corner of their face (past two edges at once); footprints that cross one edge are read
//! from the faces with their apron (`crate::storage`).

use std::marker::PhantomData;
use std::ops::Range;

use super::found::{Found, FoundTexels};
use super::kernels::{Cube, CubeInPlace, Planar};
use super::probe::{LaneProbe, TexelWatcher, Watch};
use super::{AnyMode, ClampEdge, Convert, GatherQuery, GatherResult, Gatherer, Run, Texels};
use crate::error::{Error, InvalidInput};
use crate::sampler::AddressMode;
use crate::simd::{self, SimdLevel};
use crate::storage::ApronTexels;

/// Lanes a [`LaneQueries`] holds: a warp.
pub const LANES: usize = 32;

/// The fewest lanes the lane-parallel kernels are run for: they compute all 32 lanes whatever
/// the range, so below this the per-lane path is cheaper (measured with `gather_bench`,
/// 2026-12-02: one RGBA8 lane 432 ns through the kernels, 32 ns per lane; the kernels cost
/// 13-16 ns a lane when all 32 are used). Either path gives the same bits.
pub(crate) const MIN_PARALLEL_LANES: usize = 8;

/// Lanes per texel load and per lane mask ([`crate::simd::Isa`]): one AVX2 register of i32.
pub(super) const CHUNK: usize = 8;

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
///
/// (On whole cache lines, its arrays first: the kernels read them 32 bytes at a time, and a
/// read across two lines costs more; as the stack happened to fall, it did or not, and the
/// same build ran up to 20% slower in one process than in another.)
#[derive(Debug, Clone, PartialEq)]
#[repr(C, align(64))]
pub struct LaneQueries {
    /// `coords[a][k]`: coordinate `a` of lane `k` ([`GatherQuery::coords`]).
    pub coords: [[f32; LANES]; 3],
    /// The array layer of each lane ([`GatherQuery::layer`]).
    pub layer: [u32; LANES],
    /// `offsets[t][a][k]`: offset `t` (0 for AOFFI, 0..4 for PTP), axis `a` (x, y), of lane
    /// `k` ([`GatherQuery::offsets`]).
    pub offsets: [[[i8; LANES]; 2]; 4],
    /// The depth reference of each lane ([`GatherQuery::dref`]).
    pub dref: [f32; LANES],
    len: usize,
}

impl Default for LaneQueries {
    fn default() -> Self {
        Self::new()
    }
}

impl LaneQueries {
    /// No lanes.
    #[inline]
    pub const fn new() -> Self {
        LaneQueries {
            len: 0,
            coords: [[0.0; LANES]; 3],
            layer: [0; LANES],
            offsets: [[[0; LANES]; 2]; 4],
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
        for (t, o) in q.offsets.iter().enumerate() {
            self.offsets[t][0][k] = o[0];
            self.offsets[t][1][k] = o[1];
        }
        self.dref[k] = q.dref;
        self.len = k + 1;
        k
    }

    /// Lane `k`, if held.
    pub fn get(&self, k: usize) -> Option<GatherQuery> {
        (k < self.len).then(|| self.get_unchecked(k))
    }

    #[inline(always)]
    pub(super) fn get_unchecked(&self, k: usize) -> GatherQuery {
        GatherQuery {
            coords: [self.coords[0][k], self.coords[1][k], self.coords[2][k]],
            layer: self.layer[k],
            offsets: std::array::from_fn(|t| [self.offsets[t][0][k], self.offsets[t][1][k]]),
            dref: self.dref[k],
        }
    }
}

/// The results of up to [`LANES`] lanes as structure of arrays: `values[c][k]` is value `c`
/// (in gather order (i0, j1), (i1, j1), (i1, j0), (i0, j0)) of lane `k`, and bit `k` of
/// `nonresident` is set when lane `k`'s footprint touched a non-resident tile.
/// (On whole cache lines, as [`LaneQueries`].)
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(C, align(64))]
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
    #[inline]
    pub const fn new() -> Self {
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

    /// Sets lane `k` (lanes past [`LANES`] are ignored).
    #[inline]
    pub fn set_lane(&mut self, k: usize, r: &GatherResult) {
        if k < LANES {
            self.set(k, r);
        }
    }

    #[inline(always)]
    pub(super) fn set(&mut self, k: usize, r: &GatherResult) {
        for c in 0..4 {
            self.values[c][k] = r.values[c];
        }
        let bit = 1u32 << k;
        self.nonresident = (self.nonresident & !bit) | if r.resident { 0 } else { bit };
    }
}

impl<'g> Gatherer<'g> {
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
        self.gather_lanes_at(
            crate::simd_level(),
            queries,
            0..queries.len,
            out,
            &mut Watch::none(),
        )
    }

    /// Gather lanes `range` of `queries` (a run of lanes sharing this gatherer's handle)
    /// into the same lanes of `out`, at `level`; the other lanes of `out` are untouched.
    /// Error: [`InvalidInput::LaneRange`] when `range` is not within `0..queries.len()`.
    /// (Inlined: the executor calls it once a run of lanes, and the work is out of line.)
    #[inline]
    pub fn gather_lane_range(
        &self,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
    ) -> Result<(), Error> {
        self.gather_lane_range_in(level, queries, range, out, Watch::none())
    }

    /// False where the lane-parallel path is not taken: sparse textures, textures too large
    /// for its 32-bit texel indices and wrap periods ([`Gatherer::lanes32`]), and cube maps
    /// without seamless edges (rare: Vulkan needs an extension for them). Seamless cubes are
    /// read with their apron where the gatherer has one (owned textures), else in place.
    #[inline(always)]
    pub(crate) fn lane_parallel(&self) -> bool {
        self.residency.is_none()
            && self.lanes32
            && (self.plan.seamless || !self.plan.kind.is_cube())
    }

    /// The texels the lane-parallel kernels read: a seamless cube's faces with their apron
    /// ([`crate::texture::Texture::cube_apron`], built on the first call), else the
    /// texture's.
    /// `texels`: those given apart from the gatherer, None for its own.
    #[inline(always)]
    pub(super) fn kernel_texels<'t>(&'t self, texels: Option<Texels<'t>>) -> Texels<'t> {
        match self.cube.and_then(|t| t.cube_apron()) {
            Some(ApronTexels::U8(v)) => Texels::U8(v),
            Some(ApronTexels::U16(v)) => Texels::U16(v),
            Some(ApronTexels::U32(v)) => Texels::U32(v),
            None => texels.unwrap_or(self.texels),
        }
    }

    /// [`Gatherer::gather_lane_range`] with a watcher that sees the texels the kernels read
    /// ([`TexelWatcher`]); the results are the same.
    pub fn gather_lane_range_watched(
        &self,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
        watcher: &mut dyn TexelWatcher,
    ) -> Result<(), Error> {
        self.gather_lane_range_in(level, queries, range, out, Watch::results(watcher))
    }

    fn gather_lane_range_in(
        &self,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
        mut watch: Watch<'_>,
    ) -> Result<(), Error> {
        check_range(queries, &range)?;
        self.gather_lanes_at(level, queries, range, out, &mut watch);
        Ok(())
    }

    /// [`Gatherer::gather_lane_range`] reading `texels` in place of this gatherer's own,
    /// watched by `watch` ([`super::DetachedGatherer::gather_lane_range`] and its watched
    /// form).
    #[inline(always)]
    pub(super) fn gather_lanes_checked(
        &self,
        texels: Texels<'_>,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
        mut watch: Watch<'_>,
    ) -> Result<(), Error> {
        check_range(queries, &range)?;
        self.gather_lanes_over(Some(texels), level, queries, range, out, &mut watch);
        Ok(())
    }

    /// [`Gatherer::gather_lane_range`] for a range known to be valid. (Always inlined: the
    /// executor calls it from code compiled at the kernels' SIMD level.)
    #[inline(always)]
    pub(crate) fn gather_lanes_at<P: LaneProbe>(
        &self,
        level: SimdLevel,
        q: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
        probe: &mut P,
    ) {
        self.gather_lanes_over(None, level, q, range, out, probe)
    }

    /// [`Gatherer::gather_lanes_at`] reading `texels` in place of this gatherer's own where
    /// given (a [`super::DetachedGatherer`]'s call bytes: the same storage width and extent).
    /// (None, not the gatherer's own texels passed in: the bound gather's code then reads
    /// them where it did, with no more registers held.)
    #[inline(always)]
    pub(crate) fn gather_lanes_over<P: LaneProbe>(
        &self,
        texels: Option<Texels<'_>>,
        level: SimdLevel,
        q: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
        probe: &mut P,
    ) {
        let range = range.start.min(LANES)..range.end.min(LANES);
        if level == SimdLevel::Scalar || !self.lane_parallel() || range.len() < MIN_PARALLEL_LANES {
            if probe.watching() {
                probe.unreported(range_bits(&range));
            }
            if probe.addresses_only() {
                return;
            }
            return self.gather_lanes_per_lane(texels, q, range, out);
        }
        let run = Parallel {
            level,
            q,
            range,
            out,
            probe,
            found: None,
        };
        self.dispatch(texels, run)
    }

    /// `run` over the kernels' texels (`texels` in place of the gatherer's own where given),
    /// for their storage type and value rule.
    #[inline(always)]
    pub(super) fn dispatch<V: Run>(&self, texels: Option<Texels<'_>>, run: V) {
        match self.kernel_texels(texels) {
            Texels::U8(d) => self.with_convert(d, run),
            Texels::U16(d) => self.with_convert(d, run),
            Texels::U32(d) => self.with_convert(d, run),
        }
    }
}

impl Gatherer<'_> {
    /// Lanes `range` of `q` by the per-lane path. Out of line: its arrays of 32
    /// queries and results would otherwise enlarge the stack frame of every warp's dispatch
    /// (past a page, which costs a probe of each page on every call).
    #[inline(never)]
    fn gather_lanes_per_lane(
        &self,
        texels: Option<Texels<'_>>,
        q: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
    ) {
        let mut qs = [GatherQuery::default(); LANES];
        let mut rs = [GatherResult::default(); LANES];
        let n = range.len();
        for (k, lane) in range.clone().enumerate() {
            qs[k & (LANES - 1)] = q.get_unchecked(lane);
        }
        let texels = texels.unwrap_or(self.texels);
        self.gather_per_lane_over(texels, &qs[..n.min(LANES)], &mut rs[..n.min(LANES)]);
        for (k, lane) in range.enumerate() {
            out.set(lane, &rs[k & (LANES - 1)]);
        }
    }
}

/// The lane-parallel lane loop over `range`: the kernel of the texture's kind, or, where
/// `found` is given, the gather finished from those texels ([`super::found`]).
pub(super) struct Parallel<'q, 'o, 'p, 'f, P> {
    pub(super) level: SimdLevel,
    pub(super) q: &'q LaneQueries,
    pub(super) range: Range<usize>,
    pub(super) out: &'o mut LaneResults,
    pub(super) probe: &'p mut P,
    pub(super) found: Option<&'f FoundTexels>,
}

impl<P: LaneProbe> Run for Parallel<'_, '_, '_, '_, P> {
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
            probe,
            found,
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
        // (non-seamless cubes never get here: `lane_parallel`)
        if let Some(found) = found {
            simd::run(level, Found { l, out, found })
        } else if g.plan.kind.is_cube() && g.cube.is_some() {
            simd::run(level, Cube { l, out, probe })
        } else if g.plan.kind.is_cube() {
            simd::run(level, CubeInPlace { l, out, probe })
        } else if g.plan.address == [AddressMode::ClampToEdge; 2] {
            let k = Planar::<T, C, ClampEdge, P> {
                l,
                out,
                probe,
                _a: PhantomData,
            };
            simd::run(level, k)
        } else {
            let k = Planar::<T, C, AnyMode, P> {
                l,
                out,
                probe,
                _a: PhantomData,
            };
            simd::run(level, k)
        }
    }
}

/// [`InvalidInput::LaneRange`] where `range` is not within the lanes `queries` holds.
#[inline(always)]
pub(super) fn check_range(queries: &LaneQueries, range: &Range<usize>) -> Result<(), Error> {
    if range.start > range.end || range.end > queries.len {
        return Err(InvalidInput::LaneRange {
            start: range.start,
            end: range.end,
            len: queries.len,
        }
        .into());
    }
    Ok(())
}

/// Bits of the lanes in `range` (its bounds past 32 count as 32; in 64 bits, where a shift by
/// 32 is defined, so no bound needs a branch).
#[inline(always)]
pub(super) fn range_bits(range: &Range<usize>) -> u32 {
    let below = |n: usize| (1u64 << n.min(32)) - 1;
    (below(range.end) & !below(range.start)) as u32
}

/// What every kernel reads.
pub(super) struct Lanes<'a, 'g, T, C> {
    pub(super) g: &'a Gatherer<'g>,
    pub(super) d: &'a [T],
    pub(super) element: usize,
    pub(super) conv: C,
    pub(super) q: &'a LaneQueries,
    pub(super) range: Range<usize>,
}

#[cfg(test)]
mod tests {
    use super::range_bits;

    /// Every range with bounds in 0..=40 (past 32 counts as 32): bit k set exactly for the
    /// lanes k < 32 inside it.
    #[test]
    fn range_bits_sets_the_lanes_of_the_range() {
        for start in 0..=40 {
            for end in start..=40 {
                let want = (0..32)
                    .filter(|k| (start..end).contains(k))
                    .fold(0u32, |m, k| m | 1 << k);
                assert_eq!(range_bits(&(start..end)), want, "{start}..{end}");
            }
        }
    }
}
