//! Memory made of many borrowed ranges (a simulator's sparse GPU memory as it holds it: its
//! descriptors, texels and everything else at addresses spread over the address space),
//! checked once and read in place: a view that lies in one range is a slice of it, so the
//! texture unit reads texels in place as from one flat range.

use thiserror::Error;

use crate::hints::Hints;
use crate::memory::{read_found, Memory, MemoryError};

/// One range: `bytes` mapped at `address`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range<'a> {
    /// The GPU address of `bytes[0]`.
    pub address: u64,
    /// The bytes (`address + bytes.len()` may be 2^64: the range may hold the last byte).
    pub bytes: &'a [u8],
}

/// Why a list of ranges is refused, naming the range (its index in the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RangesError {
    /// The range passes the end of the address space.
    #[error("range {index}: address {address:#x} + length {len:#x} passes 2^64")]
    PastEnd {
        /// The range's index in the list.
        index: usize,
        /// Its address.
        address: u64,
        /// Its length.
        len: usize,
    },
    /// The range starts below the end of the one before it.
    #[error(
        "range {index}: address {address:#x} is below the end of range {} ({previous_end:#x}): \
         ranges must be sorted by address and must not overlap",
        index - 1
    )]
    Unsorted {
        /// The range's index in the list.
        index: usize,
        /// Its address.
        address: u64,
        /// One past the previous range's last byte (at most 2^64).
        previous_end: u128,
    },
}

/// Borrowed ranges, sorted by address and separate (checked by [`RangesMemory::new`]);
/// a read or a view lies in one range (ranges are separate mappings, as in
/// [`crate::SparseMemory`]); a lookup first tries the last few ranges found, then a binary
/// search.
///
/// ```
/// use tld4_gpu_memory::{Memory, Range, RangesMemory};
/// let (low, high) = ([1u8, 2, 3, 4], [5u8, 6]);
/// let m = RangesMemory::new(vec![
///     Range { address: 0x1000, bytes: &low },
///     Range { address: 1 << 40, bytes: &high },
/// ])?;
/// assert_eq!(m.read_u32(0x1000)?, 0x0403_0201);
/// assert_eq!(m.view((1 << 40) + 1, 1), Some(&high[1..]));
/// assert!(m.read_u32(0x1002).is_err()); // passes the range's end
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RangesMemory<'a> {
    ranges: Vec<Range<'a>>,
    /// The ranges found lately (not part of what the memory holds).
    hints: Hints,
}

impl<'a> RangesMemory<'a> {
    /// Checks `ranges` once: each within the address space, sorted by address, none
    /// overlapping the one before (empty ranges are kept and map nothing).
    pub fn new(ranges: Vec<Range<'a>>) -> Result<Self, RangesError> {
        let mut previous_end = 0u128;
        for (index, r) in ranges.iter().enumerate() {
            let end = r.address as u128 + r.bytes.len() as u128;
            if end > 1u128 << 64 {
                return Err(RangesError::PastEnd {
                    index,
                    address: r.address,
                    len: r.bytes.len(),
                });
            }
            if index > 0 && (r.address as u128) < previous_end {
                return Err(RangesError::Unsorted {
                    index,
                    address: r.address,
                    previous_end,
                });
            }
            previous_end = end;
        }
        Ok(Self::unchecked(ranges))
    }

    /// Ranges already checked, no hints yet.
    fn unchecked(ranges: Vec<Range<'a>>) -> Self {
        Self {
            ranges,
            hints: Hints::default(),
        }
    }

    /// The ranges, in address order.
    pub fn ranges(&self) -> &[Range<'a>] {
        &self.ranges
    }

    /// The bytes at `addr .. addr + len`, where one range holds them all.
    #[inline(always)]
    fn find(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.hints
            .bytes_at(&self.ranges, |r| (r.address, r.bytes), addr, len)
    }
}

impl Memory for RangesMemory<'_> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        read_found(addr, buf, |len| self.find(addr, len))
    }

    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.find(addr, len)
    }

    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        crate::memory::view_words8(self, addr)
    }

    fn descriptor_view(&self, addr: u64) -> Option<&[u8; 32]> {
        crate::memory::view32(self, addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_once_and_errors_name_the_range() {
        let (a, b, c) = ([0u8; 16], [1u8; 8], [2u8; 4]);
        let r = |address, bytes| Range { address, bytes };
        assert_eq!(
            RangesMemory::new(vec![r(0x100, &a[..]), r(0x108, &b[..])]),
            Err(RangesError::Unsorted {
                index: 1,
                address: 0x108,
                previous_end: 0x110
            })
        );
        let err =
            RangesMemory::new(vec![r(0, &c[..]), r(0x200, &a[..]), r(0x100, &b[..])]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "range 2: address 0x100 is below the end of range 1 (0x210): ranges must be sorted \
             by address and must not overlap"
        );
        assert_eq!(
            RangesMemory::new(vec![r(0, &c[..]), r(u64::MAX - 2, &c[..])]),
            Err(RangesError::PastEnd {
                index: 1,
                address: u64::MAX - 2,
                len: 4
            })
        );
        // adjacent ranges, one holding the last byte of the address space
        let m = RangesMemory::new(vec![
            r(0x100, &a[..]),
            r(0x110, &b[..]),
            r(u64::MAX - 3, &c[..]),
        ])
        .unwrap();
        assert_eq!(m.read_u32(0x10c).unwrap(), 0);
        assert_eq!(m.read_u32(0x110).unwrap(), 0x0101_0101);
        assert_eq!(m.read_u32(u64::MAX - 3).unwrap(), 0x0202_0202);
        // a read across two ranges, before the first, past the last, past 2^64
        for addr in [0x10e, 0xff, 0x118, u64::MAX - 1] {
            assert!(m.read_u32(addr).is_err(), "{addr:#x}");
        }
        assert!(matches!(
            m.read_u32(u64::MAX - 1),
            Err(MemoryError::Overflow { .. })
        ));
        assert_eq!(m.view(0x104, 12), Some(&a[4..]));
        assert_eq!(m.view(0x104, 13), None);
        assert_eq!(m.view(u64::MAX, 1), Some(&c[3..]));
        // descriptors in place: within one range only
        let long = [9u8; 40];
        let m = RangesMemory::new(vec![r(0x100, &long[..]), r(0x128, &b[..])]).unwrap();
        assert_eq!(m.descriptor_view(0x104), Some(&[9u8; 32]));
        assert_eq!(m.descriptor_view(0x110), None);
    }

    proptest::proptest! {
        /// The ranges found through the hints are the ones a search over every range finds:
        /// every read and view, in any order (the hints then name any of the ranges), answers
        /// as that search does. (Fails where a hint is used without its check: a memory that
        /// has found nothing yet would not, its hints naming range 0 as well.)
        #[test]
        fn hints_answer_as_a_search_over_all(
            gaps in proptest::collection::vec((0u64..64, 1usize..48), 1..24),
            queries in proptest::collection::vec((0u64..2400, 0u64..40), 1..64),
        ) {
            let bytes: Vec<u8> = (0..=255).collect();
            let mut address = 0u64;
            let ranges: Vec<Range<'_>> = gaps
                .iter()
                .map(|&(gap, len)| {
                    let r = Range { address: address + gap, bytes: &bytes[..len] };
                    address += gap + len as u64;
                    r
                })
                .collect();
            let hinted = RangesMemory::new(ranges.clone()).unwrap();
            for (addr, len) in queries {
                crate::hints::check::answers_as_a_search_over_all(
                    &hinted,
                    ranges.iter().map(|r| (r.address, r.bytes)),
                    addr,
                    len,
                )?;
            }
        }
    }
}
