//! A whole chunk's texel addresses written with AVX2: four lanes at a time, each lane's four
//! [`TexelAddress`] entries made in two 32-byte halves, two entries each, and stored as they
//! are (the scalar writer stores an entry's discriminant, size and address one by one: seven
//! instructions an entry against about two here; docs/benchmarks.md).
use super::SimdLevel;
use crate::gather::LANES;
use crate::sites::{LaneTexels, TexelAddress};

/// What turns a storage index into a byte address: a texel whose first storage element is
/// at index `i` (the kernel's index minus `element`) starts at `base + i * element_bytes`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AddressRule {
    pub(crate) base: u64,
    pub(crate) element_bytes: u32,
    pub(crate) texel_bytes: u32,
    pub(crate) element: u32,
}

impl AddressRule {
    /// The entry of a read texel at storage index `index` (the scalar writer's rule).
    #[inline(always)]
    pub(crate) fn at(&self, index: u32) -> TexelAddress {
        let first = u64::from(index.wrapping_sub(self.element));
        TexelAddress::Texel {
            bytes: self.texel_bytes,
            address: self
                .base
                .wrapping_add(first.wrapping_mul(u64::from(self.element_bytes))),
        }
    }
}

/// Texel `t` of lane `k`'s entry: [`AddressRule::at`] of its index, or `Border` where
/// `real` says it is not read.
#[inline(always)]
pub(crate) fn entry(
    index: &[[u32; LANES]; 4],
    real: Option<&[[bool; LANES]; 4]>,
    rule: AddressRule,
    t: usize,
    k: usize,
) -> TexelAddress {
    match real {
        Some(real) if !real[t][k] => TexelAddress::Border,
        _ => rule.at(index[t][k]),
    }
}

/// Writes a whole chunk's entries ([`entry`] of every texel of every lane): with AVX2 where
/// `level` is `Avx2` and the CPU has it, else entry by entry.
pub(crate) fn write_chunk(
    level: SimdLevel,
    index: &[[u32; LANES]; 4],
    real: Option<&[[bool; LANES]; 4]>,
    rule: AddressRule,
    out: &mut [LaneTexels; LANES],
) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && super::avx2_available() {
        // SAFETY: `write_chunk_avx2` only requires AVX2, which `avx2_available` has just
        // checked at run time.
        unsafe {
            match real {
                None => write_chunk_avx2::<false>(index, &ALL_READ, rule, out),
                Some(real) => write_chunk_avx2::<true>(index, real, rule, out),
            }
        };
        return;
    }
    let _ = level;
    for (k, lane) in out.iter_mut().enumerate() {
        lane.texels = std::array::from_fn(|t| entry(index, real, rule, t, k));
    }
}

/// The first 8 bytes of a `TexelAddress::Texel` entry of `bytes` bytes, and of a `Border`
/// entry (its discriminant; the rest of a `Border` entry is padding).
fn headers(texel_bytes: u32) -> (u64, u64) {
    // (`repr(u32)`: the discriminant in the low 4 bytes, a texel's size in the next 4)
    (u64::from(texel_bytes) << 32, 1)
}

/// Every texel read (what [`write_chunk_avx2`] is handed where no texel is a border).
#[cfg(target_arch = "x86_64")]
static ALL_READ: [[bool; LANES]; 4] = [[true; LANES]; 4];

/// Writes every lane's four entries into `out`: [`AddressRule::at`] of `index[t][k]`, or,
/// with `BORDER`, `TexelAddress::Border` where `real[t][k]` is false (two instantiations,
/// so that the loop does not test for border texels where there are none).
///
/// Four lanes at a time, a lane's record in two 32-byte halves (entries t and t + 1). The
/// indices of texels t and t + 1 of the four lanes, one register, multiplied as they lie
/// give the addresses of lanes 0 and 2 (the multiply reads every other index), and shifted
/// by one index those of lanes 1 and 3; one interleave with the headers then makes each
/// lane's half. Three and a quarter instructions a half, the store included, and one
/// shuffle (the earlier interleaving of four-lane rows took seven and five).
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn write_chunk_avx2<const BORDER: bool>(
    index: &[[u32; LANES]; 4],
    real: &[[bool; LANES]; 4],
    rule: AddressRule,
    out: &mut [LaneTexels; LANES],
) {
    use std::arch::x86_64::*;
    let (texel, border) = headers(rule.texel_bytes);
    let texel = _mm256_set1_epi64x(texel as i64);
    let border = _mm256_castsi256_pd(_mm256_set1_epi64x(border as i64));
    let base = _mm256_set1_epi64x(rule.base as i64);
    let element_bytes = _mm256_set1_epi64x(i64::from(rule.element_bytes));
    let element = _mm256_set1_epi32(rule.element as i32);
    let dst = out.as_mut_ptr().cast::<u8>();
    for g in 0..LANES / 4 {
        for h in 0..2 {
            // dwords 0-3: the indices of texel 2h of lanes 4g..4g + 4; 4-7: of texel 2h + 1
            // SAFETY: `index[t]` holds 32 u32, and 4g + 3 < 32.
            let i = unsafe {
                _mm256_loadu2_m128i(
                    index[2 * h + 1].as_ptr().add(4 * g).cast::<__m128i>(),
                    index[2 * h].as_ptr().add(4 * g).cast::<__m128i>(),
                )
            };
            let i = _mm256_sub_epi32(i, element);
            // qwords: lanes (0, 2) of texel 2h, then of 2h + 1; likewise lanes (1, 3)
            let address = |i| _mm256_add_epi64(base, _mm256_mul_epu32(i, element_bytes));
            let even = address(i);
            let odd = address(_mm256_srli_epi64::<32>(i));
            // the headers beside them (a border texel's sign in bit 63 of its qword)
            let [h_even, h_odd] = if BORDER {
                // SAFETY: `real[t]` holds 32 bools (one byte each, 0 or 1), and 4g + 3 < 32:
                // four bytes read unaligned from each of two rows.
                let [lo, hi] = [2 * h, 2 * h + 1].map(|t| unsafe {
                    std::ptr::read_unaligned(real[t].as_ptr().add(4 * g).cast::<i32>())
                });
                let flags = _mm256_cvtepu8_epi32(_mm_set_epi32(0, 0, hi, lo));
                let is_border = _mm256_cmpeq_epi32(flags, _mm256_setzero_si256());
                let pick = |m| {
                    let texel = _mm256_castsi256_pd(texel);
                    _mm256_castpd_si256(_mm256_blendv_pd(texel, border, _mm256_castsi256_pd(m)))
                };
                [pick(_mm256_slli_epi64::<32>(is_border)), pick(is_border)]
            } else {
                [texel, texel]
            };
            // lane j's half: its two headers and addresses interleaved (a border entry's
            // address is padding)
            let halves = [
                _mm256_unpacklo_epi64(h_even, even),
                _mm256_unpacklo_epi64(h_odd, odd),
                _mm256_unpackhi_epi64(h_even, even),
                _mm256_unpackhi_epi64(h_odd, odd),
            ];
            for (j, half) in halves.into_iter().enumerate() {
                // SAFETY: lane 4g + j < 32 of `out`; a `LaneTexels` is its four 16-byte
                // `TexelAddress` entries (`repr(transparent)`), each `repr(u32)`: the
                // discriminant, then a `Texel`'s size and address, so the 8-byte header
                // and the address written are a valid entry (a `Border` entry's other 12
                // bytes are padding).
                unsafe {
                    let lane = dst.add((4 * g + j) * std::mem::size_of::<LaneTexels>());
                    _mm256_storeu_si256(lane.add(32 * h).cast::<__m256i>(), half);
                }
            }
        }
    }
}

/// The layout [`write_chunk_avx2`] relies on.
const _: () = {
    assert!(std::mem::size_of::<TexelAddress>() == 16);
    assert!(std::mem::size_of::<LaneTexels>() == 64);
    assert!(std::mem::align_of::<LaneTexels>() == 8);
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::array::{uniform32, uniform4};
    use proptest::prelude::{any, prop_oneof};
    use proptest::sample::select;

    /// The headers are the first 8 bytes of the entries they stand for, and a whole entry
    /// built from a header and an address is the entry.
    #[test]
    #[cfg(target_endian = "little")]
    fn headers_are_the_entries_first_bytes() {
        let (texel, border) = headers(12);
        let t = TexelAddress::Texel {
            bytes: 12,
            address: 0x1234_5678_9abc,
        };
        let bytes = |e: &TexelAddress| -> [u8; 16] {
            // SAFETY: a `Texel` entry has no padding: discriminant, size and address.
            unsafe { std::mem::transmute_copy(e) }
        };
        let b = bytes(&t);
        assert_eq!(u64::from_le_bytes(b[..8].try_into().unwrap()), texel);
        assert_eq!(
            u64::from_le_bytes(b[8..].try_into().unwrap()),
            0x1234_5678_9abc
        );
        // a Border entry's discriminant (its other bytes are padding)
        let words = [border as u32, 0, 0, 0];
        // SAFETY: 16 bytes whose first 4 are Border's discriminant, the rest padding.
        let e: TexelAddress = unsafe { std::mem::transmute(words) };
        assert_eq!(e, TexelAddress::Border);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// The AVX2 writer writes what the entry-by-entry writer does, for indices anywhere
        /// in u32 (below `element` too), addresses past 2^32, and any border texels.
        #[test]
        fn avx2_writes_the_entries_the_scalar_writer_does(
            index in uniform4(uniform32(prop_oneof![any::<u32>(), 0..1u32 << 20])),
            real in uniform4(uniform32(proptest::bool::weighted(0.8))),
            base in any::<u64>(),
            element_bytes in select(vec![1u32, 2, 4, 8, 16]),
            texel_bytes in select(vec![1u32, 2, 4, 8, 16]),
            element in 0..4u32,
        ) {
            let rule = AddressRule { base, element_bytes, texel_bytes, element };
            for real in [None, Some(&real)] {
                let mut want = [LaneTexels::default(); LANES];
                let mut got = [LaneTexels::default(); LANES];
                write_chunk(SimdLevel::Scalar, &index, real, rule, &mut want);
                write_chunk(crate::simd_level(), &index, real, rule, &mut got);
                proptest::prop_assert_eq!(got, want, "borders: {}", real.is_some());
            }
        }
    }
}
