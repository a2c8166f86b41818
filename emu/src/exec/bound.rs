//! A [`Tld4Exec`] bound to its textures (an owned pool or pools in GPU memory): the texture
//! unit prepared once per handle, not once per warp. The one executor of both.

use tld4_gpu_memory::MemoryPool;
use tld4_textures::{LaneQueries, LaneResults, LaneTexels, TexturePool};

use super::binding::{Binding, Run};
use super::{ExecReport, HandleRun, Tld4Exec};
use crate::memory_exec::MemoryExecError;
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// A decoded TLD4 and the textures it reads (an owned pool, or pools in GPU memory: see
/// [`Binding`]), for executing many warps: the texture unit
/// ([`Gatherer`](tld4_textures::Gatherer)) prepared for a handle (its texture and sampler
/// resolved, checked against the instruction, the value rule chosen) is kept and reused while
/// the warps use that handle.
/// Executing a warp here gives exactly what [`Tld4Exec::execute`] gives it (which is this,
/// bound for one warp): preparing is a pure function of the pool's texture and sampler and the
/// instruction, and the pool cannot change while it is borrowed. A handle that fails to
/// prepare is not kept, so its fault is raised again, naming the lane, by every warp that
/// uses it.
///
/// ```
/// use tld4_emu::{decoder, ExecConfig, Tld4Exec, WarpState};
/// use tld4_emu::textures::{Format, Sampler, Texture, TextureDesc, TextureKind, TexturePool};
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
/// let mut pool = TexturePool::new();
/// pool.set_texture(0, Texture::from_fields(desc, &[1, 2, 3, 4])?)?;
/// pool.set_sampler(0, Sampler::default())?;
/// let exec = Tld4Exec::from_word(decoder::assemble("TLD4.R R10, R8, R20, UR4, 2D ;")?, ExecConfig::default())?;
/// let fresh = || {
///     let mut warp = WarpState::new(); // UR4 = 0: header 0, sampler 0
///     warp.set_reg_lanes(20, u32::MAX, &[0.5f32.to_bits(); 32]); // s
///     warp.set_reg_lanes(21, u32::MAX, &[0.5f32.to_bits(); 32]); // t
///     warp
/// };
/// let mut bound = exec.bind(&pool);
/// for _ in 0..3 {
///     let (mut warp, mut alone) = (fresh(), fresh());
///     let report = bound.execute(&mut warp)?;
///     assert_eq!(report.executed, u32::MAX);
///     assert_eq!(warp.reg(0, 8), 3); // R8..R11: the footprint's four texels
///     assert_eq!(report, exec.execute(&mut alone, &pool)?);
///     assert_eq!(warp, alone);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BoundExec<'e, 'p, B: Binding<'p> = &'p TexturePool> {
    exec: &'e Tld4Exec,
    pool: B,
    /// The texture unit prepared for the last handle that prepared without error.
    prepared: Option<(u32, B::Prepared)>,
    /// The sources of the warp, reused from warp to warp (no zeroing a warp; lanes past the
    /// executing ones keep earlier values, which the texture unit computes and drops).
    queries: LaneQueries,
    /// The results, reused likewise (only the executing lanes' are read).
    results: LaneResults,
}

impl Tld4Exec {
    /// This instruction bound to `pool`, for executing many warps (see [`BoundExec`]).
    pub fn bind<'e, 'p>(&'e self, pool: &'p TexturePool) -> BoundExec<'e, 'p> {
        self.bind_to(pool)
    }

    /// This instruction bound to the header and sampler pools of a GPU memory, for executing
    /// many warps: each handle's descriptors are read and decoded once for the life of the
    /// binding (the memory is borrowed, so it cannot change meanwhile), and where the memory
    /// hands out a texture's bytes as one slice ([`tld4_gpu_memory::Memory::view`]) its texels
    /// are read in place by the lane-parallel texture unit, as owned textures are.
    ///
    /// ```
    /// use tld4_emu::{decoder, ExecConfig, Tld4Exec, WarpState};
    /// use tld4_emu::gpu_memory::{pool_image, LayoutChoice, MemoryPool};
    /// use tld4_emu::textures::*;
    /// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R32Uint, width: 2, height: 2, layers: 1 };
    /// let (tex, smp) = (Texture::from_fields(desc, &[1, 2, 3, 4])?, Sampler::default());
    /// let mut pool = TexturePool::new();
    /// pool.set_texture(0, tex.clone())?;
    /// pool.set_sampler(0, smp)?;
    /// // The same texture and sampler in GPU memory, as a driver writes them (block-linear).
    /// let layout = LayoutChoice::BlockLinear { gobs_per_block_height_log2: 0 };
    /// let image = pool_image(&[(&tex, &smp, layout)], 0x10_0000)?;
    /// let memory = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
    /// let exec = Tld4Exec::from_word(decoder::assemble("TLD4.R R10, R8, R20, UR4, 2D ;")?, ExecConfig::default())?;
    /// let mut bound = exec.bind_memory(memory);
    /// let mut warp = WarpState::new(); // UR4 = 0: header 0, sampler 0
    /// warp.set_reg_lanes(20, u32::MAX, &[0.5f32.to_bits(); 32]);
    /// warp.set_reg_lanes(21, u32::MAX, &[0.5f32.to_bits(); 32]);
    /// let mut owned = warp.clone();
    /// bound.execute(&mut warp)?;
    /// exec.execute(&mut owned, &pool)?;
    /// assert_eq!(warp.reg(0, 8), 3);
    /// assert_eq!(warp, owned);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_memory<'e, 'm>(
        &'e self,
        pool: MemoryPool<'m>,
    ) -> BoundExec<'e, 'm, MemoryPool<'m>> {
        self.bind_to(pool)
    }

    /// This instruction bound to any [`Binding`].
    pub fn bind_to<'e, 'p, B: Binding<'p>>(&'e self, pool: B) -> BoundExec<'e, 'p, B> {
        BoundExec {
            exec: self,
            pool,
            prepared: None,
            queries: LaneQueries::new(),
            results: LaneResults::new(),
        }
    }
}

impl<'m> BoundExec<'_, 'm, MemoryPool<'m>> {
    /// [`BoundExec::execute`], and with `texels`, entry `lane` receives the texel addresses of
    /// each executed lane, and `LaneTexels::default()` (every texel `TexelAddress::None`, no
    /// sectors) for each lane that did not execute. On a fault the registers are untouched,
    /// but the entries may have been written.
    pub fn execute_with_texels<R: RegisterFile + ?Sized>(
        &mut self,
        warp: &mut R,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<ExecReport, MemoryExecError> {
        self.run(warp, texels)
    }
}

impl<'p, B: Binding<'p>> BoundExec<'_, 'p, B> {
    /// [`Tld4Exec::execute`] for the warp held in `warp` against the bound pool.
    ///
    /// Compiled at the texture unit's SIMD level ([`tld4_textures::run_at`]): the register
    /// rows go into the query arrays, and the results come back into the registers, in
    /// vectors as wide as the kernels' own. (Compiled for the baseline target, this side
    /// moved the kernels' 32-byte results in 16-byte halves, and on the AMD Zen 4 machine
    /// this project measures on, a load of the upper half of a just-stored 32-byte vector
    /// waits for the store.)
    #[inline]
    pub fn execute<R: RegisterFile + ?Sized>(
        &mut self,
        warp: &mut R,
    ) -> Result<ExecReport, B::Error> {
        self.run(warp, None)
    }

    /// One warp at the texture unit's SIMD level, with or without texel addresses.
    #[inline]
    fn run<R: RegisterFile + ?Sized>(
        &mut self,
        warp: &mut R,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<ExecReport, B::Error> {
        let BoundExec {
            exec,
            pool,
            prepared,
            queries,
            results,
        } = self;
        let parts = WarpParts {
            exec,
            pool: *pool,
            prepared,
            queries,
            results,
        };
        parts.run(warp, texels)
    }
}

/// What executing a warp works with: the executor, its textures, the texture unit kept
/// prepared, and the query and result arrays (a [`BoundExec`]'s own, or the ones
/// [`Tld4Exec::execute`] keeps per thread).
pub(super) struct WarpParts<'k, 'e, 'p, B: Binding<'p>> {
    pub(super) exec: &'e Tld4Exec,
    pub(super) pool: B,
    pub(super) prepared: &'k mut Option<(u32, B::Prepared)>,
    pub(super) queries: &'k mut LaneQueries,
    pub(super) results: &'k mut LaneResults,
}

impl<'p, B: Binding<'p>> WarpParts<'_, '_, 'p, B> {
    /// One warp at the texture unit's SIMD level, with or without texel addresses.
    #[inline]
    pub(super) fn run<R: RegisterFile + ?Sized>(
        self,
        warp: &mut R,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<ExecReport, B::Error> {
        let level = tld4_textures::simd_level();
        tld4_textures::run_at(
            level,
            Execute {
                parts: self,
                warp,
                level,
                texels,
            },
        )
    }
}

/// One warp's execution, as work [`tld4_textures::run_at`] compiles per SIMD level.
struct Execute<'k, 'e, 'p, 'w, 't, R: ?Sized, B: Binding<'p>> {
    parts: WarpParts<'k, 'e, 'p, B>,
    warp: &'w mut R,
    level: tld4_textures::SimdLevel,
    texels: Option<&'t mut [LaneTexels; WARP_SIZE]>,
}

impl<'p, R: RegisterFile + ?Sized, B: Binding<'p>> tld4_textures::AtLevel
    for Execute<'_, '_, 'p, '_, '_, R, B>
{
    type Output = Result<ExecReport, B::Error>;

    #[inline(always)]
    fn run(self) -> Self::Output {
        let Execute {
            parts,
            warp,
            level,
            texels,
        } = self;
        let WarpParts {
            exec,
            pool,
            prepared,
            queries,
            results,
        } = parts;
        let pool = &pool;
        let (mut report, executed) = exec.executing(&*warp)?;
        let mut texels = texels;
        if let Some(t) = texels.as_deref_mut().filter(|_| executed != u32::MAX) {
            // lanes that do not execute read nothing: their records say so (never stale)
            for (lane, rec) in t.iter_mut().enumerate() {
                if executed >> lane & 1 == 0 {
                    *rec = LaneTexels::default();
                }
            }
        }
        if executed == 0 {
            return Ok(report);
        }
        // Sources, read once into structure of arrays (lane `lanes[k]` is query k).
        let mut lanes = [0u8; WARP_SIZE];
        let n = exec.read_sources(&*warp, executed, queries, &mut lanes);
        results.nonresident = 0;
        // Texel addresses by query: where every lane executes, query k is lane k and they
        // go straight to the caller's records; else they are staged and scattered to lanes
        // at the end.
        let mut staged = match (&texels, n == WARP_SIZE) {
            (Some(_), false) => Some([LaneTexels::default(); WARP_SIZE]),
            _ => None,
        };
        for HandleRun { handle, range } in exec.handle_runs(&*warp, &lanes[..n]) {
            let first = lanes[range.start] as usize;
            let p = prepare(exec, *pool, prepared, handle, first)?;
            let run = Run {
                level,
                queries,
                range,
                lanes: &lanes[..n],
                handle,
            };
            let records = match (&mut staged, &mut texels) {
                (Some(s), _) => Some(&mut s[..]),
                (None, Some(t)) => Some(&mut t[..]),
                (None, None) => None,
            };
            pool.gather(p, run, results, records)?;
        }
        exec.write_lane_results(warp, results, &lanes[..n], &mut report);
        if let (Some(out), Some(rec)) = (texels, staged) {
            for (k, &lane) in lanes[..n].iter().enumerate() {
                out[lane as usize & (WARP_SIZE - 1)] = rec[k];
            }
        }
        Ok(report)
    }
}

/// The texture unit prepared for `handle`: the one kept in `prepared`, or a new one (kept if
/// it prepares; its error becomes the fault of `lane`).
fn prepare<'k, 'p, B: Binding<'p>>(
    exec: &Tld4Exec,
    pool: B,
    prepared: &'k mut Option<(u32, B::Prepared)>,
    handle: u32,
    lane: usize,
) -> Result<&'k B::Prepared, B::Error> {
    // (checked, then borrowed: returning a borrow from one arm of a match that assigns in the
    // other is refused by today's borrow checker; moving the Gatherer out and back in costs
    // some 100 instructions a warp)
    if !matches!(prepared, Some((kept, _)) if *kept == handle) {
        *prepared = Some((handle, pool.prepare(exec, handle, lane)?));
    }
    match prepared {
        Some((_, g)) => Ok(g),
        None => unreachable!("prepared just above"),
    }
}
