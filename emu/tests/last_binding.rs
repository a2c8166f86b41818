//! `Tld4Exec::execute` keeps the texture unit it last prepared (per thread, keyed by the
//! pool's generation): a change of the pool between two calls is seen by the second, another
//! pool with the same handles is not confused with the first, a clone is its own pool, and
//! executors of other ops, precisions and output modes on the same pool each get their own;
//! every result is what a binding made afresh for the call gives.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tld4_emu::decoder;
use tld4_emu::textures::{
    AddressMode, Format, Handle, Precision, Rounding, Sampler, Texture, TextureDesc, TextureKind,
    TexturePool,
};
use tld4_emu::{ExecConfig, Tld4Exec, WarpState};

fn r32(width: u32, height: u32, base: u32) -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R32Uint,
        width,
        height,
        layers: 1,
    };
    Texture::from_fn(desc, |_, x, y| [base + x + width * y, 0, 0, 0]).unwrap()
}

fn exec(text: &str) -> Tld4Exec {
    Tld4Exec::from_word(decoder::assemble(text).unwrap(), ExecConfig::default()).unwrap()
}

/// Every lane at (s, t), the uniform handle `handle` in UR4 and R30.
fn warp_at(s: f32, t: f32, handle: u32) -> WarpState {
    let mut w = WarpState::new();
    w.set_ureg(4, handle);
    for lane in 0..32 {
        w.set_reg_f32(lane, 20, s);
        w.set_reg_f32(lane, 21, t);
        w.set_reg(lane, 30, handle);
    }
    w
}

/// R8..R11 of lane 0 after executing at (s, t).
fn gathered(exec: &Tld4Exec, pool: &TexturePool, s: f32, t: f32) -> [u32; 4] {
    let mut w = warp_at(s, t, 0);
    exec.execute(&mut w, pool).unwrap();
    [8, 9, 10, 11].map(|r| w.reg(0, r))
}

#[test]
fn a_texture_or_sampler_changed_between_two_executes_is_seen() {
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let mut pool = TexturePool::new();
    pool.set_texture(0, r32(2, 2, 1)).unwrap();
    pool.set_sampler(0, Sampler::default()).unwrap();
    // texels (x, y): (0,0)=1, (1,0)=2, (0,1)=3, (1,1)=4; footprint (i0,j1),(i1,j1),(i1,j0),(i0,j0)
    assert_eq!(gathered(&exec, &pool, 0.5, 0.5), [3, 4, 2, 1]);
    assert_eq!(gathered(&exec, &pool, 0.5, 0.5), [3, 4, 2, 1]);
    // same shape, other texels: a cache that compared shapes would miss this
    pool.set_texture(0, r32(2, 2, 11)).unwrap();
    assert_eq!(gathered(&exec, &pool, 0.5, 0.5), [13, 14, 12, 11]);
    // another size
    pool.set_texture(0, r32(4, 4, 100)).unwrap();
    assert_eq!(gathered(&exec, &pool, 0.5, 0.5), [109, 110, 106, 105]);
    // the sampler: at (0, 0) clamp to edge reads texel (0, 0) four times, repeat wraps
    assert_eq!(gathered(&exec, &pool, 0.0, 0.0), [100, 100, 100, 100]);
    let repeat = Sampler {
        address_u: AddressMode::Repeat,
        address_v: AddressMode::Repeat,
        ..Sampler::default()
    };
    pool.set_sampler(0, repeat).unwrap();
    assert_eq!(gathered(&exec, &pool, 0.0, 0.0), [103, 100, 112, 115]);
    // setting the same sampler again is a change too (and gives the same results)
    pool.set_sampler(0, repeat).unwrap();
    assert_eq!(gathered(&exec, &pool, 0.0, 0.0), [103, 100, 112, 115]);
}

#[test]
fn pools_with_the_same_handles_and_clones_are_told_apart() {
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let make = |base| {
        let mut pool = TexturePool::new();
        pool.set_texture(0, r32(2, 2, base)).unwrap();
        pool.set_sampler(0, Sampler::default()).unwrap();
        pool
    };
    let (a, b) = (make(1), make(21));
    for _ in 0..3 {
        assert_eq!(gathered(&exec, &a, 0.5, 0.5), [3, 4, 2, 1]);
        assert_eq!(gathered(&exec, &b, 0.5, 0.5), [23, 24, 22, 21]);
    }
    let mut c = a.clone();
    assert_eq!(gathered(&exec, &c, 0.5, 0.5), [3, 4, 2, 1]);
    c.set_texture(0, r32(2, 2, 41)).unwrap();
    assert_eq!(gathered(&exec, &c, 0.5, 0.5), [43, 44, 42, 41]);
    assert_eq!(gathered(&exec, &a, 0.5, 0.5), [3, 4, 2, 1]);
    // a pool dropped and another made in its place
    drop(c);
    let d = make(61);
    assert_eq!(gathered(&exec, &d, 0.5, 0.5), [63, 64, 62, 61]);
}

#[test]
fn a_faulting_handle_faults_again_after_a_kept_one() {
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let mut pool = TexturePool::new();
    pool.set_texture(0, r32(2, 2, 1)).unwrap();
    pool.set_sampler(0, Sampler::default()).unwrap();
    assert_eq!(gathered(&exec, &pool, 0.5, 0.5), [3, 4, 2, 1]);
    let missing = Handle::new(5, 0).unwrap().0;
    for _ in 0..2 {
        let mut w = warp_at(0.5, 0.5, missing);
        let before = w.clone();
        assert!(exec.execute(&mut w, &pool).is_err());
        assert_eq!(w, before, "nothing written on a fault");
    }
    // the texture appears: the handle now executes
    pool.set_texture(5, r32(2, 2, 81)).unwrap();
    let mut w = warp_at(0.5, 0.5, missing);
    exec.execute(&mut w, &pool).unwrap();
    assert_eq!(w.reg(31, 8), 83);
}

/// Random changes of the pool, executors of several ops, precisions and output modes, and
/// handles per warp (uniform form) or per lane (register form), on several threads at once,
/// each executor used by every thread in turn: every `execute` gives what a binding made for that call gives.
#[test]
fn execute_equals_a_fresh_binding_through_random_changes_and_threads() {
    let texts = [
        "TLD4.R R10, R8, R20, UR4, 2D ;",
        "TLD4.G R10, R8, R20, UR4, 2D ;",
        "TLD4.B.B R10, R8, R20, R30, 2D ;",
        "TLD4.A.F16.RN R10, R8, R20, UR4, 2D ;",
    ];
    let mut execs: Vec<Tld4Exec> = texts.iter().map(|t| exec(t)).collect();
    let coarse = ExecConfig {
        precision: Precision::Fixed {
            fraction_bits: 4,
            rounding: Rounding::TowardZero,
        },
        ..ExecConfig::default()
    };
    execs.push(Tld4Exec::from_word(decoder::assemble(texts[0]).unwrap(), coarse).unwrap());
    let rgba = |w, h, seed: u32| {
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::Rgba8Unorm,
            width: w,
            height: h,
            layers: 1,
        };
        Texture::from_fn(desc, |_, x, y| {
            [x * 17 + seed, y * 29 + seed, (x ^ y) + seed, 255 - seed].map(|v| v % 256)
        })
        .unwrap()
    };
    std::thread::scope(|scope| {
        for t in 0..execs.len() {
            let execs = &execs;
            scope.spawn(move || {
                let mut rng = StdRng::seed_from_u64(0x1a57 + t as u64);
                let mut pool = TexturePool::new();
                for h in 0..3 {
                    pool.set_texture(h, rgba(4 + h, 8, h * 40)).unwrap();
                }
                pool.set_sampler(0, Sampler::default()).unwrap();
                for n in 0..600 {
                    if rng.gen_ratio(1, 8) {
                        let h = rng.gen_range(0..3);
                        let size = rng.gen_range(2..9);
                        pool.set_texture(h, rgba(size, size, rng.gen_range(0..200)))
                            .unwrap();
                    }
                    if rng.gen_ratio(1, 16) {
                        let mode =
                            [AddressMode::Repeat, AddressMode::ClampToEdge][rng.gen_range(0..2)];
                        let s = Sampler {
                            address_u: mode,
                            address_v: mode,
                            ..Sampler::default()
                        };
                        pool.set_sampler(0, s).unwrap();
                    }
                    let mut w = WarpState::new();
                    w.set_ureg(4, rng.gen_range(0..3));
                    let mut h = rng.gen_range(0..3);
                    for lane in 0..32 {
                        if rng.gen_ratio(1, 8) {
                            h = rng.gen_range(0..3);
                        }
                        w.set_reg(lane, 30, h);
                        w.set_reg_f32(lane, 20, rng.gen_range(-1.0..2.0));
                        w.set_reg_f32(lane, 21, rng.gen_range(-1.0..2.0));
                    }
                    // one executor on several threads at once, in turn
                    let exec = &execs[(n + t) % execs.len()];
                    let mut fresh = w.clone();
                    let got = exec.execute(&mut w, &pool);
                    let want = exec.bind(&pool).execute(&mut fresh);
                    assert_eq!(got, want, "thread {t}, warp {n}");
                    assert_eq!(w, fresh, "thread {t}, warp {n}");
                }
            });
        }
    });
}

#[test]
fn the_executor_stays_shareable_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Tld4Exec>();
    shared::<TexturePool>();
}

/// What an executor keeps is keyed by its construction (a setup number), not by comparing
/// its op: executors of other components made one after another in the same place, each
/// executed once over the same pool, each get their own preparation (the R and G
/// components differ in every texel, so a preparation taken for another's reads wrong
/// values); a clone shares the original's, and gives its results.
#[test]
fn executors_made_in_turn_in_one_place_each_prepare_their_own() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Uint,
        width: 4,
        height: 4,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x + 4 * y, 100 + x + 4 * y, 0, 0]).unwrap();
    let mut pool = TexturePool::new();
    pool.set_texture(0, tex).unwrap();
    pool.set_sampler(0, Sampler::default()).unwrap();
    let texts = [
        "TLD4.R R10, R8, R20, UR4, 2D ;",
        "TLD4.G R10, R8, R20, UR4, 2D ;",
    ];
    for n in 0..8 {
        let exec = exec(texts[n % 2]);
        let (mut w, mut fresh) = (warp_at(0.4, 0.6, 0), warp_at(0.4, 0.6, 0));
        exec.execute(&mut w, &pool).unwrap();
        exec.bind(&pool).execute(&mut fresh).unwrap();
        assert_eq!(w, fresh, "executor {n}");
        // the R gather reads x + 4y, the G gather 100 more
        let base = if n % 2 == 0 { 0 } else { 100 };
        assert!((base..base + 16).contains(&w.reg(0, 8)), "executor {n}");
        let copy = exec.clone();
        let mut again = warp_at(0.4, 0.6, 0);
        copy.execute(&mut again, &pool).unwrap();
        assert_eq!(again, fresh, "the clone of executor {n}");
    }
}

/// The kept texture unit borrows the pool's textures between calls: a pool moved (into a
/// box, into a vector that grows and moves its items) is the same pool state and gathers
/// the same; its textures replaced after the move are seen; and its texels freed with the
/// pool are never read again (another pool of the same shape, made where it was, gives its
/// own values).
#[test]
fn a_moved_pool_gathers_the_same_and_a_dropped_one_is_never_read() {
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let make = |base| {
        let mut pool = TexturePool::new();
        pool.set_texture(0, r32(2, 2, base)).unwrap();
        pool.set_sampler(0, Sampler::default()).unwrap();
        pool
    };
    let pool = make(1);
    assert_eq!(gathered(&exec, &pool, 0.5, 0.5), [3, 4, 2, 1]);
    let boxed = Box::new(pool);
    assert_eq!(gathered(&exec, &boxed, 0.5, 0.5), [3, 4, 2, 1]);
    let mut pools = vec![*boxed];
    for k in 0..40 {
        pools.push(make(100 + k));
        assert_eq!(gathered(&exec, &pools[0], 0.5, 0.5), [3, 4, 2, 1]);
        let last = pools.last().unwrap();
        assert_eq!(
            gathered(&exec, last, 0.5, 0.5),
            [102 + k, 103 + k, 101 + k, 100 + k]
        );
    }
    pools[0].set_texture(0, r32(2, 2, 21)).unwrap();
    assert_eq!(gathered(&exec, &pools[0], 0.5, 0.5), [23, 24, 22, 21]);
    for base in [41, 61, 81] {
        pools.clear();
        pools.push(make(base));
        assert_eq!(
            gathered(&exec, &pools[0], 0.5, 0.5),
            [base + 2, base + 3, base + 1, base]
        );
    }
}
