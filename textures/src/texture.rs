//! Textures: kind, size, format, component swizzle, texel storage (ndarray) and
//! an optional sparse residency map.

use ndarray::{Array3, Array4};
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::error::{Error, InvalidInput};
use crate::format::{Format, StorageWidth};
use crate::storage::{ApronCache, ApronTexels, TexelData};

/// The four kinds of texture TLD4 accepts (the instruction's dimension field names the same four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub enum TextureKind {
    /// 2D, one layer.
    #[cfg_attr(feature = "serde", serde(rename = "2d"))]
    Tex2D,
    /// 2D array: `layers` layers.
    #[cfg_attr(feature = "serde", serde(rename = "2d_array"))]
    Tex2DArray,
    /// Cube: six faces, stored as layers +X, -X, +Y, -Y, +Z, -Z.
    #[cfg_attr(feature = "serde", serde(rename = "cube"))]
    Cube,
    /// Cube array: `layers` whole cubes; storage layer = cube * 6 + face.
    #[cfg_attr(feature = "serde", serde(rename = "cube_array"))]
    CubeArray,
}

impl TextureKind {
    /// Cube or cube array.
    pub fn is_cube(self) -> bool {
        matches!(self, TextureKind::Cube | TextureKind::CubeArray)
    }

    /// 2D array or cube array.
    pub fn is_array(self) -> bool {
        matches!(self, TextureKind::Tex2DArray | TextureKind::CubeArray)
    }
}

/// Where a post-swizzle component comes from (Vulkan VkComponentSwizzle; NVIDIA's texture
/// header X/Y/Z/W_SOURCE fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Source {
    /// Component 0 of the converted texel.
    #[cfg_attr(feature = "serde", serde(alias = "x"))]
    R,
    /// Component 1.
    #[cfg_attr(feature = "serde", serde(alias = "y"))]
    G,
    /// Component 2.
    #[cfg_attr(feature = "serde", serde(alias = "z"))]
    B,
    /// Component 3.
    #[cfg_attr(feature = "serde", serde(alias = "w"))]
    A,
    /// Constant 0.
    #[cfg_attr(feature = "serde", serde(alias = "0"))]
    Zero,
    /// Constant 1 (1.0, or integer 1 for integer formats).
    #[cfg_attr(feature = "serde", serde(alias = "1"))]
    One,
}

impl Source {
    /// Every source: R, G, B, A, ZERO, ONE.
    pub const ALL: [Source; 6] = [
        Source::R,
        Source::G,
        Source::B,
        Source::A,
        Source::Zero,
        Source::One,
    ];
}

/// A component swizzle: post-swizzle component `c` reads `self.0[c]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Swizzle(pub [Source; 4]);

impl Swizzle {
    /// R, G, B, A.
    pub const IDENTITY: Swizzle = Swizzle([Source::R, Source::G, Source::B, Source::A]);
}

impl Default for Swizzle {
    fn default() -> Self {
        Swizzle::IDENTITY
    }
}

/// Size and kind of a texture. `layers` counts array layers for a 2D array and whole cubes for a
/// cube array; it is 1 for 2D and cube textures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// Kind.
    pub kind: TextureKind,
    /// Format.
    pub format: Format,
    /// Width of the base level in texels.
    pub width: u32,
    /// Height of the base level in texels (equal to the width for cubes).
    pub height: u32,
    /// Array layers, or whole cubes; 1 for 2D and cube.
    pub layers: u32,
}

/// Largest width, height or layer count accepted (NVIDIA's limits are 32768 texels, 2048 layers).
pub const MAX_SIZE: u32 = 65536;

/// Largest texel storage a texture may have, in bytes (1 GiB): a guess at what a test or
/// simulator machine can hold, so that no size asks for an allocation the machine cannot
/// make (docs/sources.md, Decisions). Sizes are checked in u64 before anything is allocated.
pub const MAX_TEXTURE_BYTES: u64 = 1 << 30;

impl TextureDesc {
    /// Layers of storage: `layers`, times 6 for cube kinds.
    pub fn storage_layers(&self) -> usize {
        self.layers as usize * if self.kind.is_cube() { 6 } else { 1 }
    }

    /// Checks the sizes as [`Texture::from_fields`] does (every size at least 1, at most
    /// [`MAX_SIZE`], square cube faces, one layer for 2D and cube kinds, at most
    /// [`MAX_TEXTURE_BYTES`] of texels), with the same error: a caller can refuse a size before
    /// it holds any texels.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |why| {
            Err(Error::from(InvalidInput::BadSize {
                width: self.width,
                height: self.height,
                layers: self.layers,
                why,
            }))
        };
        if self.width == 0 || self.height == 0 || self.layers == 0 {
            return bad("every size must be at least 1");
        }
        if self.width > MAX_SIZE || self.height > MAX_SIZE || self.layers > MAX_SIZE {
            return bad("width, height and layers are limited to 65536 (MAX_SIZE, docs/scenarios.md, Sizes)");
        }
        if self.kind.is_cube() && self.width != self.height {
            return bad("cube faces must be square");
        }
        if !self.kind.is_array() && self.layers != 1 {
            return bad("2d and cube textures have exactly 1 layer (cube)");
        }
        if self.bytes() > MAX_TEXTURE_BYTES {
            return bad("the texels would take more than MAX_TEXTURE_BYTES (1 GiB)");
        }
        Ok(())
    }

    /// Texels in all storage layers, computed in u64 (at most 65536^3 * 6, no overflow).
    pub fn texel_count(&self) -> u64 {
        self.storage_layers() as u64 * self.width as u64 * self.height as u64
    }

    /// Bytes of texel storage: [`TextureDesc::texel_count`] times the format's texel size.
    pub fn bytes(&self) -> u64 {
        let element = match self.format.storage() {
            StorageWidth::U8 => 1,
            StorageWidth::U16 => 2,
            StorageWidth::U32 => 4,
        };
        self.texel_count() * element * self.format.words() as u64
    }
}

/// A sparse residency map: which tiles of each storage layer are resident.
///
/// Tiles are `tile_width` x `tile_height` texels, counted from texel (0, 0); the map's shape is
/// (storage layers, ceil(height / tile_height), ceil(width / tile_width)).
#[derive(Debug, Clone, PartialEq)]
pub struct Residency {
    tile_width: u32,
    tile_height: u32,
    resident: Array3<bool>,
}

impl Residency {
    /// A map for `desc` with every tile resident.
    pub fn all_resident(
        desc: &TextureDesc,
        tile_width: u32,
        tile_height: u32,
    ) -> Result<Self, Error> {
        if tile_width == 0 || tile_height == 0 {
            return Err(InvalidInput::Residency("tile sizes must be at least 1".into()).into());
        }
        // a valid desc bounds the map: at most one entry per texel of a MAX_TEXTURE_BYTES texture
        desc.validate()?;
        let shape = (
            desc.storage_layers(),
            desc.height.div_ceil(tile_height) as usize,
            desc.width.div_ceil(tile_width) as usize,
        );
        Ok(Residency {
            tile_width,
            tile_height,
            resident: Array3::from_elem(shape, true),
        })
    }

    /// Mark tile (`tile_x`, `tile_y`) of storage layer `layer` resident or not.
    pub fn set(
        &mut self,
        layer: usize,
        tile_x: usize,
        tile_y: usize,
        resident: bool,
    ) -> Result<(), Error> {
        let shape = self.resident.shape().to_vec();
        match self.resident.get_mut([layer, tile_y, tile_x]) {
            Some(r) => {
                *r = resident;
                Ok(())
            }
            None => Err(InvalidInput::Residency(format!(
                "tile (layer {layer}, x {tile_x}, y {tile_y}) is outside the map ({} layers, {}x{} tiles)",
                shape[0], shape[2], shape[1]
            ))
            .into()),
        }
    }

    /// Tile width in texels.
    pub fn tile_width(&self) -> u32 {
        self.tile_width
    }

    /// Tile height in texels.
    pub fn tile_height(&self) -> u32 {
        self.tile_height
    }

    /// The map, shape (storage layers, tiles down, tiles across).
    pub fn map(&self) -> &Array3<bool> {
        &self.resident
    }

    /// Whether texel (x, y) of storage layer `layer` lies in a resident tile (false outside the map).
    #[inline]
    pub fn is_resident(&self, layer: usize, x: usize, y: usize) -> bool {
        self.resident
            .get([
                layer,
                y / self.tile_height as usize,
                x / self.tile_width as usize,
            ])
            .copied()
            .unwrap_or(false)
    }
}

/// A texture: the header's view of an image (kind, size, format, swizzle) and its base level.
///
/// Memory: a cube or cube array gathered with seamless edges through the lane-parallel
/// pipeline also keeps, from its first such gather on, a copy of its faces with a one-texel
/// apron (the texels seamless addressing reads past each edge), (size + 2)^2 / size^2 as
/// large as its texels; it is derived from the texels, so it takes no part in equality.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    desc: TextureDesc,
    swizzle: Swizzle,
    data: TexelData,
    residency: Option<Residency>,
    /// Cube kinds: the faces with their seamless apron, built on the first lane-parallel
    /// gather that reads them ([`Texture::cube_apron`]).
    apron: ApronCache,
}

impl Texture {
    /// A texture from its raw texel fields: layer-major, then rows (y), then texels (x),
    /// then [`Format::fields`] values per texel.
    ///
    /// Each value is the raw bit pattern of its field and must fit the field's width
    /// ([`Format::field_bits`]): UNORM/UINT codes, SNORM/SINT two's complement in the field
    /// width, f16 or f32 bits for float formats, and for the packed formats the bit fields
    /// (RGB10A2: r, g, b, a; R11G11B10: the r, g, b float bit patterns; RGB9E5: r, g, b
    /// mantissas and the exponent; D24S8: depth code and stencil).
    ///
    /// ```
    /// use tld4_textures::{Format, Texture, TextureDesc, TextureKind};
    /// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Unorm, width: 2, height: 1, layers: 1 };
    /// let tex = Texture::from_fields(desc, &[0, 255]).unwrap();
    /// assert_eq!(tex.raw_fields(0, 1, 0), Some([255, 0, 0, 0]));
    /// assert!(Texture::from_fields(desc, &[0, 256]).is_err());
    /// ```
    pub fn from_fields(desc: TextureDesc, fields: &[u32]) -> Result<Self, Error> {
        desc.validate()?;
        let f = desc.format;
        let nf = f.fields();
        let texels = desc.storage_layers() * desc.height as usize * desc.width as usize;
        let expected = texels * nf;
        if fields.len() != expected {
            return Err(InvalidInput::TexelCount {
                kind: desc.kind,
                format: f,
                expected,
                got: fields.len(),
            }
            .into());
        }
        for (index, &v) in fields.iter().enumerate() {
            let bits = f.field_bits(index % nf);
            if bits < 32 && v >> bits != 0 {
                return Err(InvalidInput::TexelRange {
                    index,
                    value: v as i64,
                    bits,
                }
                .into());
            }
        }
        let shape = (
            desc.storage_layers(),
            desc.height as usize,
            desc.width as usize,
            f.words(),
        );
        let data = if f.is_packed() {
            let words: Vec<u32> = fields
                .chunks_exact(nf)
                .map(|t| {
                    t.iter()
                        .enumerate()
                        .fold(0u32, |w, (i, &v)| w | v << f.field_shift(i).unwrap_or(0))
                })
                .collect();
            TexelData::U32(Array4::from_shape_vec(shape, words).map_err(shape_err)?)
        } else {
            match f.storage() {
                StorageWidth::U8 => TexelData::U8(
                    Array4::from_shape_vec(shape, fields.iter().map(|&v| v as u8).collect())
                        .map_err(shape_err)?,
                ),
                StorageWidth::U16 => TexelData::U16(
                    Array4::from_shape_vec(shape, fields.iter().map(|&v| v as u16).collect())
                        .map_err(shape_err)?,
                ),
                StorageWidth::U32 => TexelData::U32(
                    Array4::from_shape_vec(shape, fields.to_vec()).map_err(shape_err)?,
                ),
            }
        };
        Ok(Texture {
            desc,
            swizzle: Swizzle::IDENTITY,
            data,
            residency: None,
            apron: ApronCache::default(),
        })
    }

    /// A texture whose raw fields come from `f(storage_layer, x, y)` (first [`Format::fields`] entries used).
    ///
    /// ```
    /// use tld4_textures::{Format, Texture, TextureDesc, TextureKind};
    /// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::Rgba8Unorm, width: 4, height: 4, layers: 1 };
    /// let tex = Texture::from_fn(desc, |_, x, y| [x * 16, y * 16, 0, 255]).unwrap();
    /// assert_eq!(tex.raw_fields(0, 3, 2), Some([48, 32, 0, 255]));
    /// ```
    pub fn from_fn(
        desc: TextureDesc,
        mut f: impl FnMut(u32, u32, u32) -> [u32; 4],
    ) -> Result<Self, Error> {
        desc.validate()?;
        let nf = desc.format.fields();
        // validate() bounds the texel count (MAX_TEXTURE_BYTES): the product fits in usize
        let mut fields = Vec::with_capacity(desc.texel_count() as usize * nf);
        for layer in 0..desc.storage_layers() as u32 {
            for y in 0..desc.height {
                for x in 0..desc.width {
                    fields.extend_from_slice(&f(layer, x, y)[..nf]);
                }
            }
        }
        Texture::from_fields(desc, &fields)
    }

    /// A texture over ready storage. The array's element type must be the format's
    /// ([`Format::storage`]) and its shape (storage layers, height, width, [`Format::words`]);
    /// packed formats hold their words in the layout [`Texture::from_fields`] builds.
    pub fn from_data(desc: TextureDesc, data: TexelData) -> Result<Self, Error> {
        desc.validate()?;
        let f = desc.format;
        let shape = [
            desc.storage_layers(),
            desc.height as usize,
            desc.width as usize,
            f.words(),
        ];
        if data.width() != f.storage() || data.shape() != shape {
            return Err(InvalidInput::TexelCount {
                kind: desc.kind,
                format: f,
                expected: shape.iter().product(),
                got: data.shape().iter().product(),
            }
            .into());
        }
        Ok(Texture {
            desc,
            swizzle: Swizzle::IDENTITY,
            data: data.standardize(),
            residency: None,
            apron: ApronCache::default(),
        })
    }

    /// The same texture with component swizzle `swizzle`.
    pub fn with_swizzle(mut self, swizzle: Swizzle) -> Self {
        self.swizzle = swizzle;
        self
    }

    /// The same texture with a sparse residency map (checked against the texture's shape).
    pub fn with_residency(mut self, residency: Residency) -> Result<Self, Error> {
        let want = [
            self.desc.storage_layers(),
            self.desc.height.div_ceil(residency.tile_height.max(1)) as usize,
            self.desc.width.div_ceil(residency.tile_width.max(1)) as usize,
        ];
        if residency.resident.shape() != want {
            return Err(InvalidInput::Residency(format!(
                "map shape {:?} does not match the texture's tiles {:?}",
                residency.resident.shape(),
                want
            ))
            .into());
        }
        self.residency = Some(residency);
        Ok(self)
    }

    /// Cube kinds: the faces with their one-texel seamless apron (see `crate::storage`), built
    /// on the first call and kept; None for the other kinds.
    /// (Inlined: once built, a load and a compare a warp.)
    #[inline]
    pub(crate) fn cube_apron(&self) -> Option<&ApronTexels> {
        if !self.desc.kind.is_cube() {
            return None;
        }
        Some(self.apron.get_or_build(|| {
            let (layers, size) = (self.desc.storage_layers(), self.desc.width as usize);
            ApronTexels::build(&self.data, layers, size, self.desc.format.words())
        }))
    }

    /// Kind, size and format.
    pub fn desc(&self) -> &TextureDesc {
        &self.desc
    }

    /// Kind.
    pub fn kind(&self) -> TextureKind {
        self.desc.kind
    }

    /// Format.
    pub fn format(&self) -> Format {
        self.desc.format
    }

    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.desc.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.desc.height
    }

    /// Array layers or whole cubes.
    pub fn layers(&self) -> u32 {
        self.desc.layers
    }

    /// Component swizzle.
    pub fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The residency map, if the texture is sparse.
    pub fn residency(&self) -> Option<&Residency> {
        self.residency.as_ref()
    }

    /// The texel storage.
    pub fn data(&self) -> &TexelData {
        &self.data
    }

    /// The raw fields of texel (x, y) of storage layer `layer` (unused entries 0), or None
    /// outside the texture.
    pub fn raw_fields(&self, layer: usize, x: usize, y: usize) -> Option<[u32; 4]> {
        let f = self.desc.format;
        let mut elements = [0u32; 4];
        let n = if f.is_packed() { 1 } else { f.fields() };
        for (i, e) in elements.iter_mut().enumerate().take(n) {
            *e = self.data.element(layer, y, x, i)?;
        }
        Some(f.raw_fields_of(&elements))
    }
}

fn shape_err(e: ndarray::ShapeError) -> Error {
    InvalidInput::Storage(e.to_string()).into()
}
