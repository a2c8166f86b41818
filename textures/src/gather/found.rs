//! A gather finished from what a gather stopped at its texels found
//! ([`DetachedGatherer::watch_lane_range`](super::DetachedGatherer::watch_lane_range)): the
//! kernels' storage indices and border flags, recorded by a [`FoundTexels`], are fetched,
//! converted and stored, and the lanes the kernels left to the per-lane path go there, as in
//! the kernels after their report; nothing before it (origins, footprints, wraps) is
//! computed again. For a memory read by its sectors: the first run names them, the second
//! reads them ([`DetachedGatherer::gather_found`](super::DetachedGatherer::gather_found)).

use std::ops::Range;

use super::kernels::{fetch_convert, redo, replace_borders, store};
use super::lanes::{range_bits, LaneQueries, LaneResults, Lanes, Parallel, LANES};
use super::probe::{KernelTexels, TexelWatcher, Watch};
use super::{Convert, Gatherer, Texels};
use crate::simd::{Isa, Kernel, SimdLevel};

/// What the kernels reported of one gather of a run of lanes (a watcher: pass it to
/// [`DetachedGatherer::watch_lane_range`](super::DetachedGatherer::watch_lane_range) after
/// [`FoundTexels::clear`]), for finishing that gather without computing its texels again.
#[derive(Debug, Clone)]
pub struct FoundTexels {
    index: [[u32; LANES]; 4],
    real: [[bool; LANES]; 4],
    borders: bool,
    lanes: u32,
    unreported: u32,
    reports: u32,
}

impl Default for FoundTexels {
    fn default() -> Self {
        FoundTexels {
            index: [[0; LANES]; 4],
            real: [[true; LANES]; 4],
            borders: false,
            lanes: 0,
            unreported: 0,
            reports: 0,
        }
    }
}

impl FoundTexels {
    /// Forgets every report (before a gather is watched).
    pub fn clear(&mut self) {
        self.lanes = 0;
        self.unreported = 0;
        self.reports = 0;
        self.borders = false;
    }

    /// The lanes (bits) the kernels left to the per-lane path (reported so), whose texels
    /// were not named.
    pub fn unreported_lanes(&self) -> u32 {
        self.unreported
    }

    /// Whether the reports are those of one kernel over the lanes of `range`: one report,
    /// and every lane of the range either in it or left to the per-lane path (a gather that
    /// took the per-lane path for all its lanes has no report: it cannot be finished so).
    pub(super) fn complete(&self, range: &Range<usize>) -> bool {
        self.reports == 1
            && self.lanes & self.unreported == 0
            && self.lanes | self.unreported == range_bits(range)
    }
}

impl TexelWatcher for FoundTexels {
    fn texels(&mut self, t: &KernelTexels<'_>) {
        self.index = *t.index;
        self.borders = t.real.is_some();
        if let Some(real) = t.real {
            self.real = *real;
        }
        self.lanes |= t.lanes;
        self.reports += 1;
    }

    fn unreported(&mut self, lanes: u32) {
        self.unreported |= lanes;
    }
}

/// The kernels after their report: fetch -> convert -> border from the indices found, then
/// the per-lane path for the lanes they left to it.
pub(super) struct Found<'a, 'g, 'o, 'f, T, C> {
    pub(super) l: Lanes<'a, 'g, T, C>,
    pub(super) out: &'o mut LaneResults,
    pub(super) found: &'f FoundTexels,
}

impl<T: Copy + Into<u32>, C: Convert> Kernel for Found<'_, '_, '_, '_, T, C> {
    #[inline(always)]
    fn run<I: Isa>(self) {
        let Found { l, out, found } = self;
        let mut values = fetch_convert::<I, T, C>(&l, &found.index);
        if found.borders {
            replace_borders(&l, &mut values, |t, k| found.real[t][k]);
        }
        let range = range_bits(&l.range);
        store(out, range, &values);
        redo(&l, found.unreported & range, out);
    }
}

impl Gatherer<'_> {
    /// Lanes `range` of `q` finished from `found` ([`FoundTexels::complete`] for `range`),
    /// reading `texels`, at `level` (not `Scalar`: its gathers report nothing).
    pub(super) fn gather_found_over(
        &self,
        texels: Texels<'_>,
        level: SimdLevel,
        q: &LaneQueries,
        range: Range<usize>,
        found: &FoundTexels,
        out: &mut LaneResults,
    ) {
        let run = Parallel {
            level,
            q,
            range,
            out,
            probe: &mut Watch::none(),
            found: Some(found),
        };
        self.dispatch(Some(texels), run)
    }
}
