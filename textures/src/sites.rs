//! The gather over any [`TexelSource`] read texel by texel (texels in a memory without
//! contiguous views; the `tld4-gpu-memory` crate's `MemoryTexels`), with the byte address of
//! every footprint texel on request: [`SiteGatherer`] (the one per-lane composition,
//! [`crate::lane`]; texel addresses recorded by a probe).

use crate::error::Error;
use crate::gather::Prepared;
use crate::lane::{compose, LanePlan, Probe, Site};
use crate::layout::sector_of;
use crate::memory_error::MemoryError;
use crate::op::{GatherOp, GatherQuery, GatherResult, Precision, Value};
use crate::sampler::Sampler;
use crate::source::{Shape, SourceReader, TexelSource};

/// Where one footprint texel lives in memory.
///
/// (`repr(u32)`: 16 bytes, the discriminant in the first 4, a texel's size in the next 4 and
/// its address in the last 8, which the AVX2 writer of whole chunks relies on:
/// [`KernelTexels::write_addresses`](crate::KernelTexels::write_addresses).)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum TexelAddress {
    /// A texel read from memory: its size and its first byte.
    Texel {
        /// Bytes per texel.
        bytes: u32,
        /// Byte address of the texel.
        address: u64,
    } = 0,
    /// The border colour: no memory read.
    Border = 1,
    /// A cube corner: no memory read.
    Corner = 2,
    /// Nothing recorded (the lane did not execute, or the source has no addresses).
    #[default]
    None = 3,
}

/// The memory a lane's gather reads: its four texels in gather order and their sectors.
/// (`repr(transparent)`: laid out as its four entries, 64 bytes.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
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

/// The lane whose gather failed, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("lane {lane}: {source}")]
pub struct LaneMemoryError {
    /// Index of the query in the slice gathered.
    pub lane: usize,
    /// The failed read.
    pub source: MemoryError,
}

/// A gather over a [`TexelSource`], prepared once per (texture, sampler, instruction): the
/// one per-lane composition ([`crate::lane`]) reading texel by texel, each read fallible.
#[derive(Debug, Clone)]
pub struct SiteGatherer<S> {
    source: S,
    shape: Shape,
    plan: LanePlan,
    value: Value,
    border: u32,
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
        let Prepared {
            plan,
            value,
            border,
        } = Prepared::new(&shape, sampler, op, precision)?;
        Ok(SiteGatherer {
            source,
            shape,
            plan,
            value,
            border,
        })
    }

    /// The texel source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The same gather over `source` (what [`SiteGatherer::new`] would give for it), where
    /// it has this source's shape: for a gather kept between calls whose texels are read
    /// from another source each time. None for another shape.
    #[inline]
    pub fn with_source<T: TexelSource>(&self, source: T) -> Option<SiteGatherer<T>> {
        (source.shape() == self.shape).then(|| SiteGatherer {
            source,
            shape: self.shape,
            plan: self.plan,
            value: self.value,
            border: self.border,
        })
    }

    /// address -> footprint -> wrap: where the lane's four texels are read, in result order.
    pub fn sites(&self, q: &GatherQuery) -> [Site; 4] {
        self.plan.sites(q, &mut ())
    }

    /// The byte address of each of the lane's texels, without reading them: what
    /// [`SiteGatherer::gather_with_addresses`] records.
    pub fn addresses(&self, q: &GatherQuery) -> LaneTexels {
        let mut record = self.address_probe();
        self.plan.sites(q, &mut record);
        record.texels
    }

    /// Gather one lane; a failed memory read is an error (nothing is approximated).
    pub fn gather(&self, q: &GatherQuery) -> Result<GatherResult, S::Error> {
        compose(&self.plan, &self.reader(q), q, &mut ())
    }

    /// Gather one lane and record the byte address of each of its texels.
    pub fn gather_with_addresses(
        &self,
        q: &GatherQuery,
        texels: &mut LaneTexels,
    ) -> Result<GatherResult, S::Error> {
        let mut record = self.address_probe();
        let r = compose(&self.plan, &self.reader(q), q, &mut record);
        *texels = record.texels;
        r
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
            let r = match texels.as_deref_mut().and_then(|t| t.get_mut(lane)) {
                Some(t) => self.gather_with_addresses(q, t),
                None => self.gather(q),
            };
            *o = r.map_err(|e| LaneMemoryError {
                lane,
                source: e.into(),
            })?;
        }
        Ok(())
    }

    /// A probe recording the byte address of each texel the lane reads.
    fn address_probe(&self) -> AddressProbe<'_, S> {
        AddressProbe {
            source: &self.source,
            bytes: self.shape.format.texel_bytes(),
            texels: LaneTexels::default(),
        }
    }

    /// The lane's reader: the value rule, the border, and the lane's depth reference.
    fn reader(&self, q: &GatherQuery) -> SourceReader<'_, S> {
        SourceReader::for_lane(&self.source, self.value, self.border, q.dref)
    }
}

/// Records the byte address of each texel the composition reads (the kind of site for the
/// others): the texel-address view of a lane, from the sites the lane computed.
struct AddressProbe<'s, S: ?Sized> {
    source: &'s S,
    /// Bytes per texel.
    bytes: u32,
    texels: LaneTexels,
}

impl<S: TexelSource + ?Sized> Probe for AddressProbe<'_, S> {
    const ACTIVE: bool = true;
    fn texel(&mut self, k: usize, _position: (i64, i64), site: Site) {
        self.texels.texels[k] = match site {
            Site::Texel { layer, x, y } => match self.source.address(layer, x, y) {
                Some(address) => TexelAddress::Texel {
                    address,
                    bytes: self.bytes,
                },
                None => TexelAddress::None,
            },
            Site::Border => TexelAddress::Border,
            Site::Corner => TexelAddress::Corner,
        };
    }
}
