//! Errors of the memory-backed texture path: a bad or unmodeled descriptor, a failed memory
//! read, or the texture unit's own checks.

use thiserror::Error;

use crate::descriptor::DescriptorError;
use crate::memory::MemoryError;

/// Why a texture in memory cannot be gathered from (or built).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MemTexError {
    /// The texture header or sampler (names the field and value).
    #[error("{0}")]
    Descriptor(#[from] DescriptorError),
    /// A descriptor or texel read failed.
    #[error("memory: {0}")]
    Memory(#[from] MemoryError),
    /// The texture unit's checks (kind, offsets, compare, precision).
    #[error("{0}")]
    Texture(#[from] tld4_textures::Error),
    /// An owned texture the memory form cannot express (valid, not modeled).
    #[error("not modeled: {0}")]
    Unrepresentable(&'static str),
}

impl MemTexError {
    /// True for "valid but not modeled".
    pub fn is_not_modeled(&self) -> bool {
        match self {
            MemTexError::Descriptor(d) => d.is_not_modeled(),
            MemTexError::Texture(t) => t.is_not_modeled(),
            MemTexError::Unrepresentable(_) => true,
            MemTexError::Memory(_) => false,
        }
    }
}
