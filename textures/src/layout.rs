//! Where texel (x, y) of a layer lies in memory: pitch-linear and block-linear layouts
//! (docs/sources.md, Block-linear layout). The texture unit reads texels in place with these
//! rules; which layout a texture has is the texture header's to say (the `tld4-gpu-memory`
//! crate's `layout_of`).

/// Bytes in a GOB row (a GOB is 64 bytes x 8 rows).
pub const GOB_WIDTH_BYTES: u64 = 64;
/// Rows in a GOB.
pub const GOB_HEIGHT: u64 = 8;
/// Bytes in a GOB.
pub const GOB_BYTES: u64 = 512;
/// Bytes in a sector, the unit the texture cache reads.
pub const SECTOR_BYTES: u64 = 32;

/// Offset of byte (x, y) inside a GOB (x < 64 bytes, y < 8 rows), desktop GPUs from Turing
/// on, SM100 included: offset bits, lowest first, `x0 x1 x2 x3 y0 y1 x4 y2 x5` (NIL
/// `GOBType::TuringColor2D`; drm_fourcc.h sector layout 1;
/// docs/sources.md, Block-linear layout). Not the Tegra X1 formula, which swaps bits 5 and 6.
#[inline(always)]
pub fn gob_offset(x: u64, y: u64) -> u64 {
    (x & 0xf) | (y & 0x3) << 4 | (x >> 4 & 1) << 6 | (y >> 2 & 1) << 7 | (x >> 5 & 1) << 8
}

/// Byte offset of byte column `xb` (x * bytes per texel) in row `y` of a block-linear
/// layer `width_bytes` wide (rounded up to 64 here), blocks `1 << block_height_log2` GOBs
/// high: `(y / R) * (W * R) + (xb / 64) * (64 * R) + ((y % R) / 8) * 512 + gob(xb % 64, y % 8)`,
/// R = 8 << block_height_log2 rows, W = width_bytes rounded up to 64 (docs/sources.md,
/// Block-linear layout).
#[inline(always)]
pub fn block_linear_offset(xb: u64, y: u64, width_bytes: u64, block_height_log2: u8) -> u64 {
    // R and 64 are powers of two: shifts and masks instead of divisions
    let rows_log2 = 3 + block_height_log2 as u32;
    let w = width_bytes.next_multiple_of(GOB_WIDTH_BYTES);
    (y >> rows_log2) * (w << rows_log2)
        + ((xb >> 6) << (6 + rows_log2))
        + (((y & ((1 << rows_log2) - 1)) >> 3) << 9)
        + gob_offset(xb & 63, y & 7)
}

/// A layer's texel addressing, ready to use (computed once per texture header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Address of texel (0, 0) of layer 0.
    pub address: u64,
    /// Bytes per texel.
    pub texel_bytes: u32,
    /// Bytes from one layer (storage layer: cube kinds count faces) to the next.
    pub layer_stride: u64,
    /// Pitch or block-linear addressing within a layer.
    pub kind: LayoutKind,
}

/// How rows are laid out within a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutKind {
    /// Row y at `y * pitch`.
    Pitch {
        /// Row pitch in bytes.
        pitch: u64,
    },
    /// Block-linear, with the block height the hardware uses (after its clamp).
    BlockLinear {
        /// Width of a row in bytes (texels times bytes per texel; rounded up to 64 inside).
        width_bytes: u64,
        /// log2 GOBs per block down, after the hardware's clamp (the header's value,
        /// clamped to the texture's height by the `tld4-gpu-memory` crate).
        block_height_log2: u8,
    },
}

impl Layout {
    /// Byte offset of texel (x, y) of storage layer `layer` from the address (wrapping: the
    /// inputs are in range by construction, and the texture's total size is checked when the
    /// layout is made).
    #[inline(always)]
    pub fn texel_offset(&self, layer: u32, x: u32, y: u32) -> u64 {
        let xb = x as u64 * self.texel_bytes as u64;
        let within = match self.kind {
            LayoutKind::Pitch { pitch } => y as u64 * pitch + xb,
            LayoutKind::BlockLinear {
                width_bytes,
                block_height_log2,
            } => block_linear_offset(xb, y as u64, width_bytes, block_height_log2),
        };
        layer as u64 * self.layer_stride + within
    }

    /// Byte address of texel (x, y) of storage layer `layer` (wrapping at 2^64, as the
    /// address arithmetic of a 64-bit unit does).
    #[inline(always)]
    pub fn texel_address(&self, layer: u32, x: u32, y: u32) -> u64 {
        self.address.wrapping_add(self.texel_offset(layer, x, y))
    }
}

/// Bytes of one block-linear layer: width rounded up to 64 bytes times height rounded up
/// to whole blocks (which is a whole number of blocks).
pub fn block_linear_layer_bytes(width_bytes: u64, height: u32, block_height_log2: u8) -> u64 {
    let rows = GOB_HEIGHT << block_height_log2;
    width_bytes.next_multiple_of(GOB_WIDTH_BYTES) * (height as u64).next_multiple_of(rows)
}

/// The 32-byte sector holding byte `addr`.
#[inline(always)]
pub fn sector_of(addr: u64) -> u64 {
    addr & !(SECTOR_BYTES - 1)
}
