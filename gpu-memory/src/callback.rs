//! Memory behind a read function (a simulator's memory it reads on demand: C's read
//! callback, or any function), asked for as few and as large reads as the texture unit can
//! use, each kept for as long as the memory is (one call, a binding's life, or across calls
//! until the owner says the bytes changed: [`CallbackMemory::invalidate`] and
//! [`CallbackMemory::clear`]): a texture's bytes whole (`Views`: the texture unit then reads them
//! in place, as a flat range's), and the 32-byte sectors of other reads (`Sectors`: the
//! texture unit reads a texel's or a descriptor's bytes at a time, and a warp's reads share
//! sectors). A sector is the unit of the texel addresses' sector lists (docs/sources.md,
//! Decisions).

use std::cell::RefCell;
use std::ops::Range;

use crate::memory::{read_spans, words8_or_read, Memory, MemoryError};

mod views;

use views::Views;
#[cfg(test)]
use views::DESCRIPTORS;

/// What a [`CallbackMemory`] reads with.
pub trait ReadBytes {
    /// Fills `dst` with the `dst.len()` bytes at `addr`; false when some byte cannot be read.
    /// `dst` is not cleared first (it may hold bytes of an earlier read): true says that
    /// every byte of it was written.
    fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> bool;
}

impl<F: Fn(u64, &mut [u8]) -> bool> ReadBytes for F {
    fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> bool {
        self(addr, dst)
    }
}

/// A memory read through `R`, which must read the same bytes for as long as the
/// `CallbackMemory` lives, or until the bytes that changed are invalidated
/// ([`invalidate`](Self::invalidate), [`clear`](Self::clear)): what it read is kept. A view
/// is fetched whole (up to 64 MiB, four kept; [`make_room`](Self::make_room) drops the least
/// recently used when all four are taken), a descriptor viewed in place as read (eight
/// kept; `make_room` drops them when all are taken), a read from its whole 32-byte sector
/// (64 kept, direct-mapped); a read across two sectors, or in a sector `R` cannot read
/// whole, asks for its exact bytes, so errors name the same address as a read of the bytes
/// alone. A failed fetch keeps nothing: the next read asks again. Without invalidation a
/// read gives the bytes kept (read before the change) where it hits a kept view or sector,
/// and the new bytes elsewhere: which one is not part of the contract.
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
    /// Made on the first read through them (a one-shot call's memory seldom reads one).
    sectors: RefCell<Option<Box<Sectors>>>,
    /// The views and descriptors kept (taken only as the memory drops: a one-shot memory's
    /// box goes back to its thread, [`Views::recycle`]).
    views: Option<Box<Views>>,
    /// The largest view fetched whole.
    max_view: u64,
}

impl<R> CallbackMemory<R> {
    /// Nothing read yet; views fetched whole up to 64 MiB (for a memory kept over many
    /// warps: a binding's, or one kept across calls).
    pub fn new(read: R) -> Self {
        Self::with_max_view(read, MAX_VIEW)
    }

    /// Nothing read yet, for the one warp of a one-shot call (nothing kept after it): a view
    /// is fetched whole only up to [`ONE_WARP_MAX_VIEW`], and for a gather that can read the
    /// sectors its texels lie in instead only up to [`ONE_WARP_VIEW_OVER_SECTORS`]
    /// ([`Memory::view_for_one_warp`]); a larger texture is read by its 32-byte sectors, the
    /// ones the warp's texels lie in (a warp's 128 texels lie in some 50-75 sectors, where a
    /// texture fetched whole each warp costs its size: 64 MiB a warp at most). A choice
    /// (docs/sources.md, Decisions: a C read-callback memory).
    pub fn for_one_warp(read: R) -> Self {
        Self::with_max_view(read, ONE_WARP_MAX_VIEW)
    }

    fn with_max_view(read: R, max_view: u64) -> Self {
        // (a memory made for one warp: the box the thread's last one left, if any)
        let views = if max_view <= ONE_WARP_MAX_VIEW {
            Views::for_one_warp()
        } else {
            Box::new(Views::new())
        };
        CallbackMemory {
            read,
            sectors: RefCell::new(None),
            views: Some(views),
            max_view,
        }
    }

    /// Whether this memory was made for one warp ([`CallbackMemory::for_one_warp`]): its
    /// box of views came from the thread and goes back to it.
    fn made_for_one_warp(&self) -> bool {
        self.max_view <= ONE_WARP_MAX_VIEW
    }

    /// The range at `addr` as one slice: kept, or fetched whole up to `max` bytes.
    fn view_up_to(&self, addr: u64, len: u64, max: u64) -> Option<&[u8]>
    where
        R: ReadBytes,
    {
        self.views()
            .view(addr, len, max, |at, dst| self.read.read_bytes(at, dst))
    }

    /// The views and descriptors kept.
    fn views(&self) -> &Views {
        match &self.views {
            Some(views) => views,
            None => unreachable!("the views are taken only as the memory drops"),
        }
    }

    /// The views and descriptors kept, to drop some.
    fn views_mut(&mut self) -> &mut Views {
        match &mut self.views {
            Some(views) => views,
            None => unreachable!("the views are taken only as the memory drops"),
        }
    }

    /// The read function.
    pub fn reader(&self) -> &R {
        &self.read
    }

    /// Drops every kept view and sector that overlaps the `len` bytes at `addr` (the range
    /// may end at 2^64; nothing is dropped for `len` 0): they are read again when next asked
    /// for. Call it after those bytes changed.
    pub fn invalidate(&mut self, addr: u64, len: u64) {
        self.views_mut().invalidate(addr, len);
        if let Some(sectors) = self.sectors.get_mut() {
            sectors.invalidate(addr, len);
        }
    }

    /// Drops everything kept.
    pub fn clear(&mut self) {
        self.views_mut().clear();
        if let Some(sectors) = self.sectors.get_mut() {
            sectors.clear();
        }
    }

    /// When every view slot holds a range, drops the least recently used one, so the next
    /// texture asked for is fetched whole (without it a memory kept across calls would read
    /// a fifth texture sector by sector). Call it between calls of a memory kept across
    /// them.
    pub fn make_room(&mut self) {
        let views = self.views_mut();
        views.make_room();
        views.descriptors.make_room();
    }

    /// How many views and sectors are kept.
    pub fn kept(&self) -> Kept {
        Kept {
            views: self.views().count(),
            sectors: self.sectors.try_borrow().map_or(0, |s| {
                s.as_ref().map_or(0, |s| s.valid.count_ones() as usize)
            }),
        }
    }
}

/// A one-shot memory's box of views goes back to its thread, emptied, for the next one-shot
/// memory (the buffers of its views kept: `Views::recycle`).
impl<R> Drop for CallbackMemory<R> {
    fn drop(&mut self) {
        if self.made_for_one_warp() {
            if let Some(views) = self.views.take() {
                views.recycle();
            }
        }
    }
}

/// What a [`CallbackMemory`] keeps ([`CallbackMemory::kept`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kept {
    /// Ranges fetched whole.
    pub views: usize,
    /// 32-byte sectors.
    pub sectors: usize,
}

/// Whether the `n` bytes at `a` and the `m` bytes at `b` share a byte (in 65 bits: a range
/// may end at 2^64).
fn overlaps(a: u64, n: u64, b: u64, m: u64) -> bool {
    let (a, n, b, m) = (a as u128, n as u128, b as u128, m as u128);
    n > 0 && m > 0 && a < b + m && b < a + n
}

impl<R: ReadBytes> Memory for CallbackMemory<R> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        if let Ok(mut sectors) = self.sectors.try_borrow_mut() {
            let sectors = sectors.get_or_insert_with(|| Box::new(Sectors::new()));
            if sectors.read(addr, buf, |at, dst| self.read.read_bytes(at, dst)) {
                return Ok(());
            }
        }
        // a read across sectors, or in a sector that cannot be read whole: asked for as it
        // is, nothing kept
        if self.read.read_bytes(addr, buf) {
            Ok(())
        } else {
            Err(MemoryError::Unmapped {
                addr,
                len: buf.len(),
            })
        }
    }

    /// Each asked for as it is, nothing kept.
    fn read_spans_once(&self, base: u64, bytes: &mut [u8], spans: &[Range<usize>]) -> bool {
        read_spans(base, bytes, spans, |at, dst| self.read.read_bytes(at, dst))
    }

    /// The descriptor kept in place ([`Memory::descriptor_view`]), else read.
    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        words8_or_read(self, addr, self.descriptor_view(addr))
    }

    /// The whole range, asked for once and kept.
    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.view_up_to(addr, len, self.max_view)
    }

    /// The whole range as [`Memory::view`] fetches it, but for a memory made for one warp
    /// only up to [`ONE_WARP_VIEW_OVER_SECTORS`] bytes (a range kept already is handed out
    /// whatever its size).
    fn view_for_one_warp(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let max = if self.made_for_one_warp() {
            ONE_WARP_VIEW_OVER_SECTORS
        } else {
            self.max_view
        };
        self.view_up_to(addr, len, max)
    }

    /// Kept in place once read (an aligned one asked for as its whole sector, and kept
    /// here only, not as a sector too; else as [`Memory::read`] reads it), so that a call
    /// kept across calls compares its descriptors where they lie (none copied a call);
    /// None where every slot holds another descriptor or the read fails (the caller then
    /// reads them). (Out of line: a memory choosing among forms, as C's, keeps its flat
    /// form's code small.)
    #[inline(never)]
    fn descriptor_view(&self, addr: u64) -> Option<&[u8; 32]> {
        (self.views().descriptors).view(addr, |dst| {
            // (an aligned descriptor is a whole sector: asked for as `read` would)
            if addr.is_multiple_of(SECTOR as u64) {
                self.read.read_bytes(addr, dst)
            } else {
                self.read(addr, dst).is_ok()
            }
        })
    }
}

/// The largest view fetched whole (larger textures are read sector by sector).
const MAX_VIEW: u64 = 64 << 20;
/// The largest view a memory made for one warp fetches whole
/// ([`CallbackMemory::for_one_warp`]; larger textures are read by sectors): where a
/// texture's copy a warp cost what reading the warp's sectors texel by texel cost (measured
/// from C: 6x faster whole at 16 KiB, 2x at 64 KiB, sectors 2x faster at 256 KiB). One-shot
/// calls read the sectors in place since ([`crate::staged`]: as fast as a copy of some
/// 40-50 KiB); the limit stays, as a call recording texel addresses still reads a texture
/// without a view texel by texel (docs/benchmarks.md, "Read by its sectors, in place").
pub const ONE_WARP_MAX_VIEW: u64 = 128 << 10;
/// The largest view a memory made for one warp fetches whole for a gather that can read the
/// sectors its texels lie in instead ([`Memory::view_for_one_warp`]: a one-shot call that
/// records no texel addresses): about where the two cost alike for 32 scattered lanes, a
/// warp of neighbouring pixels reading far fewer sectors (measured from C: at 16 KiB the
/// copy 0.55x a flat range's rate, at 25 KiB 0.37 against the sectors' 0.39, at 64 KiB
/// 0.26 against 0.35; docs/benchmarks.md, "A one-shot callback's views kept by the
/// thread"). A choice (docs/sources.md, Decisions: a C read-callback memory).
pub const ONE_WARP_VIEW_OVER_SECTORS: u64 = 16 << 10;

/// Bytes a sector.
const SECTOR: usize = 32;
/// Sectors kept (direct-mapped, [`slot`]): 2 KiB.
const KEPT: usize = 64;

/// The slot of sector `number`: its low 6 bits XOR 6 bits hashed from the rest (Fibonacci
/// hashing: the top bits of the rest times 2^64 / the golden ratio), so the 64 sectors of an
/// aligned 2 KiB block take the 64 slots (as a slot by the low bits alone would), and
/// sectors a power of two apart past 2 KiB seldom share one (a header pool and a sampler
/// pool at aligned addresses, 1 MiB apart: by the low bits alone each call would fetch both
/// again). A choice (docs/sources.md, Decisions: a C read-callback memory).
#[inline]
fn slot(number: u64) -> usize {
    let hashed = (number >> 6).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58;
    ((number ^ hashed) % KEPT as u64) as usize
}

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

    /// Drops the sectors overlapping the `len` bytes at `addr`.
    fn invalidate(&mut self, addr: u64, len: u64) {
        for slot in 0..KEPT {
            let start = self.tags[slot] * SECTOR as u64;
            if self.valid >> slot & 1 == 1 && overlaps(start, SECTOR as u64, addr, len) {
                self.valid &= !(1 << slot);
            }
        }
    }

    /// Drops every sector.
    fn clear(&mut self) {
        self.valid = 0;
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
        let slot = slot(number);
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

    /// Memory whose bytes a test changes: 4 KiB, byte `i` holding `i % 256`.
    type Changing = std::rc::Rc<RefCell<Vec<u8>>>;

    fn changing() -> Changing {
        std::rc::Rc::new(RefCell::new((0..4096).map(|i| i as u8).collect()))
    }

    /// A read function over `bytes`.
    fn reader(bytes: &Changing) -> impl Fn(u64, &mut [u8]) -> bool {
        let b = bytes.clone();
        move |addr: u64, dst: &mut [u8]| {
            let b = b.borrow();
            match b.get(addr as usize..addr as usize + dst.len()) {
                Some(s) => {
                    dst.copy_from_slice(s);
                    true
                }
                None => false,
            }
        }
    }

    /// Descriptors are kept in place once read: the same bytes as a read until invalidated,
    /// then the new ones; a failed read keeps nothing; when every slot is taken, none is
    /// handed out until `make_room` drops them.
    #[test]
    fn descriptors_are_kept_in_place_until_invalidated() {
        let bytes = changing();
        let mut m = CallbackMemory::new(reader(&bytes));
        let want = |at: usize| -> [u8; 32] { std::array::from_fn(|i| (at + i) as u8) };
        assert_eq!(m.descriptor_view(0x40), Some(&want(0x40)));
        // (aligned: its sector asked for, kept as the descriptor only)
        assert_eq!(m.kept().sectors, 0);
        bytes.borrow_mut()[0x41] = 0xaa;
        // kept: the bytes read before the change, viewed and read as words alike
        assert_eq!(m.descriptor_view(0x40), Some(&want(0x40)));
        let word = |d: [u8; 32]| u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
        assert_eq!(m.read_words8(0x40).unwrap()[0], word(want(0x40)));
        // (unaligned: read as `read` reads, its bytes alone across two sectors)
        assert_eq!(m.descriptor_view(0x84), Some(&want(0x84)));
        m.invalidate(0x41, 1);
        let mut changed = want(0x40);
        changed[1] = 0xaa;
        assert_eq!(m.descriptor_view(0x40), Some(&changed));
        // past the memory's end: nothing kept, the caller reads (and names the address)
        assert_eq!(m.descriptor_view(4090), None);
        assert!(m.read_words8(4090).is_err());
        // the other six slots, then none free
        for k in 2..DESCRIPTORS as u64 {
            assert!(m.descriptor_view(0x100 * k).is_some());
        }
        assert_eq!(m.descriptor_view(0xc00), None);
        assert_eq!(m.descriptor_view(0x40), Some(&changed));
        m.make_room();
        assert_eq!(m.descriptor_view(0xc00), Some(&want(0xc00)));
        // cleared: read anew
        bytes.borrow_mut()[0xc00] = 0xbb;
        m.clear();
        assert_eq!(m.descriptor_view(0xc00).map(|d| d[0]), Some(0xbb));
    }

    #[test]
    fn kept_bytes_stay_until_invalidated_and_invalidation_reads_the_new_ones() {
        let bytes = changing();
        let mut m = CallbackMemory::new(reader(&bytes));
        assert_eq!(m.read_u32(0x40).unwrap(), 0x4342_4140);
        assert_eq!(m.view(0x100, 16).map(|v| v[0]), Some(0x00));
        assert_eq!(
            m.kept(),
            Kept {
                views: 1,
                sectors: 1
            }
        );
        bytes.borrow_mut()[0x40] = 0xaa;
        bytes.borrow_mut()[0x10f] = 0xbb;
        // not invalidated: the kept sector's and view's bytes (read before the change);
        // bytes never kept are read anew
        assert_eq!(m.read_u32(0x40).unwrap(), 0x4342_4140);
        assert_eq!(m.view(0x100, 16).map(|v| v[15]), Some(0x0f));
        assert_eq!(m.read_u32(0x10c).unwrap(), 0xbb0e_0d0c);
        // a range next to them, not overlapping: still kept
        m.invalidate(0x60, 0xa0);
        m.invalidate(0x3c, 4);
        m.invalidate(0x40, 0);
        assert_eq!(m.read_u32(0x40).unwrap(), 0x4342_4140);
        assert_eq!(m.view(0x100, 16).map(|v| v[15]), Some(0x0f));
        // one byte of each: read again
        m.invalidate(0x5f, 1);
        m.invalidate(0x10f, u64::MAX - 0x10e);
        assert_eq!(m.read_u32(0x40).unwrap(), 0x4342_41aa);
        assert_eq!(m.view(0x100, 16).map(|v| v[15]), Some(0xbb));
        // clear: nothing kept, everything read anew
        bytes.borrow_mut()[0x41] = 0xcc;
        m.clear();
        assert_eq!(
            m.kept(),
            Kept {
                views: 0,
                sectors: 0
            }
        );
        assert_eq!(m.read_u32(0x40).unwrap(), 0x4342_ccaa);
    }

    #[test]
    fn make_room_drops_the_least_recently_used_view_only_when_all_are_taken() {
        let read = reader(&changing());
        let calls = std::cell::Cell::new(0);
        let mut m = CallbackMemory::new(|a: u64, d: &mut [u8]| {
            calls.set(calls.get() + 1);
            read(a, d)
        });
        for k in 0..3u64 {
            assert!(m.view(k * 0x100, 8).is_some());
        }
        m.make_room(); // a slot is free: nothing dropped
        assert_eq!(m.kept().views, 3);
        assert!(m.view(0x300, 8).is_some());
        assert!(m.view(0x400, 8).is_none()); // all four taken
        assert!(m.view(0x000, 8).is_some()); // used again: 0x100 is now the oldest
        m.make_room();
        assert_eq!(m.kept().views, 3);
        calls.set(0);
        assert!(m.view(0x000, 8).is_some());
        assert!(m.view(0x200, 8).is_some());
        assert_eq!(calls.get(), 0, "0x000 and 0x200 kept");
        assert!(m.view(0x400, 8).is_some());
        assert_eq!(calls.get(), 1);
        assert!(
            m.view(0x100, 8).is_none(),
            "0x100 was dropped, no slot free"
        );
    }

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
        // another sector in the same slot (sector 0x65 at 0xca0, slot 2 as sector 2)
        // replaces it
        assert_eq!((slot(0x65), slot(2)), (2, 2));
        assert!(s.read(0xca4, &mut b, &mut fetch));
        assert_eq!(b, [0xa4, 0xa5, 0xa6, 0xa7]);
        assert!(s.read(0x48, &mut b, &mut fetch));
        assert_eq!(b, [0x48, 0x49, 0x4a, 0x4b]);
        let mut whole = [0u8; 32];
        assert!(s.read(0xe0, &mut whole, &mut fetch));
        assert_eq!(whole[31], 0xff);
        assert_eq!(fetched, [0x40, 0x1000, 0x1000, 0xca0, 0x40, 0xe0]);
    }

    #[test]
    fn sectors_of_a_block_and_sectors_a_power_of_two_apart_take_their_own_slots() {
        // the 64 sectors of an aligned 2 KiB block: every slot once
        let mut slots: Vec<usize> = (0x4000..0x4040).map(slot).collect();
        slots.sort_unstable();
        assert_eq!(slots, (0..KEPT).collect::<Vec<_>>());
        // descriptor pools at aligned addresses (slots 27, 55, 46, 13): kept together, each
        // fetched once
        let mut fetched = Vec::new();
        let mut s = Sectors::new();
        let mut fetch = |at: u64, dst: &mut [u8]| {
            fetched.push(at);
            dst.fill((at >> 20) as u8);
            true
        };
        let mut b = [0u8; 32];
        for _ in 0..3 {
            for (at, value) in [
                (0x10_0000, 1),
                (0x20_0000, 2),
                (0x40_0000, 4),
                (0x1_0000_0000, 0),
            ] {
                assert!(s.read(at, &mut b, &mut fetch));
                assert_eq!(b, [value; 32]);
            }
        }
        assert_eq!(fetched, [0x10_0000, 0x20_0000, 0x40_0000, 0x1_0000_0000]);
    }

    /// A read function over `memory`, recording in `asked` what it was asked for.
    pub(super) fn recording<'m>(
        memory: &'m [u8],
        asked: &'m RefCell<Vec<(u64, usize)>>,
    ) -> impl Fn(u64, &mut [u8]) -> bool + 'm {
        move |at, dst| {
            asked.borrow_mut().push((at, dst.len()));
            match memory.get(at as usize..at as usize + dst.len()) {
                Some(b) => {
                    dst.copy_from_slice(b);
                    true
                }
                None => false,
            }
        }
    }

    #[test]
    fn a_gather_that_can_read_sectors_is_handed_a_one_warp_view_only_up_to_its_limit() {
        let limit = ONE_WARP_VIEW_OVER_SECTORS;
        let memory: Vec<u8> = (0..2 * limit as usize).map(|i| (i * 5) as u8).collect();
        let asked = RefCell::new(Vec::new());
        let read = recording(&memory, &asked);
        let one = CallbackMemory::for_one_warp(&read);
        // past the limit: refused without a call (the gather reads the sectors)
        assert_eq!(one.view_for_one_warp(0, limit + 1), None);
        assert!(asked.borrow().is_empty());
        // up to it: fetched whole
        assert_eq!(
            one.view_for_one_warp(32, limit),
            Some(&memory[32..32 + limit as usize])
        );
        assert_eq!(*asked.borrow(), [(32, limit as usize)]);
        // a view fetched for a gather that reads no sectors is handed out as kept
        asked.borrow_mut().clear();
        assert!(one.view(0, limit + 1).is_some());
        assert_eq!(
            one.view_for_one_warp(0, limit + 1),
            Some(&memory[..limit as usize + 1])
        );
        assert_eq!(*asked.borrow(), [(0, limit as usize + 1)]);
        // a memory kept over many warps fetches it whole at once
        asked.borrow_mut().clear();
        let kept = CallbackMemory::new(&read);
        assert_eq!(
            kept.view_for_one_warp(64, limit + 1),
            Some(&memory[64..64 + limit as usize + 1])
        );
        assert_eq!(*asked.borrow(), [(64, limit as usize + 1)]);
    }

    #[test]
    fn a_memory_for_one_warp_reads_a_larger_texture_by_sectors() {
        let limit = ONE_WARP_MAX_VIEW as usize;
        let memory: Vec<u8> = (0..2 * limit + 64).map(|i| (i * 7) as u8).collect();
        let asked = RefCell::new(Vec::new());
        let read = recording(&memory, &asked);
        let one = CallbackMemory::for_one_warp(&read);
        // up to the limit: fetched whole, once
        assert_eq!(
            one.view(64, ONE_WARP_MAX_VIEW),
            Some(&memory[64..64 + limit])
        );
        assert_eq!(
            one.view(64, ONE_WARP_MAX_VIEW),
            Some(&memory[64..64 + limit])
        );
        assert_eq!(*asked.borrow(), [(64, limit)]);
        // past it: refused without a call; its bytes read by their sectors
        asked.borrow_mut().clear();
        assert_eq!(one.view(32, ONE_WARP_MAX_VIEW + 1), None);
        assert!(asked.borrow().is_empty());
        let at = limit as u64 + 100;
        assert_eq!(
            one.read_u32(at).unwrap().to_le_bytes(),
            memory[at as usize..at as usize + 4]
        );
        // the same sector's next bytes: from the kept sector, no second call
        assert_eq!(
            one.read_u32(at + 4).unwrap().to_le_bytes(),
            memory[at as usize + 4..at as usize + 8]
        );
        assert_eq!(*asked.borrow(), [(at & !31, 32)]);
        // a memory kept over many warps fetches the same texture whole
        asked.borrow_mut().clear();
        let kept = CallbackMemory::new(&read);
        let len = ONE_WARP_MAX_VIEW + 1;
        assert_eq!(kept.view(32, len), Some(&memory[32..32 + len as usize]));
        assert_eq!(*asked.borrow(), [(32, len as usize)]);
    }
}
