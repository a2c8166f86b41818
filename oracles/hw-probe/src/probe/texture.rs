//! The textures the phases make: what a texture holds (`TexSpec`), a made one (`Tex`), and the
//! self-naming textures every analysis relies on (each texel's value names the texel).

use serde::{Deserialize, Serialize};

use crate::cuda::{self, TexObject};

use super::queries::nq2;

/// What kind of array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// 2D.
    D2,
    /// 2D layered.
    Layered,
    /// Cube map (6 layers: +x, -x, +y, -y, +z, -z, CUDA's face order).
    Cube,
    /// Layered cube map.
    CubeLayered,
}

/// A texture to make.
#[derive(Clone, Debug, Serialize)]
pub struct TexSpec {
    /// A name for the results.
    pub name: String,
    /// Array kind.
    pub kind: Kind,
    /// Width, height in texels.
    pub w: usize,
    pub h: usize,
    /// Layers (cube: faces x cubes).
    pub layers: usize,
    /// CUarray_format.
    pub format: u32,
    /// Channels (1, 2, 4).
    pub channels: u32,
    /// Address mode for u and v (CUaddress_mode).
    pub addr: u32,
    /// Filter mode.
    pub filter: u32,
    /// CU_TRSF_* flags.
    pub flags: u32,
    /// Border colour.
    pub border: [f32; 4],
    /// Request CUDA_ARRAY3D_TEXTURE_GATHER ("the array will be used for texture gather", cuda.h;
    /// documented for 2D arrays only: for other kinds it is tried, then dropped if refused).
    pub gather_flag: bool,
    /// CUDA_ARRAY3D_SPARSE, left unmapped.
    pub sparse: bool,
    /// How the texels were filled, in words.
    pub content: String,
    /// The texel bytes, row-major, layer after layer.
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl TexSpec {
    pub(crate) fn bytes_per_texel(&self) -> usize {
        let b = match self.format {
            cuda::FMT_U8 | cuda::FMT_S8 => 1,
            cuda::FMT_U16 | cuda::FMT_S16 | cuda::FMT_HALF => 2,
            _ => 4,
        };
        b * self.channels as usize
    }
}

/// A made texture.
pub struct Tex {
    /// The texture object.
    pub obj: TexObject,
    /// The array flags that were accepted.
    pub array_flags: u32,
    pub(crate) arr: Option<cuda::Array>,
}

/// A 1-channel R32F texture whose texel (i, j) of layer l holds 1 + i + w*j + w*h*l, so
/// that every gathered value names its texel (exact in f32 below 2^24 texels).
pub fn index_texture(name: &str, kind: Kind, w: usize, h: usize, layers: usize) -> TexSpec {
    let mut data = Vec::with_capacity(w * h * layers * 4);
    for l in 0..layers {
        for j in 0..h {
            for i in 0..w {
                data.extend_from_slice(&((1 + i + w * j + w * h * l) as f32).to_le_bytes());
            }
        }
    }
    TexSpec {
        name: name.into(),
        kind,
        w,
        h,
        layers,
        format: cuda::FMT_FLOAT,
        channels: 1,
        addr: cuda::ADDR_CLAMP,
        filter: cuda::FILTER_POINT,
        flags: cuda::TRSF_NORMALIZED_COORDINATES,
        border: [0.0; 4],
        gather_flag: true,
        sparse: false,
        content: "R32F index: texel (i, j) of layer l = 1 + i + w*j + w*h*l".into(),
        data,
    }
}

/// A texture of 2x2 blocks, block b (row-major, `bw` blocks per row) filled with code b, each
/// code `bytes` bytes little-endian; the query at each block's centre gathers four copies.
pub(crate) fn block_texture(
    name: &str,
    format: u32,
    bytes: usize,
    codes: usize,
    bw: usize,
    content: &str,
) -> (TexSpec, Vec<[u32; 7]>) {
    let bh = codes.div_ceil(bw);
    let (w, h) = (2 * bw, 2 * bh);
    let mut data = vec![0u8; w * h * bytes];
    for b in 0..codes {
        let (bx, by) = (b % bw, b / bw);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let at = ((2 * by + dy) * w + 2 * bx + dx) * bytes;
            data[at..at + bytes].copy_from_slice(&(b as u32).to_le_bytes()[..bytes]);
        }
    }
    let qs = (0..codes)
        .map(|b| {
            nq2(
                (2 * (b % bw) + 1) as f32 / w as f32,
                (2 * (b / bw) + 1) as f32 / h as f32,
            )
        })
        .collect();
    let mut t = index_texture(name, Kind::D2, 1, 1, 1);
    t.w = w;
    t.h = h;
    t.format = format;
    t.data = data;
    t.content = content.into();
    (t, qs)
}

pub(crate) fn rgba_index_texture() -> TexSpec {
    let mut t = index_texture("rgba32f", Kind::D2, 4, 4, 1);
    t.channels = 4;
    t.data.clear();
    for j in 0..4 {
        for i in 0..4 {
            for c in 0..4 {
                t.data
                    .extend_from_slice(&((1 + i + 4 * j + 100 * c) as f32).to_le_bytes());
            }
        }
    }
    t.content = "RGBA32F: channel c of texel (i, j) = 1 + i + 4j + 100c".into();
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textures_hold_what_they_say() {
        let t = index_texture("x", Kind::Layered, 4, 2, 3);
        assert_eq!(t.data.len(), 4 * 2 * 3 * 4);
        // Texel (3, 1) of layer 2: 1 + 3 + 4 + 16 = 24.
        let at = ((2 * 2 + 1) * 4 + 3) * 4;
        assert_eq!(
            f32::from_le_bytes(t.data[at..at + 4].try_into().unwrap()),
            24.0
        );
        let (b, qs) = block_texture("b", cuda::FMT_U16, 2, 300, 16, "");
        assert_eq!((b.w, b.h), (32, 38));
        assert_eq!(qs.len(), 300);
        // Block 17 is (1, 1): texels (2..4, 2..4) hold 17.
        let at = (3 * 32 + 3) * 2;
        assert_eq!(
            u16::from_le_bytes(b.data[at..at + 2].try_into().unwrap()),
            17
        );
        assert_eq!(f32::from_bits(qs[17][0]), 3.0 / 32.0);
    }
}
