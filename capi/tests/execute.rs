//! Execution through the C ABI (flat arrays in both layouts, callbacks) equals tld4-emu's
//! own on the same warps; faults name their kind and lane and write nothing.

use crate::common;

use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

use common::{cstr, exec_of, insn_of, warp32};
use tld4_capi::*;
use tld4_emu::decoder;
use tld4_emu::textures::{AddressMode, CompareOp};
use tld4_emu::{ExecConfig, Sampler, Texture, TextureDesc, TexturePool, WarpState};

use tld4_status::*;

/// A small deterministic generator (xorshift), so the test needs no seed file.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn unit(&mut self) -> f32 {
        (self.next() % 4096) as f32 / 4096.0 * 1.5 - 0.25
    }
}

/// A pool built twice, once through the C ABI and once directly; returns both.
fn pools() -> (*mut tld4_pool, TexturePool) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let specs: [(u32, &str, u32, u32, u32); 4] = [
        (0, "rgba8_unorm", 5, 3, 1),
        (1, "r16_float", 4, 4, 3),
        (3, "d32_float", 4, 4, 2),
        (0, "rg8_uint", 2, 2, 1),
    ];
    let kinds = [
        tld4_emu::TextureKind::Tex2D,
        tld4_emu::TextureKind::Tex2DArray,
        tld4_emu::TextureKind::Cube,
        tld4_emu::TextureKind::CubeArray,
    ];
    let mut cpool = null_mut();
    unsafe { assert_eq!(tld4_pool_new(&mut cpool, null_mut()), TLD4_OK) };
    let mut rpool = TexturePool::new();
    for (i, &(kind, format, w, h, layers)) in specs.iter().enumerate() {
        let f = tld4_emu::Format::ALL
            .iter()
            .copied()
            .find(|f| f.name() == format)
            .unwrap();
        let desc = TextureDesc {
            kind: kinds[kind as usize],
            format: f,
            width: w,
            height: h,
            layers,
        };
        let n = desc.storage_layers() * (w * h) as usize * f.fields();
        let fields: Vec<u32> = (0..n)
            .map(|_| match format {
                "rgba8_unorm" | "rg8_uint" => rng.next() & 0xff,
                "r16_float" => half::f16::from_f32(rng.unit()).to_bits() as u32,
                _ => rng.unit().to_bits(),
            })
            .collect();
        rpool
            .set_texture(i as u32, Texture::from_fields(desc, &fields).unwrap())
            .unwrap();
        let name = cstr(format);
        let cdesc = tld4_texture_desc {
            kind,
            format: name.as_ptr(),
            width: w,
            height: h,
            layers,
        };
        let mut e = tld4_error::new();
        unsafe {
            assert_eq!(
                tld4_pool_set_texture(
                    cpool,
                    i as u32,
                    &cdesc,
                    fields.as_ptr(),
                    fields.len(),
                    &mut e
                ),
                TLD4_OK,
                "{}",
                e.message()
            )
        };
    }
    let samplers = [
        Sampler::with_address(AddressMode::Repeat),
        Sampler {
            compare: Some(CompareOp::LessOrEqual),
            ..Sampler::with_address(AddressMode::ClampToBorder)
        },
        Sampler {
            border: tld4_emu::textures::BorderColor::from_f32([0.25, 0.5, 0.75, 1.0]),
            ..Sampler::with_address(AddressMode::ClampToBorder)
        },
    ];
    for (i, s) in samplers.iter().enumerate() {
        rpool.set_sampler(i as u32, *s).unwrap();
        let c = tld4_sampler_desc {
            address_u: s.address_u as u32,
            address_v: s.address_v as u32,
            border: s.border.words,
            compare_enable: s.compare.is_some(),
            compare_op: s.compare.map_or(0, |c| c as u32),
            seamless_cube: s.seamless_cube,
            normalized_coords: s.normalized_coords,
        };
        unsafe {
            assert_eq!(
                tld4_pool_set_sampler(cpool, i as u32, &c, null_mut()),
                TLD4_OK
            )
        };
    }
    (cpool, rpool)
}

/// Callbacks over a `WarpState`, as a C++ simulator would write them.
unsafe extern "C" fn cb_reg(user: *mut c_void, lane: u32, r: u32) -> u32 {
    unsafe { &*(user as *const WarpState) }.reg(lane as usize, r as u8)
}
unsafe extern "C" fn cb_set_reg(user: *mut c_void, lane: u32, r: u32, v: u32) {
    unsafe { &mut *(user as *mut WarpState) }.set_reg(lane as usize, r as u8, v)
}
unsafe extern "C" fn cb_pred(user: *mut c_void, lane: u32, p: u32) -> bool {
    unsafe { &*(user as *const WarpState) }.pred(lane as usize, p as u8)
}
unsafe extern "C" fn cb_set_pred(user: *mut c_void, lane: u32, p: u32, v: bool) {
    unsafe { &mut *(user as *mut WarpState) }.set_pred(lane as usize, p as u8, v)
}
unsafe extern "C" fn cb_ureg(user: *mut c_void, u: u32) -> u32 {
    unsafe { &*(user as *const WarpState) }.ureg(u as u8)
}

#[test]
fn execution_equals_tld4_emus_in_every_form() {
    let (cpool, rpool) = pools();
    let mut rng = Rng(12345);
    let cases = [
        ("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;", 0u32, 0u32),
        ("@P3 TLD4.R P0, R10, R8, R20, UR4, ARRAY_2D ;", 1, 2),
        ("@!P3 TLD4.B.F16.RN R10, R8, R20, UR4, 2D ;", 0, 2),
        ("TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;", 2, 1),
        ("TLD4.A.PTP R12, R8, R20, R24, UR4, 2D ;", 0, 0),
        ("TLD4.G R10, R8, R20, UR4, 2D, 0x5 ;", 3, 0),
        ("TLD4.R R10, R8, R20, UR4, 2D ;", 9, 0), // no header 9: a fault
    ];
    let nregs = 40usize;
    for (text, header, sampler) in cases {
        let rexec = tld4_emu::Tld4Exec::new(&decoder::parse(text).unwrap(), ExecConfig::default());
        let cexec = exec_of(text);
        let mut executed_lanes = 0u32;
        for round in 0..8 {
            let mut warp = WarpState::new();
            warp.regs_per_thread = nregs as u16;
            warp.active_mask = if round % 2 == 0 { !0 } else { rng.next() };
            warp.set_ureg(4, header | sampler << 20);
            for lane in 0..32 {
                for r in 0..nregs as u8 {
                    warp.set_reg(lane, r, rng.next());
                }
                for r in 20..24 {
                    warp.set_reg_f32(lane, r, rng.unit());
                }
                warp.set_reg(lane, 20, rng.next() % 4); // a layer, for the array kinds
                warp.set_reg(lane, 24, rng.next());
                warp.set_reg(lane, 25, rng.next());
                warp.set_pred(lane, 3, rng.next() & 1 != 0);
            }
            // Register-major and lane-major flat copies.
            let mut rm = vec![0u32; nregs * 32];
            let mut lm = vec![0u32; nregs * 32];
            let mut preds = [0u32; 7];
            for lane in 0..32 {
                for r in 0..nregs {
                    rm[r * 32 + lane] = warp.reg(lane, r as u8);
                    lm[lane * nregs + r] = warp.reg(lane, r as u8);
                }
                for (p, w) in preds.iter_mut().enumerate() {
                    *w |= (warp.pred(lane, p as u8) as u32) << lane;
                }
            }
            let uregs: Vec<u32> = (0..8).map(|u| warp.ureg(u)).collect();
            let mut cbwarp = warp.clone();
            let expect = rexec.execute(&mut warp, &rpool);
            executed_lanes += expect.as_ref().map_or(0, |r| r.executed.count_ones());

            let mut outcomes = Vec::new();
            for (regs, rs, ls) in [(&mut rm, 32usize, 1usize), (&mut lm, 1, nregs)] {
                let mut preds = preds; // each layout from the same predicates
                let flat = tld4_warp_flat {
                    regs: regs.as_mut_ptr(),
                    num_regs: nregs as u32,
                    reg_stride: rs,
                    lane_stride: ls,
                    preds: preds.as_mut_ptr(),
                    uregs: uregs.as_ptr(),
                    num_uregs: uregs.len() as u32,
                    active_mask: warp.active_mask,
                };
                let mut report = tld4_exec_report::default();
                let mut e = tld4_error::new();
                let st = unsafe { tld4_exec_run_flat(cexec, cpool, &flat, &mut report, &mut e) };
                outcomes.push((st, e, report));
                for lane in 0..32 {
                    for r in 0..nregs {
                        assert_eq!(
                            regs[r * rs + lane * ls],
                            warp.reg(lane, r as u8),
                            "{text}: lane {lane} R{r}"
                        );
                    }
                    for (p, word) in preds.iter().enumerate() {
                        assert_eq!(
                            word >> lane & 1 != 0,
                            warp.pred(lane, p as u8),
                            "{text}: lane {lane} P{p}"
                        );
                    }
                }
            }
            let rf = tld4_regfile {
                user: &mut cbwarp as *mut WarpState as *mut c_void,
                reg: Some(cb_reg),
                set_reg: Some(cb_set_reg),
                pred: Some(cb_pred),
                set_pred: Some(cb_set_pred),
                ureg: Some(cb_ureg),
                active_mask: warp.active_mask,
                regs_per_thread: nregs as u32,
            };
            let mut report = tld4_exec_report::default();
            let mut e = tld4_error::new();
            let st = unsafe { tld4_exec_run_callbacks(cexec, cpool, &rf, &mut report, &mut e) };
            outcomes.push((st, e, report));
            assert_eq!(cbwarp, warp, "{text}");
            for (st, e, report) in outcomes {
                match &expect {
                    Ok(r) => {
                        assert_eq!(st, TLD4_OK, "{text}: {}", e.message());
                        assert_eq!(
                            (report.executed, report.nonresident),
                            (r.executed, r.nonresident)
                        );
                    }
                    Err(f) => {
                        assert_eq!(st, TLD4_ERR_WARP_FAULT, "{text}");
                        assert_eq!(e.fault, tld4_fault_kind::of(f.kind()));
                        assert_eq!(e.lane, f.lane().map_or(-1, i32::from));
                        assert_eq!(e.message(), f.to_string());
                    }
                }
            }
        }
        // Every case but the missing header runs lanes (the comparison is not of faults only).
        assert_eq!(executed_lanes > 0, header != 9, "{text}");
        unsafe { tld4_exec_free(cexec) };
    }
    unsafe { tld4_pool_free(cpool) };
}

#[test]
fn a_fault_names_its_kind_and_lane_and_writes_nothing() {
    let (cpool, _) = pools();
    let exec = exec_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    let mut regs = vec![7u32; 32 * 32];
    let uregs = [0u32, 0, 0, 0, 9]; // UR4: header 9, which the pool lacks
    let mut preds = [0u32; 7];
    let mut flat = warp32(&mut regs, &mut preds, &uregs, 0xffff_0000);
    let mut e = tld4_error::new();
    let st = unsafe { tld4_exec_run_flat(exec, cpool, &flat, null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_WARP_FAULT);
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_UNKNOWN_TEXTURE_HEADER);
    assert_eq!(e.lane, 16);
    assert_eq!(
        unsafe { CStr::from_ptr(tld4_fault_name(e.fault as i32)) }
            .to_str()
            .unwrap(),
        "unknown_texture_header"
    );
    assert!(
        e.message().starts_with("lane 16: handle 0x00000009"),
        "{}",
        e.message()
    );
    assert!(regs.iter().all(|&r| r == 7));
    // Out of range at load time: Rd2 = R31 spans R31, R32 with 32 registers.
    let far = exec_of("TLD4.R R31, R8, R20, UR4, 2D ;");
    assert_eq!(
        unsafe { tld4_exec_check(far, 32, &mut e) },
        TLD4_ERR_WARP_FAULT
    );
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_REGISTER_OUT_OF_RANGE);
    assert_eq!(unsafe { tld4_exec_check(far, 255, &mut e) }, TLD4_OK);
    // Strides that would share elements.
    flat.lane_stride = 2;
    assert_eq!(
        unsafe { tld4_exec_run_flat(exec, cpool, &flat, null_mut(), &mut e) },
        TLD4_ERR_INVALID_ARGUMENT
    );
    assert!(
        e.message().contains("warp.reg_stride = 32"),
        "{}",
        e.message()
    );
    // A config with too many fractional bits: every run faults with invalid_config.
    let insn = insn_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    let mut cfg = tld4_exec_config {
        require_aligned_pairs: false,
        exact_precision: false,
        fraction_bits: 0,
        rounding: 0,
    };
    unsafe { tld4_exec_config_default(&mut cfg, null_mut()) };
    assert_eq!(
        (cfg.fraction_bits, cfg.rounding, cfg.exact_precision),
        (8, 0, false)
    );
    cfg.fraction_bits = 21;
    let mut bad = null_mut();
    assert_eq!(
        unsafe { tld4_exec_new(insn, &cfg, &mut bad, &mut e) },
        TLD4_OK
    );
    assert_eq!(
        unsafe { tld4_exec_check(bad, 255, &mut e) },
        TLD4_ERR_WARP_FAULT
    );
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_INVALID_CONFIG);
    cfg.rounding = 3;
    let mut worse = null_mut();
    assert_eq!(
        unsafe { tld4_exec_new(insn, &cfg, &mut worse, &mut e) },
        TLD4_ERR_INVALID_ARGUMENT
    );
    assert!(worse.is_null());
    unsafe {
        tld4_insn_free(insn);
        tld4_exec_free(bad);
        tld4_exec_free(far);
        tld4_exec_free(exec);
        tld4_pool_free(cpool);
    }
}
