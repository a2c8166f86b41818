//! Runtime CPU-feature dispatch of the lane-parallel (structure-of-arrays) gather pipeline.
//!
//! The pipeline of [`crate::LaneQueries`] runs the same safe Rust code, 8 lanes at a time, at
//! one of three levels ([`SimdLevel`]):
//!
//! * `Scalar`: the per-lane reference pipeline (one lane through every stage, then the next);
//!   what every other level is tested against, bit for bit;
//! * `Portable`: the 8-lane chunked pipeline compiled for the baseline target (SSE2 on
//!   x86-64), which the compiler vectorizes as far as the baseline allows;
//! * `Avx2`: the same chunked pipeline compiled with AVX2 and FMA enabled (4 f64 / 8 i32 lanes
//!   a register), chosen only where the CPU reports both features at run time.
//!
//! The level is detected once and cached. The environment variable `TLD4_SIMD`
//! (`scalar`, `portable`, `avx2` or `auto`), read at the first gather, overrides it;
//! [`set_simd_level`] overrides both. An unrecognised `TLD4_SIMD` value selects `Scalar`
//! (the reference) and is reported by [`simd_env_error`]. Requesting `Avx2` on a CPU
//! without it gives `Portable`. No level changes any result: FMA is enabled for the code
//! generator only, Rust never fuses a multiply and an add on its own, so every rounding step
//! is the one the source writes (docs/sources.md, Decisions).
//!
//! This is the only module of the crate with `unsafe`: one call of a
//! `#[target_feature(enable = "avx2,fma")]` function, made only after
//! `is_x86_feature_detected!` reported both features.

use std::sync::atomic::{AtomicU8, Ordering};

/// Which implementation of the lane-parallel pipeline runs (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimdLevel {
    /// The per-lane reference pipeline.
    Scalar,
    /// The 8-lane chunked pipeline, baseline target features.
    Portable,
    /// The 8-lane chunked pipeline with AVX2 and FMA (x86-64 only).
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
pub fn simd_level() -> SimdLevel {
    if let Some(l) = SimdLevel::from_code(LEVEL.load(Ordering::Relaxed)) {
        return l;
    }
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
/// inlined into a `#[target_feature]` function, for AVX2. Implementations mark `run`
/// `#[inline(always)]` so that the whole loop is compiled with the caller's features.
pub(crate) trait Kernel {
    fn run(self);
}

/// Runs `k` at `level` (`Scalar` callers never get here: they take the reference path).
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
    k.run()
}

/// `k.run()` compiled with AVX2 and FMA.
///
/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<K: Kernel>(k: K) {
    k.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sum<'a>(&'a [u32; 64], &'a mut u64);

    impl Kernel for Sum<'_> {
        #[inline(always)]
        fn run(self) {
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
