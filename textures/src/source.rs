//! Where texels come from: a [`TexelSource`] hands out storage elements of texel (x, y) of a
//! storage layer, owned ([`Texture`], infallible) or in GPU memory
//! (the `tld4-gpu-memory` crate's `MemoryTexels`, each read may fail), and [`SourceReader`] reads a gather's
//! values from any source for the one per-lane composition ([`crate::lane`]).

use crate::format::Format;
use crate::lane::TexelReader;
use std::convert::Infallible;

use crate::memory_error::MemoryError;
use crate::op::Value;
use crate::stages::{clamp_dref, depth_compare};
use crate::texture::{Swizzle, Texture, TextureKind};

/// Texels a gather can read: storage element `element` of texel (x, y) of a storage layer,
/// widened to u32 (a component of a plain format, or a packed format's word).
pub trait TexelSource {
    /// Why a read fails: [`Infallible`] for texels the source owns, [`MemoryError`] for texels
    /// in GPU memory (the trace records a failed read as one).
    type Error: Into<MemoryError> + Copy + std::fmt::Debug;
    /// Texture kind, size and format.
    fn shape(&self) -> Shape;
    /// The element, or the error that stopped the read.
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, Self::Error>;
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
    type Error = Infallible;
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
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, Infallible> {
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

impl<T: TexelSource + ?Sized> TexelSource for &T {
    type Error = T::Error;
    fn shape(&self) -> Shape {
        (**self).shape()
    }
    fn element(&self, layer: u32, x: u32, y: u32, element: usize) -> Result<u32, T::Error> {
        (**self).element(layer, x, y, element)
    }
    fn address(&self, layer: u32, x: u32, y: u32) -> Option<u64> {
        (**self).address(layer, x, y)
    }
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        (**self).resident(layer, x, y)
    }
}

/// The values a gather reads from any [`TexelSource`]: the value rule of the gather
/// (fetch -> convert -> select, a constant, or compare with the lane's reference `dref`,
/// already clamped where the format clamps it), a failed read being the lane's error.
pub(crate) struct SourceReader<'s, S: ?Sized> {
    pub(crate) source: &'s S,
    pub(crate) value: Value,
    /// The border's value: the border word, or its depth's bits under compare.
    pub(crate) border: u32,
    pub(crate) dref: f32,
}

impl<'s, S: ?Sized> SourceReader<'s, S> {
    /// The reader of a lane whose depth reference is `dref`: compared as given, or clamped
    /// to [0, 1] where the format clamps it (UNORM depth formats, [`clamp_dref`]).
    pub(crate) fn for_lane(source: &'s S, value: Value, border: u32, dref: f32) -> Self {
        let dref = match value {
            Value::Compare {
                clamp_dref: true, ..
            } => clamp_dref(dref),
            _ => dref,
        };
        SourceReader {
            source,
            value,
            border,
            dref,
        }
    }
}

impl<S: TexelSource + ?Sized> TexelReader for SourceReader<'_, S> {
    type Error = S::Error;
    #[inline]
    fn value(&self, layer: u32, x: u32, y: u32) -> Result<u32, S::Error> {
        let source = self.source;
        Ok(match self.value {
            Value::Fetch { element, decoder } => {
                decoder.decode(source.element(layer, x, y, element)?)
            }
            Value::Const(c) => {
                // Guess: the texel is still read (a constant swizzle does not skip the fetch),
                // so an unmapped texel faults either way (docs/sources.md, Decisions).
                source.element(layer, x, y, 0)?;
                c
            }
            Value::Compare { op, decoder, .. } => depth_compare(
                op,
                self.dref,
                f32::from_bits(decoder.decode(source.element(layer, x, y, 0)?)),
            ),
        })
    }
    #[inline]
    fn border(&self) -> u32 {
        match self.value {
            Value::Compare { op, .. } => depth_compare(op, self.dref, f32::from_bits(self.border)),
            _ => self.border,
        }
    }
    #[inline]
    fn resident(&self, layer: u32, x: u32, y: u32) -> bool {
        self.source.resident(layer, x, y)
    }
}
