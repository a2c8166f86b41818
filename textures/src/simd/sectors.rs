//! The 32-byte sectors of a chunk's texels, and which of them a lane brings first
//! ([`KernelTexels::sectors`](crate::KernelTexels::sectors)): the lane masks of equal sectors
//! made with AVX2 (a compare and a move-mask, eight lanes an instruction) where the level
//! allows, else lane by lane; the rule that combines them is written once, here.
use super::SimdLevel;
use crate::gather::LANES;

/// The sectors of a chunk's texels: `sector[t][k]` is the sector of texel `t` (gather order)
/// of lane `k` (its storage index shifted right by the caller's shift), and `fresh[t]` the
/// lanes (bits) whose texel `t` is read and lies in a sector that neither an earlier texel
/// of its lane nor the same texel of the lane before lies in (where that texel is read).
/// Marking the sectors of the fresh texels marks every read texel's sector: a texel left out
/// lies in the sector of one marked, or of one left out for the same reason, and so on back
/// to a marked one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TexelSectors {
    /// Each texel's sector.
    pub sector: [[u32; LANES]; 4],
    /// The lanes (bits) whose texel brings its sector first.
    pub fresh: [u32; 4],
}

/// The lane masks the rule combines: the lanes whose texel `t` is real (`real[t]`: not a
/// border texel), where its sector equals the lane before's (`previous[t]`, bit 0 never) and
/// where it equals texel `e`'s of the same lane (`earlier[t][e]`, for `e < t`).
#[derive(Default)]
struct Equal {
    real: [u32; 4],
    previous: [u32; 4],
    earlier: [[u32; 4]; 4],
}

/// Writes into `out` the [`TexelSectors`] of `index` (every entry), where the texels read are those of `lanes` (bits) that
/// `real` says are not border texels (None: none is), and the sector of an index is the
/// index shifted right by `shift` (0 at 32 or more).
#[inline]
pub(crate) fn sectors(
    level: SimdLevel,
    index: &[[u32; LANES]; 4],
    real: Option<&[[bool; LANES]; 4]>,
    lanes: u32,
    shift: u32,
    out: &mut TexelSectors,
) {
    let equal = equal_sectors(level, index, real, shift, &mut out.sector);
    let read = equal.real.map(|r| r & lanes);
    for (t, fresh) in out.fresh.iter_mut().enumerate() {
        *fresh = read[t] & !(read[t] << 1 & equal.previous[t]);
        for (r, equal) in read[..t].iter().zip(&equal.earlier[t]) {
            *fresh &= !(r & equal);
        }
    }
}

/// Writes the sectors into `sector` and compares them: with AVX2 where `level` is `Avx2` and
/// the CPU has it, else lane by lane.
fn equal_sectors(
    level: SimdLevel,
    index: &[[u32; LANES]; 4],
    real: Option<&[[bool; LANES]; 4]>,
    shift: u32,
    sector: &mut [[u32; LANES]; 4],
) -> Equal {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && super::avx2_available() {
        // SAFETY: `equal_sectors_avx2` only requires AVX2, which `avx2_available` has just
        // checked at run time.
        return unsafe { equal_sectors_avx2(index, real, shift, sector) };
    }
    let _ = level;
    // (row by row, the shift checked once: a flattened iterator with a checked shift each
    // compiled to a scalar loop of about ten instructions an index)
    for (s, i) in sector.iter_mut().zip(index) {
        *s = match shift {
            0..32 => i.map(|i| i >> shift),
            _ => [0; LANES],
        };
    }
    // (whole arrays compared in loops of constant counts, the pairs from a table, as the
    // AVX2 path does: compared through a `dyn Fn` over `t`, LLVM built each bit on its own;
    // with the shifts above, 1,019 instructions a chunk instead of 3,222, docs/benchmarks.md)
    let before: [[u32; LANES]; 4] =
        std::array::from_fn(|t| std::array::from_fn(|k| sector[t][k.saturating_sub(1)]));
    let mut equal = Equal::default();
    for t in 0..4 {
        equal.real[t] = real.map_or(u32::MAX, |r| lane_mask(|k| r[t][k]));
        // (lane 0, which has no lane before, compared with itself: its bit cleared)
        equal.previous[t] = lane_mask(|k| sector[t][k] == before[t][k]) & !1;
    }
    for (t, e) in [(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)] {
        equal.earlier[t][e] = lane_mask(|k| sector[t][k] == sector[e][k]);
    }
    equal
}

/// Bit k set where `flag(k)`, for the 32 lanes: a loop of constant count, which the
/// baseline level compares four lanes an instruction and puts in place by constant masks.
#[inline(always)]
fn lane_mask(flag: impl Fn(usize) -> bool) -> u32 {
    let mut m = 0;
    for k in 0..LANES {
        m |= u32::from(flag(k)) << k;
    }
    m
}

/// [`equal_sectors`] eight lanes at a time: the sectors by one shift, each comparison by one
/// compare and one move-mask (the lane before's sectors by an unaligned load one lane back,
/// or, for lanes 0-7, a permute); a texel's 32 real flags (bytes, 0 or 1) by one shift into
/// each byte's top bit and one byte move-mask.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn equal_sectors_avx2(
    index: &[[u32; LANES]; 4],
    real: Option<&[[bool; LANES]; 4]>,
    shift: u32,
    sector: &mut [[u32; LANES]; 4],
) -> Equal {
    use std::arch::x86_64::*;
    let count = _mm_cvtsi32_si128(shift.min(32) as i32);
    let mask = |a: __m256i, b: __m256i| -> u32 {
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))) as u32
    };
    let mut equal = Equal::default();
    // (eight lanes of every texel at a time, in lane order: the lane before lane 8g is
    // stored by then; loops of constant counts, pairs from a table, all unrolled)
    let back = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
    for g in 0..LANES / 8 {
        let mut s = [_mm256_setzero_si256(); 4];
        for (t, s) in s.iter_mut().enumerate() {
            // SAFETY: `index[t]` and `sector[t]` hold 32 u32, and 8g + 7 < 32; from lane
            // 8g - 1 (g > 0), stored by the step before.
            let before = unsafe {
                let i = _mm256_loadu_si256(index[t].as_ptr().add(8 * g).cast::<__m256i>());
                *s = _mm256_srl_epi32(i, count);
                _mm256_storeu_si256(sector[t].as_mut_ptr().add(8 * g).cast::<__m256i>(), *s);
                if g == 0 {
                    // lane 0 against itself (its bit cleared below), lanes 1-7 against 0-6
                    _mm256_permutevar8x32_epi32(*s, back)
                } else {
                    _mm256_loadu_si256(sector[t].as_ptr().add(8 * g - 1).cast::<__m256i>())
                }
            };
            equal.previous[t] |= mask(*s, before) << (8 * g);
        }
        for (t, e) in [(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)] {
            equal.earlier[t][e] |= mask(s[t], s[e]) << (8 * g);
        }
    }
    for previous in &mut equal.previous {
        *previous &= !1;
    }
    equal.real = match real {
        None => [u32::MAX; 4],
        Some(r) => r.map(|flags| {
            // SAFETY: `flags` is 32 bools, one byte each (0 or 1).
            let v = unsafe { _mm256_loadu_si256(flags.as_ptr().cast::<__m256i>()) };
            // (a byte's bit 0 into its bit 7: no bit crosses into the next byte)
            _mm256_movemask_epi8(_mm256_slli_epi16::<7>(v)) as u32
        }),
    };
    equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::array::{uniform32, uniform4};
    use proptest::prelude::{any, prop_oneof};

    /// The rule, lane by lane from its statement: a read texel is fresh unless the lane
    /// before reads the same texel in the same sector, or an earlier texel of its lane read
    /// lies in it.
    fn fresh_by_statement(
        index: &[[u32; LANES]; 4],
        real: &[[bool; LANES]; 4],
        lanes: u32,
        shift: u32,
    ) -> [u32; 4] {
        let sector = |t: usize, k: usize| index[t][k].checked_shr(shift).unwrap_or(0);
        let reads = |t: usize, k: usize| lanes >> k & 1 == 1 && real[t][k];
        std::array::from_fn(|t| {
            (0..LANES)
                .filter(|&k| reads(t, k))
                .filter(|&k| !(k > 0 && reads(t, k - 1) && sector(t, k - 1) == sector(t, k)))
                .filter(|&k| !(0..t).any(|e| reads(e, k) && sector(e, k) == sector(t, k)))
                .fold(0, |m, k| m | 1 << k)
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        /// Every level gives the sectors and fresh lanes of the rule's statement, for
        /// indices near each other (shared sectors) and anywhere in u32, any reported lanes,
        /// any border texels or none, and every shift a storage width gives (and past 31).
        #[test]
        fn every_level_follows_the_statement(
            index in uniform4(uniform32(prop_oneof![0..64u32, any::<u32>()])),
            real in uniform4(uniform32(proptest::bool::weighted(0.8))),
            lanes in prop_oneof![any::<u32>(), proptest::strategy::Just(u32::MAX)],
            shift in prop_oneof![1..=5u32, 30..=40u32],
        ) {
            let want_sector: [[u32; LANES]; 4] =
                index.map(|row| row.map(|i| i.checked_shr(shift).unwrap_or(0)));
            let all_real = [[true; LANES]; 4];
            for (real, real_flags) in [(None, &all_real), (Some(&real), &real)] {
                let want_fresh = fresh_by_statement(&index, real_flags, lanes, shift);
                for level in SimdLevel::ALL {
                    let mut got = TexelSectors::default();
                    sectors(level, &index, real, lanes, shift, &mut got);
                    let borders = real.is_some();
                    proptest::prop_assert_eq!(&got.sector, &want_sector, "{:?} {}", level, borders);
                    proptest::prop_assert_eq!(got.fresh, want_fresh, "{:?} {}", level, borders);
                }
            }
        }
    }

    /// A warp whose lanes all read texel 0 in one sector brings it once (lane 0), and a
    /// texel in a sector of its own is fresh in every lane that reads it.
    #[test]
    fn neighbouring_lanes_share_a_sector() {
        let mut index = [[0u32; LANES]; 4];
        index[1] = std::array::from_fn(|k| 1000 + 64 * k as u32);
        for level in SimdLevel::ALL {
            let mut got = TexelSectors::default();
            sectors(level, &index, None, u32::MAX, 5, &mut got);
            assert_eq!(got.fresh[0], 1, "{level:?}");
            assert_eq!(got.fresh[1], u32::MAX, "{level:?}");
            // texels 2 and 3 lie in texel 0's sector
            assert_eq!(got.fresh[2..], [0, 0], "{level:?}");
        }
    }
}
