//! Who is watching a lane-parallel gather: the kernels hand a [`LaneProbe`] the texels each
//! lane's footprint reads, as they computed them for the loads, so what a watcher records
//! (texel addresses, for a simulator's cache model) costs no second composition of the
//! pipeline. The probe that records nothing, `()`, compiles away ([`LaneProbe::ACTIVE`]).

use super::lanes::LANES;

/// What the kernels computed for the texels of a warp: `index[t][k]` is the storage index
/// the kernel loaded for texel `t` (gather order) of lane `k` (the element of the texel the
/// value rule reads: its first element plus `element`), and `real[t][k]` is false for a
/// border texel, which is not read (its index is then meaningless); `real` is None where
/// the kernel has no border texels (every texel is read).
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

/// A watcher of lane-parallel gathers.
pub trait LaneProbe {
    /// False for a probe that records nothing: the kernels skip their calls.
    const ACTIVE: bool;
    /// The texels the kernel read for the lanes of `t.lanes`.
    fn texels(&mut self, t: &KernelTexels<'_>);
    /// The lanes (bits) whose texels were not reported: the per-lane path gathered them.
    fn unreported(&mut self, lanes: u32);
}

impl LaneProbe for () {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn texels(&mut self, _: &KernelTexels<'_>) {}
    #[inline(always)]
    fn unreported(&mut self, _: u32) {}
}
