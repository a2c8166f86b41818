//! What a GPU simulator backend does with tld4-emu, through its public API only (one
//! dependency, `tld4_emu`, whose re-exports give the decoder and the texture unit): load a
//! TLD4 from a word, list its operands, run it on the simulator's own register storage for 32
//! lanes with handle indices up to 2^20, and map every fault to a named kind. `.ci/run` also
//! builds this test with `--no-default-features` (no JSON crate).

use std::cell::RefCell;
use std::collections::BTreeSet;

use tld4_emu::decoder::{self, Location};
use tld4_emu::textures::{
    AddressMode, CompareOp, Format, Handle, Precision, Rounding, Sampler, Texture, TextureDesc,
    TextureKind, TexturePool,
};
use tld4_emu::{
    Access, ExecConfig, FaultKind, RegisterFile, Tld4Exec, WarpFault, WarpState, WARP_SIZE,
};

/// `@P1 TLD4.R.AOFFI P0, R10, R8, R20, R24, UR4, 2D`, as a cubin would hold it.
const WORD: u128 = 0x0000000008101f0a20ff041814081f63;

/// The simulator's own storage: registers [reg][lane] in one flat vector, predicates as a
/// lane mask per predicate, and a log of every access the executor makes (reads take
/// `&self`, so the logs are cells).
struct SimRegs {
    regs: Vec<u32>,
    preds: [u32; 7],
    uregs: Vec<u32>,
    active: u32,
    nregs: u16,
    /// Every (location, lane) read, and written; lane 32 for uniform registers.
    reads: RefCell<BTreeSet<(Location, usize)>>,
    writes: BTreeSet<(Location, usize)>,
    /// Calls outside the RegisterFile contract.
    violations: RefCell<Vec<String>>,
}

impl SimRegs {
    fn new(nregs: u16) -> Self {
        Self {
            regs: vec![0; nregs as usize * WARP_SIZE],
            preds: [0; 7],
            uregs: vec![0; 63],
            active: u32::MAX,
            nregs,
            reads: RefCell::default(),
            writes: BTreeSet::new(),
            violations: RefCell::default(),
        }
    }

    fn poke(&mut self, lane: usize, r: u8, v: u32) {
        self.regs[r as usize * WARP_SIZE + lane] = v;
    }

    fn peek(&self, lane: usize, r: u8) -> u32 {
        self.regs[r as usize * WARP_SIZE + lane]
    }

    /// Logs a call outside the contract: a lane that is not active, a register past the
    /// file or RZ, PT, URZ.
    fn check(&self, what: &str, lane: usize, bad_index: bool) {
        if lane >= WARP_SIZE || self.active >> lane & 1 == 0 || bad_index {
            self.violations
                .borrow_mut()
                .push(format!("{what} in lane {lane}"));
        }
    }
}

impl RegisterFile for SimRegs {
    fn reg(&self, lane: usize, r: u8) -> u32 {
        self.check(
            &format!("read R{r}"),
            lane,
            r as u16 >= self.nregs || r == 255,
        );
        self.reads.borrow_mut().insert((Location::Reg(r), lane));
        self.regs
            .get(r as usize * WARP_SIZE + lane)
            .copied()
            .unwrap_or(0)
    }
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        self.check(
            &format!("write R{r}"),
            lane,
            r as u16 >= self.nregs || r == 255,
        );
        self.writes.insert((Location::Reg(r), lane));
        if let Some(slot) = self.regs.get_mut(r as usize * WARP_SIZE + lane) {
            *slot = value;
        }
    }
    fn pred(&self, lane: usize, p: u8) -> bool {
        self.check(&format!("read P{p}"), lane, p >= 7);
        self.reads.borrow_mut().insert((Location::Pred(p), lane));
        self.preds
            .get(p as usize)
            .is_some_and(|m| m >> lane & 1 != 0)
    }
    fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        self.check(&format!("write P{p}"), lane, p >= 7);
        self.writes.insert((Location::Pred(p), lane));
        if let Some(m) = self.preds.get_mut(p as usize) {
            *m = *m & !(1 << lane) | (value as u32) << lane;
        }
    }
    fn ureg(&self, u: u8) -> u32 {
        self.check(&format!("read UR{u}"), 0, u == 255);
        self.reads
            .borrow_mut()
            .insert((Location::UReg(u), WARP_SIZE));
        self.uregs.get(u as usize).copied().unwrap_or(0)
    }
    fn active_mask(&self) -> u32 {
        self.active
    }
    fn regs_per_thread(&self) -> u16 {
        self.nregs
    }
}

/// Runs `exec` on `sim`: the lanes that executed.
fn run(exec: &Tld4Exec, sim: &mut SimRegs, pool: &TexturePool) -> Result<u32, WarpFault> {
    exec.execute(sim, pool).map(|rep| rep.executed)
}

const TEX: u32 = 1_048_575;
const SMP: u32 = 4095;

/// A 2x2 R8_UINT texture at header index 2^20 - 1 and a clamp-to-edge sampler at 4095:
/// texels (x, y) (0,0)=1, (1,0)=2, (0,1)=3, (1,1)=4.
fn pool() -> TexturePool {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Uint,
        width: 2,
        height: 2,
        layers: 1,
    };
    let mut pool = TexturePool::new();
    pool.set_texture(TEX, Texture::from_fields(desc, &[1, 2, 3, 4]).unwrap())
        .unwrap();
    pool.set_sampler(SMP, Sampler::with_address(AddressMode::ClampToEdge))
        .unwrap();
    pool
}

fn handle() -> u32 {
    Handle::new(TEX, SMP).unwrap().0
}

#[test]
fn a_word_is_loaded_listed_and_run_on_the_simulators_storage() {
    let insn = decoder::decode(WORD).unwrap();
    assert_eq!(
        insn.to_string(),
        "@P1 TLD4.R.AOFFI P0, R10, R8, R20, R24, UR4, 2D ;"
    );
    // What a scoreboard needs, before running: sources and destinations.
    let used: Vec<(Location, Access)> = insn
        .used_registers()
        .iter()
        .map(|u| (u.location, u.access))
        .collect();
    assert_eq!(
        used,
        [
            (Location::Pred(1), Access::Read),
            (Location::Reg(20), Access::CondRead),
            (Location::Reg(21), Access::CondRead),
            (Location::Reg(24), Access::CondRead),
            (Location::UReg(4), Access::CondRead),
            (Location::Reg(8), Access::CondWrite),
            (Location::Reg(9), Access::CondWrite),
            (Location::Reg(10), Access::CondWrite),
            (Location::Reg(11), Access::CondWrite),
            (Location::Pred(0), Access::CondWrite),
        ]
    );
    let s = insn.scheduling();
    assert_eq!(s.opex(), insn.opex());

    let exec = Tld4Exec::from_word(WORD, ExecConfig::default()).unwrap();
    exec.check(32).unwrap();
    let pool = pool();
    let mut sim = SimRegs::new(32);
    sim.uregs[4] = handle();
    sim.active = !(1 << 31); // lane 31 inactive
    sim.preds[1] = 0x5555_5555; // P1 holds in the even lanes
    sim.preds[0] = u32::MAX; // P0 set: executing lanes clear it (resident)
    for lane in 0..WARP_SIZE {
        sim.poke(lane, 20, 0.5f32.to_bits());
        sim.poke(lane, 21, 0.5f32.to_bits());
        // Lanes 16..31: AOFFI x = +1, which clamp-to-edge folds onto column 1.
        sim.poke(lane, 24, if lane >= 16 { 1 } else { 0 });
        for r in 8..12 {
            sim.poke(lane, r, 0xdead);
        }
    }
    let executed = run(&exec, &mut sim, &pool).unwrap();
    assert_eq!(executed, 0x5555_5555 & !(1 << 31));
    for lane in 0..WARP_SIZE {
        let got = [8, 9, 10, 11].map(|r| sim.peek(lane, r));
        let want = if executed >> lane & 1 == 0 {
            [0xdead; 4]
        } else if lane < 16 {
            // x, y, z, w = (i0,j1), (i1,j1), (i1,j0), (i0,j0) with i0 = j0 = 0.
            [3, 4, 2, 1]
        } else {
            // i0 = 1, i1 = 2 -> 1: (1,1), (1,1), (1,0), (1,0).
            [4, 4, 2, 2]
        };
        assert_eq!(got, want, "lane {lane}");
        assert_eq!(sim.preds[0] >> lane & 1 == 0, executed >> lane & 1 != 0);
    }
    assert!(sim.violations.borrow().is_empty(), "{:?}", sim.violations);
}

/// Lane-by-lane inputs that every instruction below can read: coordinates in 0..1, a small
/// layer, offsets, a depth reference, and the handle in R30 (the register-handle form).
fn fill(sim: &mut SimRegs, warp: &mut WarpState, seed: u32) {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for lane in 0..WARP_SIZE {
        for r in 0..sim.nregs as u8 {
            let v = match r {
                20 => next() % 3,
                21..=23 => ((next() % 1000) as f32 / 1000.0).to_bits(),
                24 | 25 => next() & 0x3f3f_3f3f,
                26 => 0.5f32.to_bits(),
                30 => handle(),
                _ => next(),
            };
            sim.poke(lane, r, v);
            warp.set_reg(lane, r, v);
        }
    }
    for p in 0..7 {
        sim.preds[p] = next();
        for lane in 0..WARP_SIZE {
            warp.set_pred(lane, p as u8, sim.preds[p] >> lane & 1 != 0);
        }
    }
    sim.active = next() | 1;
    warp.active_mask = sim.active;
    warp.regs_per_thread = sim.nregs;
    sim.uregs[4] = handle();
    warp.set_ureg(4, handle());
}

#[test]
fn own_storage_matches_warp_state_and_touches_only_what_is_listed() {
    let desc = |kind: TextureKind, format| TextureDesc {
        kind,
        format,
        width: 4,
        height: 4,
        layers: if kind.is_array() { 3 } else { 1 },
    };
    let cases: [(&str, TextureDesc, Sampler); 6] = [
        (
            "@P2 TLD4.G.AOFFI P1, R10, R8, R21, R24, UR4, 2D ;",
            desc(TextureKind::Tex2D, Format::Rgba8Unorm),
            Sampler::default(),
        ),
        (
            "TLD4.B.F16.RN.PTP R12, R8, R21, R24, UR4, 2D, 0xd ;",
            desc(TextureKind::Tex2D, Format::Rgba8Unorm),
            Sampler::with_address(AddressMode::Repeat),
        ),
        (
            "@!P3 TLD4.A.F16.RZ RZ, R9, R21, UR4, 2D, 0x3 ;",
            desc(TextureKind::Tex2D, Format::Rgba16Float),
            Sampler::default(),
        ),
        (
            "TLD4.R.DC P6, R14, R10, R20, R26, UR4, ARRAY_CUBE ;",
            desc(TextureKind::CubeArray, Format::D32Float),
            Sampler {
                compare: Some(CompareOp::Less),
                ..Sampler::default()
            },
        ),
        (
            "TLD4.R.B R10, R8, R21, R30, 2D, 0x5 ;",
            desc(TextureKind::Tex2D, Format::R8Uint),
            Sampler::default(),
        ),
        (
            "TLD4.G R9, R8, R20, UR4, ARRAY_2D ;",
            desc(TextureKind::Tex2DArray, Format::Rg8Uint),
            Sampler::default(),
        ),
    ];
    for (k, (text, d, sampler)) in cases.into_iter().enumerate() {
        let mut pool = TexturePool::new();
        let tex = Texture::from_fn(d, |l, x, y| [l * 16 + x * 4 + y, 9 * x + 7, y * 5, 60])
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        pool.set_texture(TEX, tex).unwrap();
        pool.set_sampler(SMP, sampler).unwrap();
        let insn = decoder::parse(text).unwrap();
        let exec = Tld4Exec::new(&insn, ExecConfig::default());
        let mut sim = SimRegs::new(40);
        let mut warp = WarpState::new();
        fill(&mut sim, &mut warp, 77 + k as u32);
        let ours = run(&exec, &mut sim, &pool).unwrap_or_else(|e| panic!("{text}: {e}"));
        let theirs = exec.execute(&mut warp, &pool).unwrap();
        assert_eq!(ours, theirs.executed, "{text}");
        assert_ne!(ours, 0, "{text}: some lane executes");
        for lane in 0..WARP_SIZE {
            for r in 0..40u8 {
                assert_eq!(
                    sim.peek(lane, r),
                    warp.reg(lane, r),
                    "{text}: lane {lane} R{r}"
                );
            }
            for p in 0..7u8 {
                assert_eq!(
                    sim.preds[p as usize] >> lane & 1 != 0,
                    warp.pred(lane, p),
                    "{text}"
                );
            }
        }
        // The static list covers every access the execution made, and every listed write
        // happened in every executing lane.
        let used = insn.used_registers();
        let listed = |loc: Location, write: bool| {
            used.iter()
                .any(|u| u.location == loc && u.access.is_write() == write)
        };
        for &(loc, lane) in sim.reads.borrow().iter() {
            assert!(
                listed(loc, false),
                "{text}: read {loc} (lane {lane}) is not listed"
            );
        }
        for &(loc, _) in &sim.writes {
            assert!(listed(loc, true), "{text}: wrote {loc}, not listed");
        }
        for u in used.iter().filter(|u| u.access.is_write()) {
            for lane in (0..WARP_SIZE).filter(|l| ours >> l & 1 != 0) {
                assert!(
                    sim.writes.contains(&(u.location, lane)),
                    "{text}: {} lane {lane}",
                    u.location
                );
            }
        }
        assert!(
            sim.violations.borrow().is_empty(),
            "{text}: {:?}",
            sim.violations
        );
    }
}

#[test]
fn every_fault_kind_is_raised_named_and_writes_nothing() {
    let pool = pool();
    let load = |text: &str, config: ExecConfig| {
        Tld4Exec::from_word(decoder::assemble(text).unwrap(), config).unwrap()
    };
    let ok = "TLD4.R R10, R8, R20, UR4, 2D ;";
    let cases: Vec<(FaultKind, Tld4Exec, u32, u16)> = vec![
        (
            FaultKind::IllegalEncoding,
            load(
                "TLD4.R R10, R8, R20, UR4, INVALID2 ;",
                ExecConfig::default(),
            ),
            handle(),
            64,
        ),
        (
            FaultKind::RegisterOutOfRange,
            load("TLD4.R R10, R8, R40, UR4, 2D ;", ExecConfig::default()),
            handle(),
            32,
        ),
        (
            FaultKind::MisalignedRegister,
            load(
                "TLD4.R R12, R9, R20, UR4, 2D ;",
                ExecConfig {
                    require_aligned_pairs: true,
                    ..ExecConfig::default()
                },
            ),
            handle(),
            64,
        ),
        (
            FaultKind::UnknownTextureHeader,
            load(ok, ExecConfig::default()),
            Handle::new(TEX - 1, SMP).unwrap().0,
            64,
        ),
        (
            FaultKind::UnknownSampler,
            load(ok, ExecConfig::default()),
            Handle::new(TEX, 7).unwrap().0,
            64,
        ),
        (
            FaultKind::InvalidConfig,
            load(
                ok,
                ExecConfig {
                    precision: Precision::Fixed {
                        fraction_bits: 21,
                        rounding: Rounding::NearestEven,
                    },
                    ..ExecConfig::default()
                },
            ),
            handle(),
            64,
        ),
        (
            FaultKind::NotModeled,
            load("TLD4.R R10, R8, R20, UR4, CUBE ;", ExecConfig::default()),
            handle(),
            64,
        ),
    ];
    let mut seen = BTreeSet::new();
    for (want, exec, h, nregs) in cases {
        let mut sim = SimRegs::new(nregs);
        for lane in 0..WARP_SIZE {
            sim.poke(lane, 20, 0.5f32.to_bits());
            sim.poke(lane, 21, 0.5f32.to_bits());
        }
        sim.uregs[4] = h;
        let before = sim.regs.clone();
        let fault = run(&exec, &mut sim, &pool).unwrap_err();
        let kind = fault.kind();
        assert_eq!(kind, want, "{fault}");
        assert_eq!(kind.name().parse::<FaultKind>(), Ok(kind));
        assert_eq!(sim.regs, before, "{}: a fault writes nothing", kind.name());
        assert!(sim.writes.is_empty(), "{}", kind.name());
        // Faults found without a lane are what `check` reports at load time.
        let static_kinds = [
            FaultKind::IllegalEncoding,
            FaultKind::RegisterOutOfRange,
            FaultKind::MisalignedRegister,
            FaultKind::InvalidConfig,
        ];
        assert_eq!(
            exec.check(nregs).err().map(|f| f.kind()),
            static_kinds.contains(&kind).then_some(kind),
            "{}",
            kind.name()
        );
        if matches!(
            kind,
            FaultKind::UnknownTextureHeader | FaultKind::UnknownSampler
        ) {
            assert_eq!(fault.lane(), Some(0));
        }
        seen.insert(kind.name());
    }
    // Every kind but one: `invalid_texture` has no trigger through today's public API
    // (texture storage is standardized on construction, and the component comes from a
    // 2-bit field), so it is checked to exist and to be named, not raised.
    let all: BTreeSet<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
    let missing: Vec<&str> = all.difference(&seen).copied().collect();
    assert_eq!(missing, ["invalid_texture"]);
    assert_eq!(
        FaultKind::from_name("invalid_texture"),
        Some(FaultKind::InvalidTexture)
    );
}

#[test]
fn a_refused_word_is_a_decode_error_and_an_invalid_field_faults_at_execution() {
    // Bit 91 clear: nvdisasm refuses the word, so `decode` does.
    let refused = WORD & !(1u128 << 91);
    assert!(matches!(
        Tld4Exec::from_word(refused, ExecConfig::default()),
        Err(decoder::DecodeError::Bit91Clear)
    ));
    // Dimension INVALID2 (bits 63:61 = 2): nvdisasm prints it, so it decodes, and faults.
    let invalid = decoder::field::dimension.set(WORD, 2);
    let exec = Tld4Exec::from_word(invalid, ExecConfig::default()).unwrap();
    assert_eq!(
        exec.check(255).unwrap_err().kind(),
        FaultKind::IllegalEncoding
    );
}
