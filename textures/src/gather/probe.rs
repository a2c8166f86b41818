//! Who is watching a lane-parallel gather: the kernels hand a [`TexelWatcher`] the texels each
//! lane's footprint reads, as they computed them for the loads, so what a watcher records
//! (texel addresses, for a simulator's cache model) costs no second composition of the
//! pipeline. The kernels are compiled once, for [`Watch`]: an optional watcher behind a
//! reference, checked once a chunk of lanes (a gather nobody watches skips the report), so
//! that a watched gather needs no second instantiation of every kernel (which took 22 of a
//! cold release build's CPU-seconds in tld4-gpu-memory; docs/benchmarks.md, Build cost).
//! A kernel reports a chunk's texels before it loads them; a gather stopped at its texels
//! ([`Watch::addresses`], `DetachedGatherer::watch_lane_range`) stops there, and one that
//! recorded them ([`FoundTexels`](super::FoundTexels)) can be finished from them.

use super::lanes::{range_bits, LANES};
use crate::simd::addresses::{entry, write_chunk, AddressRule};
use crate::simd::sectors::{sectors, TexelSectors};
use crate::simd::SimdLevel;
use crate::sites::LaneTexels;

/// What the kernels computed for the texels of a warp: `index[t][k]` is the storage index
/// the kernel loads (or, stopped at the texels, would load) for texel `t` (gather order) of
/// lane `k` (the element of the texel the value rule reads: its first element plus
/// `element`), and `real[t][k]` is false for a border texel, which is not read (its index
/// is then meaningless); `real` is None where the kernel has no border texels (every texel
/// is read).
pub struct KernelTexels<'a> {
    /// The lanes reported (bits).
    pub lanes: u32,
    /// Storage indices, in elements of the texel storage.
    pub index: &'a [[u32; LANES]; 4],
    /// False for border texels; None: none is.
    pub real: Option<&'a [[bool; LANES]; 4]>,
    /// The element within a texel that the indices point at.
    pub element: u32,
}

impl KernelTexels<'_> {
    /// Writes the reported lanes' texel addresses, lane `k`'s four texels (gather order) into
    /// `out[k]`, for storage that is a flat view of memory from `base`: a texel whose first
    /// element is at storage index `i` starts at `base + i * element_bytes` and is
    /// `texel_bytes` long; a border texel is `TexelAddress::Border`. Lanes not reported, and
    /// lanes past the end of `out`, are left as they are. A whole chunk is written with AVX2
    /// where `level` is `Avx2` and the CPU has it, else entry by entry; the same entries.
    pub fn write_addresses(
        &self,
        level: SimdLevel,
        base: u64,
        element_bytes: u32,
        texel_bytes: u32,
        out: &mut [LaneTexels],
    ) {
        let rule = AddressRule {
            base,
            element_bytes,
            texel_bytes,
            element: self.element,
        };
        let lanes = self.lanes & range_bits(&(0..out.len()));
        if lanes == u32::MAX {
            if let Some(chunk) = out.first_chunk_mut::<LANES>() {
                write_chunk(level, self.index, self.real, rule, chunk);
                return;
            }
        }
        let mut m = lanes;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            if let Some(lane) = out.get_mut(k) {
                lane.texels = std::array::from_fn(|t| entry(self.index, self.real, rule, t, k));
            }
        }
    }

    /// Writes into `out` the 32-byte sectors of the reported lanes' texels (a kernel's whole
    /// chunk: every entry is written), a storage index's sector being the
    /// index shifted right by `shift` (5 - log2 of the element's bytes, for storage that is a
    /// flat view of memory from a 32-byte boundary), and the lanes whose texel brings its
    /// sector first (see [`TexelSectors`]): what a watcher marks to collect the sectors a
    /// warp reads, each about once. Compared with AVX2 where `level` is `Avx2` and the CPU
    /// has it, else lane by lane; the same result.
    #[inline]
    pub fn sectors(&self, level: SimdLevel, shift: u32, out: &mut TexelSectors) {
        sectors(level, self.index, self.real, self.lanes, shift, out);
    }
}

/// A watcher of lane-parallel gathers (held as `&mut dyn TexelWatcher`).
pub trait TexelWatcher {
    /// The texels the kernel read for the lanes of `t.lanes`.
    fn texels(&mut self, t: &KernelTexels<'_>);
    /// The lanes (bits) whose texels were not reported: the per-lane path gathered them.
    fn unreported(&mut self, lanes: u32);
}

/// What the kernels are generic over: [`Watch`] is the one implementation, so they are
/// instantiated once for watched and unwatched gathers alike.
pub(crate) trait LaneProbe {
    /// Whether anyone watches this gather (checked at run time, once a chunk of lanes).
    fn watching(&self) -> bool;
    /// Whether the gather stops at the texels' addresses: the kernels report them and
    /// compute no results (checked at run time, once a chunk of lanes, after the report).
    fn addresses_only(&self) -> bool;
    /// The texels the kernel read for the lanes of `t.lanes`.
    fn texels(&mut self, t: &KernelTexels<'_>);
    /// The lanes (bits) whose texels were not reported: the per-lane path gathered them.
    fn unreported(&mut self, lanes: u32);
}

/// An optional watcher: the probe every kernel is compiled with.
pub(crate) struct Watch<'w> {
    watcher: Option<&'w mut dyn TexelWatcher>,
    addresses_only: bool,
}

impl<'w> Watch<'w> {
    /// Nobody watches: the gather's results only.
    pub(crate) fn none() -> Self {
        Watch {
            watcher: None,
            addresses_only: false,
        }
    }

    /// `watcher` sees the texels of a gather that computes its results.
    pub(crate) fn results(watcher: &'w mut dyn TexelWatcher) -> Self {
        Watch {
            watcher: Some(watcher),
            addresses_only: false,
        }
    }

    /// `watcher` sees the texels of a gather that stops at them (no results).
    pub(crate) fn addresses(watcher: &'w mut dyn TexelWatcher) -> Self {
        Watch {
            watcher: Some(watcher),
            addresses_only: true,
        }
    }
}

impl LaneProbe for Watch<'_> {
    #[inline(always)]
    fn watching(&self) -> bool {
        self.watcher.is_some()
    }
    #[inline(always)]
    fn addresses_only(&self) -> bool {
        self.addresses_only
    }
    #[inline(always)]
    fn texels(&mut self, t: &KernelTexels<'_>) {
        if let Some(w) = self.watcher.as_deref_mut() {
            w.texels(t);
        }
    }
    #[inline(always)]
    fn unreported(&mut self, lanes: u32) {
        if let Some(w) = self.watcher.as_deref_mut() {
            w.unreported(lanes);
        }
    }
}
