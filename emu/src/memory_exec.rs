//! Executing TLD4 against textures in GPU memory: a [`MemoryPool`] (a `&dyn Memory`, the
//! texture header pool and the sampler pool) resolves each handle by reading its 32-byte
//! header and sampler (docs/sources.md, Descriptors), and the texels are read through the
//! header's layout. Optionally reports, per executed lane, the byte address of each texel the
//! footprint read and the 32-byte sectors they fall in.

use thiserror::Error;
use tld4_textures::{
    DescriptorError, GatherQuery, GatherResult, Handle, LaneTexels, MemTexError, MemoryError,
    MemoryPool, TexelSource,
};

use crate::exec::{texture_fault, ExecReport, Tld4Exec};
use crate::fault::WarpFault;
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
    #[error("lane {lane}: handle {handle:#x}: {source}")]
    BadDescriptor {
        /// The lowest lane using the handle.
        lane: u8,
        /// The handle.
        handle: u32,
        /// The field and value.
        source: DescriptorError,
    },
    /// A descriptor or texel read failed.
    #[error("lane {lane}: {source}")]
    Memory {
        /// The lane whose read failed (the lowest using the handle, for a descriptor read).
        lane: u8,
        /// The failed read.
        source: MemoryError,
    },
}

impl MemoryExecError {
    /// True for "valid but not modeled".
    pub fn is_not_modeled(&self) -> bool {
        matches!(self, MemoryExecError::Fault(f) if f.is_not_modeled())
    }
}

fn classify(e: MemTexError, handle: u32, lane: usize) -> MemoryExecError {
    match e {
        MemTexError::Texture(t) => texture_fault(t, handle, lane).into(),
        MemTexError::Descriptor(d) if d.is_not_modeled() => WarpFault::NotModeled {
            lane: Some(lane as u8),
            what: d.to_string(),
        }
        .into(),
        MemTexError::Descriptor(source) => MemoryExecError::BadDescriptor {
            lane: lane as u8,
            handle,
            source,
        },
        MemTexError::Memory(source) => MemoryExecError::Memory {
            lane: lane as u8,
            source,
        },
        MemTexError::Unrepresentable(what) => WarpFault::NotModeled {
            lane: Some(lane as u8),
            what: what.to_string(),
        }
        .into(),
    }
}

impl Tld4Exec {
    /// [`Tld4Exec::execute`] against textures in memory. With `texels`, entry `lane` receives
    /// the texel addresses of each executed lane (others are left as they are); without it,
    /// nothing is recorded. Each handle's descriptors are read and decoded once per execution.
    pub fn execute_memory<R: RegisterFile + ?Sized>(
        &self,
        warp: &mut R,
        pool: &MemoryPool<'_>,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<ExecReport, MemoryExecError> {
        let mut queries = [GatherQuery::default(); WARP_SIZE];
        let mut lanes = [0u8; WARP_SIZE];
        let (mut report, n) = self.read_lanes(&*warp, &mut queries, &mut lanes)?;
        if n == 0 {
            return Ok(report);
        }
        let mut results = [GatherResult::default(); WARP_SIZE];
        let mut recorded = [LaneTexels::default(); WARP_SIZE];
        let (op, precision) = self.gather_setup();
        self.for_each_handle(&*warp, &lanes[..n], |handle, range| {
            let first = lanes[range.start] as usize;
            let g = pool
                .gatherer(Handle(handle), op, precision)
                .map_err(|e| classify(e, handle, first))?;
            self.check_output_format(g.source().shape().format, first)?;
            let rec = texels.is_some().then_some(&mut recorded[range.clone()]);
            g.gather_many(&queries[range.clone()], &mut results[range.clone()], rec)
                .map_err(|e| MemoryExecError::Memory {
                    lane: lanes[range.start + e.lane],
                    source: e.source,
                })
        })?;
        self.write_results(warp, &results[..n], &lanes[..n], &mut report);
        if let Some(out) = texels {
            for (k, &lane) in lanes[..n].iter().enumerate() {
                out[lane as usize] = recorded[k];
            }
        }
        Ok(report)
    }
}
