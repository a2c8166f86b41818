//! The decode fast path with AVX2 (x86-64, chosen at run time): the whole decoded struct is
//! one 32-byte vector. Each byte of it comes from a 2-byte window of the word (`vpshufb`
//! gathers the window into a 16-bit lane), shifted right by its own count (`vpmulhuw` by a
//! power of two: the high half of `window * 2^(16 - s)` is `window >> s`) and masked
//! (`vpand`), and the two vectors of 16-bit lanes are packed to bytes (`vpackuswb`). The
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
    mask: [Lane32; 2],
}

/// After the pack (which works per 128-bit lane), byte `L * 16 + v * 8 + i` of the result
/// is 16-bit lane `L * 8 + i` of vector `v`: so that lane's window is planned for that byte,
/// and no final permutation is needed. A byte's bits (at most 8, starting at bit `s` < 8 of
/// its first byte) lie within the 2-byte window of its first byte and the next, so one
/// window and one shift give them; for `s` = 0 the byte itself is the window's high byte and
/// the shift is 8 (2^16 would not fit a 16-bit multiplier). The mask keeps the byte's bits
/// only, so each lane is below 256 and the saturating pack changes nothing.
/// The path is used only for a 32-byte struct (one vector); for any other size the
/// constants stay zero and [`usable`] is false.
pub(crate) const fn consts(sources: &[(u32, u32); CHUNKS * 8]) -> Consts {
    let mut c = Consts {
        shuffle: [Lane32([0; 32]); 2],
        mul: [Lane32([0; 32]); 2],
        mask: [Lane32([0; 32]); 2],
    };
    if CHUNKS * 8 != 32 {
        return c;
    }
    let mut out = 0;
    while out < 32 {
        let (lane, v, i) = (out / 16, (out % 16) / 8, out % 8);
        let word = lane * 8 + i;
        let (bit, bits) = sources[out];
        let (first, s) = ((bit / 8) as usize, bit % 8);
        // The window's two bytes: (first, first + 1), or (none, first) when s = 0.
        let (low, high) = if s == 0 {
            (16, first)
        } else {
            (first, first + 1)
        };
        c.shuffle[v].0[2 * word] = take(bits, low);
        c.shuffle[v].0[2 * word + 1] = take(bits, high);
        let (mul, mask): (u16, u16) = if bits == 0 {
            (0, 0)
        } else if s == 0 {
            (1 << 8, (1 << bits) - 1)
        } else {
            (1 << (16 - s), (1 << bits) - 1)
        };
        let (mb, kb) = (mul.to_le_bytes(), mask.to_le_bytes());
        c.mul[v].0[2 * word] = mb[0];
        c.mul[v].0[2 * word + 1] = mb[1];
        c.mask[v].0[2 * word] = kb[0];
        c.mask[v].0[2 * word + 1] = kb[1];
        out += 1;
    }
    c
}

/// `r` unchanged, with the optimizer kept from seeing where it points (an empty `asm!`: no
/// instruction, and `pure, nomem` lets it be hoisted out of a loop like the reference itself).
#[inline(always)]
// The asm neither reads nor writes memory: it only hands the pointer's value back.
#[allow(clippy::pointers_in_nomem_asm_block)]
fn opaque<T>(r: &T) -> &T {
    let mut p = r as *const T;
    // SAFETY: the assembly is empty: `p` comes back unchanged, still the reference `r` (same
    // lifetime), and nothing else is touched (nomem, nostack, preserves_flags).
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) p, options(pure, nomem, nostack, preserves_flags));
        &*p
    }
}

/// The shuffle index of a window byte: the word's byte `byte`, or 0x80 (vpshufb writes zero)
/// for a byte past the word or when the output byte takes no bits.
const fn take(bits: u32, byte: usize) -> u8 {
    if bits > 0 && byte < 16 {
        byte as u8
    } else {
        0x80
    }
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
    // Through `opaque`, so that the compiler keeps this one broadcast load instead of reusing
    // the word's two 64-bit loads of the legality check and moving them over (four
    // instructions).
    let word = opaque(word);
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
    // The constants are hidden from the optimizer: seeing multipliers that are powers of two,
    // LLVM turns the one `vpmulhuw` into widening variable shifts (six instructions instead of
    // one). An empty `asm!` that hands the pointer back unchanged hides them at no cost (no
    // instruction; `pure, nomem` lets the compiler hoist it out of a loop).
    let c = opaque(c);
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
                _mm256_and_si256(
                    _mm256_mulhi_epu16(
                        _mm256_shuffle_epi8(w, load!(c.shuffle[$v])),
                        load!(c.mul[$v]),
                    ),
                    load!(c.mask[$v]),
                )
            };
        }
        let all = _mm256_packus_epi16(part!(0), part!(1));
        let mut out = [0u64; CHUNKS];
        _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, all);
        out
    }
}
