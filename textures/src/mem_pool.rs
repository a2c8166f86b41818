//! A texture header pool and a sampler pool in GPU memory: a handle's header index (bits
//! 0-19) selects the 32-byte header at `header_pool + 32 * index`, its sampler index (bits
//! 20-31) the 32-byte sampler at `sampler_pool + 32 * index`, each eight little-endian
//! 32-bit words (docs/sources.md, Descriptors; the handle split:
//! docs/sources.md, NAK conventions).

use crate::descriptor::tic::TextureHeader;
use crate::descriptor::tsc::SamplerState;
use crate::gather::{GatherOp, Precision};
use crate::mem_error::MemTexError;
use crate::memory::{Memory, MemoryError};
use crate::pool::Handle;
use crate::sampler::Sampler;
use crate::sites::{MemoryTexels, SiteGatherer};

/// The two pools, in a memory.
#[derive(Clone, Copy)]
pub struct MemoryPool<'m> {
    /// The memory the pools and texels are in.
    pub memory: &'m dyn Memory,
    /// Address of texture header 0.
    pub header_pool: u64,
    /// Address of sampler 0.
    pub sampler_pool: u64,
}

impl std::fmt::Debug for MemoryPool<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryPool")
            .field("header_pool", &self.header_pool)
            .field("sampler_pool", &self.sampler_pool)
            .finish_non_exhaustive()
    }
}

/// The address of entry `index` of the pool at `pool` (`what` names it in the error); its
/// 32 bytes may end at 2^64, not past it.
fn entry(what: &'static str, pool: u64, index: u32) -> Result<u64, MemoryError> {
    let start = pool as u128 + 32 * index as u128;
    if start + 32 > 1u128 << 64 {
        return Err(MemoryError::EntryPastEnd { what, pool, index });
    }
    Ok(start as u64)
}

impl<'m> MemoryPool<'m> {
    /// The pools at these addresses.
    pub fn new(memory: &'m dyn Memory, header_pool: u64, sampler_pool: u64) -> Self {
        MemoryPool {
            memory,
            header_pool,
            sampler_pool,
        }
    }

    /// The raw words of header `index`.
    pub fn header_words(&self, index: u32) -> Result<[u32; 8], MemoryError> {
        self.memory
            .read_words8(entry("texture header", self.header_pool, index)?)
    }

    /// The raw words of sampler `index`.
    pub fn sampler_words(&self, index: u32) -> Result<[u32; 8], MemoryError> {
        self.memory
            .read_words8(entry("sampler", self.sampler_pool, index)?)
    }

    /// Read and decode the handle's header and sampler.
    pub fn resolve(&self, handle: Handle) -> Result<(TextureHeader, Sampler), MemTexError> {
        let header = TextureHeader::decode(&self.header_words(handle.header_index())?)?;
        let sampler =
            SamplerState::decode(&self.sampler_words(handle.sampler_index())?).sampler()?;
        Ok((header, sampler))
    }

    /// A gatherer for the handle (decode once per warp, gather every lane).
    pub fn gatherer(
        &self,
        handle: Handle,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<SiteGatherer<MemoryTexels<'m>>, MemTexError> {
        let (header, sampler) = self.resolve(handle)?;
        let texels = MemoryTexels::new(self.memory, &header)?;
        Ok(SiteGatherer::new(texels, &sampler, op, precision)?)
    }
}
