//! The layout a texture header gives its texels: the texture unit's [`Layout`] (pitch or
//! block-linear, docs/sources.md, Block-linear layout) from a decoded [`TextureHeader`].

use tld4_textures::layout::{block_linear_layer_bytes, Layout, LayoutKind};

use crate::descriptor::tic::{clamped_block_height_log2, HeaderLayout, TextureHeader};

/// The layout a header describes. Layers are `layer_size` apart, the size of one layer's
/// level 0 rounded up to whole blocks (block-linear; NVK's array stride is the layer size
/// aligned to the block size, and headers with several levels and layers are refused by
/// the decoder) or `pitch * height` (pitch-linear, one layer only).
pub fn layout_of(h: &TextureHeader) -> Layout {
    let texel_bytes = h.texel_bytes();
    match h.layout {
        HeaderLayout::Pitch { pitch } => Layout {
            address: h.address,
            texel_bytes,
            layer_stride: pitch as u64 * h.height as u64,
            kind: LayoutKind::Pitch {
                pitch: pitch as u64,
            },
        },
        HeaderLayout::BlockLinear {
            gobs_per_block_height_log2,
        } => {
            let k = clamped_block_height_log2(gobs_per_block_height_log2, h.height);
            let width_bytes = h.width as u64 * texel_bytes as u64;
            Layout {
                address: h.address,
                texel_bytes,
                layer_stride: block_linear_layer_bytes(width_bytes, h.height, k),
                kind: LayoutKind::BlockLinear {
                    width_bytes,
                    block_height_log2: k,
                },
            }
        }
    }
}
