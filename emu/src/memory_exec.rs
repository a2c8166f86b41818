//! Executing TLD4 against textures in GPU memory: a [`MemoryPool`] (a `&dyn Memory`, the
//! texture header pool and the sampler pool) resolves each handle by reading its 32-byte
//! header and sampler (docs/sources.md, Descriptors), and the texels are read through the
//! header's layout. Optionally reports, per executed lane, the byte address of each texel the
//! footprint read and the 32-byte sectors they fall in.

use thiserror::Error;
use tld4_gpu_memory::{DescriptorError, MemTexError, MemoryPool};
use tld4_textures::{
    GatherQuery, Handle, LaneTexels, MemoryError, Site, SiteGatherer, TexelAddress, TexelSource,
};

use crate::exec::{texture_fault, ExecReport, Tld4Exec};
use crate::fault::{FaultKind, NotModeledReason, WarpFault};
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// Why a memory-backed execution stopped (nothing is written then).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MemoryExecError {
    /// A warp fault, as [`Tld4Exec::execute`] raises them (a descriptor value that is legal
    /// but not modeled is [`WarpFault::NotModeled`]).
    #[error("{0}")]
    Fault(#[from] WarpFault),
    /// The handle's header or sampler holds a value no hardware accepts.
    #[error("lane {lane}: handle {handle:#010x}: {source}")]
    BadDescriptor {
        /// The lowest lane using the handle.
        lane: u8,
        /// The handle.
        handle: u32,
        /// The field and value.
        source: DescriptorError,
    },
    /// A descriptor or texel read failed.
    #[error("lane {lane}: handle {handle:#010x}: reading the {read}: {source}")]
    Memory {
        /// The lane whose read failed (the lowest using the handle, for a descriptor read).
        lane: u8,
        /// The handle the lane used.
        handle: u32,
        /// What was being read.
        read: MemoryRead,
        /// The failed read.
        source: MemoryError,
    },
}

/// What a failed memory read was reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryRead {
    /// The handle's 32-byte texture header.
    TextureHeader,
    /// The handle's 32-byte sampler.
    Sampler,
    /// The footprint texel at (`x`, `y`) of storage layer `layer` (cube kinds: cube * 6 +
    /// face), after wrapping.
    Texel {
        /// Storage layer.
        layer: u32,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
}

impl MemoryRead {
    /// The footprint texel of query `q` whose bytes hold the address of the failed read `e`
    /// of gatherer `g` (for an error path: the lane's sites and addresses are computed
    /// again, as the failed gather computed them). Every texel read of the composition is of
    /// one of these texels' bytes, so one always holds it; were none to, the lane's first
    /// texel is named.
    pub fn texel_of<S: TexelSource>(
        g: &SiteGatherer<S>,
        q: &GatherQuery,
        e: &MemoryError,
    ) -> MemoryRead {
        let failed = match *e {
            MemoryError::Unmapped { addr, .. } | MemoryError::Overflow { addr, .. } => Some(addr),
            _ => None,
        };
        let sites = g.sites(q);
        let addresses = g.addresses(q).texels;
        let holds = |k: usize| match (addresses[k], failed) {
            (TexelAddress::Texel { address, bytes }, Some(a)) => {
                (address..address.saturating_add(bytes as u64)).contains(&a)
            }
            _ => false,
        };
        let texel = |k: usize| match sites[k] {
            Site::Texel { layer, x, y } => Some(MemoryRead::Texel { layer, x, y }),
            _ => None,
        };
        (0..4)
            .filter(|&k| holds(k))
            .find_map(texel)
            .or_else(|| (0..4).find_map(texel))
            .unwrap_or(MemoryRead::Texel {
                layer: 0,
                x: 0,
                y: 0,
            })
    }
}

impl std::fmt::Display for MemoryRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryRead::TextureHeader => f.write_str("texture header"),
            MemoryRead::Sampler => f.write_str("sampler"),
            MemoryRead::Texel { layer, x, y } => {
                write!(f, "texel (layer {layer}, x {x}, y {y})")
            }
        }
    }
}

impl MemoryExecError {
    /// True for "valid but not modeled".
    pub fn is_not_modeled(&self) -> bool {
        matches!(self, MemoryExecError::Fault(f) if f.is_not_modeled())
    }

    /// The lowest lane the error concerns, where it depends on a lane.
    pub fn lane(&self) -> Option<u8> {
        match self {
            MemoryExecError::Fault(f) => f.lane(),
            MemoryExecError::BadDescriptor { lane, .. } | MemoryExecError::Memory { lane, .. } => {
                Some(*lane)
            }
        }
    }

    /// The fault kind a simulator raises (and a scenario's `expect.fault` names), one of the
    /// owned executor's kinds: a header read from unmapped memory, and an empty header slot
    /// (HEADER_VERSION 0, what a zeroed slot holds), are `unknown_texture_header` and a
    /// sampler read from unmapped memory `unknown_sampler` (the handle names no descriptor,
    /// as an index past an owned pool does); any other illegal header value and a texel read
    /// from unmapped memory are `invalid_texture` (the texture is refused). The hardware
    /// raises a memory fault here; mapping it onto these kinds is a guess (docs/sources.md,
    /// Decisions).
    pub fn kind(&self) -> FaultKind {
        match self {
            MemoryExecError::Fault(f) => f.kind(),
            MemoryExecError::BadDescriptor { source, .. } if is_empty_slot(source) => {
                FaultKind::UnknownTextureHeader
            }
            MemoryExecError::BadDescriptor { .. } => FaultKind::InvalidTexture,
            MemoryExecError::Memory { read, .. } => match read {
                MemoryRead::TextureHeader => FaultKind::UnknownTextureHeader,
                MemoryRead::Sampler => FaultKind::UnknownSampler,
                MemoryRead::Texel { .. } => FaultKind::InvalidTexture,
            },
        }
    }
}

/// A header slot that holds no header: HEADER_VERSION 0, which clcd97tex.h does not define
/// and a zeroed (never written, or cleared) slot holds (docs/sources.md, Decisions: faults
/// of textures in memory).
fn is_empty_slot(e: &DescriptorError) -> bool {
    matches!(
        e,
        DescriptorError::Invalid {
            field: "HEADER_VERSION",
            value: 0,
            ..
        }
    )
}

pub(crate) fn classify(
    e: MemTexError,
    handle: u32,
    lane: usize,
    pool: &MemoryPool<'_>,
) -> MemoryExecError {
    match e {
        MemTexError::Texture(t) => texture_fault(t, handle, lane).into(),
        MemTexError::Descriptor(DescriptorError::NotModeled {
            descriptor,
            field,
            value,
            why,
        }) => WarpFault::not_modeled(
            Some(lane as u8),
            NotModeledReason::Descriptor {
                handle,
                descriptor,
                field,
                value,
                why,
            },
        )
        .into(),
        MemTexError::Descriptor(source) => MemoryExecError::BadDescriptor {
            lane: lane as u8,
            handle,
            source,
        },
        // `resolve` reads the header first: if it reads now, the sampler's read failed
        // (an error path only, so the second read costs nothing on the hot path)
        MemTexError::Memory(source) => MemoryExecError::Memory {
            lane: lane as u8,
            handle,
            read: if pool.header_words(Handle(handle).header_index()).is_err() {
                MemoryRead::TextureHeader
            } else {
                MemoryRead::Sampler
            },
            source,
        },
        MemTexError::Unrepresentable(what) => WarpFault::not_modeled(
            Some(lane as u8),
            NotModeledReason::Unrepresentable { handle, what },
        )
        .into(),
    }
}

impl Tld4Exec {
    /// [`Tld4Exec::execute`] against textures in memory. With `texels`, entry `lane` receives
    /// the texel addresses of each executed lane, and `LaneTexels::default()` (no texels, no
    /// sectors) each lane that did not execute; without it, nothing is recorded. Each
    /// handle's header and sampler are read every call; what they decode to and the texture
    /// unit prepared from them are kept per thread, for the same 64 bytes of descriptors
    /// (`exec/last_memory.rs`), so a loop of calls over one texture costs about what a
    /// binding ([`Tld4Exec::bind_memory`]) costs. The texels are always read from `pool`'s
    /// memory.
    pub fn execute_memory<R: RegisterFile + ?Sized>(
        &self,
        warp: &mut R,
        pool: &MemoryPool<'_>,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<ExecReport, MemoryExecError> {
        crate::exec::last_memory::execute(self, warp, pool, texels)
    }
}
