//! A [`Tld4Exec`] bound to one texture pool: the texture unit prepared once per handle, not
//! once per warp.

use tld4_textures::{Gatherer, LaneQueries, LaneResults, TexturePool};

use super::{texture_fault, ExecReport, Tld4Exec};
use crate::fault::WarpFault;
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// A decoded TLD4 and the texture pool it reads, for executing many warps: the texture unit
/// ([`Gatherer`]) prepared for a handle (its texture and sampler resolved, checked against the
/// instruction, the value rule chosen) is kept and reused while the warps use that handle.
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
pub struct BoundExec<'e, 'p> {
    exec: &'e Tld4Exec,
    pool: &'p TexturePool,
    /// The texture unit prepared for the last handle that prepared without error.
    prepared: Option<(u32, Gatherer<'p>)>,
    /// The sources of the warp, reused from warp to warp (no zeroing a warp; lanes past the
    /// executing ones keep earlier values, which the texture unit computes and drops).
    queries: LaneQueries,
    /// The results, reused likewise (only the executing lanes' are read).
    results: LaneResults,
}

impl Tld4Exec {
    /// This instruction bound to `pool`, for executing many warps (see [`BoundExec`]).
    pub fn bind<'e, 'p>(&'e self, pool: &'p TexturePool) -> BoundExec<'e, 'p> {
        BoundExec {
            exec: self,
            pool,
            prepared: None,
            queries: LaneQueries::new(),
            results: LaneResults::new(),
        }
    }
}

impl<'p> BoundExec<'_, 'p> {
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
    ) -> Result<ExecReport, WarpFault> {
        let level = tld4_textures::simd_level();
        tld4_textures::run_at(
            level,
            Execute {
                bound: self,
                warp,
                level,
            },
        )
    }
}

/// One warp's execution, as work [`tld4_textures::run_at`] compiles per SIMD level.
struct Execute<'b, 'e, 'p, 'w, R: ?Sized> {
    bound: &'b mut BoundExec<'e, 'p>,
    warp: &'w mut R,
    level: tld4_textures::SimdLevel,
}

impl<R: RegisterFile + ?Sized> tld4_textures::AtLevel for Execute<'_, '_, '_, '_, R> {
    type Output = Result<ExecReport, WarpFault>;

    #[inline(always)]
    fn run(self) -> Self::Output {
        let Execute { bound, warp, level } = self;
        let BoundExec {
            exec,
            pool,
            prepared,
            queries,
            results,
        } = bound;
        let (mut report, executed) = exec.executing(&*warp)?;
        if executed == 0 {
            return Ok(report);
        }
        // Sources, read once into structure of arrays (lane `lanes[k]` is query k).
        let mut lanes = [0u8; WARP_SIZE];
        let n = exec.read_sources(&*warp, executed, queries, &mut lanes);
        results.nonresident = 0;
        exec.for_each_handle(&*warp, &lanes[..n], |handle, range| {
            let first = lanes[range.start] as usize;
            let gatherer = prepare(exec, pool, prepared, handle, first)?;
            gatherer
                .gather_lane_range(level, queries, range, results)
                .map_err(|e| texture_fault(e, handle, first))
        })?;
        exec.write_lane_results(warp, results, &lanes[..n], &mut report);
        Ok(report)
    }
}

/// The texture unit prepared for `handle`: the one kept in `prepared`, or a new one (kept if
/// it prepares; its error becomes the fault of `lane`).
fn prepare<'k, 'p>(
    exec: &Tld4Exec,
    pool: &'p TexturePool,
    prepared: &'k mut Option<(u32, Gatherer<'p>)>,
    handle: u32,
    lane: usize,
) -> Result<&'k Gatherer<'p>, WarpFault> {
    // (checked, then borrowed: returning a borrow from one arm of a match that assigns in the
    // other is refused by today's borrow checker; moving the Gatherer out and back in costs
    // some 100 instructions a warp)
    if !matches!(prepared, Some((kept, _)) if *kept == handle) {
        *prepared = Some((handle, exec.gatherer(pool, handle, lane)?));
    }
    match prepared {
        Some((_, g)) => Ok(g),
        None => unreachable!("prepared just above"),
    }
}
