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

    /// The texel whose first byte is at `address`, as (storage layer, x, y): the inverse of
    /// [`Layout::texel_address`] (None for an address before the texture or not at a texel's
    /// first byte, and, block-linear, in a row's padding; a pitch layout does not know its
    /// width, so its padding reads as texels past the last). What lets a reader of recorded texel
    /// addresses (`tld4 run --addresses`) say which texel each one is without gathering again.
    pub fn texel_at(&self, address: u64) -> Option<(u32, u32, u32)> {
        let off = address.checked_sub(self.address)?;
        let (layer, within) = match off.checked_div(self.layer_stride) {
            Some(layer) => (layer, off % self.layer_stride),
            None => (0, off),
        };
        let (xb, y) = match self.kind {
            LayoutKind::Pitch { pitch } => (within % pitch.max(1), within / pitch.max(1)),
            LayoutKind::BlockLinear {
                width_bytes,
                block_height_log2,
            } => {
                let r = 3 + block_height_log2 as u32;
                let w = width_bytes.next_multiple_of(GOB_WIDTH_BYTES);
                let (block_row, rest) = (within / (w << r), within % (w << r));
                let (column, rest) = (rest >> (6 + r), rest & ((1 << (6 + r)) - 1));
                let (gob_row, g) = (rest >> 9, rest & 511);
                // the GOB's bits, lowest first: x0 x1 x2 x3 y0 y1 x4 y2 x5 (gob_offset)
                let x_in = (g & 15) | (g >> 6 & 1) << 4 | (g >> 8 & 1) << 5;
                let y_in = (g >> 4 & 3) | (g >> 7 & 1) << 2;
                (
                    column * GOB_WIDTH_BYTES + x_in,
                    (block_row << r) | gob_row << 3 | y_in,
                )
            }
        };
        let bytes = self.texel_bytes.max(1) as u64;
        if xb % bytes != 0 {
            return None;
        }
        let x = xb / bytes;
        if let LayoutKind::BlockLinear { width_bytes, .. } = self.kind {
            if xb >= width_bytes {
                return None;
            }
        }
        Some((
            u32::try_from(layer).ok()?,
            u32::try_from(x).ok()?,
            u32::try_from(y).ok()?,
        ))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every texel of a few layers, pitch and block-linear, at 4-, 8- and 16-byte texels,
    /// block heights 1 to 8 GOBs and widths that are and are not whole GOBs.
    fn layouts() -> Vec<(Layout, u32, u32, u32)> {
        let mut out = Vec::new();
        for bytes in [4u32, 8, 16] {
            for (w, h) in [(5u32, 3u32), (16, 9), (33, 40)] {
                let width_bytes = w as u64 * bytes as u64;
                let pitch = width_bytes.next_multiple_of(32) + 32;
                out.push((
                    Layout {
                        address: 0x1_0000,
                        texel_bytes: bytes,
                        layer_stride: pitch * h as u64,
                        kind: LayoutKind::Pitch { pitch },
                    },
                    w,
                    h,
                    1,
                ));
                for k in 0..4u8 {
                    out.push((
                        Layout {
                            address: 0x20_0000,
                            texel_bytes: bytes,
                            layer_stride: block_linear_layer_bytes(width_bytes, h, k),
                            kind: LayoutKind::BlockLinear {
                                width_bytes,
                                block_height_log2: k,
                            },
                        },
                        w,
                        h,
                        3,
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn texel_at_inverts_texel_address() {
        let mut checked = 0;
        for (lay, w, h, layers) in layouts() {
            for layer in 0..layers {
                for y in 0..h {
                    for x in 0..w {
                        let a = lay.texel_address(layer, x, y);
                        assert_eq!(lay.texel_at(a), Some((layer, x, y)), "{lay:?} at {a:#x}");
                        // a byte inside the texel is no texel's first byte
                        assert_eq!(lay.texel_at(a + 1), None, "{lay:?} at {a:#x} + 1");
                        checked += 1;
                    }
                }
            }
            assert_eq!(lay.texel_at(lay.address - 1), None);
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn block_linear_row_padding_is_no_texel() {
        // 5 texels of 4 bytes: bytes 20..64 of each GOB row are padding
        let lay = Layout {
            address: 0,
            texel_bytes: 4,
            layer_stride: block_linear_layer_bytes(20, 8, 0),
            kind: LayoutKind::BlockLinear {
                width_bytes: 20,
                block_height_log2: 0,
            },
        };
        assert_eq!(lay.texel_at(gob_offset(20, 0)), None);
        assert_eq!(lay.texel_at(gob_offset(60, 7)), None);
        assert_eq!(lay.texel_at(gob_offset(16, 7)), Some((0, 4, 7)));
    }
}
