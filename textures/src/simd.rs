//! Runtime CPU-feature dispatch of the lane-parallel (structure-of-arrays) gather pipeline.
//!
//! The pipeline of [`crate::LaneQueries`] runs the same safe Rust code, each stage one loop
//! over a warp's 32 lanes, at one of three levels ([`SimdLevel`]):
//!
//! * `Scalar`: the per-lane pipeline (one lane through every stage, then the next);
//!   what every other level is tested against, bit for bit;
//! * `Portable`: the whole-warp stage loops compiled for the baseline target (SSE2 on
//!   x86-64), which the compiler vectorizes as far as the baseline allows;
//! * `Avx2`: the same loops compiled with AVX2 and FMA enabled (4 f64 / 8 i32 lanes a
//!   register), chosen only where the CPU reports both features at run time.
//!
//! Texel loads: at the AVX2 level by `vpgatherdd` (1- and 2-byte elements: the 4 bytes at
//! each, masked; 4-byte elements on AMD by eight scalar loads put together in a register,
//! [`loads`]), after one check of the warp's indices (see [`Isa`] for `Avx2` for what was
//! measured); footprints of one-element 4-byte texels (the cube kernel's f32 depth and
//! 32-bit formats) load each row's two adjacent texels as one 8-byte pair (`vpgatherdq`,
//! [`Isa::load_pairs`]); at the other levels one by one with a check each.
//!
//! The level is detected once and cached. The environment variable `TLD4_SIMD`
//! (`scalar`, `portable`, `avx2` or `auto`), read at the first gather, overrides it;
//! [`set_simd_level`] overrides both. An unrecognised `TLD4_SIMD` value selects `Scalar`
//! (the per-lane path) and is reported by [`simd_env_error`]. Requesting `Avx2` on a CPU
//! without it gives `Portable`. No level changes any result: FMA is enabled for the code
//! generator only, Rust never fuses a multiply and an add on its own, so every rounding step
//! is the one the source writes (docs/sources.md, Decisions).
//!
//! This is the only module of the crate with `unsafe`: one call of a
//! `#[target_feature(enable = "avx2,fma")]` function, made only after
//! `is_x86_feature_detected!` reported both features, and, inside it, the AVX2 move-mask of
//! 8 lane flags and the AVX2 check that a warp's texel indices lie within the texel slice,
//! after which its texels are loaded without a check each, by gathers (of elements or of
//! pairs) or one by one, in lanes or checked ([`Isa`] for `Avx2`, [`loads`]; tested against the checked loads at and past
//! the slice's end, for every element width); and the AVX2 writer of a whole chunk's texel
//! addresses ([`addresses`]: 32-byte stores of `repr(u32)` entries); and the AVX2 compares of
//! a chunk's texel sectors ([`sectors`]: 32-byte loads and stores of its index rows).

use std::sync::atomic::{AtomicU8, Ordering};

pub(crate) mod addresses;
pub(crate) mod loads;
pub(crate) mod sectors;

/// Which implementation of the lane-parallel pipeline runs (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimdLevel {
    /// The per-lane pipeline.
    Scalar,
    /// The whole-warp stage loops, baseline target features.
    Portable,
    /// The whole-warp stage loops with AVX2 and FMA (x86-64 only).
    Avx2,
}

impl SimdLevel {
    /// Every level, in order.
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Scalar, SimdLevel::Portable, SimdLevel::Avx2];

    /// The name `TLD4_SIMD` takes: `scalar`, `portable`, `avx2`.
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Portable => "portable",
            SimdLevel::Avx2 => "avx2",
        }
    }

    /// Parses a `TLD4_SIMD` value: a level's name, or `auto` (None: detect).
    pub fn parse(s: &str) -> Result<Option<SimdLevel>, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(None),
            "scalar" => Ok(Some(SimdLevel::Scalar)),
            "portable" => Ok(Some(SimdLevel::Portable)),
            "avx2" => Ok(Some(SimdLevel::Avx2)),
            other => Err(format!(
                "TLD4_SIMD={other:?} is not one of scalar, portable, avx2, auto; using scalar"
            )),
        }
    }

    fn code(self) -> u8 {
        match self {
            SimdLevel::Scalar => 1,
            SimdLevel::Portable => 2,
            SimdLevel::Avx2 => 3,
        }
    }

    fn from_code(c: u8) -> Option<SimdLevel> {
        match c {
            1 => Some(SimdLevel::Scalar),
            2 => Some(SimdLevel::Portable),
            3 => Some(SimdLevel::Avx2),
            _ => None,
        }
    }

    /// This level if the CPU supports it, else the best one below it.
    pub fn supported(self) -> SimdLevel {
        if self == SimdLevel::Avx2 && !avx2_available() {
            SimdLevel::Portable
        } else {
            self
        }
    }
}

/// The best level this CPU supports.
pub fn detected_simd_level() -> SimdLevel {
    if avx2_available() {
        SimdLevel::Avx2
    } else {
        SimdLevel::Portable
    }
}

/// 0 = not decided yet, else [`SimdLevel::code`].
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The level the gathers run at now (decided at the first call; see the module docs).
#[inline]
pub fn simd_level() -> SimdLevel {
    match SimdLevel::from_code(LEVEL.load(Ordering::Relaxed)) {
        Some(l) => l,
        None => decide_simd_level(),
    }
}

/// The first call of [`simd_level`]: `TLD4_SIMD`, else the detected level.
#[cold]
#[inline(never)]
fn decide_simd_level() -> SimdLevel {
    let l = match std::env::var("TLD4_SIMD") {
        Ok(v) => match SimdLevel::parse(&v) {
            Ok(Some(l)) => l.supported(),
            Ok(None) => detected_simd_level(),
            Err(_) => SimdLevel::Scalar,
        },
        Err(_) => detected_simd_level(),
    };
    LEVEL.store(l.code(), Ordering::Relaxed);
    l
}

/// Why `TLD4_SIMD` was not understood, if it was set to something else than a level name
/// or `auto` (the gathers then run at `Scalar`).
pub fn simd_env_error() -> Option<String> {
    std::env::var("TLD4_SIMD")
        .ok()
        .and_then(|v| SimdLevel::parse(&v).err())
}

/// Sets the level of every later gather in this process; returns the level in effect
/// (`Avx2` becomes `Portable` on a CPU without AVX2 and FMA).
pub fn set_simd_level(level: SimdLevel) -> SimdLevel {
    let l = level.supported();
    LEVEL.store(l.code(), Ordering::Relaxed);
    l
}

/// True when the CPU has AVX2 and FMA (cached by the standard library's detection).
#[inline]
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A monomorphized piece of the pipeline that [`run`] compiles twice: for the baseline and,
/// inlined into a `#[target_feature]` function, for AVX2, with the level's [`Isa`].
/// Implementations mark `run` `#[inline(always)]` so that the whole loop is compiled with
/// the caller's features.
pub(crate) trait Kernel {
    fn run<I: Isa>(self);
}

/// What a kernel does differently at each level: how 8 lane flags become a mask, and how
/// texel elements are checked and loaded (see the module documentation).
pub(crate) trait Isa {
    /// `out[t][k] = data[index[t][k]]` widened to u32, for every t and k; an index past the
    /// end reads 0 (the kernels never compute one).
    #[inline(always)]
    fn load<T: Copy + Into<u32>, const N: usize>(
        data: &[T],
        index: &[[u32; N]; 4],
        out: &mut [[u32; N]; 4],
    ) {
        load_checked(data, index, out)
    }
    /// [`Isa::load`] of a footprint of one-element texels whose two rows start at
    /// `rows[0][k]` (j0) and `rows[1][k]` (j1): [`footprint_index`] with a texel stride of 1,
    /// loaded. A level may load each row's two adjacent elements together.
    #[inline(always)]
    fn load_pairs<T: Copy + Into<u32>, const N: usize>(
        data: &[T],
        rows: &[[u32; N]; 2],
        out: &mut [[u32; N]; 4],
    ) {
        Self::load(data, &footprint_index(rows, 1), out)
    }
    /// Bit k set where `flags[k]` is negative (the kernels' flags are 0 or -1).
    fn mask8(flags: &[i32; 8]) -> u32;
}

/// The element indices of a footprint in result order, (i0, j1), (i1, j1), (i1, j0), (i0, j0),
/// from the indices of its (i0, j0) and (i0, j1) (`rows`) and the texel stride.
#[inline(always)]
pub(crate) fn footprint_index<const N: usize>(rows: &[[u32; N]; 2], texel: u32) -> [[u32; N]; 4] {
    let mut index = [[0u32; N]; 4];
    for k in 0..N {
        index[0][k] = rows[1][k];
        index[1][k] = rows[1][k].wrapping_add(texel);
        index[2][k] = rows[0][k].wrapping_add(texel);
        index[3][k] = rows[0][k];
    }
    index
}

/// [`Isa::load`]'s definition: each element loaded with a bounds check, 0 past the end.
#[inline(always)]
fn load_checked<T: Copy + Into<u32>, const N: usize>(
    data: &[T],
    index: &[[u32; N]; 4],
    out: &mut [[u32; N]; 4],
) {
    for (out, index) in out.iter_mut().zip(index) {
        for (o, &i) in out.iter_mut().zip(index) {
            *o = data.get(i as usize).map_or(0, |&e| e.into());
        }
    }
}

/// The baseline level.
pub(crate) struct Baseline;

impl Isa for Baseline {
    #[inline(always)]
    fn mask8(flags: &[i32; 8]) -> u32 {
        let mut m = 0;
        for (k, &f) in flags.iter().enumerate() {
            m |= ((f < 0) as u32) << k;
        }
        m
    }
}

/// The AVX2 level: the move-mask instruction, and vector bounds checks for the texel loads.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Isa for Avx2 {
    /// The same values as the default: AVX2 comparisons check once that every index of
    /// the warp is in the slice, then the elements load without a check each, 8 a chunk,
    /// by one `vpgatherdd` (4-byte elements, by eight scalar loads with inserts where
    /// [`loads::TexelLoads`] chooses them: by CPU vendor, scalar on AMD, where the gather
    /// measured slower, docs/benchmarks.md): 4-byte elements whole, 1- and 2-byte ones as the 4 bytes
    /// starting at the element, masked, so the check is against the last 4 bytes' first
    /// element; if an index is past it (the texture's last texels, or an index past the end,
    /// which the kernels never compute), the checked loads run instead.
    ///
    /// Measured with `stream_bench` on this project's AMD Zen 4 machine, with the scalar
    /// loads of the time (checked, one by one): a scalar load
    /// reads its index from the memory the kernel has just written the indices to as
    /// vectors, and there such a read can wait for the vector store: the cube array (f32
    /// depth) ran at 64 M lane gathers/s with scalar loads and 147 with gathers; for RGBA8
    /// (bytes), gathers measured 0.64-1.67x the scalar loads in twelve side-by-side runs,
    /// median about 0.97. On the Intel Xeon of docs/benchmarks.md (2026-12-04) byte gathers
    /// cut the executor's callgrind instructions a lane gather from 53.9 to 44.5 (RGBA8)
    /// and 71.7 to 61.3 (PTP), and were not slower in alternating wall-clock runs.
    #[inline(always)]
    fn load<T: Copy + Into<u32>, const N: usize>(
        data: &[T],
        index: &[[u32; N]; 4],
        out: &mut [[u32; N]; 4],
    ) {
        // the largest index loaded by a gather: 4-byte elements, the last; 1- and 2-byte
        // elements read 4 bytes from each (masked), so the last 4 bytes' first element
        let size = std::mem::size_of::<T>();
        let Some(last) = std::mem::size_of_val(data)
            .checked_sub(4)
            .filter(|_| matches!(size, 1 | 2 | 4))
            .map(|bytes| bytes / size)
        else {
            return load_checked(data, index, out);
        };
        let mut within = data.len() <= i32::MAX as usize && N.is_multiple_of(8);
        for index in index {
            for part in index.as_chunks::<8>().0 {
                // SAFETY: `all_at_most_avx2` needs AVX2 (see `mask8`).
                within &= unsafe { all_at_most_avx2(part, last as u32) };
            }
        }
        if !within {
            // (an index past `last`: the texture's last texels, or one the kernels never
            // compute, past the end)
            return load_checked(data, index, out);
        }
        let base = data.as_ptr().cast::<u8>();
        // (scalar loads for 4-byte elements only: the only width measured faster by them)
        if size == 4 && loads::texel_loads() == loads::TexelLoads::Scalar {
            // SAFETY: AVX2 (see `mask8`); every index is at most `last` <= i32::MAX, so the
            // 4 bytes read at each lie within the slice.
            return unsafe { loads::loads_avx2(base, index, out) };
        }
        for (out, index) in out.iter_mut().zip(index) {
            let outs = out.as_chunks_mut::<8>().0;
            for (o, part) in outs.iter_mut().zip(index.as_chunks::<8>().0) {
                // SAFETY: AVX2 (see `mask8`); every index is at most `last` <= i32::MAX,
                // so the 4 bytes read at each lie within the slice.
                unsafe { gather8_avx2(base, size, part, o) }
            }
        }
    }

    /// The same values as the default: 4-byte elements a pair at a time, each row's two
    /// adjacent texels as one 8-byte element of a `vpgatherdq` (4 a gather), separated by
    /// two shuffles; other widths, or a row start past `data.len() - 2` (the kernels never
    /// compute one), take [`Isa::load`]. Measured with `stream_bench` on this project's Zen 4
    /// machine (cube array, f32 depth, alternating runs of the two builds): 4-12% more lane
    /// gathers a second than four `vpgatherdd` a chunk.
    #[inline(always)]
    fn load_pairs<T: Copy + Into<u32>, const N: usize>(
        data: &[T],
        rows: &[[u32; N]; 2],
        out: &mut [[u32; N]; 4],
    ) {
        let mut within = std::mem::size_of::<T>() == 4
            && data.len() >= 2
            && data.len() <= i32::MAX as usize
            && N.is_multiple_of(8);
        if within {
            for part in rows.iter().flat_map(|r| r.as_chunks::<8>().0) {
                // SAFETY: `all_at_most_avx2` needs AVX2 (see `mask8`).
                within &= unsafe { all_at_most_avx2(part, data.len() as u32 - 2) };
            }
        }
        if !within {
            return Self::load(data, &footprint_index(rows, 1), out);
        }
        let [o0, o1, o2, o3] = out;
        // row j1 gives texels 0 (i0) and 1 (i1); row j0 gives 3 (i0) and 2 (i1)
        for (row, first, second) in [(&rows[1], o0, o1), (&rows[0], o3, o2)] {
            let firsts = first.as_chunks_mut::<8>().0;
            let seconds = second.as_chunks_mut::<8>().0;
            for ((part, f), s) in row.as_chunks::<8>().0.iter().zip(firsts).zip(seconds) {
                // SAFETY: AVX2 (see `mask8`); T is 4 bytes and every row start is at most
                // `data.len() - 2` <= i32::MAX, so each 8-byte read lies within the slice.
                unsafe { gather_pairs_avx2(data.as_ptr().cast::<u8>(), part, f, s) };
            }
        }
    }

    #[inline(always)]
    fn mask8(flags: &[i32; 8]) -> u32 {
        // SAFETY: `movemask_avx2` needs AVX2, which every caller of `Avx2`'s kernels has
        // checked (`run`, through `avx2_available`).
        unsafe { movemask_avx2(flags) }
    }
}

/// `out[k]` = the `size`-byte (1, 2 or 4) little-endian element `index[k]` of `base`: one
/// `vpgatherdd` of the 4 bytes at `base + size * index[k]`, masked to the element.
///
/// # Safety
///
/// The CPU must support AVX2; every index must be a non-negative i32 and the 4 bytes at
/// `base + size * index` within one allocation.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather8_avx2(base: *const u8, size: usize, index: &[u32; 8], out: &mut [u32; 8]) {
    use std::arch::x86_64::*;
    // SAFETY (the vector load and store): `index` and `out` are 32 bytes; (the gathers) the
    // caller keeps every read within the allocation.
    unsafe {
        let vindex = _mm256_loadu_si256(index.as_ptr().cast::<__m256i>());
        let base = base.cast::<i32>();
        let v = match size {
            1 => _mm256_and_si256(
                _mm256_i32gather_epi32::<1>(base, vindex),
                _mm256_set1_epi32(0xff),
            ),
            2 => _mm256_and_si256(
                _mm256_i32gather_epi32::<2>(base, vindex),
                _mm256_set1_epi32(0xffff),
            ),
            _ => _mm256_i32gather_epi32::<4>(base, vindex),
        };
        _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), v);
    }
}

/// `first[k] = base32[index[k]]` and `second[k] = base32[index[k] + 1]`, where base32 is
/// `base` read as u32 elements: two `vpgatherdq` of 8-byte pairs (or, where
/// [`loads::TexelLoads`] chooses scalar loads, eight 8-byte loads put together in two
/// registers, the indices taken from the index register), split into the lower and
/// upper halves by two shuffles and put back in lane order by two permutes.
///
/// # Safety
///
/// The CPU must support AVX2; every index must be a non-negative i32 and the 8 bytes at
/// `base + 4 * index` within one allocation.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather_pairs_avx2(
    base: *const u8,
    index: &[u32; 8],
    first: &mut [u32; 8],
    second: &mut [u32; 8],
) {
    use std::arch::x86_64::*;
    // SAFETY (the vector loads and stores): `index`, `first` and `second` are 32 bytes;
    // (the gathers) the caller keeps every read within the allocation.
    unsafe {
        let vindex = _mm256_loadu_si256(index.as_ptr().cast::<__m256i>());
        let lo = _mm256_castsi256_si128(vindex);
        let hi = _mm256_extracti128_si256::<1>(vindex);
        // lanes 0-3 and 4-7: byte offset 4 * index, each an 8-byte (x, x + 1) pair
        let (a, b) = if loads::texel_loads() == loads::TexelLoads::Scalar {
            let at = |i: i32| -> i64 {
                base.add(4 * (i as u32 as usize))
                    .cast::<i64>()
                    .read_unaligned()
            };
            let four = |v: __m128i| {
                _mm256_set_epi64x(
                    at(_mm_extract_epi32::<3>(v)),
                    at(_mm_extract_epi32::<2>(v)),
                    at(_mm_extract_epi32::<1>(v)),
                    at(_mm_cvtsi128_si32(v)),
                )
            };
            (_mm256_castsi256_ps(four(lo)), _mm256_castsi256_ps(four(hi)))
        } else {
            (
                _mm256_castsi256_ps(_mm256_i32gather_epi64::<4>(base.cast::<i64>(), lo)),
                _mm256_castsi256_ps(_mm256_i32gather_epi64::<4>(base.cast::<i64>(), hi)),
            )
        };
        // per 128-bit half: the low (high) words of a's two pairs, then of b's two; the
        // permute puts the halves' pairs in lane order 0-7
        let even = _mm256_castps_si256(_mm256_shuffle_ps::<0x88>(a, b));
        let odd = _mm256_castps_si256(_mm256_shuffle_ps::<0xDD>(a, b));
        let even = _mm256_permute4x64_epi64::<0xD8>(even);
        let odd = _mm256_permute4x64_epi64::<0xD8>(odd);
        _mm256_storeu_si256(first.as_mut_ptr().cast::<__m256i>(), even);
        _mm256_storeu_si256(second.as_mut_ptr().cast::<__m256i>(), odd);
    }
}

/// True when every index is at most `last` (unsigned).
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn all_at_most_avx2(index: &[u32; 8], last: u32) -> bool {
    use std::arch::x86_64::*;
    // SAFETY: `index` is 32 bytes.
    let v = unsafe { _mm256_loadu_si256(index.as_ptr().cast::<__m256i>()) };
    let last = _mm256_set1_epi32(last as i32);
    // max(index, last) == last in every lane
    let within = _mm256_cmpeq_epi32(_mm256_max_epu32(v, last), last);
    _mm256_movemask_epi8(within) == -1
}

/// Bit k set where `flags[k]` is negative.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn movemask_avx2(flags: &[i32; 8]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: `flags` is 32 bytes.
    let v = unsafe { _mm256_loadu_si256(flags.as_ptr().cast::<__m256i>()) };
    _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u32
}

/// Work a caller outside this crate compiles at a [`SimdLevel`] ([`run_at`]): `run`, marked
/// `#[inline(always)]`, with everything it inlines, is compiled once for the baseline target
/// and once inside a function with AVX2 and FMA enabled. For a caller whose loops hand
/// arrays to the lane-parallel kernels and take their results back (the executor: register
/// rows in, results out), so that both sides move them in vectors of the same width.
pub trait AtLevel {
    /// What the work returns.
    type Output;
    /// The work.
    fn run(self) -> Self::Output;
}

/// Runs `w` compiled for `level`: with AVX2 and FMA enabled where `level` is `Avx2` and the
/// CPU has them (checked here), else for the baseline target. No result depends on it (Rust
/// never fuses a multiply and an add on its own; see the module documentation).
#[inline(always)]
pub fn run_at<W: AtLevel>(level: SimdLevel, w: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && avx2_available() {
        // SAFETY: `run_at_avx2` only requires the CPU to support AVX2 and FMA, which
        // `avx2_available` has just checked at run time.
        return unsafe { run_at_avx2(w) };
    }
    let _ = level;
    w.run()
}

/// `w.run()` compiled with AVX2 and FMA.
///
/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_at_avx2<W: AtLevel>(w: W) -> W::Output {
    w.run()
}

/// Runs `k` at `level` (`Scalar` callers never get here: they take the per-lane path).
#[inline(always)]
pub(crate) fn run<K: Kernel>(level: SimdLevel, k: K) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && avx2_available() {
        // SAFETY: `run_avx2` only requires the CPU to support AVX2 and FMA, which
        // `avx2_available` has just checked at run time.
        unsafe { run_avx2(k) };
        return;
    }
    let _ = level;
    run_baseline(k)
}

/// `k.run()` for the baseline target, out of line like [`run_avx2`] (inlined, its arrays
/// would enlarge the stack frame of every caller, whatever level runs).
#[inline(never)]
fn run_baseline<K: Kernel>(k: K) {
    k.run::<Baseline>()
}

/// `k.run()` compiled with AVX2 and FMA.
///
/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<K: Kernel>(k: K) {
    k.run::<Avx2>()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sum<'a>(&'a [u32; 64], &'a mut u64);

    impl Kernel for Sum<'_> {
        #[inline(always)]
        fn run<I: Isa>(self) {
            *self.1 = self.0.iter().map(|&v| v as u64 * 3).sum();
        }
    }

    #[test]
    fn every_level_runs_the_same_kernel() {
        let data: [u32; 64] = std::array::from_fn(|i| i as u32 * 77 + 5);
        let expect: u64 = (0..64u64).map(|i| (i * 77 + 5) * 3).sum();
        for level in SimdLevel::ALL {
            let mut out = 0;
            run(level, Sum(&data, &mut out));
            assert_eq!(out, expect, "{level:?}");
        }
    }

    /// Work for [`run_at`]: a float sum, which must not change with the level (no fused
    /// multiply-add appears on its own).
    struct Dot<'a>(&'a [f32], &'a [f32]);

    impl AtLevel for Dot<'_> {
        type Output = u32;
        #[inline(always)]
        fn run(self) -> u32 {
            let mut acc = 0f32;
            for (a, b) in self.0.iter().zip(self.1) {
                acc = acc * 0.5 + a * b;
            }
            acc.to_bits()
        }
    }

    #[test]
    fn run_at_returns_the_same_bits_at_every_level() {
        let a: Vec<f32> = (0..97).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..97).map(|i| 1.0 / (i as f32 + 0.3)).collect();
        let expect = Dot(&a, &b).run();
        for level in SimdLevel::ALL {
            assert_eq!(run_at(level, Dot(&a, &b)), expect, "{level:?}");
        }
    }

    /// Every level's `load` and `mask8` over slices of each element width, with index sets
    /// inside, at the last element and past the end of the slice; `load` takes four sets at
    /// once (each set four times over, and each set with the first one in the other three
    /// places: one set past the end then sends all four through the checked loads).
    struct Loads<'a> {
        bytes: &'a [u8],
        halves: &'a [u16],
        words: &'a [u32],
        sets: &'a [[[u32; 8]; 4]],
        flags: &'a [[i32; 8]],
        out: &'a mut Vec<[u32; 8]>,
    }

    impl Kernel for Loads<'_> {
        #[inline(always)]
        fn run<I: Isa>(self) {
            for sets in self.sets {
                let (mut b, mut h, mut w) = ([[0u32; 8]; 4], [[0u32; 8]; 4], [[0u32; 8]; 4]);
                I::load(self.bytes, sets, &mut b);
                I::load(self.halves, sets, &mut h);
                I::load(self.words, sets, &mut w);
                for t in 0..4 {
                    self.out.extend([b[t], h[t], w[t]]);
                }
            }
            for f in self.flags {
                self.out.push([I::mask8(f); 8]);
            }
        }
    }

    #[test]
    fn every_level_loads_and_masks_like_the_definition() {
        let bytes: Vec<u8> = (0..37u32).map(|i| (i * 41 + 3) as u8).collect();
        let halves: Vec<u16> = (0..19u32).map(|i| (i * 40_503 + 7) as u16).collect();
        let words: Vec<u32> = (0..11u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let mut indices = vec![[0u32; 8], std::array::from_fn(|k| k as u32 * 2)];
        // the last element of each slice in one lane, the others in range
        for last in [36u32, 18, 10, 35, 17, 9, 34, 33] {
            indices.push(std::array::from_fn(
                |k| if k == 3 { last } else { k as u32 },
            ));
        }
        // past the end, and far past it
        indices.push(std::array::from_fn(|k| if k == 5 { 37 } else { 1 }));
        indices.push(std::array::from_fn(|k| if k == 0 { u32::MAX } else { 2 }));
        indices.push(std::array::from_fn(|k| if k == 7 { 1 << 31 } else { 0 }));
        let sets: Vec<[[u32; 8]; 4]> = indices
            .iter()
            .flat_map(|&i| [[i; 4], [i, indices[0], indices[0], indices[0]]])
            .collect();
        let flags: Vec<[i32; 8]> = (0..=255u32)
            .map(|m| std::array::from_fn(|k| if m >> k & 1 == 1 { -1 } else { 0 }))
            .collect();
        // the definition: element k of a slice, widened, or 0 past its end
        let mut expect = Vec::new();
        for index in sets.iter().flatten() {
            let get = |len: usize, at: &dyn Fn(usize) -> u32| -> [u32; 8] {
                std::array::from_fn(|k| {
                    let i = index[k] as usize;
                    if i < len {
                        at(i)
                    } else {
                        0
                    }
                })
            };
            expect.push(get(bytes.len(), &|i| bytes[i] as u32));
            expect.push(get(halves.len(), &|i| halves[i] as u32));
            expect.push(get(words.len(), &|i| words[i]));
        }
        expect.extend((0..=255u32).map(|m| [m; 8]));
        for (level, loads) in SimdLevel::ALL
            .into_iter()
            .flat_map(|l| loads::TexelLoads::ALL.map(|t| (l, t)))
        {
            let mut out = Vec::new();
            loads::with_texel_loads(loads, || {
                run(
                    level,
                    Loads {
                        bytes: &bytes,
                        halves: &halves,
                        words: &words,
                        sets: &sets,
                        flags: &flags,
                        out: &mut out,
                    },
                )
            });
            assert_eq!(out, expect, "{level:?}, {loads:?}");
        }
    }

    /// Every level's `load_pairs` over slices of each element width.
    struct PairLoads<'a> {
        bytes: &'a [u8],
        halves: &'a [u16],
        words: &'a [u32],
        rows: &'a [[[u32; 16]; 2]],
        out: &'a mut Vec<[[u32; 16]; 4]>,
    }

    impl Kernel for PairLoads<'_> {
        #[inline(always)]
        fn run<I: Isa>(self) {
            for rows in self.rows {
                let (mut b, mut h, mut w) = ([[0u32; 16]; 4], [[0u32; 16]; 4], [[0u32; 16]; 4]);
                I::load_pairs(self.bytes, rows, &mut b);
                I::load_pairs(self.halves, rows, &mut h);
                I::load_pairs(self.words, rows, &mut w);
                self.out.extend([b, h, w]);
            }
        }
    }

    #[test]
    fn every_level_loads_pairs_like_the_definition() {
        let bytes: Vec<u8> = (0..37u32).map(|i| (i * 41 + 3) as u8).collect();
        let halves: Vec<u16> = (0..19u32).map(|i| (i * 40_503 + 7) as u16).collect();
        let words: Vec<u32> = (0..11u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let inside: [u32; 16] = std::array::from_fn(|k| (k as u32 * 5) % 10);
        let mut rows = vec![[inside, inside.map(|i| (i + 3) % 10)]];
        // a row starting at the last pair of a slice, at its last element (the pair's second
        // element past the end), past the end, and where i + 1 wraps
        for start in [9u32, 10, 11, 35, 36, 37, 17, 18, u32::MAX, 1 << 31] {
            for at in [0usize, 7, 8, 15] {
                let mut r = inside;
                r[at] = start;
                rows.push([r, inside]);
                rows.push([inside, r]);
            }
        }
        let mut expect = Vec::new();
        for r in &rows {
            let index = footprint_index(r, 1);
            let get = |len: usize, at: &dyn Fn(usize) -> u32| -> [[u32; 16]; 4] {
                index.map(|set| {
                    set.map(|i| {
                        if (i as usize) < len {
                            at(i as usize)
                        } else {
                            0
                        }
                    })
                })
            };
            expect.push(get(bytes.len(), &|i| bytes[i] as u32));
            expect.push(get(halves.len(), &|i| halves[i] as u32));
            expect.push(get(words.len(), &|i| words[i]));
        }
        for (level, loads) in SimdLevel::ALL
            .into_iter()
            .flat_map(|l| loads::TexelLoads::ALL.map(|t| (l, t)))
        {
            let mut out = Vec::new();
            loads::with_texel_loads(loads, || {
                run(
                    level,
                    PairLoads {
                        bytes: &bytes,
                        halves: &halves,
                        words: &words,
                        rows: &rows,
                        out: &mut out,
                    },
                )
            });
            assert_eq!(out, expect, "{level:?}, {loads:?}");
        }
    }

    #[test]
    fn footprint_index_is_in_result_order() {
        let rows = [[10u32, 20], [50, 60]];
        assert_eq!(
            footprint_index(&rows, 3),
            [[50, 60], [53, 63], [13, 23], [10, 20]]
        );
    }

    #[test]
    fn names_parse_back_and_bad_values_are_errors() {
        for l in SimdLevel::ALL {
            assert_eq!(SimdLevel::parse(l.name()), Ok(Some(l)));
        }
        assert_eq!(SimdLevel::parse("AUTO"), Ok(None));
        let e = SimdLevel::parse("sse9").unwrap_err();
        assert!(e.contains("sse9") && e.contains("scalar"), "{e}");
    }

    #[test]
    fn avx2_is_refused_where_the_cpu_lacks_it() {
        let l = SimdLevel::Avx2.supported();
        assert_eq!(l == SimdLevel::Avx2, avx2_available());
        assert_eq!(SimdLevel::Portable.supported(), SimdLevel::Portable);
        assert_eq!(SimdLevel::Scalar.supported(), SimdLevel::Scalar);
    }
}
