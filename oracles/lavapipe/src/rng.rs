//! The corpus generator's seeded generator: xoshiro256** (the `rand_xoshiro` crate, seeded
//! through SplitMix64 by `seed_from_u64`), whose stream is fixed by its specification, so that
//! a corpus is replayed exactly from its recorded seed (a test regenerates the golden corpus
//! from it). The helpers below are the generator's own distribution choices.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256StarStar;

/// The generator.
#[derive(Clone, Debug)]
pub struct Rng {
    inner: Xoshiro256StarStar,
}

impl Rng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng {
            inner: Xoshiro256StarStar::seed_from_u64(seed),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// The low `n` bits of a random value (1 <= `n` <= 32).
    pub fn bits(&mut self, n: u32) -> u32 {
        let n = n.clamp(1, 32);
        (self.next_u64() >> (64 - n)) as u32
    }

    /// A uniform value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// A uniform integer in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    /// A uniform f64 in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform f64 in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_and_a_seed_fixes_the_stream() {
        let mut r = Rng::new(7);
        let mut seen = [false; 8];
        for _ in 0..2000 {
            let v = r.bits(3);
            assert!(v < 8);
            seen[v as usize] = true;
            let x = r.range(-32, 31);
            assert!((-32..=31).contains(&x));
            let u = r.uniform(-1.0, 2.0);
            assert!((-1.0..2.0).contains(&u));
        }
        assert!(
            seen.iter().all(|&s| s),
            "every 3-bit value appears in 2000 draws"
        );
        assert_eq!(Rng::new(1).next_u64(), Rng::new(1).next_u64());
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
