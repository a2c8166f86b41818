//! Where a bound executor's textures come from: an owned [`TexturePool`], or the header and
//! sampler pools of a GPU memory ([`MemoryPool`]). The executor ([`super::BoundExec`]) is the
//! same for both; a binding only prepares a handle and gathers a run of lanes.

use std::ops::Range;

use tld4_gpu_memory::{MemoryPool, PreparedTexture};
use tld4_textures::{
    Gatherer, Handle, LaneQueries, LaneResults, LaneTexels, SimdLevel, TexelSource, TexturePool,
};

use super::{texture_fault, Tld4Exec};
use crate::fault::WarpFault;
use crate::memory_exec::{classify, MemoryExecError, MemoryRead};

/// A run of lanes to gather: lanes `range` of the queries, which are the warp's lanes
/// `lanes[range]`, all using `handle`.
pub struct Run<'a> {
    /// The SIMD level to run the texture unit at.
    pub level: SimdLevel,
    /// The warp's queries, compacted (query k is lane `lanes[k]`).
    pub queries: &'a LaneQueries,
    /// The queries of this run.
    pub range: Range<usize>,
    /// The lane of each query.
    pub lanes: &'a [u8],
    /// The handle the run uses.
    pub handle: u32,
}

/// Textures an executor can be bound to.
pub trait Binding<'p>: Copy {
    /// A handle prepared for gathering: what the executor keeps between warps.
    type Prepared;
    /// Why an execution stops.
    type Error: From<WarpFault>;

    /// Prepares `handle` for `exec`'s gather; `lane`, the lowest lane using it, names the
    /// fault.
    fn prepare(
        self,
        exec: &Tld4Exec,
        handle: u32,
        lane: usize,
    ) -> Result<Self::Prepared, Self::Error>;

    /// Gathers the run into the same queries' slots of `out`; with `texels`, slot k also
    /// receives query k's texel addresses (where the binding has addresses).
    fn gather(
        self,
        prepared: &Self::Prepared,
        run: Run<'_>,
        out: &mut LaneResults,
        texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), Self::Error>;
}

impl<'p> Binding<'p> for &'p TexturePool {
    type Prepared = Gatherer<'p>;
    type Error = WarpFault;

    #[inline]
    fn prepare(self, exec: &Tld4Exec, handle: u32, lane: usize) -> Result<Gatherer<'p>, WarpFault> {
        exec.gatherer(self, handle, lane)
    }

    /// (Owned textures have no addresses: `texels` is left as it is.)
    #[inline(always)]
    fn gather(
        self,
        g: &Gatherer<'p>,
        run: Run<'_>,
        out: &mut LaneResults,
        _texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), WarpFault> {
        let first = run.lanes[run.range.start] as usize;
        g.gather_lane_range(run.level, run.queries, run.range, out)
            .map_err(|e| texture_fault(e, run.handle, first))
    }
}

impl<'m> Binding<'m> for MemoryPool<'m> {
    type Prepared = PreparedTexture<'m>;
    type Error = MemoryExecError;

    fn prepare(
        self,
        exec: &Tld4Exec,
        handle: u32,
        lane: usize,
    ) -> Result<PreparedTexture<'m>, MemoryExecError> {
        let (op, precision) = exec.gather_setup();
        let p = MemoryPool::prepare(&self, Handle(handle), op, precision)
            .map_err(|e| classify(e, handle, lane, &self))?;
        exec.check_output_format(p.per_read.source().shape().format, lane)?;
        Ok(p)
    }

    #[inline(always)]
    fn gather(
        self,
        p: &PreparedTexture<'m>,
        run: Run<'_>,
        out: &mut LaneResults,
        texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), MemoryExecError> {
        if let Some(g) = &p.in_place {
            // in place: every texel is mapped; the kernels report the addresses they read
            let Some(t) = texels else {
                return gather_in_place(g, run, out);
            };
            let first = run.lanes[run.range.start] as usize;
            return p
                .gather_lanes_with_addresses(run.level, run.queries, run.range, out, t)
                .unwrap_or(Ok(()))
                .map_err(|e| MemoryExecError::from(texture_fault(e, run.handle, first)));
        }
        let Run {
            queries,
            range,
            lanes,
            handle,
            ..
        } = run;
        let mut texels = texels;
        for k in range {
            let q = queries.get(k).unwrap_or_default();
            let rec = texels.as_deref_mut().and_then(|t| t.get_mut(k));
            let r = match rec {
                Some(t) => p.per_read.gather_with_addresses(&q, t),
                None => p.per_read.gather(&q),
            }
            .map_err(|source| MemoryExecError::Memory {
                lane: lanes[k],
                handle,
                read: MemoryRead::texel_of(&p.per_read, &q, &source),
                source,
            })?;
            out.set_lane(k, &r);
        }
        Ok(())
    }
}

/// Gathers `run` in place with `g` (every texel mapped; no addresses recorded): the memory
/// bindings' fast path.
#[inline(always)]
fn gather_in_place(
    g: &Gatherer<'_>,
    run: Run<'_>,
    out: &mut LaneResults,
) -> Result<(), MemoryExecError> {
    let first = run.lanes[run.range.start] as usize;
    g.gather_lane_range(run.level, run.queries, run.range, out)
        .map_err(|e| MemoryExecError::from(texture_fault(e, run.handle, first)))
}
