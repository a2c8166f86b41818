//! A texture header pool and a sampler pool in GPU memory: a handle's header index (bits
//! 0-19) selects the 32-byte header at `header_pool + 32 * index`, its sampler index (bits
//! 20-31) the 32-byte sampler at `sampler_pool + 32 * index`, each eight little-endian
//! 32-bit words (docs/sources.md, Descriptors; the handle split:
//! docs/sources.md, NAK conventions).

use crate::descriptor::class::ClassDescriptors;
use crate::descriptor::tic::TextureHeader;
use std::ops::Range;

use crate::error::MemTexError;
use crate::layout::layout_of;
use crate::memory::{Memory, MemoryError};
use crate::texels::MemoryTexels;
use tld4_textures::Error;
use tld4_textures::{
    DetachedGatherer, GatherOp, Gatherer, Handle, KernelTexels, LaneQueries, LaneResults,
    LaneTexels, Precision, Sampler, SimdLevel, SiteGatherer, TexelWatcher,
};

/// The two pools, in a memory.
#[derive(Clone, Copy)]
pub struct MemoryPool<'m> {
    /// The memory the pools and texels are in.
    pub memory: &'m dyn Memory,
    /// Address of texture header 0.
    pub header_pool: u64,
    /// Address of sampler 0.
    pub sampler_pool: u64,
    /// How the GPU reads the entries: its class and header layout (default BLACKWELL_A,
    /// V2; docs/sources.md, Descriptors per GPU class).
    pub descriptors: ClassDescriptors,
}

impl std::fmt::Debug for MemoryPool<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryPool")
            .field("header_pool", &self.header_pool)
            .field("sampler_pool", &self.sampler_pool)
            .field("descriptors", &self.descriptors)
            .finish_non_exhaustive()
    }
}

/// The address of entry `index` of the pool at `pool` (`what` names it in the error); its
/// 32 bytes may end at 2^64, not past it.
#[inline]
fn entry(what: &'static str, pool: u64, index: u32) -> Result<u64, MemoryError> {
    // (32 * index < 2^37: only the sum can pass 2^64; it ends there at most where it
    // starts at 2^64 - 32 = u64::MAX - 31 at most)
    match pool.checked_add(32 * u64::from(index)) {
        Some(start) if start <= u64::MAX - 31 => Ok(start),
        _ => Err(MemoryError::EntryPastEnd { what, pool, index }),
    }
}

impl<'m> MemoryPool<'m> {
    /// The pools at these addresses.
    pub fn new(memory: &'m dyn Memory, header_pool: u64, sampler_pool: u64) -> Self {
        MemoryPool {
            memory,
            header_pool,
            sampler_pool,
            descriptors: ClassDescriptors::default(),
        }
    }

    /// The same pools read as a GPU of another class reads them.
    pub fn with_descriptors(self, descriptors: ClassDescriptors) -> Self {
        MemoryPool {
            descriptors,
            ..self
        }
    }

    /// The raw words of header `index`.
    #[inline]
    pub fn header_words(&self, index: u32) -> Result<[u32; 8], MemoryError> {
        self.memory
            .read_words8(entry("texture header", self.header_pool, index)?)
    }

    /// The raw words of sampler `index`.
    #[inline]
    pub fn sampler_words(&self, index: u32) -> Result<[u32; 8], MemoryError> {
        self.memory
            .read_words8(entry("sampler", self.sampler_pool, index)?)
    }

    /// The handle's header and sampler bytes in place, where the memory hands both out
    /// ([`Memory::descriptor_view`]); None otherwise (then [`MemoryPool::header_words`] and
    /// [`MemoryPool::sampler_words`] read them, or say why not).
    #[inline]
    pub fn descriptor_views(&self, handle: Handle) -> Option<[&'m [u8; 32]; 2]> {
        let header = entry("texture header", self.header_pool, handle.header_index()).ok()?;
        let sampler = entry("sampler", self.sampler_pool, handle.sampler_index()).ok()?;
        Some([
            self.memory.descriptor_view(header)?,
            self.memory.descriptor_view(sampler)?,
        ])
    }

    /// Read and decode the handle's header and sampler (the sampler for that header:
    /// [`SamplerState::sampler_for`](crate::descriptor::tsc::SamplerState::sampler_for)).
    pub fn resolve(&self, handle: Handle) -> Result<(TextureHeader, Sampler), MemTexError> {
        let d = &self.descriptors;
        let header = d.decode_tic(&self.header_words(handle.header_index())?)?;
        let sampler = d
            .decode_tsc(&self.sampler_words(handle.sampler_index())?)
            .sampler_for(&header)?;
        Ok((header, sampler))
    }

    /// The handle prepared for gathering (decode once, gather many lanes): texel by texel
    /// through the memory, and where the memory hands out the texture's bytes
    /// ([`Memory::view`]), in place by the lane-parallel texture unit too. The same as
    /// [`DetachedTexture::new`] of the handle's descriptors, attached to this memory.
    pub fn prepare(
        &self,
        handle: Handle,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<PreparedTexture<'m>, MemTexError> {
        let (header, sampler) = self.resolve(handle)?;
        DetachedTexture::of(header, &sampler, op, precision)?.attach(self.memory)
    }

    /// A gatherer for the handle (decode once per warp, gather every lane).
    pub fn gatherer(
        &self,
        handle: Handle,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<SiteGatherer<MemoryTexels<'m>>, MemTexError> {
        let (header, sampler) = self.resolve(handle)?;
        self.per_read(&header, &sampler, op, precision)
    }

    /// The texel-by-texel gatherer of a decoded header and sampler.
    fn per_read(
        &self,
        header: &TextureHeader,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<SiteGatherer<MemoryTexels<'m>>, MemTexError> {
        let texels = MemoryTexels::new(self.memory, header)?;
        Ok(SiteGatherer::new(texels, sampler, op, precision)?)
    }
}

/// A memory no texel is read from: what a [`DetachedTexture`]'s texel-by-texel gatherer is
/// made over (it is only a pattern, given each call's memory by
/// [`SiteGatherer::with_source`]).
struct NoMemory;

impl Memory for NoMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        Err(MemoryError::Unmapped {
            addr,
            len: buf.len(),
        })
    }
}

static NO_MEMORY: NoMemory = NoMemory;

/// A handle's texture prepared apart from any memory: what [`MemoryPool::prepare`]
/// computes from the handle's descriptors (their words and the GPU class reading them) and
/// the gather alone: the decoded header, the texel-by-texel gatherer's constants and the
/// in-place gatherer's ([`DetachedGatherer`]). It borrows nothing, so a caller may keep it
/// for calls whose descriptors hold the same words; [`DetachedTexture::attach`] gives it
/// each call's memory, from which the texels are always read.
#[derive(Debug, Clone)]
pub struct DetachedTexture {
    header: TextureHeader,
    sampler: Sampler,
    op: GatherOp,
    precision: Precision,
    /// Over [`NO_MEMORY`]: the pattern of each call's.
    pub(crate) per_read: SiteGatherer<MemoryTexels<'static>>,
    in_place: Option<DetachedGatherer>,
    extent: u64,
}

impl DetachedTexture {
    /// The texture whose header and sampler hold `header_words` and `sampler_words`, read
    /// as `descriptors` says (errors as [`MemoryPool::prepare`]'s for these descriptors).
    pub fn new(
        descriptors: &ClassDescriptors,
        header_words: &[u32; 8],
        sampler_words: &[u32; 8],
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, MemTexError> {
        let header = descriptors.decode_tic(header_words)?;
        let sampler = descriptors.decode_tsc(sampler_words).sampler_for(&header)?;
        Self::of(header, &sampler, op, precision)
    }

    /// The texture of a decoded header and sampler.
    fn of(
        header: TextureHeader,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, MemTexError> {
        let texels = MemoryTexels::new(&NO_MEMORY, &header)?;
        let per_read = SiteGatherer::new(texels, sampler, op, precision)?;
        let layout = layout_of(&header);
        let desc = header.desc();
        // (MemoryTexels::new checked that the extent does not pass 2^64)
        let extent = layout.layer_stride * desc.storage_layers() as u64;
        let in_place =
            DetachedGatherer::in_memory(&layout, desc, header.swizzle, sampler, op, precision)?;
        Ok(DetachedTexture {
            header,
            sampler: *sampler,
            op: *op,
            precision,
            per_read,
            in_place,
            extent,
        })
    }

    /// The decoded texture header.
    pub fn header(&self) -> &TextureHeader {
        &self.header
    }

    /// The bytes of the texture: its storage layers as the layout places them from the
    /// header's address.
    pub fn extent(&self) -> u64 {
        self.extent
    }

    /// The in-place gatherer, kept apart from any memory: [`DetachedTexture::attach`] gives
    /// it `in_place_view`'s bytes as `in_place`, and it gathers from them as it is
    /// ([`DetachedGatherer::gather_lane_range`]). None where the texels cannot be read in
    /// place whatever the memory.
    #[inline]
    pub fn in_place(&self) -> Option<&DetachedGatherer> {
        self.in_place.as_ref()
    }

    /// `memory`'s view of the texels for one warp ([`Memory::view_for_one_warp`]), where
    /// the in-place gatherer can read them as they are ([`DetachedGatherer::fits`]); None
    /// where it has none, or they are not in one view or do not fit (then
    /// [`DetachedTexture::gather_by_sectors`] reads their sectors, or `attach` texel by
    /// texel).
    #[inline]
    pub fn in_place_view<'m>(&self, memory: &'m dyn Memory) -> Option<&'m [u8]> {
        let gatherer = self.in_place.as_ref()?;
        let bytes = memory.view_for_one_warp(self.header.address, self.extent)?;
        gatherer.fits(bytes).then_some(bytes)
    }

    /// Prepared to read its texels from `memory`: in place where the memory hands out their
    /// bytes ([`Memory::view`]) aligned to the format's elements, else texel by texel.
    #[inline]
    pub fn attach<'m>(&self, memory: &'m dyn Memory) -> Result<PreparedTexture<'m>, MemTexError> {
        let header = &self.header;
        let texels = MemoryTexels::new(memory, header)?;
        let per_read = match self.per_read.with_source(texels) {
            Some(g) => g,
            // (the same header: the same shape; never taken)
            None => SiteGatherer::new(texels, &self.sampler, &self.op, self.precision)?,
        };
        let in_place = match (&self.in_place, memory.view(header.address, self.extent)) {
            (Some(d), Some(bytes)) => d.attach(bytes),
            _ => None,
        };
        Ok(PreparedTexture {
            per_read,
            in_place,
            address: header.address,
            texel_bytes: header.texel_bytes(),
            element_bytes: header.format.storage().bytes(),
        })
    }
}

/// A handle prepared for gathering from memory ([`MemoryPool::prepare`]).
#[derive(Debug, Clone)]
pub struct PreparedTexture<'m> {
    /// Texel by texel through [`Memory::read`]: always there; the texel addresses, and the
    /// gather where the memory hands out no view of the texture.
    pub per_read: SiteGatherer<MemoryTexels<'m>>,
    /// In place, by the lane-parallel texture unit, where the memory hands out the texture's
    /// bytes as one slice (then every texel is mapped, and no read can fail); the same results
    /// as `per_read`.
    pub in_place: Option<Gatherer<'m>>,
    /// The texture's first byte, and the sizes of a texel and of a storage element.
    address: u64,
    texel_bytes: u32,
    element_bytes: u32,
}

impl PreparedTexture<'_> {
    /// Gathers lanes `range` of `queries` in place (None without an in-place gatherer),
    /// and writes query k's texel addresses into `texels[k]`: those the kernels read, as they
    /// computed them ([`TexelWatcher`]); for the lanes the per-lane path gathered, from the
    /// per-read path's footprint ([`SiteGatherer::addresses`]). The results are
    /// [`Gatherer::gather_lane_range`]'s.
    pub fn gather_lanes_with_addresses(
        &self,
        level: SimdLevel,
        queries: &LaneQueries,
        range: Range<usize>,
        out: &mut LaneResults,
        texels: &mut [LaneTexels],
    ) -> Option<Result<(), Error>> {
        let g = self.in_place.as_ref()?;
        let mut probe = Addresses {
            level,
            base: self.address,
            texel_bytes: self.texel_bytes,
            element_bytes: self.element_bytes,
            texels,
            unreported: 0,
        };
        if let Err(e) = g.gather_lane_range_watched(level, queries, range, out, &mut probe) {
            return Some(Err(e));
        }
        let mut m = probe.unreported;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            if let (Some(q), Some(t)) = (queries.get(k), probe.texels.get_mut(k)) {
                *t = self.per_read.addresses(&q);
            }
        }
        Some(Ok(()))
    }
}

/// The watcher that turns the kernels' storage indices into byte addresses.
struct Addresses<'t> {
    level: SimdLevel,
    base: u64,
    texel_bytes: u32,
    element_bytes: u32,
    texels: &'t mut [LaneTexels],
    unreported: u32,
}

impl TexelWatcher for Addresses<'_> {
    #[inline(always)]
    fn texels(&mut self, t: &KernelTexels<'_>) {
        // (the reported lanes, which are a chunk of the warp a call)
        t.write_addresses(
            self.level,
            self.base,
            self.element_bytes,
            self.texel_bytes,
            self.texels,
        );
    }

    #[inline(always)]
    fn unreported(&mut self, lanes: u32) {
        self.unreported |= lanes;
    }
}
