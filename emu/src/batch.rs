//! Many warps at once: one decoded TLD4 executed for a batch of warps.
//!
//! With the default-on cargo feature `parallel`, [`execute_batch`] spreads the warps over the
//! cores of the current rayon thread pool (the global one, or the pool an embedder runs it in
//! with `ThreadPool::install`); without it, it runs them in order on the calling thread and
//! rayon is not a dependency. Either way each warp's result is exactly what
//! [`Tld4Exec::execute`] gives it alone: warps share nothing but the instruction and the
//! texture pool, which executing only reads. Each worker binds the instruction to the pool
//! once ([`Tld4Exec::bind`]), so the texture unit is prepared once per worker and handle, not
//! once per warp. [`execute_batch_sequential`] is the one-thread path, always available.

use crate::exec::{ExecReport, Tld4Exec};
use crate::fault::WarpFault;
use crate::memory_exec::MemoryExecError;
use crate::regfile::RegisterFile;
use tld4_gpu_memory::{Memory, MemoryPool};
use tld4_textures::TexturePool;

/// What executing one warp gave: [`Tld4Exec::execute`]'s result.
pub type WarpOutcome = Result<ExecReport, WarpFault>;

/// Executes `exec` for every warp of `warps` against `pool`, in parallel with the feature
/// `parallel` (on by default), and writes warp `i`'s result to `results[i]`.
///
/// `results` is cleared and refilled, so a caller that keeps it allocates nothing per batch
/// once it has grown to the batch size. A faulting warp gets its [`WarpFault`] (and, as with
/// [`Tld4Exec::execute`], no register of it is written); the other warps still run.
pub fn execute_batch<R: RegisterFile + Send>(
    exec: &Tld4Exec,
    warps: &mut [R],
    pool: &TexturePool,
    results: &mut Vec<WarpOutcome>,
) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        warps
            .par_iter_mut()
            .map_init(|| exec.bind(pool), |bound, w| bound.execute(w))
            .collect_into_vec(results);
    }
    #[cfg(not(feature = "parallel"))]
    execute_batch_sequential(exec, warps, pool, results);
}

/// [`execute_batch`] on the calling thread, warp after warp, whatever the features.
pub fn execute_batch_sequential<R: RegisterFile>(
    exec: &Tld4Exec,
    warps: &mut [R],
    pool: &TexturePool,
    results: &mut Vec<WarpOutcome>,
) {
    results.clear();
    let mut bound = exec.bind(pool);
    results.extend(warps.iter_mut().map(|w| bound.execute(w)));
}

/// What executing one warp against textures in GPU memory gave.
pub type MemoryWarpOutcome = Result<ExecReport, MemoryExecError>;

/// [`execute_batch`] for textures in GPU memory: the header pool at `header_pool` and the
/// sampler pool at `sampler_pool` of `memory` ([`MemoryPool`]). Each worker binds once
/// ([`Tld4Exec::bind_memory`]), so a handle's descriptors are read and decoded once per
/// worker, and texels are read in place where the memory hands out views. The memory is
/// shared by the workers, hence `Sync`; executing only reads it. Warp `i`'s result, exactly
/// what [`Tld4Exec::execute_memory`] gives it alone, goes to `results[i]`.
pub fn execute_batch_memory<R: RegisterFile + Send>(
    exec: &Tld4Exec,
    warps: &mut [R],
    memory: &(dyn Memory + Sync),
    header_pool: u64,
    sampler_pool: u64,
    results: &mut Vec<MemoryWarpOutcome>,
) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        warps
            .par_iter_mut()
            .map_init(
                || exec.bind_memory(MemoryPool::new(memory, header_pool, sampler_pool)),
                |bound, w| bound.execute(w),
            )
            .collect_into_vec(results);
    }
    #[cfg(not(feature = "parallel"))]
    {
        results.clear();
        let mut bound = exec.bind_memory(MemoryPool::new(memory, header_pool, sampler_pool));
        results.extend(warps.iter_mut().map(|w| bound.execute(w)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ExecConfig;
    use crate::warp::{WarpState, WARP_SIZE};
    use rand::{Rng, SeedableRng};
    use tld4_textures::{
        AddressMode, Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool,
    };

    /// A pool with one random RGBA8 texture (header 0) and a repeat sampler (sampler 0).
    fn pool(seed: u64) -> TexturePool {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::Rgba8Unorm,
            width: 16,
            height: 8,
            layers: 1,
        };
        let mut pool = TexturePool::new();
        pool.add_texture(
            Texture::from_fn(desc, |_, _, _| {
                std::array::from_fn(|_| rng.gen_range(0..256))
            })
            .expect("texture"),
        )
        .expect("room in the pool");
        pool.add_sampler(Sampler::with_address(AddressMode::Repeat))
            .expect("room in the pool");
        pool
    }

    /// Warps with random coordinates and PTP offsets, random active masks, and every fifth
    /// warp given a handle with no texture (it faults).
    fn warps(seed: u64, n: usize) -> Vec<WarpState> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                let mut w = WarpState::new();
                let header = if i % 5 == 4 { 9 } else { 0 };
                w.set_ureg(4, Handle::new(header, 0).expect("handle").0);
                w.active_mask = rng.gen();
                for lane in 0..WARP_SIZE {
                    w.set_reg_f32(lane, 20, rng.gen_range(-2.0f32..2.0));
                    w.set_reg_f32(lane, 21, rng.gen_range(-2.0f32..2.0));
                    w.set_reg(lane, 24, rng.gen());
                    w.set_reg(lane, 25, rng.gen());
                }
                w
            })
            .collect()
    }

    #[test]
    fn a_batch_gives_each_warp_what_it_gets_alone() {
        let pool = pool(1);
        let exec = Tld4Exec::from_word(
            tld4_decoder::assemble("TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;").expect("text"),
            ExecConfig::default(),
        )
        .expect("word");
        let start = warps(2, 300);
        // One by one, the reference.
        let mut alone = start.clone();
        let alone_results: Vec<WarpOutcome> =
            alone.iter_mut().map(|w| exec.execute(w, &pool)).collect();
        // Batched (in parallel with the default features), on a pool of 2 threads so that
        // warps really run concurrently even on a one-core machine.
        let mut batched = start.clone();
        let mut results = Vec::new();
        #[cfg(feature = "parallel")]
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("thread pool")
            .install(|| execute_batch(&exec, &mut batched, &pool, &mut results));
        #[cfg(not(feature = "parallel"))]
        execute_batch(&exec, &mut batched, &pool, &mut results);
        assert_eq!(results, alone_results);
        assert_eq!(batched, alone, "registers written alike");
        let mut sequential = start.clone();
        let mut seq_results = vec![Ok(ExecReport::default()); 7]; // stale entries are dropped
        execute_batch_sequential(&exec, &mut sequential, &pool, &mut seq_results);
        assert_eq!(seq_results, alone_results);
        assert_eq!(sequential, alone);
        // The batch did work: lanes executed, registers changed, and the faulting warps faulted.
        assert!(results.iter().filter(|r| r.is_err()).count() == 60);
        assert!(results.iter().flatten().any(|r| r.executed != 0));
        assert_ne!(batched, start);
    }

    #[test]
    fn a_memory_batch_gives_each_warp_what_it_gets_alone_and_what_the_owned_pool_gives() {
        use tld4_gpu_memory::{pool_image, LayoutChoice};
        let pool = pool(3);
        let tex = pool.texture(0).expect("texture 0");
        let smp = pool.sampler(0).expect("sampler 0");
        let layout = LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: 1,
        };
        let image = pool_image(&[(tex, smp, layout)], 0x4_0000).expect("image");
        let exec = Tld4Exec::from_word(
            tld4_decoder::assemble("TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;").expect("text"),
            ExecConfig::default(),
        )
        .expect("word");
        let start = warps(4, 200);
        let mem = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
        let mut alone = start.clone();
        let alone_results: Vec<MemoryWarpOutcome> = alone
            .iter_mut()
            .map(|w| exec.execute_memory(w, &mem, None))
            .collect();
        let mut batched = start.clone();
        let mut results = vec![Ok(ExecReport::default()); 3]; // stale entries are dropped
        let run = |batched: &mut Vec<WarpState>, results: &mut Vec<MemoryWarpOutcome>| {
            execute_batch_memory(
                &exec,
                batched,
                &image.memory,
                image.header_pool,
                image.sampler_pool,
                results,
            )
        };
        #[cfg(feature = "parallel")]
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("thread pool")
            .install(|| run(&mut batched, &mut results));
        #[cfg(not(feature = "parallel"))]
        run(&mut batched, &mut results);
        assert_eq!(results, alone_results);
        assert_eq!(batched, alone, "registers written alike");
        // The same texels owned: the same registers; the faulting warps fault in both.
        let mut owned = start.clone();
        let mut owned_results = Vec::new();
        execute_batch_sequential(&exec, &mut owned, &pool, &mut owned_results);
        assert_eq!(batched, owned);
        assert_eq!(
            results
                .iter()
                .map(|r| r.as_ref().err().map(|e| e.kind()))
                .collect::<Vec<_>>(),
            owned_results
                .iter()
                .map(|r| r.as_ref().err().map(|e| e.kind()))
                .collect::<Vec<_>>()
        );
        assert_eq!(results.iter().filter(|r| r.is_err()).count(), 40);
        assert_ne!(batched, start);
    }
}
