//! The constant-bank TLD4 (SM75 to SM90a, form 0xb63) executed with the embedder's constant
//! memory, checked against the same gather through the register-handle forms (SM100's 0xd64
//! and SM90's 0x364, the handle in Rb): the results are whatever the base executor computes
//! for the same handle, never written down here.

use tld4_emu::decoder::{parse_arch, Arch};
use tld4_emu::textures::{Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool};
use tld4_emu::{
    ArchExec, ArchExecError, ConstantBanks, ExecConfig, FaultKind, NoConstants, WarpState,
    WARP_SIZE,
};

const HEADER: u32 = 7;
const SAMPLER: u32 = 3;

fn pool() -> TexturePool {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Uint,
        width: 4,
        height: 4,
        layers: 1,
    };
    let texels: Vec<u32> = (0..16).map(|i| i * 13 + 1).collect();
    let mut pool = TexturePool::new();
    pool.set_texture(HEADER, Texture::from_fields(desc, &texels).unwrap())
        .unwrap();
    pool.set_sampler(SAMPLER, Sampler::default()).unwrap();
    pool
}

fn handle() -> u32 {
    Handle::new(HEADER, SAMPLER).unwrap().0
}

/// Coordinates in R4, R5 of every lane; the handle in R6 (for the register forms).
fn warp() -> WarpState {
    let mut w = WarpState::new();
    for lane in 0..WARP_SIZE {
        w.set_reg_f32(lane, 4, (lane as f32 * 0.37) % 1.0);
        w.set_reg_f32(lane, 5, (lane as f32 * 0.61) % 1.0);
        w.set_reg(lane, 6, handle());
        for r in 8..12 {
            w.set_reg(lane, r, 0xdead_beef);
        }
    }
    w
}

fn constants() -> ConstantBanks {
    let mut c = ConstantBanks::new();
    let mut bank = vec![0u8; 0x80];
    bank[0x40..0x44].copy_from_slice(&handle().to_le_bytes());
    c.set_bank(3, bank);
    c
}

fn exec(arch: Arch, text: &str) -> ArchExec {
    ArchExec::new(&parse_arch(arch, text).unwrap(), ExecConfig::default())
}

fn results(w: &WarpState) -> Vec<[u32; 4]> {
    (0..WARP_SIZE)
        .map(|l| [w.reg(l, 8), w.reg(l, 9), w.reg(l, 10), w.reg(l, 11)])
        .collect()
}

#[test]
fn the_constant_bank_form_gathers_as_the_register_handle_forms() {
    let pool = pool();
    // c[0x3][4 * 0x10] = c[3][0x40] holds the handle.
    let b63 = exec(Arch::Sm90, "TLD4.R R10, R8, R4, 0x3, 0x10, 2D ;");
    assert_eq!(b63.insn().opcode, 0xb63);
    let mut a = warp();
    let report = b63.execute(&mut a, &constants(), &pool).unwrap();
    assert_eq!(report.executed, u32::MAX);

    let d64 = exec(Arch::Sm100, "TLD4.R.B R10, R8, R4, R6, 2D ;");
    let mut b = warp();
    d64.execute(&mut b, &NoConstants, &pool).unwrap();
    let x364 = exec(Arch::Sm90, "TLD4.R.B R10, R8, R4, R6, 2D ;");
    assert_eq!(x364.insn().opcode, 0x364);
    let mut c = warp();
    x364.execute(&mut c, &NoConstants, &pool).unwrap();

    assert_eq!(results(&a), results(&b));
    assert_eq!(results(&c), results(&b));
    // The gather wrote something other than the registers' old values.
    assert_ne!(results(&a), results(&warp()));
}

#[test]
fn a_missing_constant_is_a_typed_fault_and_writes_nothing() {
    let pool = pool();
    let b63 = exec(Arch::Sm80, "TLD4.G R10, R8, R4, 0x3, 0x10, 2D ;");
    let before = results(&warp());
    for (constants, what) in [
        (ConstantBanks::new(), "no bank"),
        (
            {
                let mut c = ConstantBanks::new();
                c.set_bank(3, vec![0; 0x42]);
                c
            },
            "bank too short",
        ),
    ] {
        let mut w = warp();
        let err = b63.execute(&mut w, &constants, &pool).unwrap_err();
        assert_eq!(
            err,
            ArchExecError::NoConstant {
                bank: 3,
                offset: 0x40
            },
            "{what}"
        );
        assert_eq!(err.kind_name(), "no_constant");
        assert_eq!(results(&w), before, "{what}");
    }
    let mut w = warp();
    assert!(matches!(
        b63.execute(&mut w, &NoConstants, &pool),
        Err(ArchExecError::NoConstant { .. })
    ));
    // No lane executes: nothing is read, nothing faults.
    let mut idle = warp();
    idle.active_mask = 0;
    assert_eq!(
        b63.execute(&mut idle, &NoConstants, &pool)
            .unwrap()
            .executed,
        0
    );
}

#[test]
fn static_faults_win_and_unknown_handle_sources_are_not_modeled() {
    let pool = pool();
    // Ra = RZ (`???255`) is an illegal encoding, found before any constant is read.
    let bad = exec(Arch::Sm90, "TLD4.G R10, R8, ???255, 0x3, 0x10, 2D ;");
    let err = bad.execute(&mut warp(), &NoConstants, &pool).unwrap_err();
    assert_eq!(err.kind_name(), FaultKind::IllegalEncoding.name());
    // 0xb65's immediates, `.B` on 0xb63 and `.???0`: valid, not modeled.
    for (arch, text) in [
        (Arch::Sm90, "TLD4.G.B R10, R8, R4, R6, 0x3, 0x4, 0xfc, 2D ;"),
        (Arch::Sm90, "TLD4.G.B R10, R8, R4, R6, 0x3, 0x10, 2D ;"),
        (Arch::Sm90, "TLD4.G.???0 R10, R8, R4, R6, 2D ;"),
    ] {
        let e = exec(arch, text);
        let err = e.execute(&mut warp(), &constants(), &pool).unwrap_err();
        assert_eq!(err.kind_name(), FaultKind::NotModeled.name(), "{text}");
    }
    // A wrong handle in the constant is the base executor's fault, unchanged.
    let mut c = ConstantBanks::new();
    let mut bank = vec![0u8; 0x44];
    bank[0x40..].copy_from_slice(&Handle::new(99, SAMPLER).unwrap().0.to_le_bytes());
    c.set_bank(3, bank);
    let b63 = exec(Arch::Sm90, "TLD4.G R10, R8, R4, 0x3, 0x10, 2D ;");
    let err = b63.execute(&mut warp(), &c, &pool).unwrap_err();
    assert_eq!(err.kind_name(), FaultKind::UnknownTextureHeader.name());
}

/// One rule for every unknown (docs/sources.md, Decisions): a valid word whose form or field
/// value has no known effect is a typed not-modeled fault naming the field and its value,
/// never executed as if the field were absent, never an illegal encoding. Each case beside
/// the same instruction without the unknown, which executes.
#[test]
fn every_unknown_form_or_field_value_is_not_modeled_with_its_field_and_value() {
    use tld4_emu::{NotModeledReason, WarpFault};
    let pool = pool();
    let mut w = warp();
    w.set_ureg(4, handle());
    let cases: [(Arch, &str, &str, &str, u32); 7] = [
        // SM120's `.UAI` and its second uniform register.
        (
            Arch::Sm120,
            "TLD4.G.AOFFI.UAI R10, R8, R4, R6, UR4, 2D ;",
            "TLD4.G.AOFFI R10, R8, R4, R6, UR4, 2D ;",
            "uai",
            1,
        ),
        (
            Arch::Sm120,
            "TLD4.G R10, R8, R4, UR4, UR6, 2D ;",
            "TLD4.G R10, R8, R4, UR4, 2D ;",
            "ur2",
            6,
        ),
        // SM120's offset value 3, printed `UAOFFI`: valid there, not an illegal encoding.
        (
            Arch::Sm120,
            "TLD4.G.UAOFFI R10, R8, R4, R6, UR4, 2D ;",
            "TLD4.G.AOFFI R10, R8, R4, R6, UR4, 2D ;",
            "offset_mode",
            3,
        ),
        // 0xf63's immediate after URc on SM75 to SM90 (ptxas writes 0).
        (
            Arch::Sm90,
            "TLD4.G R10, R8, R4, UR4, 0xfc, 2D ;",
            "TLD4.G R10, R8, R4, UR4, 0x0, 2D ;",
            "imm8",
            0xfc,
        ),
        (
            Arch::Sm75,
            "TLD4.G R10, R8, R4, UR4, 0x1, 2D ;",
            "TLD4.G R10, R8, R4, UR4, 0x0, 2D ;",
            "imm8",
            1,
        ),
        // The unknowns typed before: `.???0`, 0xb63 with `.B`, 0xb65.
        (
            Arch::Sm90,
            "TLD4.G.???0 R10, R8, R4, R6, 2D ;",
            "TLD4.G.B R10, R8, R4, R6, 2D ;",
            "b_flag",
            0,
        ),
        (
            Arch::Sm90,
            "TLD4.G.B R10, R8, R4, R6, 0x3, 0x10, 2D ;",
            "TLD4.G R10, R8, R4, 0x3, 0x10, 2D ;",
            "b_flag",
            1,
        ),
    ];
    for (arch, text, modeled, want_field, want_value) in cases {
        let err = exec(arch, text)
            .execute(&mut w.clone(), &constants(), &pool)
            .unwrap_err();
        assert_eq!(err.kind_name(), FaultKind::NotModeled.name(), "{text}");
        match err {
            ArchExecError::Fault(WarpFault::NotModeled {
                reason: NotModeledReason::Form { field, value, .. },
                ..
            }) => assert_eq!((field, value), (want_field, want_value), "{text}"),
            other => panic!("{text}: {other:?}"),
        }
        let ok = exec(arch, modeled).execute(&mut w.clone(), &constants(), &pool);
        assert!(ok.is_ok(), "{modeled}: {ok:?}");
    }
    let err = exec(Arch::Sm90, "TLD4.G.B R10, R8, R4, R6, 0x3, 0x4, 0xfc, 2D ;")
        .execute(&mut w, &constants(), &pool)
        .unwrap_err();
    assert!(err.to_string().contains("form = 0xb65"), "{err}");
}
