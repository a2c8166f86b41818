//! Exact arithmetic used by the models: correctly rounded ratios to f32, and binary16
//! conversions in both rounding modes.

/// The f32 nearest to num/den (ties to even), exactly (num < 2^40, 0 < den < 2^24).
pub fn ratio_to_f32(num: u64, den: u64) -> f32 {
    if num == 0 {
        return 0.0;
    }
    // Scale so that q = floor(num * 2^s / den) has 25 significant bits (24 + a rounding bit).
    let mut s: i32 = 0;
    let (n, d) = (num as u128, den as u128);
    while (n << s.max(0)) >> (-s).max(0) < d << 24 {
        s += 1;
    }
    while (n << s.max(0)) >> (-s).max(0) >= d << 25 {
        s -= 1;
    }
    let scaled_n = if s >= 0 { n << s } else { n };
    let scaled_d = if s >= 0 { d } else { d << (-s) };
    let q = scaled_n / scaled_d;
    let exact = scaled_n % scaled_d == 0;
    // q has 25 bits: drop one, round half to even (sticky from the remainder).
    let mut m = q >> 1;
    let half = q & 1 == 1;
    if half && (!exact || m & 1 == 1) {
        m += 1;
    }
    (m as f64 * 2f64.powi(1 - s)) as f32
}

/// binary16 rounding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfRound {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
}

/// f32 -> binary16 bits in the given mode (IEEE 754; NaN -> quiet NaN with the top payload
/// bits kept, as the `half` crate does; the hardware's NaN is what the probe measures).
pub fn f32_to_f16(x: f32, mode: HalfRound) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | (man >> 13) as u16
        };
    }
    // Value = 1.man * 2^(exp-127); half: normal exponents -14..15.
    let e = exp - 127;
    let full: u64 = if exp == 0 {
        man as u64
    } else {
        (man | 0x80_0000) as u64
    }; // * 2^(e_eff - 23)
    let e_eff = if exp == 0 { -126 } else { e };
    // Target: integer count of half ulps; half ulp = 2^(max(e_eff, -14) - 10).
    let ulp_exp = e_eff.max(-14) - 10;
    let shift = ulp_exp - (e_eff - 23); // right shift of `full`
    let (q, rem_nonzero, half_bit) = if shift <= 0 {
        (full << (-shift), false, false)
    } else if shift >= 64 {
        (0, full != 0, false)
    } else {
        let q = full >> shift;
        let rem = full & ((1u64 << shift) - 1);
        let halfv = 1u64 << (shift - 1);
        (q, rem != 0 && rem != halfv, rem >= halfv)
    };
    let mut q = q;
    if mode == HalfRound::Rn && half_bit && (rem_nonzero || q & 1 == 1) {
        q += 1;
    }
    // q counts ulps of 2^ulp_exp; encode.
    let bits: u64 = if ulp_exp == -24 {
        // Subnormal range or the smallest normal: q < 2^11 means value q * 2^-24.
        q
    } else {
        let be = (ulp_exp + 10 + 15) as u64; // biased exponent for q in [2^10, 2^11)
        if q >= 1 << 11 {
            ((be + 1) << 10) | ((q >> 1) & 0x3ff)
        } else {
            (be << 10) | (q & 0x3ff)
        }
    };
    if bits >= 0x7c00 {
        return sign
            | if mode == HalfRound::Rn {
                0x7c00
            } else {
                0x7bff
            };
    }
    sign | bits as u16
}

/// binary16 bits -> f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f32;
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        31 => {
            f32::from_bits(0x7fc0_0000 | ((h & 0x3ff) as u32) << 13 | ((h & 0x8000) as u32) << 16)
        }
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_is_correctly_rounded() {
        for c in 0..=255u64 {
            let r = ratio_to_f32(c, 255);
            // The exact value lies within half an ulp of r (checked in f64, exact enough here).
            let exact = c as f64 / 255.0;
            let ulp = if r == 0.0 {
                f64::MIN_POSITIVE
            } else {
                (f32::from_bits(r.to_bits() + 1) - r) as f64
            };
            assert!((r as f64 - exact).abs() <= ulp / 2.0, "{c}");
        }
        assert_eq!(ratio_to_f32(1, 2), 0.5);
        assert_eq!(ratio_to_f32(255, 255), 1.0);
        assert_eq!(ratio_to_f32(1, 3), 1.0f32 / 3.0);
        assert_eq!(ratio_to_f32(65534, 65535), (65534.0f64 / 65535.0) as f32);
    }

    #[test]
    fn f16_rn_matches_the_half_crate_and_rz_truncates() {
        for bits in (0..u32::MAX).step_by(99_991) {
            let x = f32::from_bits(bits);
            if x.is_nan() {
                continue;
            }
            assert_eq!(
                f32_to_f16(x, HalfRound::Rn),
                half::f16::from_f32(x).to_bits(),
                "{x:e}"
            );
            let z = f32_to_f16(x, HalfRound::Rz);
            let back = f16_to_f32(z);
            assert!(
                back.abs() <= x.abs(),
                "RZ moves away from zero: {x:e} -> {back:e}"
            );
        }
        assert_eq!(f32_to_f16(65520.0, HalfRound::Rn), 0x7c00);
        assert_eq!(f32_to_f16(65520.0, HalfRound::Rz), 0x7bff);
        assert_eq!(f32_to_f16(1.0 + 3.0 / 4096.0, HalfRound::Rz), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 / 4096.0, HalfRound::Rn), 0x3c01);
        assert_eq!(f32_to_f16(-(1.0 + 3.0 / 4096.0), HalfRound::Rz), 0xbc00);
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    }
}
