//! A texture read by the 32-byte sectors a warp's texels lie in, for a memory that hands out
//! no view of it (a read callback made for one warp, [`CallbackMemory::for_one_warp`], over a
//! texture larger than it fetches whole; a texture across two ranges): the in-place gatherer
//! runs twice over a scratch copy of the texture kept per thread. The first run is watched
//! ([`TexelWatcher`]): the kernels name the texels they read, and the per-lane path's lanes
//! their footprints ([`SiteGatherer::addresses`]); those sectors are read from the memory
//! (one read each 2 KiB block of the texture they lie in, from its first such sector to its
//! last: a call of a read function costs more than the sectors between); the second run
//! gathers from them. The second run reads the texels the first named (the texel addresses
//! depend on the queries, the descriptors and the gather, never on the texels' values), so
//! what the scratch held before is never read. Where the texture is larger than [`MAX_STAGED`], the
//! scratch is in use (a read function calling tld4 again on its thread) or a read fails,
//! nothing is returned and the caller reads texel by texel, as before, with its exact
//! errors. A choice, measured (docs/sources.md, Decisions: a texture read by its sectors).
//!
//! [`CallbackMemory::for_one_warp`]: crate::CallbackMemory::for_one_warp
//! [`SiteGatherer::addresses`]: tld4_textures::SiteGatherer::addresses

use std::cell::RefCell;
use std::ops::Range;

use tld4_textures::{
    Error, KernelTexels, LaneQueries, LaneResults, SimdLevel, TexelAddress, TexelWatcher,
};

use crate::memory::Memory;
use crate::pool::DetachedTexture;

/// The largest texture read by its sectors (the scratch a thread keeps is at most this
/// large; its pages are taken from the system only where sectors were written).
pub const MAX_STAGED: u64 = 64 << 20;

/// Bytes a sector.
const SECTOR: usize = 32;

/// What a thread keeps for reading textures by sectors: the scratch copy (16 bytes longer
/// than the largest texture staged, so that an aligned start can be found in it), one bit
/// a sector of it (set while a call collects its sectors; all clear between calls) and the
/// words of bits a call set.
struct Scratch {
    bytes: Vec<u8>,
    seen: Vec<u64>,
    words: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch {
            bytes: Vec::new(),
            seen: Vec::new(),
            words: Vec::new(),
        })
    };
}

/// The sectors a call collects: a bit each, and the words of bits set, in first-use order.
struct Marks<'s> {
    seen: &'s mut [u64],
    words: &'s mut Vec<u32>,
}

impl Marks<'_> {
    /// Collects sector `n` (a sector past the texture is not collected).
    #[inline(always)]
    fn mark(&mut self, n: usize) {
        if let Some(word) = self.seen.get_mut(n / 64) {
            if *word == 0 {
                // (at most 2^15 words: MAX_STAGED)
                self.words.push((n / 64) as u32);
            }
            *word |= 1u64 << (n % 64);
        }
    }

    /// Reads the collected sectors of each word (64 sectors: 2 KiB of the texture) in one
    /// read, from the first to the last, from `memory` into `bytes` (the texture from
    /// `address`, the last sector cut at its end), clearing every bit whatever happens;
    /// false where a read failed. (One read a block, not one a run of adjacent sectors: a
    /// lane's footprint often lies in two sectors a row of a GOB apart; 50 -> 32 calls a
    /// warp, docs/benchmarks.md, "One read a 2 KiB block".)
    fn read_blocks(&mut self, memory: &dyn Memory, address: u64, bytes: &mut [u8]) -> bool {
        let mut ok = true;
        for &w in self.words.iter() {
            let w = w as usize;
            let Some(word) = self.seen.get_mut(w) else {
                continue;
            };
            let bits = std::mem::take(word);
            if bits == 0 || !ok {
                continue;
            }
            let first = bits.trailing_zeros() as usize;
            let last = 63 - bits.leading_zeros() as usize;
            let start = (w * 64 + first) * SECTOR;
            let span = start..((w * 64 + last + 1) * SECTOR).min(bytes.len());
            if let Some(dst) = bytes.get_mut(span.clone()) {
                ok = memory.read_once(address + span.start as u64, dst).is_ok();
            }
        }
        self.words.clear();
        ok
    }
}

/// Bits a call leaves set (a call that stopped before reading its sectors: an error, a
/// panic unwinding through it) are cleared as the marks go, so the next call starts clear.
impl Drop for Marks<'_> {
    fn drop(&mut self) {
        for &w in self.words.iter() {
            if let Some(word) = self.seen.get_mut(w as usize) {
                *word = 0;
            }
        }
        self.words.clear();
    }
}

/// The watcher of the first run: the sectors of the texels the kernels read, and the lanes
/// they did not report.
struct Collect<'s, 'm> {
    marks: &'m mut Marks<'s>,
    element_bytes: usize,
    unreported: u32,
}

impl TexelWatcher for Collect<'_, '_> {
    fn texels(&mut self, t: &KernelTexels<'_>) {
        let mut lanes = t.lanes;
        while lanes != 0 {
            let k = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            for texel in 0..4 {
                // (a border texel is not read)
                if t.real.is_none_or(|real| real[texel][k]) {
                    // (an element of at most 16 bytes at an index aligned to it lies in one
                    // sector)
                    let at = t.index[texel][k] as usize * self.element_bytes;
                    self.marks.mark(at / SECTOR);
                }
            }
        }
    }

    fn unreported(&mut self, lanes: u32) {
        self.unreported |= lanes;
    }
}

impl DetachedTexture {
    /// Whether [`DetachedTexture::gather_by_sectors`] can read this texture: it has an
    /// in-place gatherer and is at most [`MAX_STAGED`] bytes.
    #[inline]
    pub fn reads_by_sectors(&self) -> bool {
        self.in_place().is_some() && self.extent() <= MAX_STAGED
    }

    /// Gathers lanes `range` of `queries` into `out` from `memory`, reading from it only the
    /// 32-byte sectors the lanes' texels lie in (the module's text says how), for a memory
    /// that hands out no view of the texture; the results are those of the texel-by-texel
    /// gather ([`DetachedTexture::attach`]). None where this cannot be done (no in-place
    /// gatherer, a texture over [`MAX_STAGED`], the thread's scratch in use, a failed read):
    /// the caller then gathers texel by texel, which names the failing lane and address.
    pub fn gather_by_sectors(
        &self,
        memory: &dyn Memory,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
    ) -> Option<Result<(), Error>> {
        let gatherer = self.in_place().filter(|_| self.reads_by_sectors())?;
        let extent = self.extent() as usize;
        SCRATCH
            .try_with(|scratch| {
                let mut scratch = scratch.try_borrow_mut().ok()?;
                let Scratch { bytes, seen, words } = &mut *scratch;
                grow(bytes, seen, extent);
                let at = bytes.as_ptr().align_offset(16).min(16);
                let bytes = bytes.get_mut(at..at + extent)?;
                let mut marks = Marks { seen, words };
                // the first, watched run over the scratch (whatever it holds)
                let mut watch = Collect {
                    marks: &mut marks,
                    element_bytes: self.header().format.storage().bytes() as usize,
                    unreported: 0,
                };
                let watched = range.clone();
                if let Err(e) = gatherer
                    .gather_lane_range_watched(bytes, level, queries, watched, out, &mut watch)
                {
                    return Some(Err(e));
                }
                let unreported = watch.unreported;
                self.mark_footprints(&mut marks, unreported, queries);
                if !marks.read_blocks(memory, self.header().address, bytes) {
                    return None;
                }
                Some(gatherer.gather_lane_range(bytes, level, queries, range, out))
            })
            .ok()
            .flatten()
    }

    /// Collects into `marks` the sectors of the footprints of `lanes` (bits of `queries`),
    /// the lanes the per-lane path gathered in the first run: their texel addresses from the
    /// texel-by-texel gatherer's footprint.
    fn mark_footprints(&self, marks: &mut Marks<'_>, lanes: u32, queries: &LaneQueries) {
        let base = self.header().address;
        let mut lanes = lanes;
        while lanes != 0 {
            let k = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let Some(q) = queries.get(k) else { continue };
            for t in self.per_read.addresses(&q).texels {
                // (the texture's texels: from `base`, within its extent)
                if let TexelAddress::Texel { bytes, address } = t {
                    let first = address.saturating_sub(base) as usize;
                    let last = first.saturating_add(bytes.max(1) as usize - 1);
                    for n in first / SECTOR..=last / SECTOR {
                        marks.mark(n);
                    }
                }
            }
        }
    }
}

/// Makes the scratch hold `extent` bytes and their bits at least (a fresh zeroed
/// allocation where it grows: the system lends its pages as they are written).
fn grow(bytes: &mut Vec<u8>, seen: &mut Vec<u64>, extent: usize) {
    if bytes.len() < extent + 16 {
        *bytes = vec![0; extent + 16];
    }
    let words = extent.div_ceil(SECTOR).div_ceil(64);
    if seen.len() < words {
        // (every bit is clear between calls: the larger set starts clear too)
        *seen = vec![0; words];
    }
}
