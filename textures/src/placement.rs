//! Where a texel's storage elements are in the slice a gatherer reads: the one index rule of
//! every path (the per-lane composition and the lane-parallel kernels alike), for owned
//! textures and pitch-linear memory (rows and layers at fixed strides) and for block-linear
//! memory (GOB swizzle; docs/sources.md, Block-linear layout).
//!
//! A block-linear offset splits into a part of the row and a part of the column: the GOB
//! formula ([`crate::layout::gob_offset`]) places bits of x and bits of y in disjoint bits, so
//! their OR is their sum, and the block terms of [`crate::layout::block_linear_offset`] are
//! one of y and one of x. Each part is a multiple of the element size (x * bytes per texel
//! and multiples of 16), so both are kept in elements, and a texel's index is
//! `layer part + row part + column part + element`, as it is for linear storage.

use crate::layout::{Layout, LayoutKind, GOB_WIDTH_BYTES};

/// How the element indices of texel (x, y) of a storage layer are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Layers and rows at fixed strides, texels `texel` elements apart (owned textures,
    /// pitch-linear memory).
    Linear(Linear),
    /// Block-linear memory.
    BlockLinear(BlockLinear),
}

/// Strides in elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Linear {
    pub(crate) layer: usize,
    pub(crate) row: usize,
    pub(crate) texel: usize,
}

/// A block-linear layer's constants, in elements where they are sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockLinear {
    /// Bytes per texel.
    texel_bytes: u32,
    /// log2 of the element size in bytes.
    elem_log2: u32,
    /// log2 of the rows of a block (3 + log2 GOBs per block).
    rows_log2: u32,
    /// Elements in one row of blocks (width rounded up to 64 bytes, times rows of a block).
    block_row: usize,
    /// Elements from one storage layer to the next.
    layer: usize,
}

impl BlockLinear {
    /// The row part of row `y`, in elements.
    #[inline(always)]
    pub(crate) fn row_part(&self, y: u32) -> u32 {
        let r = self.rows_log2;
        let bytes = (((y & ((1 << r) - 1)) >> 3) << 9) | (y & 3) << 4 | (y >> 2 & 1) << 7;
        (y >> r)
            .wrapping_mul(self.block_row as u32)
            .wrapping_add(bytes >> self.elem_log2)
    }

    /// The column part of column `x`, in elements.
    #[inline(always)]
    pub(crate) fn col_part(&self, x: u32) -> u32 {
        let xb = x.wrapping_mul(self.texel_bytes);
        let within = (xb & 0xf) | (xb >> 4 & 1) << 6 | (xb >> 5 & 1) << 8;
        (((xb >> 6) << (6 + self.rows_log2)) | within) >> self.elem_log2
    }

    /// [`BlockLinear::col_part`] of column x + 1 from that of column x (`c`): one carry
    /// through the column's bits (GOB bits and block bits alike: the block of a column is
    /// the next bits up), wrapping as `col_part`'s u32 arithmetic does.
    #[inline(always)]
    pub(crate) fn col_part_next(&self, c: u32) -> u32 {
        let mask = self.col_part(u32::MAX);
        (c | !mask).wrapping_add(self.col_part(1)) & mask
    }

    /// Whether every row of a layer `height` rows high lies in its first row of blocks (the
    /// height at most a block's: the hardware's clamp of the block height to the texture's,
    /// docs/sources.md, Block-linear layout, makes most textures so), where
    /// [`BlockLinear::row_in_block`] and [`BlockLinear::col_part_by_shifts`] give the parts.
    #[inline(always)]
    pub(crate) fn one_block_row(&self, height: u32) -> bool {
        u64::from(height) <= 1 << self.rows_log2 && self.elem_log2 <= 4
    }

    /// [`BlockLinear::row_part`] of a row `y` of the first row of blocks (`y` below the
    /// block's rows), by masks and shifts alone: the GOB's row bits `y0 y1` at bytes 16 and 32,
    /// `y2` at 128, the GOB's number within the block at 512, in elements
    /// (docs/sources.md, Block-linear layout). No multiplication and no row-of-blocks term.
    #[inline(always)]
    pub(crate) fn row_in_block(&self, y: u32) -> u32 {
        let e = self.elem_log2;
        let gobs = (1u32 << self.rows_log2).wrapping_sub(8);
        (y & 3) << (4 - e) | (y & 4) << (5 - e) | (y & gobs) << (6 - e)
    }

    /// [`BlockLinear::col_part`] of column `x` by shifts and masks (texel and element sizes
    /// are powers of two: the column's byte offset in elements is x shifted, and its GOB bits
    /// move by fixed amounts): equal to it wherever `x * texel bytes` fits in 32 bits.
    #[inline(always)]
    pub(crate) fn col_part_by_shifts(&self, x: u32) -> u32 {
        let e = self.elem_log2;
        // x * bytes per texel / bytes per element
        let xe = x << (self.texel_bytes.trailing_zeros() - e);
        // bytes 0-15 of the GOB row stay, byte bit 4 moves to 6, bit 5 to 8, the GOB's
        // column to the block's (`col_part`)
        (xe & (15 >> e))
            | (xe & (16 >> e)) << 2
            | (xe & (32 >> e)) << 3
            | (xe >> (6 - e)) << (6 + self.rows_log2 - e)
    }

    /// The row part in 64 bits (the per-lane path, any size).
    #[inline(always)]
    fn row_part64(&self, y: u64) -> u64 {
        let r = self.rows_log2;
        let bytes = (((y & ((1 << r) - 1)) >> 3) << 9) | (y & 3) << 4 | (y >> 2 & 1) << 7;
        (y >> r) * self.block_row as u64 + (bytes >> self.elem_log2)
    }

    /// The column part in 64 bits.
    #[inline(always)]
    fn col_part64(&self, x: u64) -> u64 {
        let xb = x * self.texel_bytes as u64;
        let within = (xb & 0xf) | (xb >> 4 & 1) << 6 | (xb >> 5 & 1) << 8;
        (((xb >> 6) << (6 + self.rows_log2)) | within) >> self.elem_log2
    }

    /// Elements from one storage layer to the next.
    #[inline(always)]
    pub(crate) fn layer(&self) -> usize {
        self.layer
    }
}

impl Placement {
    /// Owned storage: `words` elements a texel, rows of `width` texels, layers of `height`
    /// rows (standard layout).
    pub(crate) fn owned(width: usize, height: usize, words: usize) -> Self {
        Placement::Linear(Linear {
            layer: width * height * words,
            row: width * words,
            texel: words,
        })
    }

    /// The placement of `layout`'s texels, indexed in elements of `elem_bytes` bytes from its
    /// address; None where the layout's strides are not whole elements (a pitch that is not a
    /// multiple of the element size), or a size is not a power of two.
    pub(crate) fn of_layout(layout: &Layout, elem_bytes: u32) -> Option<Self> {
        if !elem_bytes.is_power_of_two() || !layout.texel_bytes.is_multiple_of(elem_bytes) {
            return None;
        }
        let e = elem_bytes as u64;
        let whole = |bytes: u64| {
            bytes
                .is_multiple_of(e)
                .then(|| usize::try_from(bytes / e).ok())?
        };
        Some(match layout.kind {
            LayoutKind::Pitch { pitch } => Placement::Linear(Linear {
                layer: whole(layout.layer_stride)?,
                row: whole(pitch)?,
                texel: (layout.texel_bytes / elem_bytes) as usize,
            }),
            LayoutKind::BlockLinear {
                width_bytes,
                block_height_log2,
            } => {
                if !layout.texel_bytes.is_power_of_two() {
                    return None;
                }
                let rows_log2 = 3 + block_height_log2 as u32;
                let w = width_bytes.next_multiple_of(GOB_WIDTH_BYTES);
                Placement::BlockLinear(BlockLinear {
                    texel_bytes: layout.texel_bytes,
                    elem_log2: elem_bytes.trailing_zeros(),
                    rows_log2,
                    block_row: whole(w.checked_shl(rows_log2)?)?,
                    layer: whole(layout.layer_stride)?,
                })
            }
        })
    }

    /// Elements from one storage layer to the next.
    #[cfg(test)]
    pub(crate) fn layer_stride(&self) -> usize {
        match self {
            Placement::Linear(l) => l.layer,
            Placement::BlockLinear(b) => b.layer,
        }
    }

    /// The index of element `element` of texel (x, y) of storage layer `layer` in wrapping
    /// u32 arithmetic, as the lane-parallel kernels compute it (`Gatherer::lanes32` makes
    /// every index of the texture fit).
    #[inline(always)]
    pub(crate) fn index32(&self, layer: u32, x: u32, y: u32, element: usize) -> u32 {
        let element = element as u32;
        match self {
            Placement::Linear(l) => layer
                .wrapping_mul(l.layer as u32)
                .wrapping_add(y.wrapping_mul(l.row as u32))
                .wrapping_add(x.wrapping_mul(l.texel as u32))
                .wrapping_add(element),
            Placement::BlockLinear(b) => layer
                .wrapping_mul(b.layer as u32)
                .wrapping_add(b.row_part(y))
                .wrapping_add(b.col_part(x))
                .wrapping_add(element),
        }
    }

    /// The index of the first element of texel (x, y) of storage layer `layer`.
    #[inline(always)]
    pub(crate) fn index(&self, layer: usize, x: usize, y: usize) -> usize {
        match self {
            Placement::Linear(l) => layer * l.layer + y * l.row + x * l.texel,
            Placement::BlockLinear(b) => {
                layer * b.layer + (b.row_part64(y as u64) + b.col_part64(x as u64)) as usize
            }
        }
    }

    /// The row part of row `y` of [`Placement::index`] (the index is row part + column part
    /// + layer part).
    #[cfg(test)]
    pub(crate) fn row(&self, y: usize) -> usize {
        match self {
            Placement::Linear(l) => y * l.row,
            Placement::BlockLinear(b) => b.row_part64(y as u64) as usize,
        }
    }

    /// The column part of column `x`.
    #[cfg(test)]
    pub(crate) fn col(&self, x: usize) -> usize {
        match self {
            Placement::Linear(l) => x * l.texel,
            Placement::BlockLinear(b) => b.col_part64(x as u64) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::block_linear_offset;

    fn bl(
        texel_bytes: u32,
        elem_bytes: u32,
        width: u64,
        height: u32,
        k: u8,
    ) -> (Layout, Placement) {
        let width_bytes = width * texel_bytes as u64;
        let layout = Layout {
            address: 0,
            texel_bytes,
            layer_stride: crate::layout::block_linear_layer_bytes(width_bytes, height, k),
            kind: LayoutKind::BlockLinear {
                width_bytes,
                block_height_log2: k,
            },
        };
        (layout, Placement::of_layout(&layout, elem_bytes).unwrap())
    }

    #[test]
    fn block_linear_parts_add_up_to_the_layout_formula() {
        for (tb, eb) in [(1, 1), (2, 2), (4, 1), (4, 4), (8, 2), (8, 4), (16, 4)] {
            for k in 0..=5u8 {
                let (width, height) = (67, 70);
                let (layout, place) = bl(tb, eb, width, height, k);
                let Placement::BlockLinear(b) = place else {
                    panic!("block-linear")
                };
                for layer in 0..2u32 {
                    for y in 0..height {
                        for x in 0..width as u32 {
                            let bytes = layout.texel_offset(layer, x, y);
                            assert_eq!(bytes % eb as u64, 0);
                            let want = (bytes / eb as u64) as usize;
                            let got = place.index(layer as usize, x as usize, y as usize);
                            assert_eq!(got, want, "tb {tb} eb {eb} k {k} ({layer}, {x}, {y})");
                            let parts = layer as usize * place.layer_stride()
                                + place.row(y as usize)
                                + place.col(x as usize);
                            assert_eq!(parts, want);
                            let p32 = layer * b.layer() as u32 + b.row_part(y) + b.col_part(x);
                            assert_eq!(p32 as usize, want);
                            // and the formula of the layout module, byte for byte
                            let xb = x as u64 * tb as u64;
                            let bl = block_linear_offset(xb, y as u64, width * tb as u64, k);
                            assert_eq!(bytes, layer as u64 * layout.layer_stride + bl);
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The next column's part by a carry ([`BlockLinear::col_part_next`]) is the
        /// layout's block-linear offset of the next column, for every texel and element
        /// size, GOB height and width, in the row of texel (x, y) and the next column's
        /// block of columns alike.
        #[test]
        fn the_next_column_by_a_carry_is_the_layout_offset_of_the_next_column(
            (tb, eb) in proptest::sample::select(
                vec![(1, 1), (2, 2), (4, 1), (4, 4), (8, 2), (8, 4), (16, 4), (16, 16)]
            ),
            k in 0u8..=5,
            width in 2u64..700,
            height in 1u32..300,
            x in 0u64..700,
            y in 0u32..300,
        ) {
            let (x, y) = ((x % (width - 1)) as u32, y % height);
            let (layout, place) = bl(tb, eb, width, height, k);
            let Placement::BlockLinear(b) = place else {
                panic!("block-linear")
            };
            let got = b.row_part(y) + b.col_part_next(b.col_part(x));
            let want = layout.texel_offset(0, x + 1, y);
            proptest::prop_assert_eq!(got as u64 * eb as u64, want, "x {} y {}", x, y);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// A layer at most one block high ([`BlockLinear::one_block_row`]): the row parts by
        /// masks and shifts and the column parts by shifts are
        /// the general parts, hence the layout's offsets (above), for every texel and element
        /// size, GOB height, width and height; a layer higher than a block is refused.
        #[test]
        fn one_block_row_parts_by_shifts_are_the_general_parts(
            (tb, eb) in proptest::sample::select(
                vec![(1, 1), (2, 2), (4, 1), (4, 4), (8, 2), (8, 4), (16, 4), (16, 16)]
            ),
            k in 0u8..=5,
            width in 1u64..700,
            height in 1u32..300,
            x in 0u64..700,
            y in 0u32..300,
        ) {
            let (x, y) = ((x % width) as u32, y % height);
            let (layout, place) = bl(tb, eb, width, height, k);
            let Placement::BlockLinear(b) = place else {
                panic!("block-linear")
            };
            let rows = 8u32 << k;
            proptest::prop_assert_eq!(b.one_block_row(height), height <= rows);
            proptest::prop_assert_eq!(b.col_part_by_shifts(x), b.col_part(x), "x {}", x);
            if height <= rows {
                let r = b.row_in_block(y);
                proptest::prop_assert_eq!(r, b.row_part(y), "y {}", y);
                let want = layout.texel_offset(0, x, y);
                proptest::prop_assert_eq!((r + b.col_part_by_shifts(x)) as u64 * eb as u64, want);
            }
        }
    }

    #[test]
    fn pitch_is_linear_in_elements_and_odd_pitches_are_refused() {
        let layout = Layout {
            address: 0,
            texel_bytes: 8,
            layer_stride: 96 * 5,
            kind: LayoutKind::Pitch { pitch: 96 },
        };
        let p = Placement::of_layout(&layout, 2).unwrap();
        for y in 0..5 {
            for x in 0..12 {
                let bytes = layout.texel_offset(0, x as u32, y as u32);
                assert_eq!(p.index(0, x, y) as u64 * 2, bytes);
            }
        }
        let odd = Layout {
            kind: LayoutKind::Pitch { pitch: 34 },
            layer_stride: 34 * 5,
            ..layout
        };
        assert_eq!(Placement::of_layout(&odd, 4), None);
        assert!(Placement::of_layout(&odd, 2).is_some());
    }
}
