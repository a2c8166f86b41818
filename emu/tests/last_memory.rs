//! `Tld4Exec::execute_memory` keeps, per thread, the textures it prepared, keyed by the
//! descriptors' 64 bytes as each call reads them, the GPU class and the executor: a
//! descriptor changed at the same address, texels changed between calls, another memory
//! with the same descriptors, another class or executor, other threads, and a call made from
//! a memory's read while another runs on the thread each get what a binding made afresh for
//! the call gives (registers, report or error, texel addresses).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tld4_emu::decoder;
use tld4_emu::gpu_memory::{
    pool_image, ClassDescriptors, FlatMemory, GpuClass, LayoutChoice, Memory, MemoryError,
    MemoryPool,
};
use tld4_emu::textures::{AddressMode, Format, Sampler, Texture, TextureDesc, TextureKind};
use tld4_emu::{ExecConfig, LaneTexels, Tld4Exec, WarpState, WARP_SIZE};

const BASE: u64 = 0x2_0000_0000;

fn exec(text: &str) -> Tld4Exec {
    Tld4Exec::from_word(decoder::assemble(text).unwrap(), ExecConfig::default()).unwrap()
}

fn rgba8(width: u32, height: u32, seed: u32) -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width,
        height,
        layers: 1,
    };
    Texture::from_fn(desc, |_, x, y| {
        [0, 1, 2, 3].map(|c| (x * 7 + y * 13 + c * 5 + seed).wrapping_mul(2_654_435_761) >> 24)
    })
    .unwrap()
}

/// A flat memory holding `textures` (header and sampler k for texture k), and its pools.
fn memory(textures: &[(&Texture, &Sampler)]) -> (FlatMemory, u64, u64) {
    let layout = LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: 1,
    };
    let parts: Vec<_> = textures.iter().map(|&(t, s)| (t, s, layout)).collect();
    let image = pool_image(&parts, BASE).unwrap();
    (
        image.memory.to_flat(),
        image.header_pool,
        image.sampler_pool,
    )
}

/// A warp at random coordinates, handle `handle` in UR4.
fn warp(rng: &mut StdRng, handle: u32) -> WarpState {
    let mut w = WarpState::new();
    w.set_ureg(4, handle);
    for lane in 0..WARP_SIZE {
        w.set_reg_f32(lane, 20, rng.gen_range(-0.2..1.2));
        w.set_reg_f32(lane, 21, rng.gen_range(-0.2..1.2));
    }
    w
}

/// Executes `w` one-shot and through a binding made for it; both must agree (registers,
/// report or error, texel addresses). Returns lane 0's R8..R11 (0s on an error).
fn agree(exec: &Tld4Exec, pool: &MemoryPool<'_>, w: &WarpState) -> [u32; 4] {
    let (mut a, mut b) = (w.clone(), w.clone());
    let (mut ta, mut tb) = (
        [LaneTexels::default(); WARP_SIZE],
        [LaneTexels::default(); WARP_SIZE],
    );
    let one_shot = exec.execute_memory(&mut a, pool, Some(&mut ta));
    let bound = exec
        .bind_memory(*pool)
        .execute_with_texels(&mut b, Some(&mut tb));
    assert_eq!(one_shot, bound);
    assert_eq!(a, b);
    if one_shot.is_ok() {
        assert_eq!(ta, tb);
    }
    // and without addresses
    let mut c = w.clone();
    assert_eq!(exec.execute_memory(&mut c, pool, None), bound);
    assert_eq!(c, b);
    [8, 9, 10, 11].map(|r| a.reg(0, r))
}

/// Byte offset of header (or sampler) `index`'s word `word` in `m`.
fn at(m: &FlatMemory, pool: u64, index: u64, word: u64) -> usize {
    (pool + 32 * index + 4 * word - m.base) as usize
}

#[test]
fn a_descriptor_changed_at_the_same_address_is_seen() {
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let (t0, t1) = (rgba8(16, 16, 1), rgba8(32, 8, 2));
    let clamp = Sampler::default();
    let wrap = Sampler {
        address_u: AddressMode::Repeat,
        address_v: AddressMode::Repeat,
        ..Sampler::default()
    };
    let (mut m, hp, sp) = memory(&[(&t0, &clamp), (&t1, &wrap)]);
    let mut rng = StdRng::seed_from_u64(43);
    let w = warp(&mut rng, 0);
    let before = agree(&exec, &MemoryPool::new(&m, hp, sp), &w);
    assert_eq!(agree(&exec, &MemoryPool::new(&m, hp, sp), &w), before);
    // header 0 now describes texture 1 (its words copied over): another texture, same address
    let (h0, h1) = (at(&m, hp, 0, 0), at(&m, hp, 1, 0));
    m.bytes.copy_within(h1..h1 + 32, h0);
    let other = agree(&exec, &MemoryPool::new(&m, hp, sp), &w);
    assert_ne!(other, before);
    // sampler 0 now wraps (sampler 1's words copied over), then clamps again
    let (s0, s1) = (at(&m, sp, 0, 0), at(&m, sp, 1, 0));
    let clamp_words = m.bytes[s0..s0 + 32].to_vec();
    let mut edge = w.clone();
    for lane in 0..WARP_SIZE {
        edge.set_reg_f32(lane, 20, -0.01);
    }
    let clamped = agree(&exec, &MemoryPool::new(&m, hp, sp), &edge);
    m.bytes.copy_within(s1..s1 + 32, s0);
    let wrapped = agree(&exec, &MemoryPool::new(&m, hp, sp), &edge);
    assert_ne!(clamped, wrapped, "clamp and wrap differ at s = -0.01");
    m.bytes[s0..s0 + 32].copy_from_slice(&clamp_words);
    assert_eq!(agree(&exec, &MemoryPool::new(&m, hp, sp), &edge), clamped);
    // an illegal header at the same address is the error a binding raises, then fixed
    let ver = at(&m, hp, 0, 3);
    let saved = m.bytes[ver + 3];
    m.bytes[ver + 3] = 0x70; // HEADER_VERSION 7: no such version
    let mut e = w.clone();
    assert!(exec
        .execute_memory(&mut e, &MemoryPool::new(&m, hp, sp), None)
        .is_err());
    agree(&exec, &MemoryPool::new(&m, hp, sp), &w);
    m.bytes[ver + 3] = saved;
    assert_eq!(agree(&exec, &MemoryPool::new(&m, hp, sp), &w), other);
}

#[test]
fn texels_changed_between_calls_are_read_fresh() {
    let exec = exec("TLD4.G R10, R8, R20, UR4, 2D ;");
    let t = rgba8(16, 16, 3);
    let s = Sampler::default();
    let (mut m, hp, sp) = memory(&[(&t, &s)]);
    let mut rng = StdRng::seed_from_u64(7);
    let w = warp(&mut rng, 0);
    let before = agree(&exec, &MemoryPool::new(&m, hp, sp), &w);
    // every texel byte changed (from the header's address on)
    let header = MemoryPool::new(&m, hp, sp).header_words(0).unwrap();
    let address = ClassDescriptors::default()
        .decode_tic(&header)
        .unwrap()
        .address;
    let texels_from = (address - m.base) as usize;
    for b in &mut m.bytes[texels_from..] {
        *b = b.wrapping_add(1);
    }
    let after = agree(&exec, &MemoryPool::new(&m, hp, sp), &w);
    assert_ne!(before, after);
}

#[test]
fn memories_with_the_same_descriptors_are_not_confused() {
    let exec = exec("TLD4.B R10, R8, R20, UR4, 2D ;");
    let s = Sampler::default();
    let (t1, t2) = (rgba8(16, 16, 4), rgba8(16, 16, 5));
    let (m1, hp, sp) = memory(&[(&t1, &s)]);
    let (m2, hp2, sp2) = memory(&[(&t2, &s)]);
    assert_eq!((hp, sp), (hp2, sp2));
    assert_eq!(m1.bytes[..4096], m2.bytes[..4096], "the same descriptors");
    // a memory that hands out no view (texel by texel) with the first's bytes
    struct NoView(FlatMemory);
    impl Memory for NoView {
        fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
            self.0.read(addr, buf)
        }
    }
    let m3 = NoView(FlatMemory::new(m1.base, m1.bytes.clone()));
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..20 {
        let w = warp(&mut rng, 0);
        let a = agree(&exec, &MemoryPool::new(&m1, hp, sp), &w);
        let b = agree(&exec, &MemoryPool::new(&m2, hp, sp), &w);
        let c = agree(&exec, &MemoryPool::new(&m3, hp, sp), &w);
        assert_eq!(a, c);
        let _ = b;
    }
    // the two textures differ where the warp reads
    let w = warp(&mut rng, 0);
    let lanes = |m: &FlatMemory| {
        let mut x = w.clone();
        exec.execute_memory(&mut x, &MemoryPool::new(m, hp, sp), None)
            .unwrap();
        (0..WARP_SIZE).map(|l| x.reg(l, 8)).collect::<Vec<_>>()
    };
    assert_ne!(lanes(&m1), lanes(&m2));
}

#[test]
fn classes_and_executors_each_get_their_own() {
    let t = rgba8(16, 16, 6);
    let s = Sampler::default();
    let (m, hp, sp) = memory(&[(&t, &s)]);
    let execs = [
        exec("TLD4.R R10, R8, R20, UR4, 2D ;"),
        exec("TLD4.A R10, R8, R20, UR4, 2D ;"),
    ];
    let turing = ClassDescriptors::new(GpuClass::TuringA);
    let mut rng = StdRng::seed_from_u64(5);
    for _ in 0..5 {
        let w = warp(&mut rng, 0);
        let v2 = MemoryPool::new(&m, hp, sp);
        // the same words read as a V1 class: another header (here one that does not decode
        // as this texture), never the V2 one kept
        let v1 = v2.with_descriptors(turing);
        let r = agree(&execs[0], &v2, &w);
        let a = agree(&execs[1], &v2, &w);
        assert_ne!(r, a, "R and A components differ");
        agree(&execs[0], &v1, &w);
        agree(&execs[1], &v1, &w);
        assert_eq!(agree(&execs[0], &v2, &w), r);
    }
    // a texture written as a V1 class writes it, read by that class: agrees too
    let v1_words = turing
        .encode_tic(
            &turing
                .decode_tic(
                    &turing
                        .encode_tic(
                            &ClassDescriptors::default()
                                .decode_tic(&MemoryPool::new(&m, hp, sp).header_words(0).unwrap())
                                .unwrap(),
                        )
                        .unwrap(),
                )
                .unwrap(),
        )
        .unwrap();
    let mut m1 = FlatMemory::new(m.base, m.bytes.clone());
    let h0 = at(&m1, hp, 0, 0);
    for (k, word) in v1_words.iter().enumerate() {
        m1.bytes[h0 + 4 * k..h0 + 4 * k + 4].copy_from_slice(&word.to_le_bytes());
    }
    let w = warp(&mut rng, 0);
    let v2 = agree(&execs[0], &MemoryPool::new(&m, hp, sp), &w);
    let v1 = agree(
        &execs[0],
        &MemoryPool::new(&m1, hp, sp).with_descriptors(turing),
        &w,
    );
    assert_eq!(v1, v2, "the same texture in either layout");
}

#[test]
fn threads_keep_their_own() {
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let s = Sampler::default();
    std::thread::scope(|scope| {
        for seed in 0..4u32 {
            let exec = &exec;
            let s = &s;
            scope.spawn(move || {
                // each thread its own texture, at the same addresses as the others'
                let t = rgba8(16, 16, 10 + seed);
                let (m, hp, sp) = memory(&[(&t, s)]);
                let mut rng = StdRng::seed_from_u64(seed as u64);
                for _ in 0..50 {
                    agree(exec, &MemoryPool::new(&m, hp, sp), &warp(&mut rng, 0));
                }
            });
        }
    });
}

/// A memory whose reads execute another warp one-shot on the same thread (as a simulator's
/// memory callback may): the inner call finds the thread's state in use and binds afresh
/// for itself, and both calls give what bindings made for them give.
#[test]
fn a_call_made_while_one_is_running_on_the_thread_binds_afresh() {
    use std::cell::{Cell, RefCell};
    let exec = exec("TLD4.G R10, R8, R20, UR4, 2D ;");
    let (t0, t1) = (rgba8(16, 16, 7), rgba8(32, 8, 8));
    let s = Sampler::default();
    let (m, hp, sp) = memory(&[(&t0, &s), (&t1, &s)]);
    let mut rng = StdRng::seed_from_u64(17);
    let inner_warp = warp(&mut rng, (1 << 20) | 1); // header 1, sampler 1
    /// Reads `m`; the first read of each outer call executes `inner` (handle 1) over `m`.
    struct Nested<'a> {
        m: &'a FlatMemory,
        pools: (u64, u64),
        exec: &'a Tld4Exec,
        inner: &'a WarpState,
        pending: Cell<bool>,
        done: RefCell<Vec<WarpState>>,
    }
    impl Memory for Nested<'_> {
        fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
            if self.pending.replace(false) {
                let mut w = self.inner.clone();
                let pool = MemoryPool::new(self.m, self.pools.0, self.pools.1);
                let report = self.exec.execute_memory(&mut w, &pool, None);
                assert_eq!(report.map(|r| r.executed), Ok(u32::MAX));
                self.done.borrow_mut().push(w);
            }
            self.m.read(addr, buf)
        }
    }
    let nested = Nested {
        m: &m,
        pools: (hp, sp),
        exec: &exec,
        inner: &inner_warp,
        pending: Cell::new(false),
        done: RefCell::new(Vec::new()),
    };
    let mut expected_inner = inner_warp.clone();
    exec.bind_memory(MemoryPool::new(&m, hp, sp))
        .execute(&mut expected_inner)
        .unwrap();
    for _ in 0..3 {
        let w = warp(&mut rng, 0);
        nested.pending.set(true);
        let mut outer = w.clone();
        let report = exec.execute_memory(&mut outer, &MemoryPool::new(&nested, hp, sp), None);
        let mut expected = w.clone();
        let bound = exec
            .bind_memory(MemoryPool::new(&m, hp, sp))
            .execute(&mut expected);
        assert_eq!(report, bound);
        assert_eq!(outer, expected);
        assert!(!nested.pending.get(), "the outer call read its memory");
    }
    let done = nested.done.into_inner();
    assert_eq!(done.len(), 3);
    for w in &done {
        assert_eq!(w, &expected_inner);
    }
    assert_ne!(
        expected_inner.reg(0, 8),
        0,
        "the inner warp gathered texture 1"
    );
}

/// A one-shot call over a read callback made for one warp reads a texture over 128 KiB by the
/// sectors its lanes' texels lie in: the registers and report of a binding over flat memory;
/// and where one texel's sector cannot be read, the error (lane, address) and registers of a
/// binding that reads texel by texel.
#[test]
fn a_large_texture_read_by_its_sectors_gives_what_a_binding_gives() {
    use std::cell::RefCell;
    use tld4_emu::gpu_memory::{CallbackMemory, ONE_WARP_MAX_VIEW};
    use tld4_emu::textures::TexelAddress;
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let t = rgba8(256, 256, 5);
    let s = Sampler::default();
    let (m, hp, sp) = memory(&[(&t, &s)]);
    let texture_bytes = 256 * 256 * 4;
    assert!(texture_bytes > ONE_WARP_MAX_VIEW);
    let mut rng = StdRng::seed_from_u64(11);
    for round in 0..6 {
        let w = warp(&mut rng, 0);
        let mut want = w.clone();
        let mut texels = [LaneTexels::default(); WARP_SIZE];
        let flat_pool = MemoryPool::new(&m, hp, sp);
        let bound = exec
            .bind_memory(flat_pool)
            .execute_with_texels(&mut want, Some(&mut texels));
        assert!(bound.is_ok());
        // in the odd rounds, lane 3's first texel cannot be read
        let refused = (round % 2 == 1).then(|| match texels[3].texels[0] {
            TexelAddress::Texel { address, .. } => address,
            other => panic!("lane 3 reads its first texel: {other:?}"),
        });
        let calls = RefCell::new(Vec::new());
        let read = |addr: u64, dst: &mut [u8]| {
            calls.borrow_mut().push(dst.len() as u64);
            let refuse = refused.is_some_and(|r| addr <= r && r < addr + dst.len() as u64);
            !refuse && m.read(addr, dst).is_ok()
        };
        let one_warp = CallbackMemory::for_one_warp(&read);
        let mut got = w.clone();
        let one_shot = exec.execute_memory(&mut got, &MemoryPool::new(&one_warp, hp, sp), None);
        assert!(
            calls.borrow().iter().all(|&len| len < texture_bytes),
            "the texture asked for whole"
        );
        match refused {
            None => {
                assert_eq!(one_shot, bound);
                assert_eq!(got, want);
            }
            Some(_) => {
                let kept = CallbackMemory::new(&read);
                let mut by_texel = w.clone();
                let bound = exec
                    .bind_memory(MemoryPool::new(&kept, hp, sp))
                    .execute(&mut by_texel);
                assert!(bound.is_err());
                assert_eq!(one_shot, bound);
                assert_eq!(got, by_texel);
            }
        }
    }
}

/// A texture between the two limits of a read callback made for one warp (over 16 KiB, at
/// most 128 KiB): a one-shot call that records no texel addresses reads it by the sectors
/// its lanes' texels lie in, never asking for it whole; one that records them asks for it
/// whole, once; both give the registers, report and addresses a binding over flat memory
/// gives.
#[test]
fn a_mid_sized_texture_is_read_by_sectors_unless_the_call_records_addresses() {
    use std::cell::RefCell;
    use tld4_emu::gpu_memory::{CallbackMemory, ONE_WARP_MAX_VIEW, ONE_WARP_VIEW_OVER_SECTORS};
    let exec = exec("TLD4.R R10, R8, R20, UR4, 2D ;");
    let t = rgba8(128, 128, 9);
    let s = Sampler::default();
    let (m, hp, sp) = memory(&[(&t, &s)]);
    let texture_bytes = 128 * 128 * 4;
    assert!(ONE_WARP_VIEW_OVER_SECTORS < texture_bytes && texture_bytes <= ONE_WARP_MAX_VIEW);
    let calls = RefCell::new(Vec::new());
    let read = |addr: u64, dst: &mut [u8]| {
        calls.borrow_mut().push(dst.len() as u64);
        m.read(addr, dst).is_ok()
    };
    let whole = |calls: &RefCell<Vec<u64>>| {
        let n = calls
            .borrow()
            .iter()
            .filter(|&&len| len >= texture_bytes)
            .count();
        calls.borrow_mut().clear();
        n
    };
    let mut rng = StdRng::seed_from_u64(12);
    for _ in 0..4 {
        let w = warp(&mut rng, 0);
        let mut want = w.clone();
        let mut want_texels = [LaneTexels::default(); WARP_SIZE];
        let bound = exec
            .bind_memory(MemoryPool::new(&m, hp, sp))
            .execute_with_texels(&mut want, Some(&mut want_texels));
        assert!(bound.is_ok());
        // no addresses: by sectors
        let mut got = w.clone();
        let one_warp = CallbackMemory::for_one_warp(&read);
        let one_shot = exec.execute_memory(&mut got, &MemoryPool::new(&one_warp, hp, sp), None);
        assert_eq!((one_shot, &got), (bound.clone(), &want));
        assert!(
            calls.borrow().len() > 3,
            "more calls than the descriptors and one texture"
        );
        assert_eq!(whole(&calls), 0, "the texture asked for whole");
        // addresses: whole, once
        let mut got = w.clone();
        let mut texels = [LaneTexels::default(); WARP_SIZE];
        let one_warp = CallbackMemory::for_one_warp(&read);
        let pool = MemoryPool::new(&one_warp, hp, sp);
        let one_shot = exec.execute_memory(&mut got, &pool, Some(&mut texels));
        assert_eq!((one_shot, &got), (bound, &want));
        assert_eq!(texels, want_texels);
        assert_eq!(whole(&calls), 1, "the texture asked for whole once");
    }
}
