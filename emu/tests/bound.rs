//! `Tld4Exec::bind`: executing many warps against one pool with the texture unit kept
//! prepared between warps gives, warp for warp, what `Tld4Exec::execute` gives each alone:
//! the same registers, reports and faults, while handles change from warp to warp (uniform
//! form) and from lane to lane (register form), and unknown or unusable handles fault.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tld4_emu::decoder;
use tld4_emu::textures::{
    AddressMode, Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool,
};
use tld4_emu::{execute_batch, execute_batch_sequential, ExecConfig, Tld4Exec, WarpState};

/// Headers 0 (RGBA8 UNORM 8x8), 1 (R32 UINT 4x4), 2 (RGBA8 UNORM 16x4); samplers 0 (clamp
/// to edge) and 1 (repeat); header 9 and sampler 7 are missing.
fn pool() -> TexturePool {
    let desc = |format, width, height| TextureDesc {
        kind: TextureKind::Tex2D,
        format,
        width,
        height,
        layers: 1,
    };
    let mut pool = TexturePool::new();
    let a = Texture::from_fn(desc(Format::Rgba8Unorm, 8, 8), |_, x, y| {
        [x * 30, y * 30, x ^ y, 255]
    });
    let b = Texture::from_fn(desc(Format::R32Uint, 4, 4), |_, x, y| {
        [7 + x + 4 * y, 0, 0, 0]
    });
    let c = Texture::from_fn(desc(Format::Rgba8Unorm, 16, 4), |_, x, y| {
        [255 - x * 9, y * 60, 3, x + y]
    });
    pool.set_texture(0, a.unwrap()).unwrap();
    pool.set_texture(1, b.unwrap()).unwrap();
    pool.set_texture(2, c.unwrap()).unwrap();
    pool.set_sampler(0, Sampler::default()).unwrap();
    let repeat = Sampler {
        address_u: AddressMode::Repeat,
        address_v: AddressMode::Repeat,
        ..Sampler::default()
    };
    pool.set_sampler(1, repeat).unwrap();
    pool
}

/// A handle: mostly valid ones, now and then a missing header or sampler.
fn handle(rng: &mut StdRng) -> u32 {
    let r: u64 = rng.gen();
    let (header, sampler) = match r % 16 {
        0 => (9, 0),
        1 => (0, 7),
        k => ((k % 3) as u32, (k / 8) as u32),
    };
    Handle::new(header, sampler).unwrap().0
}

/// A warp with random coordinates in R20, R21, the handle in UR4 (one per warp) and in R30
/// (runs of equal handles per lane), some lanes inactive.
fn warp(rng: &mut StdRng) -> WarpState {
    let mut w = WarpState::new();
    let uniform = handle(rng);
    w.set_ureg(4, uniform);
    let mut h = handle(rng);
    for lane in 0..32 {
        if rng.gen_ratio(1, 6) {
            h = handle(rng);
        }
        w.set_reg(lane, 30, h);
        w.set_reg_f32(lane, 20, rng.gen_range(0..4000) as f32 / 1000.0 - 1.5);
        w.set_reg_f32(lane, 21, rng.gen_range(0..4000) as f32 / 1000.0 - 1.5);
    }
    w.active_mask = if rng.gen_ratio(1, 4) {
        rng.gen()
    } else {
        u32::MAX
    };
    w
}

#[test]
fn bound_execution_equals_execute_warp_for_warp() {
    let pool = pool();
    for text in [
        "TLD4.R R10, R8, R20, UR4, 2D ;",
        "TLD4.B.B R10, R8, R20, R30, 2D ;",
        "TLD4.G.F16.RN R10, R8, R20, UR4, 2D ;",
        "TLD4.A.B.F16.RZ R10, RZ, R20, R30, 2D ;",
    ] {
        let exec =
            Tld4Exec::from_word(decoder::assemble(text).unwrap(), ExecConfig::default()).unwrap();
        let mut bound = exec.bind(&pool);
        let mut rng = StdRng::seed_from_u64(0x5eed ^ text.len() as u64);
        let (mut faults, mut ran) = (0, 0);
        let mut warps = Vec::new();
        for n in 0..400 {
            let start = warp(&mut rng);
            let (mut a, mut b) = (start.clone(), start.clone());
            let ra = bound.execute(&mut a);
            let rb = exec.execute(&mut b, &pool);
            assert_eq!(ra, rb, "{text}: warp {n}");
            assert_eq!(a, b, "{text}: warp {n}");
            match ra {
                Ok(_) => ran += 1,
                Err(_) => faults += 1,
            }
            warps.push(start);
        }
        // both outcomes occur, so the kept texture unit is dropped and rebuilt along the way
        assert!(
            ran >= 20 && faults >= 20,
            "{text}: {ran} ran, {faults} faulted"
        );
        // the batch paths bind per worker: still every warp as alone
        let mut alone = warps.clone();
        let want: Vec<_> = alone.iter_mut().map(|w| exec.execute(w, &pool)).collect();
        for batch in [
            execute_batch::<WarpState>,
            execute_batch_sequential::<WarpState>,
        ] {
            let mut ws = warps.clone();
            let mut results = Vec::new();
            batch(&exec, &mut ws, &pool, &mut results);
            assert_eq!(results, want, "{text}");
            assert_eq!(ws, alone, "{text}");
        }
    }
}
