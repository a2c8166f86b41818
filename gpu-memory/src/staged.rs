//! A texture read by the 32-byte sectors a warp's texels lie in, for a memory that hands out
//! no view of it (a read callback made for one warp, [`CallbackMemory::for_one_warp`], over a
//! texture larger than it fetches whole; a texture across two ranges): the in-place gatherer
//! runs twice over a scratch copy of the texture kept per thread. The first run stops at the
//! texels ([`DetachedGatherer::watch_lane_range`]: no loads, no results): the kernels name
//! the texels they would read to a [`TexelWatcher`], which marks the sectors each brings
//! first ([`KernelTexels::sectors`]), and the per-lane path's lanes their footprints
//! ([`SiteGatherer::addresses`]); those sectors are read from the memory
//! (one span each 2 KiB block of the texture they lie in, from its first such sector to its
//! last: a call of a read function costs more than the sectors between; all the spans in
//! one call of the memory, [`Memory::read_spans_once`], in address order); the second run
//! gathers from them, finished from the texels the first found
//! ([`DetachedGatherer::gather_found`]: fetched and converted, nothing before them computed
//! again). The second run reads the texels the first named (the texel addresses
//! depend on the queries, the descriptors and the gather, never on the texels' values), so
//! what the scratch held before is never read. Where the texture is larger than [`MAX_STAGED`], the
//! scratch is in use (a read function calling tld4 again on its thread) or a read fails,
//! nothing is returned and the caller reads texel by texel, as before, with its exact
//! errors. A choice, measured (docs/sources.md, Decisions: a texture read by its sectors).
//!
//! [`CallbackMemory::for_one_warp`]: crate::CallbackMemory::for_one_warp
//! [`SiteGatherer::addresses`]: tld4_textures::SiteGatherer::addresses
//! [`DetachedGatherer::watch_lane_range`]: tld4_textures::DetachedGatherer::watch_lane_range
//! [`DetachedGatherer::gather_found`]: tld4_textures::DetachedGatherer::gather_found

use std::cell::RefCell;
use std::ops::Range;

use tld4_textures::{
    Error, FoundTexels, KernelTexels, LaneQueries, LaneResults, SimdLevel, TexelAddress,
    TexelSectors, TexelWatcher, LANES,
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
/// a sector of it and one bit a word of those (set while a call collects its sectors; all
/// clear between calls), the spans a call reads (one a word at most), and room for what the
/// first run reports (boxed: the thread-local stays small where no texture is read by
/// sectors).
struct Scratch {
    bytes: Vec<u8>,
    seen: Vec<u64>,
    words: Vec<u64>,
    spans: Vec<Range<usize>>,
    reports: Option<Box<Reports>>,
}

/// What the first run's watcher keeps of a report: the chunk's sectors (written whole by
/// each report) and the texels found, from which the second run is finished.
#[derive(Default)]
struct Reports {
    sectors: TexelSectors,
    found: FoundTexels,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch {
            bytes: Vec::new(),
            seen: Vec::new(),
            words: Vec::new(),
            spans: Vec::new(),
            reports: None,
        })
    };
}

/// The sectors a call collects: a bit each in `seen` (as many words as the texture has
/// sectors, in 64s), and a bit in `words` for each word of `seen` with bits set.
struct Marks<'s> {
    seen: &'s mut [u64],
    words: &'s mut [u64],
}

impl Marks<'_> {
    /// Collects sector `n` (a sector past the texture is not collected): two bits set, no
    /// branch on whether either was clear (half the marks of scattered lanes are new,
    /// unpredictably).
    #[inline(always)]
    fn mark(&mut self, n: usize) {
        mark(self.seen, self.words, n);
    }

    /// Reads the collected sectors of each word (64 sectors: 2 KiB of the texture) as one
    /// span, from the first to the last, in address order, from `memory` into `bytes` (the
    /// texture from `address`, the last sector cut at its end), all spans in one call of
    /// `memory` ([`Memory::read_spans_once`]), clearing every bit whatever happens; false
    /// where a read failed. (One read a block, not one a run of adjacent sectors: a lane's
    /// footprint often lies in two sectors a row of a GOB apart; 50 -> 32 calls a warp,
    /// docs/benchmarks.md, "One read a 2 KiB block".)
    fn read_blocks(
        &mut self,
        memory: &dyn Memory,
        address: u64,
        bytes: &mut [u8],
        spans: &mut [Range<usize>],
    ) -> bool {
        let mut n = 0;
        self.take(|w, bits| {
            // (a word marked has bits set; `spans` has one entry a word: in it)
            if let (true, Some(span)) = (bits != 0, spans.get_mut(n)) {
                let first = bits.trailing_zeros() as usize;
                let last = 63 - bits.leading_zeros() as usize;
                *span = (w * 64 + first) * SECTOR..((w * 64 + last + 1) * SECTOR).min(bytes.len());
                n += 1;
            }
        });
        memory.read_spans_once(address, bytes, &spans[..n])
    }

    /// Clears every bit set, handing `f` each marked word's number and the bits it held, in
    /// address order.
    #[inline(always)]
    fn take(&mut self, mut f: impl FnMut(usize, u64)) {
        for (i, words) in self.words.iter_mut().enumerate() {
            let mut set = std::mem::take(words);
            while set != 0 {
                let w = i * 64 + set.trailing_zeros() as usize;
                set &= set - 1;
                f(w, self.seen.get_mut(w).map_or(0, std::mem::take));
            }
        }
    }
}

/// [`Marks::mark`] on the marks' slices (held in locals by a caller marking many).
#[inline(always)]
fn mark(seen: &mut [u64], words: &mut [u64], n: usize) {
    let w = n / 64;
    if let (Some(word), Some(words)) = (seen.get_mut(w), words.get_mut(w / 64)) {
        *word |= 1u64 << (n % 64);
        *words |= 1u64 << (w % 64);
    }
}

/// [`mark`] of the sectors of `lanes` (bits) of `sectors`. (The slices as arguments: the
/// compiler knows that the bits it sets are not the slices', and keeps them in registers.)
#[inline]
fn mark_lanes(seen: &mut [u64], words: &mut [u64], sectors: &[u32; LANES], lanes: u32) {
    let mut lanes = lanes;
    while lanes != 0 {
        let k = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        mark(seen, words, sectors[k] as usize);
    }
}

/// Bits a call leaves set (a call that stopped before reading its sectors: an error, a
/// panic unwinding through it) are cleared as the marks go, so the next call starts clear.
impl Drop for Marks<'_> {
    fn drop(&mut self) {
        self.take(|_, _| {});
    }
}

/// The watcher of the first run: the sectors of the texels the kernels would read, and the
/// texels themselves and the lanes they did not report (the second run's start).
struct Collect<'s, 'm> {
    marks: &'m mut Marks<'s>,
    /// A storage index's sector: the index shifted right by this (elements of 1 to 16
    /// bytes, a power of two, at indices aligned to them: an element lies in one sector).
    shift: u32,
    /// The level the sectors are compared at (the gather's).
    level: SimdLevel,
    /// A report's sectors and the texels found.
    reports: &'s mut Reports,
}

impl TexelWatcher for Collect<'_, '_> {
    /// Records the texels found, and marks the sector of each texel that brings it first
    /// ([`KernelTexels::sectors`]: not a border texel, which is not read, nor one in a sector
    /// that an earlier texel of its lane, or the same texel of the lane before, lies in;
    /// compared at the gather's level). A footprint's texels share sectors more often than
    /// not (RGBA8 in a GOB, 1.9 sectors a lane of scattered lanes), and neighbouring lanes
    /// of a screen-space warp share theirs (an 8 x 4 block of pixels a texel apart: 59.5
    /// marks a warp without the lane before, 24.8 with it; scattered lanes 60 either way,
    /// docs/benchmarks.md).
    fn texels(&mut self, t: &KernelTexels<'_>) {
        self.reports.found.texels(t);
        let sectors = &mut self.reports.sectors;
        t.sectors(self.level, self.shift, sectors);
        // (the marks' slices in locals: their stores do not reload them)
        let Marks { seen, words } = &mut *self.marks;
        for (sector, fresh) in sectors.sector.iter().zip(sectors.fresh) {
            mark_lanes(seen, words, sector, fresh);
        }
    }

    fn unreported(&mut self, lanes: u32) {
        self.reports.found.unreported(lanes);
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
                let Staging {
                    bytes,
                    mut marks,
                    spans,
                    reports,
                } = grow(&mut scratch, extent);
                let at = bytes.as_ptr().align_offset(16).min(16);
                let bytes = bytes.get_mut(at..at + extent)?;
                // the first run, to the texels only, over the scratch (whatever it holds)
                let mut watch = Collect {
                    marks: &mut marks,
                    shift: 5 - self.header().format.storage().bytes().trailing_zeros(),
                    level,
                    reports,
                };
                watch.reports.found.clear();
                let watched = range.clone();
                if let Err(e) =
                    gatherer.watch_lane_range(bytes, level, queries, watched, &mut watch)
                {
                    return Some(Err(e));
                }
                let found = &watch.reports.found;
                self.mark_footprints(&mut marks, found.unreported_lanes(), queries);
                if !marks.read_blocks(memory, self.header().address, bytes, spans) {
                    return None;
                }
                // the second run from the texels found (the whole gather where the first
                // took the per-lane path for every lane)
                Some(gatherer.gather_found(bytes, level, queries, range, found, out))
            })
            .ok()
            .flatten()
    }

    /// Collects into `marks` the sectors of the footprints of `lanes` (bits of `queries`),
    /// the lanes the kernels left to the per-lane path in the first run: their texel
    /// addresses from the texel-by-texel gatherer's footprint.
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

/// A call's part of the scratch: the texture's bytes (and 16 more, for an aligned start),
/// its sectors' marks and room for a span a word of marks.
struct Staging<'s> {
    bytes: &'s mut [u8],
    marks: Marks<'s>,
    spans: &'s mut [Range<usize>],
    reports: &'s mut Reports,
}

/// Makes the scratch hold `extent` bytes, their bits and spans at least (a fresh zeroed
/// allocation where it grows: the system lends its pages as they are written); the part
/// of it for `extent` bytes.
fn grow(scratch: &mut Scratch, extent: usize) -> Staging<'_> {
    let Scratch {
        bytes,
        seen,
        words,
        spans,
        reports,
    } = scratch;
    if bytes.len() < extent + 16 {
        *bytes = vec![0; extent + 16];
    }
    let n = extent.div_ceil(SECTOR).div_ceil(64);
    if seen.len() < n {
        // (every bit is clear between calls: the larger sets start clear too)
        *seen = vec![0; n];
        *words = vec![0; n.div_ceil(64)];
        *spans = vec![0..0; n];
    }
    Staging {
        bytes,
        marks: Marks {
            seen: &mut seen[..n],
            words: &mut words[..n.div_ceil(64)],
        },
        spans: &mut spans[..n],
        reports: reports.get_or_insert_default(),
    }
}
