//! Footprint origins from f32 fixed-point coordinates, for the lane-parallel kernels (8
//! lanes a 256-bit register instead of the 4 of f64):
//!
//! * exact ones ([`Quantizer::origins32_f32`]): a 2D coordinate times a power-of-two scale
//!   (a texture of power-of-two size) is exact in f32 as in f64, so its origin is the
//!   precision model's;
//! * bracketed ones ([`Quantizer::origins_bracketed`]): the cube kernel's f32 projection
//!   ([`crate::cube::scaled_f32`]) is not bit-identical to the f64 chain the precision
//!   model is defined on, but provably within a bracket of it; where both ends of the
//!   bracket have the same origin, so has the f64 chain's coordinate.

use super::{Quantizer, Rounding};

impl Quantizer {
    /// [`Quantizer::origins32`] of f32 coordinates: the origin of each lane's x
    /// ([`texel_origin`](super::texel_origin) of x widened to f64), and -1 for each lane
    /// outside |x| < [`ORIGIN_F32_LIMIT`] (or NaN), 0 for the others; an outside lane's
    /// origin is meaningless (the planar kernel then computes the warp's origins in f64).
    /// For the planar kernel where x = c * size * 2^bits with a power-of-two size: the f32
    /// product is then exact (a power-of-two factor only moves the exponent; an overflow
    /// gives infinity, outside), as the f64 product is, so both hold the same x.
    #[inline(always)]
    pub(crate) fn origins32_f32<const N: usize>(&self, x: &[f32; N]) -> ([i32; N], [i32; N]) {
        #[inline(always)]
        fn each<const N: usize>(
            x: &[f32; N],
            bits: u32,
            r: Rounding,
            exact: bool,
        ) -> ([i32; N], [i32; N]) {
            let mut o = [0i32; N];
            let mut outside = [0i32; N];
            for k in 0..N {
                // (an outside lane is converted anyway, harmlessly, and not used)
                let inside = x[k].abs() < ORIGIN_F32_LIMIT;
                outside[k] = -(!inside as i32);
                o[k] = origin_f32(x[k], bits, r, exact);
            }
            (o, outside)
        }
        self.with_rule(|bits, r, exact| each(x, bits, r, exact))
    }

    /// The origins of `N` lanes whose fixed-point coordinate x is known only to lie in
    /// [y - delta, y + delta], both ends rounded to f32 (the cube kernel's f32 projection,
    /// [`crate::cube::scaled_f32_bracket`]): the origin of each end in 32-bit arithmetic; where
    /// they agree, that is the origin of x, since the origin never decreases as x grows (every
    /// rounding of the model is monotone, and so is the shift). Returns the origins, and -1 for
    /// each lane where the ends disagree or |y| exceeds half [`ORIGIN_F32_LIMIT`] (or is NaN),
    /// 0 for the others; such a lane's origin is meaningless, and the caller takes the
    /// per-lane path for it. Near one lane in 2^19 / size disagrees on random coordinates.
    ///
    /// Precondition: 0 <= delta <= half [`ORIGIN_F32_LIMIT`] (so both ends of an accepted
    /// lane lie within the limit); asserted in debug builds.
    #[inline(always)]
    pub(crate) fn origins_bracketed<const N: usize>(
        &self,
        y: &[f32; N],
        delta: f32,
    ) -> ([i32; N], [i32; N]) {
        #[inline(always)]
        fn each<const N: usize>(
            y: &[f32; N],
            delta: f32,
            bits: u32,
            r: Rounding,
            exact: bool,
        ) -> ([i32; N], [i32; N]) {
            let mut o = [0i32; N];
            let mut unsure = [0i32; N];
            for k in 0..N {
                // (an outside lane's ends are converted anyway, harmlessly, and not used)
                let inside = y[k].abs() <= ORIGIN_F32_LIMIT / 2.0;
                let a = origin_f32(y[k] - delta, bits, r, exact);
                let b = origin_f32(y[k] + delta, bits, r, exact);
                o[k] = b;
                unsure[k] = -((!inside || a != b) as i32);
            }
            (o, unsure)
        }
        debug_assert!(
            (0.0..=ORIGIN_F32_LIMIT / 2.0).contains(&delta),
            "delta {delta}"
        );
        self.with_rule(|bits, r, exact| each(y, delta, bits, r, exact))
    }

    /// Whether [`Quantizer::origins_bracketed`] can hold the coordinates of a texture of
    /// `size` texels: x = u * size * 2^bits and its bracket stay below [`ORIGIN_F32_LIMIT`] for
    /// u in [0, 1] (a cube face's range) when size * 2^bits <= 2^21.
    pub(crate) fn brackets_f32(&self, size: usize) -> bool {
        (size as f64) * self.scale <= (ORIGIN_F32_LIMIT / 2.0) as f64
    }
}

/// [`texel_origin`](super::texel_origin) of an f32 value with |x| < [`ORIGIN_F32_LIMIT`]
/// (2^22), in 32-bit arithmetic: the same integer. The rounding of x to an integer n is
/// exact in f32 there (ties to even: adding 1.5 * 2^23, whose sum has an ulp of 1; the
/// others: `trunc` or `floor`, whose integral result the same addition leaves unrounded),
/// and n is the bit pattern of n + 1.5 * 2^23 minus the magic number's (the conversion
/// without a float-to-integer instruction, which the compiler does not vectorize with
/// Rust's saturating semantics). (2n - 2^bits) >> (bits + 1) is then (n - c) >> bits with
/// c = 2^(bits - 1) (1 for 0 bits: (2n - 1) >> 1 = n - 1), c joining the magic number in
/// one constant.
#[inline(always)]
fn origin_f32(x: f32, bits: u32, r: Rounding, exact: bool) -> i32 {
    let magic = ROUND_MAGIC_F32.to_bits() as i32;
    let biased = |v: f32| (v + ROUND_MAGIC_F32).to_bits() as i32;
    if exact {
        // x - f is exact; floor(x - 0.5) is f when the fraction is at least one half.
        let f = x.floor();
        return biased(f)
            .wrapping_sub(magic)
            .wrapping_sub((x - f < 0.5) as i32);
    }
    let c = if bits == 0 { 1 } else { 1i32 << (bits - 1) };
    let n = match r {
        Rounding::NearestEven => biased(x),
        Rounding::TowardZero => biased(x.trunc()),
        Rounding::Floor => biased(x.floor()),
    };
    n.wrapping_sub(magic.wrapping_add(c)) >> bits
}

/// The magnitude below which [`Quantizer::origins_bracketed`] computes an origin in f32 and
/// 32-bit integers (2^22: see [`origin_f32`]).
pub(crate) const ORIGIN_F32_LIMIT: f32 = (1u32 << 22) as f32;

/// 1.5 * 2^23, the f32 counterpart of [`super::ROUND_MAGIC`].
const ROUND_MAGIC_F32: f32 = 12_582_912.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Precision;
    use crate::stages::MAX_FRACTION_BITS;

    /// Every quantizer configuration.
    fn quantizers() -> Vec<Quantizer> {
        let mut qs = vec![Quantizer::new(Precision::Exact).unwrap()];
        for fraction_bits in 0..=MAX_FRACTION_BITS as u8 {
            for rounding in [Rounding::NearestEven, Rounding::TowardZero, Rounding::Floor] {
                qs.push(
                    Quantizer::new(Precision::Fixed {
                        fraction_bits,
                        rounding,
                    })
                    .unwrap(),
                );
            }
        }
        qs
    }

    /// A small deterministic generator (splitmix64).
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn origins_bracketed_vouch_only_for_agreeing_ends() {
        let mut state = 7u64;
        let mut vouched = 0;
        let mut unsure = 0;
        for q in quantizers() {
            let mut ys = vec![
                f32::NAN,
                f32::INFINITY,
                0.0,
                -0.0,
                ORIGIN_F32_LIMIT,
                -ORIGIN_F32_LIMIT,
            ];
            for _ in 0..800 {
                let r = next(&mut state);
                let mag = (r >> 59) as i32 - 8; // 2^-8 .. 2^23
                let frac = (r >> 20 & 0xff_ffff) as f32 / (1u32 << 24) as f32;
                let sign = if r & 1 == 1 { -1.0 } else { 1.0 };
                ys.push(sign * (1.0 + frac) * (mag as f32).exp2());
                // a threshold of the rounding, and around it
                let t =
                    ((r >> 8 & 0xfff) as f32 - 2048.0) * (q.scale as f32) + 0.5 * q.scale as f32;
                ys.push(t);
                ys.push(t - 0.5);
                ys.push(t + 0.25);
            }
            ys.resize(ys.len().div_ceil(8) * 8, 0.0);
            for delta in [0.0f32, 2f32.powi(-12), 0.01, 0.5, 3.0] {
                for chunk in ys.chunks_exact(8) {
                    let y: [f32; 8] = chunk.try_into().unwrap();
                    let (o, flag) = q.origins_bracketed(&y, delta);
                    for k in 0..8 {
                        let (lo, hi) = (y[k] - delta, y[k] + delta);
                        let inside = y[k].abs() <= ORIGIN_F32_LIMIT / 2.0;
                        let at = |v: f32| q.origin(v as f64);
                        let agree = inside && at(lo) == at(hi);
                        assert_eq!(flag[k], -(!agree as i32), "y {} delta {delta} {q:?}", y[k]);
                        if agree {
                            // every x between the ends has that origin
                            for x in [lo as f64, (lo as f64 + hi as f64) / 2.0, hi as f64] {
                                assert_eq!(
                                    o[k] as i64,
                                    q.origin(x),
                                    "y {} delta {delta} {q:?}",
                                    y[k]
                                );
                            }
                            vouched += 1;
                        } else {
                            unsure += 1;
                        }
                    }
                }
            }
        }
        assert!(
            vouched > 100_000 && unsure > 1000,
            "{vouched} vouched, {unsure} unsure"
        );
    }

    #[test]
    fn origins32_f32_equal_texel_origin() {
        let limit = ORIGIN_F32_LIMIT;
        let up = |v: f32, k: i32| f32::from_bits((v.to_bits() as i32 + k) as u32);
        let mut xs = vec![
            0.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            1.0e-40,
            -1.0e-40,
            f32::MIN_POSITIVE,
        ];
        for base in [limit, limit / 2.0, 0.5, 1.5, 2.5, 1.0, 1024.0, 65_536.5] {
            for k in -3..=3 {
                for v in [up(base, k), -up(base, k)] {
                    xs.extend([v, v - 0.5, v + 0.5]);
                }
            }
        }
        let mut state = 5u64;
        for _ in 0..4000 {
            let r = next(&mut state);
            let mag = (r >> 59) as i32 - 8; // 2^-8 .. 2^23, scaled below up to 2^31
            let frac = (r >> 20 & 0xff_ffff) as f32 / (1u32 << 24) as f32;
            let sign = if r & 1 == 1 { -1.0 } else { 1.0 };
            let x: f32 = sign * (1.0 + frac) * (mag as f32).exp2();
            xs.push(x);
            xs.push(x * 256.0);
            xs.push(x.round() + 0.5);
        }
        xs.resize(xs.len().div_ceil(8) * 8, 0.0);
        let mut checked = 0;
        for q in quantizers() {
            for chunk in xs.chunks_exact(8) {
                let x: [f32; 8] = chunk.try_into().unwrap();
                let (o, outside) = q.origins32_f32(&x);
                for k in 0..8 {
                    let accepted = x[k].abs() < ORIGIN_F32_LIMIT;
                    assert_eq!(outside[k], -(!accepted as i32), "x {} {q:?}", x[k]);
                    if accepted {
                        assert_eq!(o[k] as i64, q.origin(x[k] as f64), "x {} {q:?}", x[k]);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500_000, "{checked} lanes compared");
    }

    #[test]
    fn a_power_of_two_scale_is_exact_in_f32() {
        let mut state = 9u64;
        for _ in 0..20_000 {
            let r = next(&mut state);
            let c = f32::from_bits(r as u32);
            let scale = ((r >> 32) % 45) as i32; // size * 2^bits: up to 2^24 * 2^20
            let s = (scale as f32).exp2();
            let (x32, x64) = (c * s, c as f64 * (s as f64));
            if x64.abs() < ORIGIN_F32_LIMIT as f64 {
                assert_eq!(x32 as f64, x64, "c {c:e} scale 2^{scale}");
            } else if !c.is_nan() {
                assert!(x32.abs() >= ORIGIN_F32_LIMIT, "c {c:e} scale 2^{scale}");
            }
        }
    }

    /// The f64 chain the precision model sees for a cube lane: fl64(fl64(sc / ma) + 1) / 2
    /// (exact) times size * 2^bits, as `cube::divide_axes` and the scale compute it.
    fn f64_chain(sc: f32, ma: f32, scale: f64) -> f64 {
        let (s, _) = crate::cube::divide_axes(sc, 0.0, ma);
        s * scale
    }

    /// Checks `cube::scaled_f32`'s bracket around the f64 chain for one (sc, ma), and that
    /// the origin it vouches for is the f64 chain's; whether it vouched.
    fn check_bracket(sc: f32, ma: f32, size: usize, q: &Quantizer) -> bool {
        let scale = size as f64 * q.scale;
        let half = (scale / 2.0) as f32;
        assert_eq!(half as f64, scale / 2.0);
        let delta = crate::cube::scaled_f32_bracket(half);
        let y = crate::cube::scaled_f32(sc, ma, half);
        let x = f64_chain(sc, ma, scale);
        if x.is_nan() {
            assert!(y.is_nan(), "sc {sc} ma {ma}");
            return false;
        }
        assert!(
            ((y - delta) as f64) <= x && x <= (y + delta) as f64,
            "sc {sc:e} ma {ma:e} size {size} {q:?}: x {x} y {y} delta {delta}"
        );
        let (o, flag) = q.origins_bracketed(&[y], delta);
        if flag[0] == 0 {
            assert_eq!(
                o[0] as i64,
                q.origin(x),
                "sc {sc:e} ma {ma:e} size {size} {q:?}"
            );
        }
        flag[0] == 0
    }

    #[test]
    fn f32_projection_brackets_the_f64_chain_at_random() {
        let mut state = 11u64;
        let mut vouched = 0usize;
        let mut lanes = 0usize;
        for q in quantizers() {
            for size in [1usize, 2, 3, 7, 64, 100, 1000, 8191, 1 << 16] {
                if !q.brackets_f32(size) {
                    continue;
                }
                for _ in 0..300 {
                    let r = next(&mut state);
                    let f = |b: u64| (b & 0xff_ffff) as f32 / (1u32 << 23) as f32 - 1.0;
                    let (x, y, z) = (f(r), f(r >> 24), f(r.rotate_left(24)));
                    let (_, sc, tc, ma) = crate::cube::select_axes(x, y, z);
                    for c in [sc, tc] {
                        vouched += check_bracket(c, ma, size, &q) as usize;
                        lanes += 1;
                    }
                }
            }
        }
        // the bracket almost always vouches (about one lane in 2^19 / size is unsure)
        assert!(
            lanes > 20_000 && vouched * 1000 > lanes * 995,
            "{vouched} of {lanes}"
        );
    }

    #[test]
    fn f32_projection_brackets_the_f64_chain_at_the_edges() {
        // quotients near -1, 0 and 1, tiny and subnormal axes, and quotients that put the
        // exact coordinate on or next to a change of origin
        let mut cases: Vec<(f32, f32)> = Vec::new();
        for ma in [
            1.0f32,
            0.75,
            3.0e-39,
            1.0e-30,
            7.0e20,
            f32::MAX,
            f32::MIN_POSITIVE,
        ] {
            let ulp = |v: f32, k: i32| f32::from_bits((v.to_bits() as i32 + k) as u32);
            for k in 0..4 {
                cases.push((ulp(ma, -k), ma));
                cases.push((-ulp(ma, -k), ma));
            }
            for sc in [0.0, -0.0, f32::MIN_POSITIVE, 1.0e-45, ma * 0.5, -ma * 0.5] {
                cases.push((sc, ma));
            }
        }
        cases.push((0.0, 0.0));
        cases.push((f32::INFINITY, f32::INFINITY));
        cases.push((0.5, f32::INFINITY));
        let mut unsure = 0;
        let mut checked = 0;
        for q in quantizers() {
            for size in [1usize, 3, 64, 1000] {
                if !q.brackets_f32(size) {
                    continue;
                }
                for &(sc, ma) in &cases {
                    check_bracket(sc, ma, size, &q);
                    checked += 1;
                }
                // the thresholds: x = m * 2^bits + 2^(bits-1) +- 1/2 (or half-integers when
                // exact), reached by q = x / half - 1, and the f32 values around that q
                let scale = size as f64 * q.scale;
                let step = q.scale;
                for offset in [0.0, -0.5] {
                    let mut x = step / 2.0 + offset;
                    while x < scale {
                        let quotient = (x / (scale / 2.0) - 1.0) as f32;
                        for k in -3..=3 {
                            let sc = f32::from_bits((quotient.to_bits() as i32 + k) as u32);
                            if sc.abs() <= 1.0 {
                                unsure += !check_bracket(sc, 1.0, size, &q) as usize;
                                checked += 1;
                            }
                        }
                        x += step * (size as f64 / 7.0).ceil();
                    }
                }
            }
        }
        assert!(
            checked > 10_000 && unsure > 100,
            "{checked} checked, {unsure} unsure"
        );
    }
}
