//! How the AVX2 level loads a chunk of 8 four-byte texel elements ([`TexelLoads`]): one
//! `vpgatherdd`, or eight scalar loads put together in a register; likewise 8 pairs of
//! adjacent 4-byte elements (`Isa::load_pairs`): two `vpgatherdq`, or eight 8-byte loads
//! (1- and 2-byte elements are gathered either way: scalar loads were not measured faster
//! for them). The results are the same bits; only
//! the speed differs, and it differs by CPU (docs/sources.md, Decisions: texel loads by CPU
//! vendor; figures in docs/benchmarks.md, Textures in GPU memory, measured).
//!
//! The choice is decided once per process: the environment variable `TLD4_TEXEL_LOADS`
//! (`gather`, `scalar` or `auto`), read at the first AVX2 load, else by the CPU's vendor
//! ([`detected_texel_loads`]); [`set_texel_loads`] overrides both, and
//! [`with_texel_loads`] overrides them on the calling thread for the length of a closure
//! (what tests use to run both paths side by side).

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

/// How the AVX2 level loads 8 four-byte texel elements of a chunk (see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexelLoads {
    /// One `vpgatherdd` of the 8 elements.
    Gathers,
    /// Eight scalar loads, their indices taken from the index register, put together by
    /// inserts.
    Scalar,
}

impl TexelLoads {
    /// Both choices.
    pub const ALL: [TexelLoads; 2] = [TexelLoads::Gathers, TexelLoads::Scalar];

    /// The name `TLD4_TEXEL_LOADS` takes: `gather`, `scalar`.
    pub fn name(self) -> &'static str {
        match self {
            TexelLoads::Gathers => "gather",
            TexelLoads::Scalar => "scalar",
        }
    }

    /// Parses a `TLD4_TEXEL_LOADS` value: a choice's name, or `auto` (None: by vendor).
    pub fn parse(s: &str) -> Result<Option<TexelLoads>, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(None),
            "gather" => Ok(Some(TexelLoads::Gathers)),
            "scalar" => Ok(Some(TexelLoads::Scalar)),
            other => Err(format!(
                "TLD4_TEXEL_LOADS={other:?} is not one of gather, scalar, auto; deciding by CPU vendor"
            )),
        }
    }

    fn code(self) -> u8 {
        match self {
            TexelLoads::Gathers => 1,
            TexelLoads::Scalar => 2,
        }
    }

    fn from_code(c: u8) -> Option<TexelLoads> {
        match c {
            1 => Some(TexelLoads::Gathers),
            2 => Some(TexelLoads::Scalar),
            _ => None,
        }
    }
}

/// The choice for this CPU: `Scalar` on AMD (and Hygon, the same cores), where a `vpgatherdd`
/// of 8 costs about 10 cycles and eight loads with inserts measured faster; `Gathers`
/// elsewhere (Intel, where gathers are cheap and the previous measurements were made).
/// A measured choice, per docs/sources.md, Decisions: texel loads by CPU vendor.
pub fn detected_texel_loads() -> TexelLoads {
    #[cfg(target_arch = "x86_64")]
    {
        // (leaf 0: the vendor string, in EBX, EDX, ECX)
        let id = std::arch::x86_64::__cpuid(0);
        let mut vendor = [0u8; 12];
        vendor[..4].copy_from_slice(&id.ebx.to_le_bytes());
        vendor[4..8].copy_from_slice(&id.edx.to_le_bytes());
        vendor[8..].copy_from_slice(&id.ecx.to_le_bytes());
        if &vendor == b"AuthenticAMD" || &vendor == b"HygonGenuine" {
            return TexelLoads::Scalar;
        }
    }
    TexelLoads::Gathers
}

/// 0 = not decided yet, else [`TexelLoads::code`].
static LOADS: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// [`with_texel_loads`]'s override on this thread: 0 = none, else a code.
    static OVERRIDE: Cell<u8> = const { Cell::new(0) };
}

/// The choice the AVX2 loads on this thread make now (see the module documentation).
#[inline]
pub fn texel_loads() -> TexelLoads {
    let c = OVERRIDE.with(Cell::get);
    let c = if c != 0 {
        c
    } else {
        LOADS.load(Ordering::Relaxed)
    };
    match TexelLoads::from_code(c) {
        Some(l) => l,
        None => decide_texel_loads(),
    }
}

/// The first call of [`texel_loads`]: `TLD4_TEXEL_LOADS`, else by vendor.
#[cold]
#[inline(never)]
fn decide_texel_loads() -> TexelLoads {
    let l = std::env::var("TLD4_TEXEL_LOADS")
        .ok()
        .and_then(|v| TexelLoads::parse(&v).ok().flatten())
        .unwrap_or_else(detected_texel_loads);
    LOADS.store(l.code(), Ordering::Relaxed);
    l
}

/// Why `TLD4_TEXEL_LOADS` was not understood, if it was set to something else than a
/// choice's name or `auto` (the choice is then made by vendor).
pub fn texel_loads_env_error() -> Option<String> {
    std::env::var("TLD4_TEXEL_LOADS")
        .ok()
        .and_then(|v| TexelLoads::parse(&v).err())
}

/// Sets the choice of every later AVX2 load in this process (threads inside
/// [`with_texel_loads`] keep theirs).
pub fn set_texel_loads(loads: TexelLoads) {
    LOADS.store(loads.code(), Ordering::Relaxed);
}

/// Runs `f` with `loads` as the choice of the AVX2 loads made on this thread, then
/// restores the thread's previous choice.
pub fn with_texel_loads<R>(loads: TexelLoads, f: impl FnOnce() -> R) -> R {
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|o| o.replace(loads.code())));
    f()
}

/// [`super::gather8_avx2`]'s values for every 4-byte element of `index`, 8 at a time by
/// [`loads8_avx2`]. Out of line: inlined into the in-place cube kernel, the texture's base
/// pointer was spilled and read back from the stack before each texel load (32 a chunk of 8
/// lanes); here it stays in a register (docs/benchmarks.md, Textures in GPU memory,
/// measured: 80.8 -> 78.2 instructions a lane gather, memory rate +6%).
///
/// # Safety
///
/// As [`loads8_avx2`], for every index; `N` is a multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) unsafe fn loads_avx2<const N: usize>(
    base: *const u8,
    index: &[[u32; N]; 4],
    out: &mut [[u32; N]; 4],
) {
    for (out, index) in out.iter_mut().zip(index) {
        let outs = out.as_chunks_mut::<8>().0;
        for (o, part) in outs.iter_mut().zip(index.as_chunks::<8>().0) {
            // SAFETY: the caller's.
            unsafe { loads8_avx2(base, part, o) }
        }
    }
}

/// [`super::gather8_avx2`]'s values for 4-byte elements by eight scalar loads: the indices
/// taken from the index vector's lanes (the compiler reads them from `index` itself, one
/// scalar load each), each element loaded and put
/// in its lane by inserts.
///
/// # Safety
///
/// The CPU must support AVX2; every index must be a non-negative i32 and the 4 bytes at
/// `base + 4 * index` within one allocation.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn loads8_avx2(base: *const u8, index: &[u32; 8], out: &mut [u32; 8]) {
    use std::arch::x86_64::*;
    // SAFETY (the vector load and store): `index` and `out` are 32 bytes; (the scalar
    // loads) the caller keeps every read within the allocation.
    unsafe {
        let vindex = _mm256_loadu_si256(index.as_ptr().cast::<__m256i>());
        let lo = _mm256_castsi256_si128(vindex);
        let hi = _mm256_extracti128_si256::<1>(vindex);
        let at = |i: i32| -> i32 {
            base.add(4 * (i as u32 as usize))
                .cast::<i32>()
                .read_unaligned()
        };
        let a = _mm_cvtsi32_si128(at(_mm_cvtsi128_si32(lo)));
        let a = _mm_insert_epi32::<1>(a, at(_mm_extract_epi32::<1>(lo)));
        let a = _mm_insert_epi32::<2>(a, at(_mm_extract_epi32::<2>(lo)));
        let a = _mm_insert_epi32::<3>(a, at(_mm_extract_epi32::<3>(lo)));
        let b = _mm_cvtsi32_si128(at(_mm_cvtsi128_si32(hi)));
        let b = _mm_insert_epi32::<1>(b, at(_mm_extract_epi32::<1>(hi)));
        let b = _mm_insert_epi32::<2>(b, at(_mm_extract_epi32::<2>(hi)));
        let b = _mm_insert_epi32::<3>(b, at(_mm_extract_epi32::<3>(hi)));
        let v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(a), b);
        _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texel_load_names_parse_back_and_bad_values_are_errors() {
        for l in TexelLoads::ALL {
            assert_eq!(TexelLoads::parse(l.name()), Ok(Some(l)));
            assert_eq!(TexelLoads::from_code(l.code()), Some(l));
        }
        assert_eq!(TexelLoads::parse(" Auto "), Ok(None));
        assert!(TexelLoads::parse("gathers!").is_err());
    }

    #[test]
    fn with_texel_loads_overrides_this_thread_and_restores() {
        let outer = texel_loads();
        for l in TexelLoads::ALL {
            let inner = with_texel_loads(l, || {
                let other = std::thread::spawn(texel_loads).join().unwrap();
                (texel_loads(), other)
            });
            // the calling thread takes the override; another thread keeps the process's
            assert_eq!(inner, (l, outer));
            assert_eq!(texel_loads(), outer);
        }
    }
}
