//! Handles and the header and sampler pools they index (NAK: texture-header index in bits
//! 0-19, sampler index in bits 20-31).

use crate::error::{Error, InvalidInput};
use crate::gather::{GatherOp, Gatherer, Precision};
use crate::{Sampler, Texture};

/// A 32-bit bindless texture handle: header index in bits 0-19, sampler index in bits 20-31.
///
/// ```
/// use tld4_textures::Handle;
/// let h = Handle::new(5, 2).unwrap();
/// assert_eq!(h.0, 5 | 2 << 20);
/// assert_eq!((h.header_index(), h.sampler_index()), (5, 2));
/// assert!(Handle::new(1 << 20, 0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle(pub u32);

impl Handle {
    /// Largest header index (20 bits).
    pub const MAX_HEADER: u32 = (1 << 20) - 1;
    /// Largest sampler index (12 bits).
    pub const MAX_SAMPLER: u32 = (1 << 12) - 1;

    /// Pack a header index and a sampler index.
    pub fn new(header: u32, sampler: u32) -> Result<Self, Error> {
        if header > Self::MAX_HEADER {
            return Err(InvalidInput::IndexTooLarge {
                what: "texture header",
                index: header,
                max: Self::MAX_HEADER,
            }
            .into());
        }
        if sampler > Self::MAX_SAMPLER {
            return Err(InvalidInput::IndexTooLarge {
                what: "sampler",
                index: sampler,
                max: Self::MAX_SAMPLER,
            }
            .into());
        }
        Ok(Handle(header | sampler << 20))
    }

    /// Bits 0-19.
    pub fn header_index(self) -> u32 {
        self.0 & Self::MAX_HEADER
    }

    /// Bits 20-31.
    pub fn sampler_index(self) -> u32 {
        self.0 >> 20
    }
}

/// The texture-header pool and the sampler pool. Slots may be empty.
#[derive(Debug, Clone, Default)]
pub struct TexturePool {
    headers: Vec<Option<Texture>>,
    samplers: Vec<Option<Sampler>>,
}

impl TexturePool {
    /// Empty pools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Append a texture header; returns its index.
    pub fn add_texture(&mut self, texture: Texture) -> u32 {
        self.headers.push(Some(texture));
        (self.headers.len() - 1) as u32
    }

    /// Append a sampler; returns its index.
    pub fn add_sampler(&mut self, sampler: Sampler) -> u32 {
        self.samplers.push(Some(sampler));
        (self.samplers.len() - 1) as u32
    }

    /// Put a texture header at `index`, growing the pool with empty slots as needed.
    pub fn set_texture(&mut self, index: u32, texture: Texture) -> Result<(), Error> {
        if index > Handle::MAX_HEADER {
            return Err(InvalidInput::IndexTooLarge {
                what: "texture header",
                index,
                max: Handle::MAX_HEADER,
            }
            .into());
        }
        let i = index as usize;
        if self.headers.len() <= i {
            self.headers.resize(i + 1, None);
        }
        self.headers[i] = Some(texture);
        Ok(())
    }

    /// Put a sampler at `index`, growing the pool with empty slots as needed.
    pub fn set_sampler(&mut self, index: u32, sampler: Sampler) -> Result<(), Error> {
        if index > Handle::MAX_SAMPLER {
            return Err(InvalidInput::IndexTooLarge {
                what: "sampler",
                index,
                max: Handle::MAX_SAMPLER,
            }
            .into());
        }
        let i = index as usize;
        if self.samplers.len() <= i {
            self.samplers.resize(i + 1, None);
        }
        self.samplers[i] = Some(sampler);
        Ok(())
    }

    /// The texture header at `index`.
    pub fn texture(&self, index: u32) -> Result<&Texture, Error> {
        match self.headers.get(index as usize) {
            Some(Some(t)) => Ok(t),
            slot => Err(InvalidInput::BadHeaderIndex {
                index,
                len: self.headers.len(),
                empty_slot: slot.is_some(),
            }
            .into()),
        }
    }

    /// The sampler at `index`.
    pub fn sampler(&self, index: u32) -> Result<&Sampler, Error> {
        match self.samplers.get(index as usize) {
            Some(Some(s)) => Ok(s),
            slot => Err(InvalidInput::BadSamplerIndex {
                index,
                len: self.samplers.len(),
                empty_slot: slot.is_some(),
            }
            .into()),
        }
    }

    /// Look up both halves of a handle; a bad index is an error naming it.
    pub fn resolve(&self, handle: Handle) -> Result<(&Texture, &Sampler), Error> {
        Ok((
            self.texture(handle.header_index())?,
            self.sampler(handle.sampler_index())?,
        ))
    }

    /// Resolve a handle and prepare a [`Gatherer`] for `op`: do this once per warp (or per
    /// distinct handle), then call [`Gatherer::gather`] per lane.
    pub fn gatherer(
        &self,
        handle: Handle,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Gatherer<'_>, Error> {
        let (t, s) = self.resolve(handle)?;
        Gatherer::new(t, s, op, precision)
    }
}
