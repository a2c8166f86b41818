//! The decode fast path with AVX2 (x86-64, chosen at run time): the whole decoded struct is
//! one 32-byte vector. Each byte of it comes from a 2-byte window of the word (`vpshufb`
//! gathers the window into a 16-bit lane), moved by its own shift (`vpmullw` by a power of
//! two puts the byte's bits in the lane's high byte, `vpsrlw` brings them down), the two
//! vectors of 16-bit lanes are packed to bytes (`vpackuswb`) and masked (`vpand`). The
//! shuffle, multiplier and mask constants are computed at compile time from the same plan as
//! the portable path ([`crate::fast::byte_sources`]: the field table and the struct's
//! layout), never written by hand. Same result as the portable path, byte for byte (the
//! tests compare both with the detailed decode on random words).

use core::arch::x86_64::*;

use crate::fast::CHUNKS;

/// The constants of one vector: 32 bytes, aligned for a vector load.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Lane32([u8; 32]);

/// Shuffles and multipliers of the two vectors of 16-bit windows, and the mask of the result.
#[derive(Clone, Copy)]
pub(crate) struct Consts {
    shuffle: [Lane32; 2],
    mul: [Lane32; 2],
    mask: Lane32,
}

/// After the pack (which works per 128-bit lane), byte `L * 16 + v * 8 + i` of the result
/// is 16-bit lane `L * 8 + i` of vector `v`: so that lane's window is planned for that byte,
/// and no final permutation is needed. A byte's bits (at most 8, starting at bit `s` < 8 of
/// its first byte) lie within its 2-byte window, so one window and one shift give it.
/// The path is used only for a 32-byte struct (one vector); for any other size the
/// constants stay zero and [`usable`] is false.
pub(crate) const fn consts(sources: &[(u32, u32); CHUNKS * 8]) -> Consts {
    let mut c = Consts {
        shuffle: [Lane32([0; 32]); 2],
        mul: [Lane32([0; 32]); 2],
        mask: Lane32([0; 32]),
    };
    if CHUNKS * 8 != 32 {
        return c;
    }
    let mut out = 0;
    while out < 32 {
        let (lane, v, i) = (out / 16, (out % 16) / 8, out % 8);
        let word = lane * 8 + i;
        let (bit, bits) = sources[out];
        let first = (bit / 8) as usize;
        let mut t = 0;
        while t < 2 {
            // 0x80 makes vpshufb write zero: bytes past the word, or nothing to take.
            c.shuffle[v].0[2 * word + t] = if bits > 0 && first + t < 16 {
                (first + t) as u8
            } else {
                0x80
            };
            t += 1;
        }
        // (window << (8 - s)) keeps bits s..s+7 of the window in the lane's high byte.
        let mul: u16 = if bits > 0 { 1 << (8 - bit % 8) } else { 0 };
        let mb = mul.to_le_bytes();
        c.mul[v].0[2 * word] = mb[0];
        c.mul[v].0[2 * word + 1] = mb[1];
        c.mask.0[out] = if bits > 0 {
            ((1u32 << bits) - 1) as u8
        } else {
            0
        };
        out += 1;
    }
    c
}

/// Whether this CPU runs the AVX2 path (and the struct is one vector long). The detection is
/// cached by std: an atomic load and a test; where the crate is compiled with AVX2 enabled
/// (`-C target-feature=+avx2` or a `target-cpu` that has it) the answer is known at compile
/// time and costs nothing.
#[inline(always)]
pub(crate) fn usable() -> bool {
    CHUNKS * 8 == 32 && std::is_x86_feature_detected!("avx2")
}

/// The word in both 128-bit lanes of a vector, from its value (two 64-bit moves and an
/// insert).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn word_vector(word: u128) -> __m256i {
    _mm256_broadcastsi128_si256(_mm_set_epi64x((word >> 64) as i64, word as i64))
}

/// The word in both 128-bit lanes of a vector, loaded from memory (one broadcast load).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn word_vector_at(word: &u128) -> __m256i {
    // SAFETY: `word` is a reference to 16 readable bytes; the load is unaligned, and a u128's
    // bytes in memory are the little-endian value, as `word_vector` builds it.
    unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(word as *const u128 as *const __m128i)) }
}

/// The struct's bytes for the word in `w` ([`word_vector`], [`word_vector_at`]), as the
/// portable path's chunks would hold them.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn chunks(w: __m256i, c: &Consts) -> [u64; CHUNKS] {
    // SAFETY (all intrinsics below): AVX2 is enabled for this function, and every load and
    // store is of a 32-byte aligned `Lane32` or of `out`, a 32-byte array, unaligned.
    unsafe {
        macro_rules! load {
            ($l:expr) => {
                _mm256_load_si256($l.0.as_ptr() as *const __m256i)
            };
        }
        macro_rules! part {
            ($v:expr) => {
                _mm256_srli_epi16::<8>(_mm256_mullo_epi16(
                    _mm256_shuffle_epi8(w, load!(c.shuffle[$v])),
                    load!(c.mul[$v]),
                ))
            };
        }
        let all = _mm256_and_si256(_mm256_packus_epi16(part!(0), part!(1)), load!(c.mask));
        let mut out = [0u64; CHUNKS];
        _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, all);
        out
    }
}
