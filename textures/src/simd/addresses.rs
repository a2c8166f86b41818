//! A whole chunk's texel addresses written with AVX2: four lanes at a time, the addresses
//! computed four to a register and each lane's four [`TexelAddress`] entries stored as two
//! 32-byte rows (the scalar writer stores an entry's discriminant, size and address one by
//! one: seven instructions an entry against about three here; docs/benchmarks.md).

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
    let border = _mm256_set1_epi64x(border as i64);
    let base = _mm256_set1_epi64x(rule.base as i64);
    let element_bytes = _mm256_set1_epi64x(i64::from(rule.element_bytes));
    let element = _mm_set1_epi32(rule.element as i32);
    let dst = out.as_mut_ptr().cast::<u8>();
    for g in 0..LANES / 4 {
        // lo[t] = (header, address) of lanes 4g and 4g + 2, hi[t] of lanes 4g + 1 and 4g + 3
        let mut lo = [_mm256_setzero_si256(); 4];
        let mut hi = [_mm256_setzero_si256(); 4];
        for t in 0..4 {
            // SAFETY: `index[t]` holds 32 u32, and 4g + 3 < 32.
            let i = unsafe { _mm_loadu_si128(index[t].as_ptr().add(4 * g).cast::<__m128i>()) };
            let first = _mm256_cvtepu32_epi64(_mm_sub_epi32(i, element));
            // (the low 32 bits of each lane times the element size: u32 x u32 -> u64)
            let address = _mm256_add_epi64(base, _mm256_mul_epu32(first, element_bytes));
            let header = if BORDER {
                // SAFETY: `real[t]` holds 32 bools (one byte each, 0 or 1), and 4g + 3 < 32:
                // four bytes read unaligned.
                let flags =
                    unsafe { std::ptr::read_unaligned(real[t].as_ptr().add(4 * g).cast::<i32>()) };
                let flags = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(flags));
                let is_border = _mm256_cmpeq_epi64(flags, _mm256_setzero_si256());
                _mm256_blendv_epi8(texel, border, is_border)
            } else {
                texel
            };
            lo[t] = _mm256_unpacklo_epi64(header, address);
            hi[t] = _mm256_unpackhi_epi64(header, address);
        }
        // lane 4g + j: entries 0 and 1 from the 128-bit halves of rows t = 0 and 1, entries
        // 2 and 3 from t = 2 and 3
        let rows = [
            (
                _mm256_permute2x128_si256::<0x20>(lo[0], lo[1]),
                _mm256_permute2x128_si256::<0x20>(lo[2], lo[3]),
            ),
            (
                _mm256_permute2x128_si256::<0x20>(hi[0], hi[1]),
                _mm256_permute2x128_si256::<0x20>(hi[2], hi[3]),
            ),
            (
                _mm256_permute2x128_si256::<0x31>(lo[0], lo[1]),
                _mm256_permute2x128_si256::<0x31>(lo[2], lo[3]),
            ),
            (
                _mm256_permute2x128_si256::<0x31>(hi[0], hi[1]),
                _mm256_permute2x128_si256::<0x31>(hi[2], hi[3]),
            ),
        ];
        for (j, (first, second)) in rows.into_iter().enumerate() {
            // SAFETY: lane 4g + j < 32 of `out`; a `LaneTexels` is its four 16-byte
            // `TexelAddress` entries (`repr(transparent)`), each `repr(u32)`: the
            // discriminant, then a `Texel`'s size and address, so the 8-byte header and the
            // address written are a valid entry (a `Border` entry's other 12 bytes are
            // padding).
            unsafe {
                let lane = dst.add((4 * g + j) * std::mem::size_of::<LaneTexels>());
                _mm256_storeu_si256(lane.cast::<__m256i>(), first);
                _mm256_storeu_si256(lane.add(32).cast::<__m256i>(), second);
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
}
