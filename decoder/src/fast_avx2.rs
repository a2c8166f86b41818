//! The decode fast path with AVX2 (x86-64, chosen at run time): the whole decoded struct is
//! one 32-byte vector. Each byte of it comes from a 4-byte window of the word (`vpshufb`),
//! shifted right by its own count (`vpsrlvd`) and masked (`vpand`), 8 bytes a vector, then
//! the four vectors are packed to bytes (`vpackusdw`, `vpackuswb`). The shuffle, shift and
//! mask constants are computed at compile time from the same plan as the portable path
//! ([`crate::fast::byte_sources`]: the field table and the struct's layout), never written
//! by hand. Same result as the portable path, byte for byte (the tests compare both with
//! the detailed decode on random words).

use core::arch::x86_64::*;

use crate::fast::CHUNKS;

/// The constants of one of the four vectors: a shuffle, shift counts and masks.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Lane32([u8; 32]);

/// Shuffles, shifts and masks of the four vectors, from the byte sources of the struct.
#[derive(Clone, Copy)]
pub(crate) struct Consts {
    shuffle: [Lane32; 4],
    shift: [Lane32; 4],
    mask: [Lane32; 4],
}

/// After the two packs, byte `L * 16 + g * 4 + i` of the result is dword `L * 4 + i` of
/// vector `g` (the packs work per 128-bit lane): so vector `g`'s dword `d` is planned for
/// that byte, and no final permutation is needed.
/// The path is used only for a 32-byte struct (one vector); for any other size the
/// constants stay zero and [`usable`] is false.
pub(crate) const fn consts(sources: &[(u32, u32); CHUNKS * 8]) -> Consts {
    let mut c = Consts {
        shuffle: [Lane32([0; 32]); 4],
        shift: [Lane32([0; 32]); 4],
        mask: [Lane32([0; 32]); 4],
    };
    if CHUNKS * 8 != 32 {
        return c;
    }
    let mut g = 0;
    while g < 4 {
        let mut d = 0;
        while d < 8 {
            let byte = (d / 4) * 16 + g * 4 + d % 4;
            let (bit, bits) = sources[byte];
            let first = (bit / 8) as usize;
            let mut t = 0;
            while t < 4 {
                // 0x80 makes vpshufb write zero: bytes past the word, or nothing to take.
                c.shuffle[g].0[d * 4 + t] = if bits > 0 && first + t < 16 {
                    (first + t) as u8
                } else {
                    0x80
                };
                t += 1;
            }
            let shift = if bits > 0 { bit % 8 } else { 0 };
            let mask: u32 = if bits > 0 { (1 << bits) - 1 } else { 0 };
            let (sb, mb) = (shift.to_le_bytes(), mask.to_le_bytes());
            let mut t = 0;
            while t < 4 {
                c.shift[g].0[d * 4 + t] = sb[t];
                c.mask[g].0[d * 4 + t] = mb[t];
                t += 1;
            }
            d += 1;
        }
        g += 1;
    }
    c
}

/// Whether this CPU runs the AVX2 path (and the struct is one vector long). The detection is
/// cached by std: an atomic load and a test.
#[inline(always)]
pub(crate) fn usable() -> bool {
    CHUNKS * 8 == 32 && std::is_x86_feature_detected!("avx2")
}

/// The struct's bytes for `word`, as the portable path's chunks would hold them.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn chunks(word: u128, c: &Consts) -> [u64; CHUNKS] {
    // SAFETY (all intrinsics below): AVX2 is enabled for this function, and every load and
    // store is of a 32-byte aligned `Lane32` or of `out`, a 32-byte array, unaligned.
    unsafe {
        let w = _mm_set_epi64x((word >> 64) as i64, word as i64);
        let w = _mm256_broadcastsi128_si256(w);
        macro_rules! load {
            ($l:expr) => {
                _mm256_load_si256($l.0.as_ptr() as *const __m256i)
            };
        }
        macro_rules! part {
            ($g:expr) => {
                _mm256_and_si256(
                    _mm256_srlv_epi32(
                        _mm256_shuffle_epi8(w, load!(c.shuffle[$g])),
                        load!(c.shift[$g]),
                    ),
                    load!(c.mask[$g]),
                )
            };
        }
        let ab = _mm256_packus_epi32(part!(0), part!(1));
        let cd = _mm256_packus_epi32(part!(2), part!(3));
        let all = _mm256_packus_epi16(ab, cd);
        let mut out = [0u64; CHUNKS];
        _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, all);
        out
    }
}
