//! The gather pipeline over any texel source: an owned [`Texture`] or texels in GPU memory
//! through a [`Layout`], with the byte address of every footprint texel on request.
//!
//! The steps are the fast path's own functions ([`crate::gather`]): address
//! ([`crate::cube::project`], [`array_layer`]) -> footprint ([`texel_origin`] via the
//! precision model, [`footprint`]) -> wrap ([`wrap`], [`crate::cube::seamless_texel`]) ->
//! fetch ([`TexelSource`]) -> convert (the format's decoder) -> swizzle/compare (the value
//! rule the fast path resolves) -> select, plus [`border_value`] and [`cube_corner_value`].
//! [`SiteGatherer::sites`] stops after wrapping: where each of the four texels is read.

use crate::cube;
use crate::descriptor::tic::TextureHeader;
use crate::error::{Error, InvalidInput};
use crate::format::Format;
use crate::gather::{
    array_layer, border_value, check_op, clamp_dref, cube_corner_unchecked, depth_compare,
    footprint_unchecked as footprint, lane_value, wrap_in as wrap, GatherOp, GatherQuery,
    GatherResult, OffsetMode, Precision, Quantizer, Value,
};
use crate::layout::{sector_of, Layout};
use crate::memory::{Memory, MemoryError};
use crate::sampler::{AddressMode, Sampler};
use crate::texture::{Swizzle, Texture, TextureKind};

/// Where one footprint texel is read from (after wrapping and cube-face hops).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Site {
    /// Texel (x, y) of storage layer `layer` (cube kinds: cube * 6 + face).
    Texel {
        /// Storage layer.
        layer: u32,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// The border colour (clamp to border, outside the texture).
    Border,
    /// A seamless cube footprint's corner, on no face (filled from the other three).
    Corner,
}

/// Where one footprint texel lives in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TexelAddress {
    /// A texel read from memory: its first byte and its size.
    Texel {
        /// Byte address of the texel.
        address: u64,
        /// Bytes per texel.
        bytes: u32,
    },
    /// The border colour: no memory read.
    Border,
    /// A cube corner: no memory read.
    Corner,
    /// Nothing recorded (the lane did not execute, or the source has no addresses).
    #[default]
    None,
}

/// The memory a lane's gather reads: its four texels in gather order and their sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LaneTexels {
    /// The four texels, in the order of the results.
    pub texels: [TexelAddress; 4],
}

impl LaneTexels {
    /// The distinct 32-byte sectors the texels fall in, in first-use order (a texel of at most
    /// 16 bytes at an address aligned to its size never spans two sectors).
    pub fn sectors(&self) -> [Option<u64>; 4] {
        let mut out = [None; 4];
        let mut n = 0;
        for t in &self.texels {
            if let TexelAddress::Texel { address, .. } = *t {
                let s = sector_of(address);
                if !out[..n].contains(&Some(s)) {
                    out[n] = Some(s);
                    n += 1;
                }
            }
        }
        out
    }
}

/// Texels a gather can read: storage element `element` of texel (x, y) of a storage layer,
/// widened to u32 (a component of a plain format, or a packed format's word).
pub trait TexelSource {
    /// Texture kind, size and format.
    fn shape(&self) -> Shape;
    /// The element, or the memory error that stopped the read.
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, MemoryError>;
    /// The byte address of the texel, where the source is memory.
    fn address(&self, layer: u32, x: u32, y: u32) -> Option<u64>;
    /// Whether the texel lies in a resident tile (always, without a residency map).
    fn resident(&self, _layer: u32, _x: u32, _y: u32) -> bool {
        true
    }
}

/// What the pipeline needs to know of a texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Kind.
    pub kind: TextureKind,
    /// Format.
    pub format: Format,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Layers, or whole cubes.
    pub layers: u32,
    /// Component swizzle.
    pub swizzle: Swizzle,
}

impl TexelSource for Texture {
    fn shape(&self) -> Shape {
        Shape {
            kind: self.kind(),
            format: self.format(),
            width: self.width(),
            height: self.height(),
            layers: self.layers(),
            swizzle: self.swizzle(),
        }
    }
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, MemoryError> {
        // sites are in range by construction; an out-of-range read would be a bug, read as 0
        Ok(self
            .data()
            .element(layer as usize, y as usize, x as usize, element)
            .unwrap_or(0))
    }
    fn address(&self, _: u32, _: u32, _: u32) -> Option<u64> {
        None
    }
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        match self.residency() {
            Some(r) => r.is_resident(layer as usize, x as usize, y as usize),
            None => true,
        }
    }
}

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
        let layout = Layout::of(header);
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
            element_bytes: header.texel_bytes() / header.format.words() as u32,
        })
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl TexelSource for MemoryTexels<'_> {
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

/// The lane whose gather failed, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("lane {lane}: {source}")]
pub struct LaneMemoryError {
    /// Index of the query in the slice gathered.
    pub lane: usize,
    /// The failed read.
    pub source: MemoryError,
}

/// A gather over a [`TexelSource`], prepared once per (texture, sampler, instruction).
#[derive(Debug, Clone)]
pub struct SiteGatherer<S> {
    source: S,
    shape: Shape,
    quant: Quantizer,
    scale: [f64; 2],
    address: [AddressMode; 2],
    seamless: bool,
    offsets: OffsetMode,
    value: Value,
    border: u32,
    integer: bool,
}

impl<S: TexelSource> SiteGatherer<S> {
    /// Check that `op` can run on this source and sampler (the fast path's checks, with the
    /// same errors) and precompute what the lanes need.
    pub fn new(
        source: S,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, Error> {
        let shape = source.shape();
        let compare = check_op(shape.kind, shape.format, sampler, op)?;
        let quant = Quantizer::new(precision)?;
        let border = match compare {
            Some(_) => sampler.border.words[0],
            None => border_value(&sampler.border, shape.format, op.component as usize),
        };
        Ok(SiteGatherer {
            value: lane_value(shape.format, shape.swizzle, op.component, compare),
            scale: [
                shape.width as f64 * quant.scale,
                shape.height as f64 * quant.scale,
            ],
            quant,
            address: [sampler.address_u, sampler.address_v],
            seamless: sampler.seamless_cube,
            offsets: op.offsets,
            border,
            integer: shape.format.is_integer() && compare.is_none(),
            shape,
            source,
        })
    }

    /// The texel source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// address -> footprint -> wrap: where the lane's four texels are read, in result order.
    pub fn sites(&self, q: &GatherQuery) -> [Site; 4] {
        let sh = &self.shape;
        let max_layer = sh.layers - 1;
        let (w, h) = (sh.width as i64, sh.height as i64);
        if sh.kind.is_cube() && self.seamless {
            let (face, s, t) = cube::project(q.coords[0], q.coords[1], q.coords[2]);
            let base = if sh.kind == TextureKind::CubeArray {
                array_layer(q.layer, max_layer) * 6
            } else {
                0
            };
            let i0 = self.quant.origin(s * self.scale[0]);
            let j0 = self.quant.origin(t * self.scale[1]);
            let pos = footprint(i0, j0, OffsetMode::None, &[[0; 2]; 4]);
            return pos.map(|(i, j)| match cube::seamless_texel(face, i, j, w) {
                Some((f, x, y)) => Site::Texel {
                    layer: base + f,
                    x: x as u32,
                    y: y as u32,
                },
                None => Site::Corner,
            });
        }
        let layer = array_layer(q.layer, max_layer);
        let (s, t, layer) = if sh.kind.is_cube() {
            let (face, s, t) = cube::project(q.coords[0], q.coords[1], q.coords[2]);
            let per_cube = if sh.kind == TextureKind::CubeArray {
                6
            } else {
                0
            };
            (s, t, layer * per_cube + face)
        } else {
            (q.coords[0] as f64, q.coords[1] as f64, layer)
        };
        let i0 = self.quant.origin(s * self.scale[0]);
        let j0 = self.quant.origin(t * self.scale[1]);
        let [au, av] = self.address;
        footprint(i0, j0, self.offsets, &q.offsets).map(|(i, j)| {
            match (wrap(i, w, au), wrap(j, h, av)) {
                (Some(x), Some(y)) => Site::Texel {
                    layer,
                    x: x as u32,
                    y: y as u32,
                },
                _ => Site::Border,
            }
        })
    }

    /// The byte address of each of the lane's texels, without reading them: what
    /// [`SiteGatherer::gather_with_addresses`] records.
    pub fn addresses(&self, q: &GatherQuery) -> LaneTexels {
        let bytes = crate::descriptor::tic::texel_bytes(self.shape.format);
        LaneTexels {
            texels: self.sites(q).map(|site| match site {
                Site::Texel { layer, x, y } => match self.source.address(layer, x, y) {
                    Some(address) => TexelAddress::Texel { address, bytes },
                    None => TexelAddress::None,
                },
                Site::Border => TexelAddress::Border,
                Site::Corner => TexelAddress::Corner,
            }),
        }
    }

    /// Gather one lane; a failed memory read is an error (nothing is approximated).
    pub fn gather(&self, q: &GatherQuery) -> Result<GatherResult, MemoryError> {
        self.lane(q, None)
    }

    /// Gather one lane and record the byte address of each of its texels.
    pub fn gather_with_addresses(
        &self,
        q: &GatherQuery,
        texels: &mut LaneTexels,
    ) -> Result<GatherResult, MemoryError> {
        self.lane(q, Some(texels))
    }

    /// Gather many lanes: `out[k]` for `queries[k]`, and with `texels`, `texels[k]` the
    /// lane's texel addresses. Stops at the first lane whose read fails, naming it.
    pub fn gather_many(
        &self,
        queries: &[GatherQuery],
        out: &mut [GatherResult],
        mut texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), LaneMemoryError> {
        for (lane, (q, o)) in queries.iter().zip(out.iter_mut()).enumerate() {
            let t = texels.as_deref_mut().and_then(|t| t.get_mut(lane));
            *o = self
                .lane(q, t)
                .map_err(|source| LaneMemoryError { lane, source })?;
        }
        Ok(())
    }

    /// fetch -> convert -> swizzle/compare -> select for one lane.
    fn lane(
        &self,
        q: &GatherQuery,
        mut record: Option<&mut LaneTexels>,
    ) -> Result<GatherResult, MemoryError> {
        let sites = self.sites(q);
        let dref = match self.value {
            Value::Compare {
                clamp_dref: true, ..
            } => clamp_dref(q.dref),
            _ => q.dref,
        };
        let bytes = crate::descriptor::tic::texel_bytes(self.shape.format);
        let mut values = [0u32; 4];
        let mut corner = None;
        let mut resident = true;
        for (k, site) in sites.iter().enumerate() {
            let (value, addr) = match *site {
                Site::Texel { layer, x, y } => {
                    resident &= self.source.resident(layer, x, y);
                    // the address is only worked out when asked for
                    let addr = match record.is_some().then(|| self.source.address(layer, x, y)) {
                        Some(Some(address)) => TexelAddress::Texel { address, bytes },
                        _ => TexelAddress::None,
                    };
                    (self.texel_value(layer, x, y, dref)?, addr)
                }
                Site::Border => (
                    match self.value {
                        Value::Compare { op, .. } => {
                            depth_compare(op, dref, f32::from_bits(self.border))
                        }
                        _ => self.border,
                    },
                    TexelAddress::Border,
                ),
                Site::Corner => {
                    corner = Some(k);
                    (0, TexelAddress::Corner)
                }
            };
            values[k] = value;
            if let Some(r) = record.as_deref_mut() {
                r.texels[k] = addr;
            }
        }
        if !resident {
            return Ok(GatherResult {
                values: [0; 4],
                resident: false,
            });
        }
        if let Some(c) = corner {
            values[c] = match self.value {
                Value::Const(v) => v,
                _ => cube_corner_unchecked(&values, c, self.integer),
            };
        }
        Ok(GatherResult {
            values,
            resident: true,
        })
    }

    /// One real texel's value: fetch the element, convert, compare or take the constant.
    #[inline]
    fn texel_value(&self, layer: u32, x: u32, y: u32, dref: f32) -> Result<u32, MemoryError> {
        Ok(match self.value {
            Value::Fetch { element, decoder } => {
                decoder.decode(self.source.element(layer, x, y, element)?)
            }
            Value::Const(c) => {
                // Guess: the texel is still read (a constant swizzle does not skip the fetch),
                // so an unmapped texel faults either way (docs/sources.md, Decisions).
                self.source.element(layer, x, y, 0)?;
                c
            }
            Value::Compare { op, decoder, .. } => depth_compare(
                op,
                dref,
                f32::from_bits(decoder.decode(self.source.element(layer, x, y, 0)?)),
            ),
        })
    }
}

impl<T: TexelSource + ?Sized> TexelSource for &T {
    fn shape(&self) -> Shape {
        (**self).shape()
    }
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, MemoryError> {
        (**self).element(layer, x, y, element)
    }
    fn address(&self, layer: u32, x: u32, y: u32) -> Option<u64> {
        (**self).address(layer, x, y)
    }
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        (**self).resident(layer, x, y)
    }
}
