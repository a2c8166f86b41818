//! GPU memory as the texture unit sees it: bytes at 64-bit addresses.
//!
//! A simulator implements [`Memory`] over its own memory image; [`FlatMemory`] (one byte
//! vector at a base address) and [`SparseMemory`] (separate mapped regions) are for tests,
//! tools and the CLI. Reading an unmapped byte is a typed [`MemoryError`], never a panic.

use std::collections::BTreeMap;

use thiserror::Error;

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

    /// The little-endian u32 at `addr`.
    fn read_u32(&self, addr: u64) -> Result<u32, MemoryError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Eight little-endian u32 words (one 32-byte descriptor) at `addr`.
    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        let mut b = [0u8; 32];
        self.read(addr, &mut b)?;
        Ok(std::array::from_fn(|i| {
            u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        }))
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
        let e = end(addr, buf.len())?;
        let unmapped = MemoryError::Unmapped {
            addr,
            len: buf.len(),
        };
        if addr < self.base || e - self.base as u128 > self.bytes.len() as u128 {
            return Err(unmapped);
        }
        let at = (addr - self.base) as usize;
        buf.copy_from_slice(&self.bytes[at..at + buf.len()]);
        Ok(())
    }

    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let at = usize::try_from(addr.checked_sub(self.base)?).ok()?;
        self.bytes
            .get(at..at.checked_add(usize::try_from(len).ok()?)?)
    }
}

/// Separately mapped regions (keyed by their base address; regions must not overlap).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SparseMemory {
    regions: BTreeMap<u64, Vec<u8>>,
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
        let below_end = ..=(e.max(base as u128 + 1) - 1) as u64;
        if let Some((&b, r)) = self.regions.range(below_end).next_back() {
            if b as u128 + r.len() as u128 > base as u128 {
                return Err(err);
            }
        }
        self.regions.insert(base, bytes);
        Ok(())
    }

    /// The mapped regions, by base address.
    pub fn regions(&self) -> impl Iterator<Item = (u64, &[u8])> {
        self.regions.iter().map(|(&b, r)| (b, r.as_slice()))
    }
}

impl Memory for SparseMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        let e = end(addr, buf.len())?;
        let unmapped = MemoryError::Unmapped {
            addr,
            len: buf.len(),
        };
        // a read lies in one region (regions are separate mappings)
        let (&b, r) = self.regions.range(..=addr).next_back().ok_or(unmapped)?;
        if e - b as u128 > r.len() as u128 {
            return Err(unmapped);
        }
        let at = (addr - b) as usize;
        buf.copy_from_slice(&r[at..at + buf.len()]);
        Ok(())
    }

    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        // a view lies in one region, as a read does
        let (&b, r) = self.regions.range(..=addr).next_back()?;
        let at = usize::try_from(addr - b).ok()?;
        r.get(at..at.checked_add(usize::try_from(len).ok()?)?)
    }
}

impl<M: Memory + ?Sized> Memory for &M {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        (**self).read(addr, buf)
    }
    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        (**self).view(addr, len)
    }
}
