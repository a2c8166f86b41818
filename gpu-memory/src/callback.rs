//! Memory behind a read function (a simulator's memory it reads on demand: C's read
//! callback, or any function), asked for as few and as large reads as the texture unit can
//! use, each kept for as long as the memory is (one call, or a binding's life, over which the
//! memory is unchanged): a texture's bytes whole (`Views`: the texture unit then reads them
//! in place, as a flat range's), and the 32-byte sectors of other reads (`Sectors`: the
//! texture unit reads a texel's or a descriptor's bytes at a time, and a warp's reads share
//! sectors). A sector is the unit of the texel addresses' sector lists (docs/sources.md,
//! Decisions).

use std::cell::{OnceCell, RefCell};

use crate::memory::{Memory, MemoryError};

/// What a [`CallbackMemory`] reads with.
pub trait ReadBytes {
    /// Fills `dst` with the `dst.len()` bytes at `addr`; false when some byte cannot be read.
    fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> bool;
}

impl<F: Fn(u64, &mut [u8]) -> bool> ReadBytes for F {
    fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> bool {
        self(addr, dst)
    }
}

/// A memory read through `R`, which must read the same bytes for as long as the
/// `CallbackMemory` lives (what it read is kept): a view is fetched whole (up to 64 MiB, four
/// kept), a read from its whole 32-byte sector (64 kept, direct-mapped); a read across two
/// sectors, or in a sector `R` cannot read whole, asks for its exact bytes, so errors name
/// the same address as a read of the bytes alone.
///
/// ```
/// use tld4_gpu_memory::{CallbackMemory, Memory};
/// let bytes: Vec<u8> = (0..=255).collect();
/// let m = CallbackMemory::new(|addr: u64, dst: &mut [u8]| {
///     match bytes.get(addr as usize..addr as usize + dst.len()) {
///         Some(b) => {
///             dst.copy_from_slice(b);
///             true
///         }
///         None => false,
///     }
/// });
/// assert_eq!(m.read_u32(0x40)?, 0x4342_4140);
/// assert_eq!(m.view(0x10, 4), Some(&bytes[0x10..0x14]));
/// assert!(m.read_u32(0xfe).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CallbackMemory<R> {
    read: R,
    sectors: RefCell<Box<Sectors>>,
    views: Box<Views>,
}

impl<R> CallbackMemory<R> {
    /// Nothing read yet.
    pub fn new(read: R) -> Self {
        CallbackMemory {
            read,
            sectors: RefCell::new(Box::new(Sectors::new())),
            views: Box::new(Views::new()),
        }
    }

    /// The read function.
    pub fn reader(&self) -> &R {
        &self.read
    }
}

impl<R: ReadBytes> Memory for CallbackMemory<R> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        if let Ok(mut sectors) = self.sectors.try_borrow_mut() {
            if sectors.read(addr, buf, |at, dst| self.read.read_bytes(at, dst)) {
                return Ok(());
            }
        }
        // a read across sectors, or in a sector that cannot be read whole
        if self.read.read_bytes(addr, buf) {
            Ok(())
        } else {
            Err(MemoryError::Unmapped {
                addr,
                len: buf.len(),
            })
        }
    }

    /// The whole range, asked for once and kept.
    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.views
            .view(addr, len, |at, dst| self.read.read_bytes(at, dst))
    }
}

/// Views a callback memory keeps (a texture's bytes each: one a binding's handle, or a
/// call's).
const VIEWS: usize = 4;
/// The largest view fetched whole (larger textures are read sector by sector).
const MAX_VIEW: u64 = 64 << 20;

/// Ranges a callback memory fetched whole ([`Views::view`]), kept as long as the memory.
struct Views {
    kept: [OnceCell<(u64, Box<[u8]>)>; VIEWS],
}

impl Views {
    /// None kept.
    fn new() -> Self {
        Views {
            kept: Default::default(),
        }
    }

    /// The `len` bytes at `addr` as one slice: kept, or fetched whole with `fetch` (true
    /// when it read) into a free slot; None where `fetch` refuses them, they are larger than
    /// [`MAX_VIEW`], or every slot holds another range (the texture unit then reads texel by
    /// texel).
    fn view(
        &self,
        addr: u64,
        len: u64,
        fetch: impl FnOnce(u64, &mut [u8]) -> bool,
    ) -> Option<&[u8]> {
        for cell in &self.kept {
            match cell.get() {
                Some((at, bytes)) if *at == addr && bytes.len() as u64 == len => {
                    return Some(bytes)
                }
                Some(_) => continue,
                None => {
                    if len > MAX_VIEW {
                        return None;
                    }
                    let mut bytes = vec![0u8; len as usize].into_boxed_slice();
                    if !fetch(addr, &mut bytes) {
                        return None;
                    }
                    return Some(&cell.get_or_init(|| (addr, bytes)).1);
                }
            }
        }
        None
    }
}

/// Bytes a sector.
const SECTOR: usize = 32;
/// Sectors kept (direct-mapped by sector number): 2 KiB.
const KEPT: usize = 64;

/// Direct-mapped sectors; `tags[i]` is the sector number kept in slot `i` (valid where bit
/// `i` of `valid` is set).
struct Sectors {
    tags: [u64; KEPT],
    valid: u64,
    bytes: [[u8; SECTOR]; KEPT],
}

impl Sectors {
    /// None kept.
    fn new() -> Self {
        Sectors {
            tags: [0; KEPT],
            valid: 0,
            bytes: [[0; SECTOR]; KEPT],
        }
    }

    /// Fills `buf` from the sector holding `addr .. addr + buf.len()`, reading the sector
    /// whole with `fetch` (true when it read) if it is not kept; false where the bytes lie
    /// across sectors or the sector cannot be read whole (the caller then reads the bytes
    /// alone).
    #[inline]
    fn read(
        &mut self,
        addr: u64,
        buf: &mut [u8],
        fetch: impl FnOnce(u64, &mut [u8]) -> bool,
    ) -> bool {
        let at = (addr % SECTOR as u64) as usize;
        if at + buf.len() > SECTOR {
            return false;
        }
        let number = addr / SECTOR as u64;
        let slot = (number % KEPT as u64) as usize;
        if self.valid >> slot & 1 == 0 || self.tags[slot] != number {
            if !fetch(number * SECTOR as u64, &mut self.bytes[slot]) {
                // (the slot's bytes may be half written: no longer valid)
                self.valid &= !(1 << slot);
                return false;
            }
            self.tags[slot] = number;
            self.valid |= 1 << slot;
        }
        buf.copy_from_slice(&self.bytes[slot][at..at + buf.len()]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_are_fetched_once_and_reads_across_or_unreadable_ones_are_refused() {
        let memory: Vec<u8> = (0..4096).map(|i| i as u8).collect();
        let mut fetched = Vec::new();
        let mut s = Sectors::new();
        let mut fetch = |at: u64, dst: &mut [u8]| {
            fetched.push(at);
            let at = at as usize;
            match memory.get(at..at + dst.len()) {
                Some(b) => {
                    dst.copy_from_slice(b);
                    true
                }
                None => false,
            }
        };
        let mut b = [0u8; 4];
        assert!(s.read(0x44, &mut b, &mut fetch));
        assert_eq!(b, [0x44, 0x45, 0x46, 0x47]);
        assert!(s.read(0x5c, &mut b, &mut fetch)); // the same sector: kept
        assert_eq!(b, [0x5c, 0x5d, 0x5e, 0x5f]);
        // across two sectors: refused, nothing fetched
        assert!(!s.read(0x5e, &mut b, &mut fetch));
        // a sector past the memory's end: refused, and tried again next time
        assert!(!s.read(0x1004, &mut b, &mut fetch));
        assert!(!s.read(0x1004, &mut b, &mut fetch));
        // another sector in the same slot (64 sectors on) replaces it
        assert!(s.read(0x844, &mut b, &mut fetch));
        assert_eq!(b, [0x44, 0x45, 0x46, 0x47]);
        assert!(s.read(0x48, &mut b, &mut fetch));
        assert_eq!(b, [0x48, 0x49, 0x4a, 0x4b]);
        let mut whole = [0u8; 32];
        assert!(s.read(0xe0, &mut whole, &mut fetch));
        assert_eq!(whole[31], 0xff);
        assert_eq!(fetched, [0x40, 0x1000, 0x1000, 0x840, 0x40, 0xe0]);
    }

    #[test]
    fn views_are_fetched_once_and_refused_ones_are_not_kept() {
        let memory: Vec<u8> = (0..4096).map(|i| i as u8).collect();
        let mut fetched = Vec::new();
        let views = Views::new();
        let mut fetch = |at: u64, dst: &mut [u8]| {
            fetched.push((at, dst.len()));
            match memory.get(at as usize..at as usize + dst.len()) {
                Some(b) => {
                    dst.copy_from_slice(b);
                    true
                }
                None => false,
            }
        };
        assert_eq!(
            views.view(0x100, 4, &mut fetch),
            Some(&memory[0x100..0x104])
        );
        assert_eq!(
            views.view(0x100, 4, &mut fetch),
            Some(&memory[0x100..0x104])
        );
        assert_eq!(views.view(0xffe, 4, &mut fetch), None); // refused: not kept
        for k in 1..4u64 {
            assert!(views.view(k * 0x200, 8, &mut fetch).is_some());
        }
        assert_eq!(views.view(0x900, 8, &mut fetch), None); // every slot taken
        assert_eq!(
            fetched,
            [(0x100, 4), (0xffe, 4), (0x200, 8), (0x400, 8), (0x600, 8)]
        );
    }
}
