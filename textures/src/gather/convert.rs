//! convert (and compare), and wrap, as types: each rule a small `Copy` value the lane loops
//! are monomorphized over, so a loop has no dispatch per texel.

use super::lanes::LANES;
use crate::format::{unorm, Decoder};
use crate::sampler::{AddressMode, CompareOp};
use crate::stages::clamp_dref;
use crate::stages::{wrap_in, TexelCoord};

/// convert (and compare): one storage element to the result bits, specialized per rule so the
/// lane loop has no dispatch.
pub(super) trait Convert: Copy {
    /// True when `convert` is a few instructions, so the lane-parallel kernels unroll it over
    /// a chunk's 32 texels; false for the format decoder's general match, which they run in
    /// one out-of-line loop (32 inlined copies of it in every kernel would cost far more
    /// compile time and code than they save).
    const UNROLL: bool = true;
    /// The rule for a lane with this depth reference.
    #[inline(always)]
    fn for_lane(self, _dref: f32) -> Self {
        self
    }
    /// The value of a border texel, given the gatherer's border word.
    #[inline(always)]
    fn border(&self, border: u32) -> u32 {
        border
    }
    fn convert(&self, word: u32) -> u32;
    /// [`Convert::convert`] of a warp's four footprint texels, `raw[t][k]` of lane `k` with
    /// lane `k`'s depth reference; a rule may specialize the loop (depth compare does, per
    /// compare function).
    #[inline(always)]
    fn convert_warp(self, raw: &[[u32; LANES]; 4], dref: &[f32; LANES]) -> [[u32; LANES]; 4] {
        let mut values = [[0u32; LANES]; 4];
        for t in 0..4 {
            for k in 0..LANES {
                values[t][k] = self.for_lane(dref[k]).convert(raw[t][k]);
            }
        }
        values
    }
}

/// UNORM fields ([`unorm`]).
#[derive(Clone, Copy)]
pub(super) struct UnormConv {
    pub(super) shift: u32,
    pub(super) mask: u32,
    pub(super) inv: f64,
}

impl Convert for UnormConv {
    #[inline(always)]
    fn convert(&self, w: u32) -> u32 {
        unorm((w >> self.shift) & self.mask, self.inv).to_bits()
    }
}

/// A whole UNORM component ([`unorm`]).
#[derive(Clone, Copy)]
pub(super) struct PlainUnorm(pub(super) f64);

impl Convert for PlainUnorm {
    #[inline(always)]
    fn convert(&self, w: u32) -> u32 {
        unorm(w, self.0).to_bits()
    }
}

/// A whole component returned raw: UINT, and f32 bits.
#[derive(Clone, Copy)]
pub(super) struct PlainRaw;

impl Convert for PlainRaw {
    #[inline(always)]
    fn convert(&self, w: u32) -> u32 {
        w
    }
}

/// Any other field, through the format's decoder.
#[derive(Clone, Copy)]
pub(super) struct DecodeConv(pub(super) Decoder);

impl Convert for DecodeConv {
    const UNROLL: bool = false;
    #[inline(always)]
    fn convert(&self, w: u32) -> u32 {
        self.0.decode(w)
    }
}

/// A swizzle constant.
#[derive(Clone, Copy)]
pub(super) struct ConstConv(pub(super) u32);

impl Convert for ConstConv {
    #[inline(always)]
    fn convert(&self, _: u32) -> u32 {
        self.0
    }
}

/// Depth compare against the lane's dref; `D` reads the depth as f32 bits.
#[derive(Clone, Copy)]
pub(super) struct CompareConv<D: Convert> {
    /// The result bits for each outcome of comparing the reference with the depth: less,
    /// equal, greater, unordered (1.0's bits where the function holds, else 0).
    when: [u32; 4],
    op: CompareOp,
    depth: D,
    clamp_dref: bool,
    dref: f32,
}

impl<D: Convert> CompareConv<D> {
    /// (Made at every dispatch of a warp: the four outcomes written out, not an array map,
    /// which the compiler kept out of line.)
    #[inline(always)]
    pub(super) fn new(op: CompareOp, depth: D, clamp_dref: bool) -> Self {
        // a representative (reference, test) pair for each outcome
        let outcome = |r: f32, t: f32| crate::stages::depth_compare(op, r, t);
        let when = [
            outcome(0.0, 1.0),
            outcome(1.0, 1.0),
            outcome(1.0, 0.0),
            outcome(f32::NAN, 0.0),
        ];
        CompareConv {
            when,
            op,
            depth,
            clamp_dref,
            dref: 0.0,
        }
    }

    /// [`depth_compare`](super::depth_compare) without branches (outcomes of random depths
    /// are unpredictable): each outcome's comparison as a mask selects its result.
    #[inline(always)]
    fn compare(&self, d: f32) -> u32 {
        let r = self.dref;
        let (lt, eq, gt) = (r < d, r == d, r > d);
        let unordered = !(lt | eq | gt);
        let mask = |b: bool| 0u32.wrapping_sub(b as u32);
        (self.when[0] & mask(lt))
            | (self.when[1] & mask(eq))
            | (self.when[2] & mask(gt))
            | (self.when[3] & mask(unordered))
    }
}

impl<D: Convert> Convert for CompareConv<D> {
    const UNROLL: bool = D::UNROLL;
    #[inline(always)]
    fn for_lane(self, dref: f32) -> Self {
        CompareConv {
            dref: if self.clamp_dref {
                clamp_dref(dref)
            } else {
                dref
            },
            ..self
        }
    }
    #[inline(always)]
    fn border(&self, border: u32) -> u32 {
        self.compare(f32::from_bits(border))
    }
    /// Lane by lane (the per-lane paths and the border), through the outcome table.
    #[inline(always)]
    fn convert(&self, w: u32) -> u32 {
        self.compare(f32::from_bits(self.depth.convert(w)))
    }
    /// The references clamped once per lane, and one loop per compare function, each with
    /// [`CompareOp::holds`] of a constant function (a single vector comparison), equal to
    /// [`CompareConv::compare`]'s outcome table by construction (both are `holds`).
    #[inline(always)]
    fn convert_warp(self, raw: &[[u32; LANES]; 4], dref: &[f32; LANES]) -> [[u32; LANES]; 4] {
        let mut r = *dref;
        if self.clamp_dref {
            for v in r.iter_mut() {
                *v = clamp_dref(*v);
            }
        }
        #[inline(always)]
        fn each<D: Convert>(
            depth: D,
            op: CompareOp,
            raw: &[[u32; LANES]; 4],
            r: &[f32; LANES],
        ) -> [[u32; LANES]; 4] {
            let one = 1.0f32.to_bits();
            let mut values = [[0u32; LANES]; 4];
            for t in 0..4 {
                for k in 0..LANES {
                    let d = f32::from_bits(depth.convert(raw[t][k]));
                    values[t][k] = if op.holds(r[k], d) { one } else { 0 };
                }
            }
            values
        }
        use CompareOp::*;
        let d = self.depth;
        match self.op {
            Never => each(d, Never, raw, &r),
            Less => each(d, Less, raw, &r),
            Equal => each(d, Equal, raw, &r),
            LessOrEqual => each(d, LessOrEqual, raw, &r),
            Greater => each(d, Greater, raw, &r),
            NotEqual => each(d, NotEqual, raw, &r),
            GreaterOrEqual => each(d, GreaterOrEqual, raw, &r),
            Always => each(d, Always, raw, &r),
        }
    }
}

/// wrap, specialized: clamp to edge on both axes (no border possible), or any mode; in the
/// per-lane path's i64 or the lane-parallel path's i32 ([`TexelCoord`]).
pub(super) trait Addr {
    /// True when no coordinate can be a border texel.
    const BORDERLESS: bool;
    /// The wrapped coordinate, or -1 for a border texel.
    fn wrap<I: TexelCoord>(i: I, size: I, mode: AddressMode) -> I;
}

pub(super) struct ClampEdge;

impl Addr for ClampEdge {
    const BORDERLESS: bool = true;
    #[inline(always)]
    fn wrap<I: TexelCoord>(i: I, size: I, _: AddressMode) -> I {
        i.max(I::ZERO).min(size.minus(I::ONE))
    }
}

pub(super) struct AnyMode;

impl Addr for AnyMode {
    const BORDERLESS: bool = false;
    #[inline(always)]
    fn wrap<I: TexelCoord>(i: I, size: I, mode: AddressMode) -> I {
        wrap_or_border(i, size, mode)
    }
}

/// [`wrap`](super::wrap) with -1 for a border texel.
#[inline(always)]
pub(super) fn wrap_or_border<I: TexelCoord>(i: I, size: I, mode: AddressMode) -> I {
    wrap_in(i, size, mode).unwrap_or(I::ZERO.minus(I::ONE))
}
