//! The pipeline's small pure steps, each testable alone: array layer, the precision model
//! ([`texel_origin`]), the footprint, wrapping, depth compare, border values and cube
//! corners. [`crate::gather`] re-exports them and composes them into the fast path.

use crate::error::{Error, InvalidInput};
use crate::format::Format;
use crate::op::{OffsetMode, Precision, Rounding, Value, MAX_FRACTION_BITS};
use crate::sampler::{AddressMode, BorderColor, CompareOp};
use crate::texture::{Source, Swizzle};

mod f32_origins;

/// The array layer: the instruction's unsigned layer clamped to layers - 1 (docs/sources.md,
/// Decisions; the hardware clamps; ptxas clamps to 0..0xffff before, docs/sources.md).
#[inline(always)]
pub fn array_layer(layer: u32, max_layer: u32) -> u32 {
    layer.min(max_layer)
}

/// A float layer as NVIDIA's Vulkan compiler (Mesa NAK) converts it before the instruction:
/// floor(layer + 0.5) in f32, clamped to 0..=65535; NaN gives 0 (docs/sources.md, Decisions).
/// The instruction itself takes the unsigned result ([`array_layer`] clamps it).
///
/// Computed without `floor` (a library call on the baseline x86-64 target, one a query in
/// a loop over queries, as Python's layered gathers make): r = layer + 0.5 bounded to
/// 0..=65535 by `max` and `min` (which return the other operand for a NaN, so a NaN gives 0)
/// is non-negative, where truncating toward zero is floor; the conversion is the unchecked
/// one (r is finite and fits i32), which a loop of lanes turns into one SIMD instruction for
/// four or eight lanes ([`float_layers`]). The test
/// `float_layer_is_floor_clamped_for_every_f32_pattern_tried` checks it against the formula.
#[inline]
#[allow(unsafe_code)]
// (not `clamp`: it keeps a NaN, which the unchecked conversion must never see)
#[allow(clippy::manual_clamp)]
pub fn float_layer(layer: f32) -> u32 {
    let r = (layer + 0.5).max(0.0).min(65535.0);
    // SAFETY: `max(0.0)` maps NaN and everything below 0 to 0, `min(65535.0)` everything above
    // to 65535: r is finite and within 0..=65535, which i32 represents.
    unsafe { r.to_int_unchecked::<i32>() as u32 }
}

/// [`float_layer`] of each of `layers`, all at once (the loop vectorises): for callers that
/// hold a block of lanes' float layers.
#[inline]
pub fn float_layers<const N: usize>(layers: &[f32; N], out: &mut [u32; N]) {
    for (o, &l) in out.iter_mut().zip(layers) {
        *o = float_layer(l);
    }
}

#[cfg(test)]
mod float_layer_tests {
    use super::float_layer;

    /// The formula as written: floor(layer + 0.5) in f32, clamped to 0..=65535, NaN 0.
    fn by_formula(layer: f32) -> u32 {
        let r = (layer + 0.5).floor();
        if r.is_nan() {
            0
        } else {
            r.clamp(0.0, 65535.0) as u32
        }
    }

    #[test]
    fn float_layer_is_floor_clamped_for_every_f32_pattern_tried() {
        // every 97th bit pattern (all exponents and signs, NaNs and infinities among them),
        // and every f32 of magnitude 0.25 to 4 (either sign) and 65000 to 70000: the halves
        // and the clamp
        let bits = |a: f32, b: f32| (a.to_bits()..=b.to_bits()).map(f32::from_bits);
        let strided = (0..=u32::MAX).step_by(97).map(f32::from_bits);
        let dense = bits(0.25, 4.0)
            .chain(bits(-0.25, -4.0))
            .chain(bits(65000.0, 70000.0));
        for x in strided.chain(dense) {
            assert_eq!(float_layer(x), by_formula(x), "{x:e} ({:#x})", x.to_bits());
        }
        for x in [-0.5, 0.5, 1.5, 65534.5, 65535.5, f32::NAN, f32::INFINITY] {
            assert_eq!(float_layer(x), by_formula(x), "{x}");
        }
    }
}

/// The precision model, ready to apply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Quantizer {
    /// 2^fraction_bits (1 for exact).
    pub(crate) scale: f64,
    bits: u32,
    rounding: Rounding,
    exact: bool,
}

/// Coordinates (in fixed-point units) are clamped to +-2^50 before conversion, which keeps
/// every later integer step far from overflow; NaN reads as 0 (guess).
pub(crate) const COORD_LIMIT: f64 = (1u64 << 50) as f64;

impl Quantizer {
    pub(crate) fn new(p: Precision) -> Result<Self, Error> {
        Ok(match p {
            Precision::Exact => Quantizer {
                scale: 1.0,
                bits: 0,
                rounding: Rounding::NearestEven,
                exact: true,
            },
            Precision::Fixed {
                fraction_bits,
                rounding,
            } => {
                if fraction_bits as u32 > MAX_FRACTION_BITS {
                    return Err(InvalidInput::Precision(fraction_bits as u32).into());
                }
                Quantizer {
                    scale: (1u64 << fraction_bits) as f64,
                    bits: fraction_bits as u32,
                    rounding,
                    exact: false,
                }
            }
        })
    }

    /// See [`texel_origin`]; `x` is u * 2^bits.
    #[inline(always)]
    pub(crate) fn origin(&self, x: f64) -> i64 {
        texel_origin_unchecked(x, self.bits, self.rounding, self.exact)
    }

    /// [`Quantizer::origin`] of `N` lanes at once in 32-bit integers, for the lane-parallel
    /// pipeline: the origins, and -1 for each lane outside the range where the 32-bit
    /// computation equals [`texel_origin`] (|x| >= [`ORIGIN32_LIMIT`], or NaN), 0 for the
    /// others; an outside lane's origin is meaningless (computed from 0) and the caller
    /// takes the per-lane path for it. The rule is dispatched once outside the lane loop,
    /// so the loop body is straight-line code the compiler vectorizes.
    ///
    /// Equal to [`texel_origin`] on every lane it accepts: within the limit the clamp to
    /// +-2^50 does nothing, the rounded integer n fits in 29 bits, so 2n - 2^bits and the
    /// shift are the same in i32 as in i64 (the test `origins32_equal_texel_origin` checks
    /// every rounding at the limit and around it, and random values).
    #[inline(always)]
    pub(crate) fn origins32<const N: usize>(&self, x: &[f64; N]) -> ([i32; N], [i32; N]) {
        #[inline(always)]
        fn each<const N: usize>(
            x: &[f64; N],
            bits: u32,
            r: Rounding,
            exact: bool,
        ) -> ([i32; N], [i32; N]) {
            let mut o = [0i32; N];
            let mut outside = [0i32; N];
            for k in 0..N {
                let inside = x[k].abs() < ORIGIN32_LIMIT;
                outside[k] = -(!inside as i32);
                let x = if inside { x[k] } else { 0.0 };
                o[k] = if exact {
                    // x - f is exact; floor(x - 0.5) is f when the fraction is at least one half.
                    let f = x.floor();
                    (f as i32).wrapping_sub((x - f < 0.5) as i32)
                } else {
                    let n = match r {
                        // the low 32 bits of the sum's bits hold n (|n| < 2^31)
                        Rounding::NearestEven => (x + ROUND_MAGIC).to_bits() as u32 as i32,
                        Rounding::TowardZero => x as i32,
                        Rounding::Floor => x.floor() as i32,
                    };
                    // (wrapping ops: nothing wraps within the limit, and no check is compiled)
                    n.wrapping_mul(2).wrapping_sub(1i32 << bits) >> (bits + 1)
                };
            }
            (o, outside)
        }
        self.with_rule(|bits, r, exact| each(x, bits, r, exact))
    }

    /// Calls `f` with the model's rule (fraction bits, rounding, exact) from one call site
    /// per rule, with the rounding and exactness as constants there, so a lane loop `f`
    /// inlines is compiled once per rule with its choices made outside the loop.
    #[inline(always)]
    pub(crate) fn with_rule<R>(&self, f: impl Fn(u32, Rounding, bool) -> R) -> R {
        let b = self.bits;
        match (self.exact, self.rounding) {
            (true, _) => f(b, Rounding::NearestEven, true),
            (false, Rounding::NearestEven) => f(b, Rounding::NearestEven, false),
            (false, Rounding::TowardZero) => f(b, Rounding::TowardZero, false),
            (false, Rounding::Floor) => f(b, Rounding::Floor, false),
        }
    }
}

/// The magnitude below which [`Quantizer::origins32`] computes a lane's origin in 32 bits
/// (2^28 fixed-point units: the rounded value fits in 29 bits, so 2n - 2^bits cannot
/// overflow, and the footprint's +1 and 6-bit offsets leave it far inside i32).
pub(crate) const ORIGIN32_LIMIT: f64 = (1u32 << 28) as f64;

/// 1.5 * 2^52: adding it to |x| < 2^51 rounds x to an integer, ties to even (the default
/// rounding mode), and leaves that integer in the low bits of the sum.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// Footprint origin i0 = floor(u - 0.5) (Vulkan "Texel Selection", LINEAR filter), with
/// `x_scaled` = u * 2^bits. Fixed point (docs/sources.md, Sub-texel model; configurable; see [`Precision`]):
/// round u * 2^bits to an integer n with `rounding`, then i0 = floor(n / 2^bits - 0.5),
/// computed exactly as (2n - 2^bits) >> (bits + 1). Exact: floor(u - 0.5) with no rounding.
/// NaN reads as u = 0 (guess).
///
/// Precondition: `bits <= 20` ([`MAX_FRACTION_BITS`], what [`Precision`] accepts); asserted.
#[inline(always)]
pub fn texel_origin(x_scaled: f64, bits: u32, rounding: Rounding, exact: bool) -> i64 {
    assert!(
        bits <= MAX_FRACTION_BITS,
        "texel_origin: {bits} fractional bits (at most {MAX_FRACTION_BITS})"
    );
    texel_origin_unchecked(x_scaled, bits, rounding, exact)
}

/// [`texel_origin`] without the check (the [`Quantizer`] holds at most 20 bits).
#[inline(always)]
pub(crate) fn texel_origin_unchecked(
    x_scaled: f64,
    bits: u32,
    rounding: Rounding,
    exact: bool,
) -> i64 {
    let x = x_scaled.clamp(-COORD_LIMIT, COORD_LIMIT);
    if exact {
        let x = if x.is_nan() { 0.0 } else { x };
        let f = x.floor();
        // x - f is exact; floor(x - 0.5) is f when the fraction is at least one half.
        return if x - f >= 0.5 { f as i64 } else { f as i64 - 1 };
    }
    // NaN reads as 0; after the clamp every value converts exactly and nothing overflows.
    let x = if x.is_nan() { 0.0 } else { x };
    let n = match rounding {
        Rounding::NearestEven => {
            // the integer nearest x, ties to even (valid for |x| < 2^51; see ROUND_MAGIC)
            (x + ROUND_MAGIC).to_bits() as i64 - ROUND_MAGIC.to_bits() as i64
        }
        Rounding::TowardZero => x as i64,
        Rounding::Floor => {
            let t = x as i64;
            if (t as f64) > x {
                t - 1
            } else {
                t
            }
        }
    };
    (2 * n - (1i64 << bits)) >> (bits + 1)
}

/// The four texel positions in result order (i0, j1), (i1, j1), (i1, j0), (i0, j0)
/// (Vulkan "Texel Gathering"). AOFFI adds one (dx, dy) in whole texels after the floor; PTP
/// puts texel k at (i0 + dx_k, j0 + dy_k) (Vulkan's ConstOffsets rule). Offsets are read as
/// 6-bit signed values (NAK, docs/sources.md).
///
/// Precondition: |i0|, |j0| <= [`FOOTPRINT_LIMIT`] (2^62), so adding 1 and an offset cannot
/// overflow; asserted. ([`texel_origin`] returns at most 2^50 in magnitude.)
#[inline(always)]
pub fn footprint(i0: i64, j0: i64, mode: OffsetMode, offsets: &[[i8; 2]; 4]) -> [(i64, i64); 4] {
    assert!(
        i0.unsigned_abs() <= FOOTPRINT_LIMIT as u64 && j0.unsigned_abs() <= FOOTPRINT_LIMIT as u64,
        "footprint: origin ({i0}, {j0}) beyond +-2^62"
    );
    footprint_unchecked(i0, j0, mode, offsets)
}

/// An offset as the hardware reads it: the low 6 bits, signed (NAK, docs/sources.md). In 32
/// bits, since 8-bit shifts have no vector form on x86.
#[inline(always)]
pub(crate) fn six(v: i8) -> i32 {
    ((v as i32) << 26) >> 26
}

/// Largest |i0| and |j0| [`footprint`] accepts.
pub const FOOTPRINT_LIMIT: i64 = 1 << 62;

/// [`footprint`] without the check (origins from [`texel_origin`] are within 2^50).
#[inline(always)]
pub(crate) fn footprint_unchecked(
    i0: i64,
    j0: i64,
    mode: OffsetMode,
    offsets: &[[i8; 2]; 4],
) -> [(i64, i64); 4] {
    let six = |v: i8| six(v) as i64;
    match mode {
        OffsetMode::None => [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)],
        OffsetMode::Aoffi => {
            let (dx, dy) = (six(offsets[0][0]), six(offsets[0][1]));
            let (i, j) = (i0 + dx, j0 + dy);
            [(i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)]
        }
        OffsetMode::Ptp => {
            let p = |k: usize| (i0 + six(offsets[k][0]), j0 + six(offsets[k][1]));
            [p(0), p(1), p(2), p(3)]
        }
    }
}

/// Wrap one integer texel coordinate (Vulkan "Wrapping Operation", table of address modes):
/// Some(coordinate) inside the texture, or None for a border texel (clamp to border).
///
/// Precondition: 1 <= `size` <= [`MAX_WRAP_SIZE`] (2^32; texture sizes are u32): a size of 0
/// has no texel to wrap to; asserted.
#[inline(always)]
pub fn wrap(i: i64, size: i64, mode: AddressMode) -> Option<i64> {
    assert!(
        (1..=MAX_WRAP_SIZE).contains(&size),
        "wrap: size {size} outside 1..=2^32"
    );
    wrap_in(i, size, mode)
}

/// Largest size [`wrap`] accepts.
pub const MAX_WRAP_SIZE: i64 = 1 << 32;

/// The integers the wrap rule runs in: i64 on the per-lane path, i32 on the lane-parallel
/// one. Its arithmetic wraps instead of checking for overflow (nothing overflows: the
/// per-lane path's coordinates are within +-2^51 and sizes at most 2^32; the lane-parallel
/// path's within +-2^29 and sizes at most 2^24, which `Gatherer::new` decides once), so the
/// kernels built on it stay small under `overflow-checks`.
pub(crate) trait TexelCoord: Copy + Ord + std::ops::BitAnd<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    fn plus(self, o: Self) -> Self;
    fn minus(self, o: Self) -> Self;
    fn rem_euclid(self, m: Self) -> Self;
}

macro_rules! texel_coord {
    ($($t:ty),*) => {$(
        impl TexelCoord for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn plus(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn minus(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn rem_euclid(self, m: Self) -> Self {
                <$t>::rem_euclid(self, m)
            }
        }
    )*};
}
texel_coord!(i32, i64);

/// The wrap rule itself (Vulkan "Wrapping Operation"), in any [`TexelCoord`]: the one
/// place it is written; [`wrap`] without the size check (texture sizes are 1..=65536).
#[inline(always)]
pub(crate) fn wrap_in<I: TexelCoord>(i: I, size: I, mode: AddressMode) -> Option<I> {
    #[inline(always)]
    fn mirror<I: TexelCoord>(a: I) -> I {
        if a >= I::ZERO {
            a
        } else {
            I::ZERO.minus(I::ONE.plus(a))
        }
    }
    let last = size.minus(I::ONE);
    let pow2 = size & last == I::ZERO;
    match mode {
        AddressMode::ClampToEdge => Some(i.max(I::ZERO).min(last)),
        AddressMode::Repeat => Some(if pow2 {
            repeat_pow2(i, size)
        } else {
            i.rem_euclid(size)
        }),
        AddressMode::MirroredRepeat => {
            let period = size.plus(size);
            // on a power of two, the low bits are the Euclidean remainder (two's complement)
            let r = if pow2 {
                repeat_pow2(i, period)
            } else {
                i.rem_euclid(period)
            };
            Some(last.minus(mirror(r.minus(size))))
        }
        AddressMode::ClampToBorder => (I::ZERO <= i && i < size).then_some(i),
        AddressMode::MirrorClampToEdge => Some(mirror(i).max(I::ZERO).min(last)),
    }
}

/// False for the address modes [`wrap_in`] never answers None (a border texel) for: every
/// mode but clamp to border (the match of `wrap_in`; the test `only_clamp_to_border_borders`
/// checks every mode around small and large sizes).
#[inline(always)]
pub(crate) fn may_border(mode: AddressMode) -> bool {
    mode == AddressMode::ClampToBorder
}

/// Repeat on a power-of-two `size`: the low bits, equal to `i.rem_euclid(size)` there
/// (two's complement), without a division.
#[inline(always)]
pub(crate) fn repeat_pow2<I: TexelCoord>(i: I, size: I) -> I {
    i & size.minus(I::ONE)
}

/// dref clamped to [0, 1] for UNORM depth formats (Vulkan "Depth Compare Operation"; not for
/// float depth). NaN stays NaN.
#[inline(always)]
pub fn clamp_dref(dref: f32) -> f32 {
    dref.clamp(0.0, 1.0)
}

/// Depth compare (Vulkan "Depth Compare Operation"): 1.0 where `dref OP d` holds, else 0.0.
#[inline(always)]
pub fn depth_compare(op: CompareOp, dref: f32, d: f32) -> u32 {
    if op.holds(dref, d) {
        1.0f32.to_bits()
    } else {
        0
    }
}

/// The value rule of a gather's real texels: compare the depth component with dref under
/// depth compare (Vulkan "Depth Compare Operation"; the swizzle and component select do not
/// apply), else the swizzled, selected component ([`resolve_value`]).
pub(crate) fn lane_value(
    format: Format,
    swizzle: Swizzle,
    component: u8,
    compare: Option<CompareOp>,
) -> Value {
    match compare {
        Some(op) => Value::Compare {
            op,
            decoder: format.decoder(0),
            clamp_dref: format.is_unorm_depth(),
        },
        None => resolve_value(format, swizzle, component as usize),
    }
}

/// Swizzle, then select (Vulkan "Component Swizzle", then the gather's component; NVIDIA's
/// header X/Y/Z/W_SOURCE): post-swizzle component `component` reads a converted component,
/// the (0, 0, 0, 1) fill for components the format lacks, or the constant 0 or 1.
pub(crate) fn resolve_value(format: Format, swizzle: Swizzle, component: usize) -> Value {
    let fill = |c: usize| if c == 3 { format.one() } else { 0 };
    match swizzle.0[component.min(3)] {
        Source::Zero => Value::Const(0),
        Source::One => Value::Const(format.one()),
        src => {
            let c = src as usize;
            if c < format.components() {
                Value::Fetch {
                    element: if format.is_packed() { 0 } else { c },
                    decoder: format.decoder(c),
                }
            } else {
                Value::Const(fill(c))
            }
        }
    }
}

/// The border texel's value of `component` (Vulkan "Texel Replacement"): the border word,
/// read as the format reads (f32 bits or raw integer), not swizzled, and (0, 0, 1) for
/// components the format lacks (docs/sources.md, Decisions).
pub fn border_value(border: &BorderColor, format: Format, component: usize) -> u32 {
    let c = component.min(3);
    if c < format.components() {
        border.words[c]
    } else if c == 3 {
        format.one()
    } else {
        0
    }
}

/// The value of the corner texel of a seamless cube footprint, where one texel has no face
/// (Vulkan "Cube Map Edge Handling" recommends averaging; unmeasured on NVIDIA): for float,
/// normalized and compared values, the average of the other three, in lavapipe's arithmetic
/// (((v(i0,j0) + v(i1,j0)) + (v(i0,j1) + v(i1,j1))) * (1/3) in f32 with the corner as 0;
/// with depth compare the values are already compared, giving 0, 1/3, 2/3 or 1); for integer
/// formats, a copy of the footprint texel in the same column (same i, other j), which is what
/// lavapipe's corner handling for pure-integer formats returns; a swizzle constant stays
/// that constant.
///
/// Precondition: `corner` < 4 (a position in the footprint); asserted.
#[inline]
pub fn cube_corner_value(values: &[u32; 4], corner: usize, integer: bool) -> u32 {
    assert!(
        corner < 4,
        "cube_corner_value: corner {corner} is not a footprint position (0..4)"
    );
    cube_corner_unchecked(values, corner, integer)
}

/// [`cube_corner_value`] without the check (corners come from enumerating the footprint).
#[inline]
pub(crate) fn cube_corner_unchecked(values: &[u32; 4], corner: usize, integer: bool) -> u32 {
    if integer {
        return values[3 - corner];
    }
    let v = |k: usize| {
        if k == corner {
            0.0
        } else {
            f32::from_bits(values[k])
        }
    };
    // result order: 0 = (i0, j1), 1 = (i1, j1), 2 = (i1, j0), 3 = (i0, j0)
    (((v(3) + v(2)) + (v(0) + v(1))) * (1.0f32 / 3.0)).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The neighbouring f64 values of `x` (next below, x, next above).
    fn around(x: f64) -> [f64; 3] {
        let up = |v: f64| {
            f64::from_bits(if v >= 0.0 {
                v.to_bits() + 1
            } else {
                v.to_bits() - 1
            })
        };
        let down = |v: f64| -up(-v);
        [down(x), x, up(x)]
    }

    #[test]
    fn origins32_equal_texel_origin() {
        let mut xs = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
        ];
        for base in [
            ORIGIN32_LIMIT,
            0.5,
            1.5,
            2.5,
            1.0,
            1024.0,
            65_536.5,
            1_048_575.5,
        ] {
            for v in around(base).into_iter().chain(around(-base)) {
                xs.push(v);
                xs.push(v - 0.5);
                xs.push(v + 0.5);
            }
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..4000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mag = ((state >> 58) as i32 - 8) as f64; // 2^-8 .. 2^55
            let frac = (state >> 11) as f64 / (1u64 << 53) as f64;
            let sign = if state & 1 == 1 { -1.0 } else { 1.0 };
            xs.push(sign * (1.0 + frac) * mag.exp2());
        }
        let limit_lanes = xs.len().div_ceil(8) * 8;
        xs.resize(limit_lanes, 0.0);
        let mut checked = 0;
        for bits in 0..=MAX_FRACTION_BITS {
            for rounding in [Rounding::NearestEven, Rounding::TowardZero, Rounding::Floor] {
                for exact in [false, true] {
                    let q = Quantizer {
                        scale: (1u64 << bits) as f64,
                        bits,
                        rounding,
                        exact,
                    };
                    for chunk in xs.chunks_exact(8) {
                        let x: [f64; 8] = chunk.try_into().unwrap();
                        let (o, outside) = q.origins32(&x);
                        for k in 0..8 {
                            let accepted = x[k].abs() < ORIGIN32_LIMIT;
                            assert_eq!(outside[k], -(!accepted as i32), "x {}", x[k]);
                            if accepted {
                                let want = texel_origin(x[k], bits, rounding, exact);
                                assert_eq!(
                                    o[k] as i64, want,
                                    "x {} bits {bits} {rounding:?} exact {exact}",
                                    x[k]
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked} lanes compared");
    }

    #[test]
    fn only_clamp_to_border_borders() {
        for mode in [
            AddressMode::ClampToEdge,
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
            AddressMode::ClampToBorder,
            AddressMode::MirrorClampToEdge,
        ] {
            let mut bordered = false;
            for size in [1i64, 2, 3, 7, 8, 1000, 1 << 24] {
                for i in (-3 * size - 70..=3 * size + 70).step_by((size as usize / 50).max(1)) {
                    let some = wrap_in(i, size, mode).is_some();
                    assert!(some || may_border(mode), "{mode:?} size {size} i {i}");
                    bordered |= !some;
                }
            }
            assert_eq!(bordered, may_border(mode), "{mode:?}");
        }
    }

    #[test]
    fn six_reads_the_low_six_bits_signed() {
        for v in i8::MIN..=i8::MAX {
            let low = (v as u8 & 63) as i32;
            let want = if low >= 32 { low - 64 } else { low };
            assert_eq!(six(v), want, "{v}");
        }
    }
}
