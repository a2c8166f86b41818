//! Texel storage: the texels of an owned texture ([`TexelData`]), and the cache built from
//! them for seamless cubes.
//!
//! Cube faces with a one-texel apron, for the lane-parallel cube kernel: each face's texels
//! surrounded by the texels seamless addressing reads just past its four edges
//! ([`crate::cube::seamless_texel`]), so that a footprint crossing one edge of its face is a
//! plain 2x2 read, like one inside it, with no per-lane edge path.
//!
//! The apron is a cache of [`crate::cube::seamless_texel`]'s answers, nothing more: every
//! texel in it is a copy of the texel that rule names. Its four corners (past two edges at
//! once) have no texel under seamless addressing; they hold 0 and are never read: a
//! footprint that includes one takes the per-lane path, which averages the other three
//! ([`crate::gather::cube_corner_value`]).
//!
//! A texture builds its apron once, on the first lane-parallel gather of a seamless cube
//! ([`ApronCache`]), and keeps it: one more copy of the texels, (size + 2)^2 / size^2 as
//! large as the faces.

use std::borrow::Cow;
use std::sync::OnceLock;

use ndarray::Array4;

use crate::cube::seamless_texel;
use crate::format::StorageWidth;

/// Texel storage: shape (storage layers, height, width, elements per texel), standard layout.
/// Elements are components (u8, u16 or u32 by the format's width) or, for the packed formats,
/// one u32 word per texel.
#[derive(Debug, Clone, PartialEq)]
pub enum TexelData {
    /// 8-bit components.
    U8(Array4<u8>),
    /// 16-bit components.
    U16(Array4<u16>),
    /// 32-bit components or packed words.
    U32(Array4<u32>),
}

impl TexelData {
    pub(crate) fn shape(&self) -> &[usize] {
        match self {
            TexelData::U8(a) => a.shape(),
            TexelData::U16(a) => a.shape(),
            TexelData::U32(a) => a.shape(),
        }
    }

    pub(crate) fn width(&self) -> StorageWidth {
        match self {
            TexelData::U8(_) => StorageWidth::U8,
            TexelData::U16(_) => StorageWidth::U16,
            TexelData::U32(_) => StorageWidth::U32,
        }
    }

    pub(crate) fn standardize(self) -> Self {
        match self {
            TexelData::U8(a) => TexelData::U8(a.as_standard_layout().into_owned()),
            TexelData::U16(a) => TexelData::U16(a.as_standard_layout().into_owned()),
            TexelData::U32(a) => TexelData::U32(a.as_standard_layout().into_owned()),
        }
    }

    /// Element `e` of texel (layer, y, x), widened to u32.
    pub fn element(&self, layer: usize, y: usize, x: usize, e: usize) -> Option<u32> {
        match self {
            TexelData::U8(a) => a.get([layer, y, x, e]).map(|&v| v as u32),
            TexelData::U16(a) => a.get([layer, y, x, e]).map(|&v| v as u32),
            TexelData::U32(a) => a.get([layer, y, x, e]).copied(),
        }
    }
}

/// Faces of a cube.
const FACES: usize = 6;

/// The storage elements of every face with its apron: shape (storage layers, size + 2,
/// size + 2, elements per texel), standard layout; texel (x, y) of a face is at apron
/// position (x + 1, y + 1).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ApronTexels {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl ApronTexels {
    /// The apron of `data`: `layers` cube faces (six a cube, in storage order) of `size` x
    /// `size` texels of `words` elements each.
    pub(crate) fn build(data: &TexelData, layers: usize, size: usize, words: usize) -> Self {
        fn elements<T: Copy>(a: &ndarray::Array4<T>) -> Cow<'_, [T]> {
            a.as_slice()
                .map_or_else(|| Cow::Owned(a.iter().copied().collect()), Cow::Borrowed)
        }
        match data {
            TexelData::U8(a) => ApronTexels::U8(with_apron(&elements(a), layers, size, words)),
            TexelData::U16(a) => ApronTexels::U16(with_apron(&elements(a), layers, size, words)),
            TexelData::U32(a) => ApronTexels::U32(with_apron(&elements(a), layers, size, words)),
        }
    }
}

/// The faces of `data` (storage order, standard layout) with their aprons.
fn with_apron<T: Copy + Default>(data: &[T], layers: usize, size: usize, words: usize) -> Vec<T> {
    let m = size + 2;
    let mut out = vec![T::default(); layers * m * m * words];
    for layer in 0..layers {
        let (cube, face) = (layer / FACES, layer % FACES);
        for y in 0..m {
            for x in 0..m {
                let (i, j) = (x as i64 - 1, y as i64 - 1);
                // the corners have no texel (never read)
                let Some((f, sx, sy)) = seamless_texel(face as u32, i, j, size as i64) else {
                    continue;
                };
                let from_layer = cube * FACES + f as usize;
                let src = ((from_layer * size + sy as usize) * size + sx as usize) * words;
                let dst = ((layer * m + y) * m + x) * words;
                out[dst..dst + words].copy_from_slice(&data[src..src + words]);
            }
        }
    }
    out
}

/// A texture's apron, built on first use and kept ([`OnceLock`]): derived from the texels,
/// so it takes no part in the texture's equality, and a clone keeps what was built.
#[derive(Clone, Default)]
pub(crate) struct ApronCache(OnceLock<ApronTexels>);

impl ApronCache {
    /// The apron, built by `build` on the first call.
    #[inline]
    pub(crate) fn get_or_build(&self, build: impl FnOnce() -> ApronTexels) -> &ApronTexels {
        self.0.get_or_init(build)
    }
}

impl PartialEq for ApronCache {
    /// Always equal: a cache of the texels, which the texture compares itself.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for ApronCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApronCache")
            .field("built", &self.0.get().is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::texture::{Texture, TextureDesc, TextureKind};

    /// A cube array whose texels name themselves: (layer, x, y) packed in the word.
    fn named(size: u32, cubes: u32) -> Texture {
        let desc = TextureDesc {
            kind: TextureKind::CubeArray,
            format: Format::R32Uint,
            width: size,
            height: size,
            layers: cubes,
        };
        Texture::from_fn(desc, |l, x, y| [l << 16 | x << 8 | y, 0, 0, 0]).unwrap()
    }

    #[test]
    fn the_apron_holds_each_face_inside_and_the_seamless_texels_around_it() {
        for size in [1u32, 2, 5] {
            let tex = named(size, 2);
            let Some(ApronTexels::U32(a)) = tex.cube_apron() else {
                panic!("a cube array has a u32 apron")
            };
            let (n, m) = (size as i64, size as usize + 2);
            assert_eq!(a.len(), 12 * m * m);
            for layer in 0..12u32 {
                let (cube, face) = (layer / 6, layer % 6);
                for y in 0..m {
                    for x in 0..m {
                        let got = a[(layer as usize * m + y) * m + x];
                        let (i, j) = (x as i64 - 1, y as i64 - 1);
                        let want = match seamless_texel(face, i, j, n) {
                            Some((f, sx, sy)) => {
                                (cube * 6 + f) << 16 | (sx as u32) << 8 | sy as u32
                            }
                            None => 0,
                        };
                        assert_eq!(got, want, "size {size} layer {layer} apron ({x}, {y})");
                        if (0..n).contains(&i) && (0..n).contains(&j) {
                            assert_eq!(got, layer << 16 | (i as u32) << 8 | j as u32);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_apron_is_built_once_and_takes_no_part_in_equality() {
        let (tex, fresh) = (named(3, 1), named(3, 1));
        let first: *const ApronTexels = tex.cube_apron().unwrap();
        let again: *const ApronTexels = tex.cube_apron().unwrap();
        assert_eq!(first, again, "built once");
        assert_eq!(tex, fresh, "a built apron does not change equality");
        assert!(format!("{tex:?}").contains("built: true"));
        assert!(format!("{fresh:?}").contains("built: false"));
        assert_eq!(tex.clone().cube_apron(), tex.cube_apron());
        let flat = Texture::from_fn(
            TextureDesc {
                kind: TextureKind::Tex2D,
                format: Format::R32Uint,
                width: 3,
                height: 3,
                layers: 1,
            },
            |_, x, y| [x + y, 0, 0, 0],
        )
        .unwrap();
        assert!(flat.cube_apron().is_none(), "only cube kinds have one");
    }
}
