//! Each lane's handle from C (`tld4_insn_lane_handles`, `tld4_arch_insn_lane_handles` and
//! their `_callbacks` forms): the register-handle form's first Rb register lane by lane, the
//! uniform register, the constant-bank form's constant, only for the lanes that execute,
//! split into header and sampler indices; the faults an execution raises first.

use std::ptr::{null, null_mut};

use crate::arch_fixture::{arch, regfile, word, Warp, B63, F63};
use crate::common::{handle, insn_of};
use tld4_capi::*;
use tld4_status::*;

/// The flat and the callback answers for an SM100 instruction; both must agree.
fn sm100(insn: *const tld4_insn, warp: &mut Warp, active: u32) -> tld4_lane_handles {
    let mut e = tld4_error::new();
    let mut a = unsafe { std::mem::zeroed::<tld4_lane_handles>() };
    let mut flat = warp.flat();
    flat.active_mask = active;
    let st = unsafe { tld4_insn_lane_handles(insn, &flat, &mut a, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let mut b = unsafe { std::mem::zeroed::<tld4_lane_handles>() };
    let mut rf = regfile(warp);
    rf.active_mask = active;
    let st = unsafe { tld4_insn_lane_handles_callbacks(insn, &rf, &mut b, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(a, b, "flat and callbacks");
    a
}

#[test]
fn register_form_handles_are_each_executing_lanes_first_rb_register() {
    // SM100's register-handle form (tests/golden/nvdisasm_arch_sm_100.tsv): Rb is R24.
    let insn = insn_of("TLD4.G.B R10, R8, R28, R24, 2D ;");
    let mut layout = tld4_operand_layout::default();
    let mut e = tld4_error::new();
    let st = unsafe { tld4_insn_operand_layout(insn, &mut layout, &mut e) };
    assert_eq!(st, TLD4_OK);
    assert!(layout.handle_in_rb);
    assert_eq!(layout.rb, 24);
    let mut warp = Warp::new(vec![]);
    for l in 0..32u32 {
        warp.regs[24 * 32 + l as usize] = handle(l % 5 + 1, l % 3);
    }
    let active = !(1u32 << 3 | 1 << 7);
    let h = sm100(insn, &mut warp, active);
    assert_eq!(h.executed, active);
    for l in 0..32u32 {
        let (hd, s) = if active >> l & 1 != 0 {
            (l % 5 + 1, l % 3)
        } else {
            (0, 0)
        };
        assert_eq!(h.header[l as usize], hd, "lane {l}");
        assert_eq!(h.sampler[l as usize], s, "lane {l}");
        assert_eq!(h.handle[l as usize], if hd == 0 { 0 } else { hd | s << 20 });
    }
    unsafe { tld4_insn_free(insn) };
}

#[test]
fn uniform_form_handles_are_the_uniform_register_and_the_guard_counts() {
    let insn = insn_of("@P1 TLD4.R R10, R8, R20, UR4, 2D ;");
    let mut warp = Warp::new(vec![0, 0, 0, 0, handle(9, 4)]);
    warp.preds[1] = 0x0000_ffff;
    let h = sm100(insn, &mut warp, u32::MAX);
    assert_eq!(h.executed, 0x0000_ffff);
    for l in 0..32 {
        let on = l < 16;
        assert_eq!(h.header[l], if on { 9 } else { 0 });
        assert_eq!(h.sampler[l], if on { 4 } else { 0 });
    }
    // A uniform register past the flat warp's is the caller's error, named.
    let mut short = Warp::new(vec![0, 0]);
    let flat = short.flat();
    let mut e = tld4_error::new();
    let mut out = unsafe { std::mem::zeroed::<tld4_lane_handles>() };
    let st = unsafe { tld4_insn_lane_handles(insn, &flat, &mut out, &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(e.message().contains("UR4"), "{}", e.message());
    unsafe { tld4_insn_free(insn) };
}

#[test]
fn a_register_out_of_range_is_the_warp_fault_an_execution_raises() {
    let insn = insn_of("TLD4.G.B R10, R8, R28, R24, 2D ;");
    let mut warp = Warp::new(vec![]);
    let mut flat = warp.flat();
    flat.num_regs = 24;
    let mut e = tld4_error::new();
    let mut out = unsafe { std::mem::zeroed::<tld4_lane_handles>() };
    let st = unsafe { tld4_insn_lane_handles(insn, &flat, &mut out, &mut e) };
    assert_eq!(st, TLD4_ERR_WARP_FAULT);
    assert_eq!(
        e.fault,
        tld4_fault_kind::TLD4_FAULT_REGISTER_OUT_OF_RANGE,
        "{}",
        e.message()
    );
    unsafe { tld4_insn_free(insn) };
}

fn arch_insn(arch_name: &str, hex: &str) -> *mut tld4_arch_insn {
    let mut insn = null_mut();
    let mut e = tld4_error::new();
    let st = unsafe { tld4_decode_arch(arch(arch_name), word(hex), &mut insn, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    insn
}

#[test]
fn arch_handles_read_the_constant_bank_or_the_uniform_register() {
    // SM90's constant-bank form reads c[3][4 * 0x3f04] (tests/golden/nvdisasm_arch_sm_80.tsv).
    let b63 = arch_insn("sm_90", B63);
    let slot = [tld4_constant {
        bank: 3,
        offset: 4 * 0x3f04,
        value: handle(6, 2),
    }];
    let constants = tld4_constants {
        entries: slot.as_ptr(),
        count: 1,
        user: null_mut(),
        read: None,
    };
    let mut warp = Warp::new(vec![]);
    let mut e = tld4_error::new();
    let mut a = unsafe { std::mem::zeroed::<tld4_lane_handles>() };
    let mut flat = warp.flat();
    flat.active_mask = 0xff;
    let st = unsafe { tld4_arch_insn_lane_handles(b63, &constants, &flat, &mut a, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(a.executed, 0xff);
    assert_eq!(&a.header[..8], &[6; 8]);
    assert_eq!(&a.sampler[..8], &[2; 8]);
    assert_eq!(&a.handle[8..], &[0; 24]);
    let mut b = unsafe { std::mem::zeroed::<tld4_lane_handles>() };
    let mut rf = regfile(&mut warp);
    rf.active_mask = 0xff;
    let st = unsafe { tld4_arch_insn_lane_handles_callbacks(b63, &constants, &rf, &mut b, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(a, b);
    // No constant there: the fault an execution raises.
    let flat = warp.flat();
    let st = unsafe { tld4_arch_insn_lane_handles(b63, null(), &flat, &mut b, &mut e) };
    assert_eq!(st, TLD4_ERR_WARP_FAULT);
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NO_CONSTANT);
    // SM100's uniform form through the arch entry point: UR4.
    let f63 = arch_insn("sm_100", F63);
    let mut warp = Warp::new(vec![0, 0, 0, 0, handle(11, 1)]);
    let flat = warp.flat();
    let st = unsafe { tld4_arch_insn_lane_handles(f63, null(), &flat, &mut a, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(a.executed, u32::MAX);
    assert_eq!(a.header, [11; 32]);
    assert_eq!(a.sampler, [1; 32]);
    unsafe {
        tld4_arch_insn_free(b63);
        tld4_arch_insn_free(f63);
    }
}
