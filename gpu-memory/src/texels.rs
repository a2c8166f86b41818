//! Texels in GPU memory read one by one through [`Memory::read`]: the [`TexelSource`] a
//! texture header describes, for memories that hand out no contiguous view.

use tld4_textures::{Error, InvalidInput, Shape, TexelSource};

use crate::descriptor::tic::TextureHeader;
use crate::layout::layout_of;
use crate::memory::{Memory, MemoryError};
use tld4_textures::layout::Layout;

/// Texels in GPU memory, as a texture header places them.
#[derive(Clone, Copy)]
pub struct MemoryTexels<'m> {
    memory: &'m dyn Memory,
    shape: Shape,
    layout: Layout,
    element_bytes: u32,
}

impl std::fmt::Debug for MemoryTexels<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTexels")
            .field("shape", &self.shape)
            .field("layout", &self.layout)
            .finish_non_exhaustive()
    }
}

impl<'m> MemoryTexels<'m> {
    /// The texels `header` describes in `memory`. Errors: a texture whose bytes pass the end
    /// of the 64-bit address space (invalid input).
    pub fn new(memory: &'m dyn Memory, header: &TextureHeader) -> Result<Self, Error> {
        let layout = layout_of(header);
        let storage_layers = header.depth as u64 * if header.kind.is_cube() { 6 } else { 1 };
        let fits = layout
            .layer_stride
            .checked_mul(storage_layers)
            .and_then(|n| n.checked_add(header.address));
        if fits.is_none() {
            return Err(InvalidInput::BadSize {
                width: header.width,
                height: header.height,
                layers: header.depth,
                why: "the texture passes the end of the 64-bit address space",
            }
            .into());
        }
        Ok(MemoryTexels {
            memory,
            shape: Shape {
                kind: header.kind,
                format: header.format,
                width: header.width,
                height: header.height,
                layers: header.depth,
                swizzle: header.swizzle,
            },
            layout,
            element_bytes: header.format.storage().bytes(),
        })
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl TexelSource for MemoryTexels<'_> {
    type Error = MemoryError;
    fn shape(&self) -> Shape {
        self.shape
    }
    #[inline]
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, MemoryError> {
        let n = self.element_bytes as usize;
        let at = self.layout.texel_address(layer, x, y) + (element * n) as u64;
        let mut b = [0u8; 4];
        self.memory.read(at, &mut b[..n])?;
        Ok(u32::from_le_bytes(b))
    }
    fn address(&self, layer: u32, x: u32, y: u32) -> Option<u64> {
        Some(self.layout.texel_address(layer, x, y))
    }
}
