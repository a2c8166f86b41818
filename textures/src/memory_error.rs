//! Why a read of GPU memory failed: the error of a texel source in memory
//! ([`crate::TexelSource`]), so that the texture unit can report a failed texel read
//! without knowing the memory model (the `tld4-gpu-memory` crate), which reads descriptors
//! and texels with it.

use thiserror::Error;

/// A failed memory read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// Some byte of `addr .. addr + len` is not mapped.
    #[error("{len} byte(s) at {addr:#x}: not mapped")]
    Unmapped {
        /// First byte asked for.
        addr: u64,
        /// Bytes asked for.
        len: usize,
    },
    /// `addr + len` passes 2^64.
    #[error("{len} byte(s) at {addr:#x}: the range passes the end of the address space")]
    Overflow {
        /// First byte asked for.
        addr: u64,
        /// Bytes asked for.
        len: usize,
    },
    /// The 32-byte entry `index` of a descriptor pool at `pool` passes 2^64.
    #[error("{what} {index}: its 32 bytes at {:#x}..{:#x} (the pool at {pool:#x} + 32 * {index}) pass the end of the address space at 0x10000000000000000", entry_start(*.pool, *.index), entry_start(*.pool, *.index) + 32)]
    EntryPastEnd {
        /// Which pool: `texture header` or `sampler`.
        what: &'static str,
        /// Address of entry 0.
        pool: u64,
        /// The entry.
        index: u32,
    },
}

/// The first byte of entry `index` of a pool of 32-byte entries at `pool`, in 65 bits.
fn entry_start(pool: u64, index: u32) -> u128 {
    pool as u128 + 32 * index as u128
}

/// Texels a source owns never fail to read ([`crate::TexelSource`]'s `Error` for them).
impl From<std::convert::Infallible> for MemoryError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}
