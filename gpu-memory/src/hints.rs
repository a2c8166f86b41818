//! Lookup hints for memories made of separate regions or ranges ([`crate::SparseMemory`],
//! [`crate::RangesMemory`]): the indices of the last few found, tried before the binary
//! search. A warp's one-shot reads alternate between a few (the header pool, the sampler
//! pool, the texture), each found again by one comparison instead of a search.
//!
//! A hint is only a hint: each is checked against the item it names before it is used, so a
//! stale or racing hint costs a search, never a wrong answer; relaxed atomics keep the
//! memory `Sync` (docs/benchmarks.md, "One-shot memory calls").

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::mapped::bytes_at;

/// Items a memory remembers having found.
const HINTS: usize = 4;

/// The indices of the items found lately, and the one the next search's result replaces.
/// Not part of what a memory holds: a clone starts with none, and any two compare equal.
#[derive(Debug, Default)]
pub(crate) struct Hints {
    found: [AtomicUsize; HINTS],
    next: AtomicUsize,
}

impl Clone for Hints {
    /// No hints (a clone finds its items afresh).
    fn clone(&self) -> Self {
        Hints::default()
    }
}

impl PartialEq for Hints {
    /// Always: hints are not part of what a memory holds.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Hints {}

impl Hints {
    /// The bytes at `addr .. addr + len` in one of `items` (sorted by address, separate:
    /// `place` gives each one's address and bytes), where one holds them all: a hinted item
    /// that does, else the last item starting at or below `addr` (the only one that can),
    /// found by a binary search and then hinted where it holds them. (The bytes are handed
    /// back as the check found them: nothing is checked twice.)
    #[inline(always)]
    pub(crate) fn bytes_at<'i, T>(
        &self,
        items: &'i [T],
        place: impl for<'x> Fn(&'x T) -> (u64, &'x [u8]),
        addr: u64,
        len: u64,
    ) -> Option<&'i [u8]> {
        let holds = |item: &'i T| {
            let (base, bytes) = place(item);
            bytes_at(base, bytes, addr, len)
        };
        for hint in &self.found {
            let k = hint.load(Ordering::Relaxed);
            if let Some(found) = items.get(k).and_then(holds) {
                return Some(found);
            }
        }
        let k = items
            .partition_point(|i| place(i).0 <= addr)
            .checked_sub(1)?;
        let found = holds(items.get(k)?)?;
        let slot = self.next.fetch_add(1, Ordering::Relaxed) % HINTS;
        self.found[slot].store(k, Ordering::Relaxed);
        Some(found)
    }
}

/// What the hinted memories' property tests check, written once.
#[cfg(test)]
pub(crate) mod check {
    use crate::memory::Memory;

    /// `memory`'s view and read of the `len` bytes at `addr` answer as a search over every
    /// item of `items` (base address, bytes) does: no hints, no binary search.
    pub(crate) fn answers_as_a_search_over_all<'a>(
        memory: &dyn Memory,
        items: impl IntoIterator<Item = (u64, &'a [u8])>,
        addr: u64,
        len: u64,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let found = items.into_iter().find_map(|(base, b)| {
            let at = usize::try_from(addr.checked_sub(base)?).ok()?;
            b.get(at..at + len as usize)
        });
        proptest::prop_assert_eq!(memory.view(addr, len), found);
        let mut a = vec![0u8; len as usize];
        proptest::prop_assert_eq!(memory.read(addr, &mut a).is_ok(), found.is_some());
        if let Some(found) = found {
            proptest::prop_assert_eq!(&a[..], found);
        }
        Ok(())
    }
}
