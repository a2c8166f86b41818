//! GPU memory as the texture unit sees it: bytes at 64-bit addresses.
//!
//! A simulator implements [`Memory`] over its own memory image; [`FlatMemory`] (one byte
//! vector at a base address) and [`SparseMemory`] (separate mapped regions) are for tests,
//! tools and the CLI. Reading an unmapped byte is a typed [`MemoryError`], never a panic.

use std::ops::Range;

use thiserror::Error;

use crate::hints::Hints;
use crate::mapped::bytes_at;

pub use tld4_textures::MemoryError;

/// Read access to GPU memory.
pub trait Memory {
    /// Fill `buf` with the bytes at `addr .. addr + buf.len()`, or say why not.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError>;

    /// The bytes at `addr .. addr + len` as one slice, where this memory holds them
    /// contiguously (a flat image always does); None otherwise (the default), and the texture
    /// unit then reads texel by texel through [`Memory::read`]. With a view, texels are read
    /// in place by the lane-parallel texture unit: the same results, much faster.
    fn view(&self, _addr: u64, _len: u64) -> Option<&[u8]> {
        None
    }

    /// [`Memory::view`], for one warp's gather that can read the 32-byte sectors its texels
    /// lie in instead ([`crate::staged`]): None where a view would cost more than those
    /// reads (a read function made for one warp copies a texture whole only up to
    /// [`ONE_WARP_VIEW_OVER_SECTORS`](crate::callback::ONE_WARP_VIEW_OVER_SECTORS) bytes:
    /// [`crate::CallbackMemory::for_one_warp`]). The default is [`Memory::view`].
    fn view_for_one_warp(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.view(addr, len)
    }

    /// The little-endian u32 at `addr`.
    fn read_u32(&self, addr: u64) -> Result<u32, MemoryError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Eight little-endian u32 words (one 32-byte descriptor) at `addr`.
    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        words8_or_read(self, addr, None)
    }

    /// The 32 bytes of one descriptor at `addr` in place, where this memory holds them and
    /// viewing them costs no more than reading them (the bytes already in place, as in
    /// [`FlatMemory`], [`SparseMemory`] and [`crate::RangesMemory`]); None otherwise (the
    /// default; the caller then reads them, [`Memory::read_words8`], with the same result).
    fn descriptor_view(&self, _addr: u64) -> Option<&[u8; 32]> {
        None
    }

    /// [`Memory::read`] of spans of bytes read once and not asked for again (a warp's
    /// texture sectors, [`crate::staged`]), all in one call: each span `s` of `bytes` filled
    /// with the bytes at `base + s.start`; false where a span is not within `bytes` or a read
    /// fails (the spans after it are then not read). A memory that keeps what it reads need
    /// not keep these (the default reads each as any other, [`read_spans`]).
    fn read_spans_once(&self, base: u64, bytes: &mut [u8], spans: &[Range<usize>]) -> bool {
        read_spans(base, bytes, spans, |at, dst| self.read(at, dst).is_ok())
    }
}

/// Each span `s` of `bytes` filled by `read` with the bytes at `base + s.start`, in order;
/// false at the first span not within `bytes`, past 2^64 or that `read` cannot read
/// ([`Memory::read_spans_once`]).
#[inline(always)]
pub fn read_spans(
    base: u64,
    bytes: &mut [u8],
    spans: &[Range<usize>],
    mut read: impl FnMut(u64, &mut [u8]) -> bool,
) -> bool {
    spans.iter().all(|s| {
        let at = base.checked_add(s.start as u64);
        match (at, bytes.get_mut(s.clone())) {
            (Some(at), Some(dst)) => read(at, dst),
            _ => false,
        }
    })
}

/// [`Memory::descriptor_view`] of a memory whose views cost no more than a read (its
/// 32-byte view at `addr`).
#[inline(always)]
pub fn view32<M: Memory + ?Sized>(m: &M, addr: u64) -> Option<&[u8; 32]> {
    m.view(addr, 32)?.try_into().ok()
}

/// [`Memory::read`] of the bytes `find` finds for `buf`'s length at `addr`: a range past
/// 2^64 overflows, bytes not found are unmapped.
#[inline(always)]
pub(crate) fn read_found<'b>(
    addr: u64,
    buf: &mut [u8],
    find: impl FnOnce(u64) -> Option<&'b [u8]>,
) -> Result<(), MemoryError> {
    end(addr, buf.len())?;
    let bytes = find(buf.len() as u64).ok_or(MemoryError::Unmapped {
        addr,
        len: buf.len(),
    })?;
    buf.copy_from_slice(bytes);
    Ok(())
}

/// [`Memory::read`] of `bytes` mapped at `base` (a flat range held elsewhere, such as C's
/// flat `tld4_memory`; [`FlatMemory`]'s own): a range past 2^64 overflows, one not within
/// `bytes` is unmapped.
#[inline]
pub fn read_mapped(base: u64, bytes: &[u8], addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
    read_found(addr, buf, |len| bytes_at(base, bytes, addr, len))
}

/// [`Memory::view`] of `bytes` mapped at `base`: the `len` bytes at `addr`, where `bytes`
/// holds them all.
#[inline]
pub fn view_mapped(base: u64, bytes: &[u8], addr: u64, len: u64) -> Option<&[u8]> {
    bytes_at(base, bytes, addr, len)
}

/// The eight little-endian u32 words of a descriptor's 32 bytes.
#[inline(always)]
pub(crate) fn words8(b: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}

/// [`Memory::read_words8`] of a memory whose views cost no more than a read (the bytes
/// already in place, as in [`FlatMemory`] and [`SparseMemory`]; not a memory that fetches
/// what it views): the 32 bytes viewed, not copied, where they are mapped; else the read's
/// result.
#[inline(always)]
pub fn view_words8<M: Memory + ?Sized>(m: &M, addr: u64) -> Result<[u32; 8], MemoryError> {
    words8_or_read(m, addr, view32(m, addr))
}

/// The words of a descriptor's 32 bytes at `addr`: of `found` where the memory holds them
/// in place, else of the bytes `m` reads.
#[inline(always)]
pub(crate) fn words8_or_read<M: Memory + ?Sized>(
    m: &M,
    addr: u64,
    found: Option<&[u8; 32]>,
) -> Result<[u32; 8], MemoryError> {
    match found {
        Some(b) => Ok(words8(b)),
        None => {
            let mut b = [0u8; 32];
            m.read(addr, &mut b)?;
            Ok(words8(&b))
        }
    }
}

/// One past the last byte of `addr .. addr + len`, in 65 bits: a range may hold the last
/// byte of the address space (0xffffffffffffffff, ending at 2^64), not pass it.
fn end(addr: u64, len: usize) -> Result<u128, MemoryError> {
    let e = addr as u128 + len as u128;
    if e > 1u128 << 64 {
        return Err(MemoryError::Overflow { addr, len });
    }
    Ok(e)
}

/// One contiguous mapped range.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FlatMemory {
    /// Address of `bytes[0]`.
    pub base: u64,
    /// The mapped bytes.
    pub bytes: Vec<u8>,
}

impl FlatMemory {
    /// `bytes` mapped at `base`.
    pub fn new(base: u64, bytes: Vec<u8>) -> Self {
        FlatMemory { base, bytes }
    }
}

impl Memory for FlatMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        read_mapped(self.base, &self.bytes, addr, buf)
    }

    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        view_mapped(self.base, &self.bytes, addr, len)
    }

    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        view_words8(self, addr)
    }

    fn descriptor_view(&self, addr: u64) -> Option<&[u8; 32]> {
        view32(self, addr)
    }
}

/// Separately mapped regions (regions must not overlap), sorted by base address; a lookup
/// first tries the last few regions found (relaxed atomics, each checked before it is used:
/// the memory stays `Sync`), then a binary search (a few comparisons; mapping a region moves
/// those above it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SparseMemory {
    regions: Vec<Region>,
    /// The regions found lately (not part of what the memory holds).
    hints: Hints,
}

/// A mapped region of a [`SparseMemory`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Region {
    base: u64,
    bytes: Vec<u8>,
}

/// Mapping a region that overlaps another, or passes the end of the address space (a region
/// may hold the last byte, 0xffffffffffffffff).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("region of {len} byte(s) at {base:#x} overlaps a mapped region or passes 2^64")]
pub struct MapError {
    /// The region's base.
    pub base: u64,
    /// Its length.
    pub len: usize,
}

impl SparseMemory {
    /// No region mapped.
    pub fn new() -> Self {
        SparseMemory::default()
    }

    /// Map `bytes` at `base`.
    pub fn map(&mut self, base: u64, bytes: Vec<u8>) -> Result<(), MapError> {
        let len = bytes.len();
        let err = MapError { base, len };
        let e = end(base, len).map_err(|_| err)?;
        // the region with the highest base below `e` is the only one that can overlap
        let below_end = (e.max(base as u128 + 1) - 1) as u64;
        let k = self.regions.partition_point(|r| r.base <= below_end);
        if let Some(r) = k.checked_sub(1).map(|k| &self.regions[k]) {
            if r.base as u128 + r.bytes.len() as u128 > base as u128 {
                return Err(err);
            }
        }
        // (no region overlaps: those from `k` on start at or past the end)
        self.regions.insert(k, Region { base, bytes });
        // (the hinted indices above `k` moved: each would be refused by its check anyway)
        self.hints = Hints::default();
        Ok(())
    }

    /// The mapped regions, by base address.
    pub fn regions(&self) -> impl Iterator<Item = (u64, &[u8])> {
        self.regions.iter().map(|r| (r.base, r.bytes.as_slice()))
    }

    /// Every region copied to its place in one flat range, from the lowest region's address
    /// to the end of the highest, zeros between (as a simulator's image handed over as one
    /// range; the benchmarks' flat forms); no region: an empty range at 0.
    pub fn to_flat(&self) -> FlatMemory {
        let (Some(first), Some(last)) = (self.regions.first(), self.regions.last()) else {
            return FlatMemory::new(0, Vec::new());
        };
        // (sorted and disjoint: the last region ends highest)
        let mut bytes = vec![0u8; (last.base - first.base) as usize + last.bytes.len()];
        for r in &self.regions {
            let at = (r.base - first.base) as usize;
            bytes[at..at + r.bytes.len()].copy_from_slice(&r.bytes);
        }
        FlatMemory::new(first.base, bytes)
    }

    /// The bytes at `addr .. addr + len`, where one region holds them all: the last region
    /// starting at or below `addr` (the only one that can), through the hints, else by a
    /// binary search. (Always through the hints: checked once, a hint that holds them costs
    /// less than the search even among 3 regions; callgrind, 2026-12-06,
    /// `gpu-memory/examples/lookups.rs`, three lookups 118 instructions with 3 regions and
    /// with 403, where the search alone up to 8 regions took 199 and 145; docs/benchmarks.md,
    /// "One-shot memory calls".)
    #[inline(always)]
    fn find(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.hints
            .bytes_at(&self.regions, |r| (r.base, &r.bytes), addr, len)
    }
}

impl Memory for SparseMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        // a read lies in one region (regions are separate mappings)
        read_found(addr, buf, |len| self.find(addr, len))
    }

    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        // a view lies in one region, as a read does
        self.find(addr, len)
    }

    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        view_words8(self, addr)
    }

    fn descriptor_view(&self, addr: u64) -> Option<&[u8; 32]> {
        view32(self, addr)
    }
}

impl<M: Memory + ?Sized> Memory for &M {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        (**self).read(addr, buf)
    }
    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        (**self).view(addr, len)
    }
    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        (**self).read_words8(addr)
    }
    fn descriptor_view(&self, addr: u64) -> Option<&[u8; 32]> {
        (**self).descriptor_view(addr)
    }
    fn read_spans_once(&self, base: u64, bytes: &mut [u8], spans: &[Range<usize>]) -> bool {
        (**self).read_spans_once(base, bytes, spans)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_sparse_memory_made_flat_reads_as_it_does() {
        use super::{FlatMemory, Memory, SparseMemory};
        assert_eq!(
            SparseMemory::new().to_flat(),
            FlatMemory::new(0, Vec::new())
        );
        let mut m = SparseMemory::new();
        m.map(0x1010, vec![7, 8, 9]).unwrap();
        m.map(0x1000, vec![1, 2]).unwrap();
        let flat = m.to_flat();
        assert_eq!(flat.base, 0x1000);
        assert_eq!(flat.bytes.len(), 0x13);
        for addr in [0x1000u64, 0x1001, 0x1010, 0x1012] {
            let (mut a, mut b) = ([0u8], [0u8]);
            m.read(addr, &mut a).unwrap();
            flat.read(addr, &mut b).unwrap();
            assert_eq!(a, b, "{addr:#x}");
        }
        assert_eq!(flat.bytes[2..0x10], [0; 14]);
        assert!(flat.read(0x1013, &mut [0u8]).is_err());
    }

    use super::*;

    /// Spans are filled in order from `base + start`; a span not within the destination, an
    /// address past 2^64 or a failed read stops the call, false, the later spans unread.
    #[test]
    fn spans_are_read_in_order_and_the_first_failure_stops_the_rest() {
        let image: Vec<u8> = (0..=255u8).collect();
        let flat = FlatMemory::new(0x1000, image.clone());
        let mut dst = [0u8; 96];
        assert!(flat.read_spans_once(0x1000, &mut dst, &[0..8, 32..40, 64..96]));
        assert_eq!(dst[..8], image[..8]);
        assert_eq!(dst[32..40], image[32..40]);
        assert_eq!(dst[64..96], image[64..96]);
        assert!(dst[8..32].iter().chain(&dst[40..64]).all(|&b| b == 0));
        // the image ends at 0x1100: the span past it fails, the one after is not read
        let mut dst = [0u8; 96];
        assert!(!flat.read_spans_once(0x10c0, &mut dst, &[0..8, 32..96, 8..16]));
        assert_eq!(dst[..8], image[0xc0..0xc8]);
        assert!(dst[8..].iter().all(|&b| b == 0));
        // a span not within the destination; an address past 2^64
        assert!(!flat.read_spans_once(0x1000, &mut dst, &[0..4, 90..100]));
        let mut asked = Vec::new();
        let read = |at: u64, d: &mut [u8]| {
            asked.push((at, d.len()));
            true
        };
        assert!(!read_spans(u64::MAX - 4, &mut dst, &[0..4, 8..12], read));
        assert_eq!(asked, [(u64::MAX - 4, 4)]);
    }

    /// Regions mapped out of order are found by address; overlaps are refused; descriptor
    /// words read in place equal those read by copy, and a read past a region is an error.
    #[test]
    fn sparse_regions_map_in_any_order_and_words_read_alike() {
        let bytes: Vec<u8> = (0..64u8).collect();
        let mut m = SparseMemory::new();
        m.map(0x3000, bytes.clone()).unwrap();
        m.map(0x1000, vec![7; 16]).unwrap();
        m.map(0x2000, bytes.clone()).unwrap();
        assert_eq!(
            m.map(0x2020, vec![0; 4]),
            Err(MapError {
                base: 0x2020,
                len: 4
            })
        );
        assert_eq!(
            m.map(0x0ff8, vec![0; 9]),
            Err(MapError {
                base: 0x0ff8,
                len: 9
            })
        );
        m.map(0x0ff8, vec![0; 8]).unwrap();
        let bases: Vec<u64> = m.regions().map(|(b, _)| b).collect();
        assert_eq!(bases, [0x0ff8, 0x1000, 0x2000, 0x3000]);
        let words = m.read_words8(0x3004).unwrap();
        let mut b = [0u8; 32];
        m.read(0x3004, &mut b).unwrap();
        assert_eq!(words, words8(&b));
        assert_eq!(words[0], u32::from_le_bytes([4, 5, 6, 7]));
        assert_eq!(
            m.read_words8(0x3030),
            Err(MemoryError::Unmapped {
                addr: 0x3030,
                len: 32
            })
        );
        assert!(m.read_words8(0x0fff).is_err());
        let flat = FlatMemory::new(0x2000, bytes);
        assert_eq!(flat.read_words8(0x2004), Ok(words));
        assert!(flat.read_words8(0x2021).is_err());
        // descriptors in place: the bytes a read gives, where they lie in one region
        assert_eq!(m.descriptor_view(0x3004), Some(&b));
        assert_eq!(flat.descriptor_view(0x2004), Some(&b));
        assert_eq!(
            <&SparseMemory as Memory>::descriptor_view(&&m, 0x3004),
            Some(&b)
        );
        for addr in [0x3030, 0x0fff, 0x4000] {
            assert_eq!(m.descriptor_view(addr), None, "{addr:#x}");
        }
        assert_eq!(flat.descriptor_view(0x2021), None);
        assert_eq!(flat.descriptor_view(0x1fff), None);
    }

    proptest::proptest! {
        /// The regions found through the hints are the ones a search over every region finds:
        /// every read and view, in any order (the hints then name any of the regions, some
        /// adjacent), answers as that search does; mapping a region (which moves the indices
        /// the hints name) keeps it so. (Fails where a hint is used without its check.)
        #[test]
        fn sparse_hints_answer_as_a_search_over_all(
            gaps in proptest::collection::vec((0u64..64, 1usize..48), 2..24),
            queries in proptest::collection::vec((0u64..2400, 0u64..40), 1..64),
        ) {
            let bytes: Vec<u8> = (0..=255).collect();
            let mut address = 0u64;
            let regions: Vec<(u64, Vec<u8>)> = gaps
                .iter()
                .map(|&(gap, len)| {
                    let r = (address + gap, bytes[gap as usize..gap as usize + len].to_vec());
                    address += gap + len as u64;
                    r
                })
                .collect();
            // the first region mapped halfway through the queries
            let mut hinted = SparseMemory::new();
            for (base, b) in &regions[1..] {
                hinted.map(*base, b.clone()).unwrap();
            }
            let half = queries.len() / 2;
            for (i, (addr, len)) in queries.into_iter().enumerate() {
                if i == half {
                    let (base, b) = &regions[0];
                    hinted.map(*base, b.clone()).unwrap();
                }
                crate::hints::check::answers_as_a_search_over_all(
                    &hinted,
                    hinted.regions(),
                    addr,
                    len,
                )?;
            }
        }
    }
}
