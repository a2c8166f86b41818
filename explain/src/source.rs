//! The texels a lane's handle names, for the trace and the picture: an owned texture of the
//! scenario, or texels in its GPU memory read where they are used (the lane's footprint for
//! the trace, the drawn texels for a picture), so that a memory texture of any size is
//! explained without being copied out of memory.

use tld4_gpu_memory::MemoryTexels;
use tld4_textures::{MemoryError, Shape, TexelSource, Texture};

/// Where a lane's texels come from.
#[derive(Debug, Clone, Copy)]
pub enum LaneTexels<'s> {
    /// A texture of the scenario's owned pool.
    Owned(&'s Texture),
    /// Texels in the scenario's memory, as the texture header places them.
    Memory(MemoryTexels<'s>),
}

impl TexelSource for LaneTexels<'_> {
    type Error = MemoryError;
    fn shape(&self) -> Shape {
        match self {
            LaneTexels::Owned(t) => t.shape(),
            LaneTexels::Memory(m) => m.shape(),
        }
    }
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, MemoryError> {
        match self {
            LaneTexels::Owned(t) => Ok(t.element(layer, x, y, element)?),
            LaneTexels::Memory(m) => m.element(layer, x, y, element),
        }
    }
    fn address(&self, layer: u32, x: u32, y: u32) -> Option<u64> {
        match self {
            LaneTexels::Owned(t) => t.address(layer, x, y),
            LaneTexels::Memory(m) => m.address(layer, x, y),
        }
    }
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        match self {
            LaneTexels::Owned(t) => t.resident(layer, x, y),
            LaneTexels::Memory(m) => m.resident(layer, x, y),
        }
    }
}
