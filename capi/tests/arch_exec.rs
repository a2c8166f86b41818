//! Every architecture's TLD4 executed through the C ABI: the constant-bank TLD4 of SM75 to
//! SM90a with the embedder's constants (flat entries, callback), checked against SM100's
//! uniform-handle form on the same texture (results are whatever both executions compute,
//! never written down here); the `no_constant` fault; textures in memory read as each
//! architecture's GPU class reads them; callback registers and the SM120 form.

use crate::arch_fixture;

use std::ffi::{c_void, CStr, CString};
use std::ptr::{null, null_mut};

use arch_fixture::*;
use tld4_capi::*;
use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass};

use tld4_status::*;

unsafe extern "C" fn read_constant(
    user: *mut c_void,
    bank: u8,
    offset: u32,
    value: *mut u32,
) -> bool {
    let calls = unsafe { &mut *user.cast::<Vec<(u8, u32)>>() };
    calls.push((bank, offset));
    if (bank, offset) == (3, 4 * 0x3f04) {
        unsafe { value.write(handle()) };
        true
    } else {
        false
    }
}

#[test]
fn sm90_constant_bank_form_gathers_as_sm100_uniform_form() {
    let pool = pool();
    let expected = sm100_results(pool);
    let exec = exec_of("sm_90", B63);
    let mut e = tld4_error::new();
    let slot = tld4_constant {
        bank: 3,
        offset: 4 * 0x3f04,
        value: handle(),
    };
    let other = tld4_constant {
        bank: 2,
        offset: 4 * 0x3f04,
        value: 0,
    };
    // Flat entries (the slot among others; a duplicate of equal value is no conflict).
    let entries = [other, slot, slot];
    let flat_constants = tld4_constants {
        entries: entries.as_ptr(),
        count: entries.len(),
        user: null_mut(),
        read: None,
    };
    let mut warp = Warp::new(vec![]);
    let mut flat = warp.flat();
    let st = unsafe {
        tld4_arch_exec_run_flat(exec, &flat_constants, pool, &mut flat, null_mut(), &mut e)
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(warp.regs, expected);

    // The callback, read once for the warp at the slot.
    let mut calls: Vec<(u8, u32)> = Vec::new();
    let cb_constants = tld4_constants {
        entries: null(),
        count: 0,
        user: (&mut calls as *mut Vec<(u8, u32)>).cast(),
        read: Some(read_constant),
    };
    let mut warp = Warp::new(vec![]);
    let mut flat = warp.flat();
    let st = unsafe {
        tld4_arch_exec_run_flat(exec, &cb_constants, pool, &mut flat, null_mut(), &mut e)
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(warp.regs, expected);
    assert_eq!(calls, [(3, 4 * 0x3f04)]);

    // Every architecture of the SM75 and SM80 families that decodes the word alike.
    for a in ["sm_80", "sm_86", "sm_89", "sm_90a"] {
        let x = exec_of(a, B63);
        let mut warp = Warp::new(vec![]);
        let mut flat = warp.flat();
        let st = unsafe {
            tld4_arch_exec_run_flat(x, &flat_constants, pool, &mut flat, null_mut(), &mut e)
        };
        assert_eq!(st, TLD4_OK, "{a}: {}", e.message());
        assert_eq!(warp.regs, expected, "{a}");
        unsafe { tld4_arch_exec_free(x) };
    }
    unsafe {
        tld4_arch_exec_free(exec);
        tld4_pool_free(pool);
    }
}

unsafe extern "C" fn read_nothing(_: *mut c_void, _: u8, _: u32, _: *mut u32) -> bool {
    false
}

#[test]
fn a_missing_constant_is_the_no_constant_fault_and_writes_nothing() {
    let pool = pool();
    let exec = exec_of("sm_90", B63);
    let wrong = [tld4_constant {
        bank: 4,
        offset: 4 * 0x3f04,
        value: handle(),
    }];
    let cases = [
        (None, "no constants"),
        (
            Some(tld4_constants {
                entries: wrong.as_ptr(),
                count: 1,
                user: null_mut(),
                read: None,
            }),
            "another bank",
        ),
        (
            Some(tld4_constants {
                entries: null(),
                count: 0,
                user: null_mut(),
                read: Some(read_nothing),
            }),
            "a callback holding nothing",
        ),
    ];
    for (constants, what) in cases {
        let mut warp = Warp::new(vec![]);
        let mut flat = warp.flat();
        let mut e = tld4_error::new();
        let c = constants.as_ref().map_or(null(), |c| c as *const _);
        let st = unsafe { tld4_arch_exec_run_flat(exec, c, pool, &mut flat, null_mut(), &mut e) };
        assert_eq!(st, TLD4_ERR_WARP_FAULT, "{what}");
        assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NO_CONSTANT, "{what}");
        assert_eq!(e.lane, -1);
        assert_eq!(e.detail.read, tld4_read::TLD4_READ_CONSTANT);
        assert_eq!((e.detail.index, e.detail.address), (3, 4 * 0x3f04));
        assert!(e.message().contains("c[0x3][0xfc10]"), "{}", e.message());
        assert_eq!(warp.regs, registers(), "{what}: nothing written");
        let name = unsafe { CStr::from_ptr(tld4_fault_name(e.fault as i32)) };
        assert_eq!(name.to_str().unwrap(), "no_constant");
        assert!(!tld4_fault_is_not_modeled(e.fault as i32));
    }
    // No lane executes: no constant is read, nothing faults.
    let mut warp = Warp::new(vec![]);
    let mut flat = warp.flat();
    flat.active_mask = 0;
    let mut report = tld4_exec_report {
        executed: 9,
        nonresident: 9,
    };
    let mut e = tld4_error::new();
    let st = unsafe { tld4_arch_exec_run_flat(exec, null(), pool, &mut flat, &mut report, &mut e) };
    assert_eq!(st, TLD4_OK);
    assert_eq!(report.executed, 0);
    unsafe {
        tld4_arch_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn bad_constants_and_null_arguments_are_refused() {
    let pool = pool();
    let exec = exec_of("sm_90", B63);
    let mut e = tld4_error::new();
    let run = |c: &tld4_constants, e: &mut tld4_error| {
        let mut warp = Warp::new(vec![]);
        let mut flat = warp.flat();
        let st = unsafe { tld4_arch_exec_run_flat(exec, c, pool, &mut flat, null_mut(), e) };
        assert_eq!(warp.regs, registers());
        st
    };
    let misaligned = [tld4_constant {
        bank: 3,
        offset: 2,
        value: 0,
    }];
    let c = tld4_constants {
        entries: misaligned.as_ptr(),
        count: 1,
        user: null_mut(),
        read: None,
    };
    assert_eq!(run(&c, &mut e), TLD4_ERR_INVALID_ARGUMENT);
    assert!(e.message().contains("entries[0].offset"), "{}", e.message());
    let slot = |value| tld4_constant {
        bank: 3,
        offset: 4 * 0x3f04,
        value,
    };
    let conflict = [slot(handle()), slot(handle() + 1)];
    let c = tld4_constants {
        entries: conflict.as_ptr(),
        count: 2,
        user: null_mut(),
        read: None,
    };
    assert_eq!(run(&c, &mut e), TLD4_ERR_INVALID_ARGUMENT);
    assert!(
        e.message().contains("entries[0] and [1]"),
        "{}",
        e.message()
    );
    let c = tld4_constants {
        entries: null(),
        count: 3,
        user: null_mut(),
        read: None,
    };
    assert_eq!(run(&c, &mut e), TLD4_ERR_NULL_POINTER);
    unsafe {
        let mut warp = Warp::new(vec![]);
        let mut flat = warp.flat();
        let st = tld4_arch_exec_run_flat(null(), null(), pool, &mut flat, null_mut(), &mut e);
        assert_eq!(st, TLD4_ERR_NULL_POINTER);
        let st = tld4_arch_exec_run_flat(exec, null(), null(), &mut flat, null_mut(), &mut e);
        assert_eq!(st, TLD4_ERR_NULL_POINTER);
        let st = tld4_arch_exec_run_flat(exec, null(), pool, null_mut(), null_mut(), &mut e);
        assert_eq!(st, TLD4_ERR_NULL_POINTER);
        tld4_arch_exec_free(exec);
        tld4_arch_exec_free(null_mut());
        tld4_arch_insn_free(null_mut());
        tld4_pool_free(pool);
    }
}

/// Textures in memory: sm_90 (HOPPER_A, V2 headers) reads `tld4_pool_image`'s V2 headers;
/// sm_80 (AMPERE_A, V1 headers) reads the same header re-encoded in its class's layout;
/// both equal SM100's uniform form over the owned pool. An architecture with no known
/// class is not modeled.
#[test]
fn memory_pools_are_read_as_the_architectures_class_reads_them() {
    let pool = pool();
    let expected = sm100_results(pool);
    let (v2, hp, sp) = image(pool);
    let entries = [tld4_constant {
        bank: 3,
        offset: 4 * 0x3f04,
        value: image_handle(),
    }];
    let constants = tld4_constants {
        entries: entries.as_ptr(),
        count: 1,
        user: null_mut(),
        read: None,
    };
    // The V1 image: header 3 re-encoded for AMPERE_A.
    let at = (hp - BASE) as usize;
    let words: [u32; 8] = std::array::from_fn(|i| {
        u32::from_le_bytes(v2[at + 4 * i..at + 4 * i + 4].try_into().unwrap())
    });
    let header = ClassDescriptors::new(GpuClass::BlackwellA)
        .decode_tic(&words)
        .unwrap();
    let v1_words = ClassDescriptors::new(GpuClass::AmpereA)
        .encode_tic(&header)
        .unwrap();
    assert_ne!(v1_words, words);
    let mut v1 = v2.clone();
    for (i, w) in v1_words.iter().enumerate() {
        v1[at + 4 * i..at + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    for (a, bytes) in [("sm_90", &v2), ("sm_80", &v1)] {
        let exec = exec_of(a, B63);
        let mem = memory_of(bytes);
        let mut warp = Warp::new(vec![]);
        let mut flat = warp.flat();
        let mut e = tld4_error::new();
        let st = unsafe {
            tld4_arch_exec_run_flat_memory(
                exec,
                &constants,
                &mem,
                hp,
                sp,
                &mut flat,
                null_mut(),
                &mut e,
            )
        };
        assert_eq!(st, TLD4_OK, "{a}: {}", e.message());
        assert_eq!(warp.regs, expected, "{a}");
        // A missing constant faults over memory too.
        let mut warp = Warp::new(vec![]);
        let mut flat = warp.flat();
        let st = unsafe {
            tld4_arch_exec_run_flat_memory(
                exec,
                null(),
                &mem,
                hp,
                sp,
                &mut flat,
                null_mut(),
                &mut e,
            )
        };
        assert_eq!(st, TLD4_ERR_WARP_FAULT, "{a}");
        assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NO_CONSTANT);
        assert_eq!(warp.regs, registers());
        unsafe { tld4_arch_exec_free(exec) };
    }
    // AMPERE_A does not read the V2 header as HOPPER_A does.
    let exec = exec_of("sm_80", B63);
    let mem = memory_of(&v2);
    let mut warp = Warp::new(vec![]);
    let mut flat = warp.flat();
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_arch_exec_run_flat_memory(
            exec,
            &constants,
            &mem,
            hp,
            sp,
            &mut flat,
            null_mut(),
            &mut e,
        )
    };
    assert!(st != TLD4_OK || warp.regs != expected, "{st:?}");
    unsafe { tld4_arch_exec_free(exec) };
    // SM100 over memory through the arch executor equals the owned pool too.
    let exec = exec_of("sm_100", F63);
    let mut warp = Warp::new(vec![0, 0, 0, 0, image_handle()]);
    let mut flat = warp.flat();
    let st = unsafe {
        tld4_arch_exec_run_flat_memory(exec, null(), &mem, hp, sp, &mut flat, null_mut(), &mut e)
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(warp.regs, expected);
    unsafe { tld4_arch_exec_free(exec) };
    // sm_88: no source names its GPU's class.
    let exec = exec_of("sm_88", B63);
    let mut warp = Warp::new(vec![]);
    let mut flat = warp.flat();
    let st = unsafe {
        tld4_arch_exec_run_flat_memory(
            exec,
            &constants,
            &mem,
            hp,
            sp,
            &mut flat,
            null_mut(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_NOT_MODELED);
    assert!(e.message().contains("sm_88"), "{}", e.message());
    assert_eq!(warp.regs, registers());
    unsafe {
        tld4_arch_exec_free(exec);
        tld4_pool_free(pool);
    }
}

/// The callback register file gives the flat arrays' results: the sm_90 constant-bank form
/// over the owned pool and over memory, and the SM120 form with a second uniform register
/// (listed with its own role; the flat arrays must hold it).
#[test]
fn callback_registers_and_the_sm120_form() {
    let pool = pool();
    let expected = sm100_results(pool);
    let mut e = tld4_error::new();
    let entries = [tld4_constant {
        bank: 3,
        offset: 4 * 0x3f04,
        value: handle(),
    }];
    let constants = tld4_constants {
        entries: entries.as_ptr(),
        count: 1,
        user: null_mut(),
        read: None,
    };
    let exec = exec_of("sm_90", B63);
    let mut warp = Warp::new(vec![]);
    let rf = regfile(&mut warp);
    let st =
        unsafe { tld4_arch_exec_run_callbacks(exec, &constants, pool, &rf, null_mut(), &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(warp.regs, expected);

    let (bytes, hp, sp) = image(pool);
    let mem = memory_of(&bytes);
    let mem_entries = [tld4_constant {
        value: image_handle(),
        ..entries[0]
    }];
    let mem_constants = tld4_constants {
        entries: mem_entries.as_ptr(),
        ..constants
    };
    let mut warp = Warp::new(vec![]);
    let rf = regfile(&mut warp);
    let st = unsafe {
        tld4_arch_exec_run_callbacks_memory(
            exec,
            &mem_constants,
            &mem,
            hp,
            sp,
            &rf,
            null_mut(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(warp.regs, expected);
    unsafe { tld4_arch_exec_free(exec) };

    // SM120: parse nvdisasm's text, list the registers, execute.
    let text = CString::new("TLD4.G.AOFFI R10, R8, R28, R24, UR4, UR251, 2D ;").unwrap();
    let mut insn = null_mut();
    unsafe {
        let st = tld4_parse_arch(arch("sm_120"), text.as_ptr(), &mut insn, &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
        let mut w = tld4_word::default();
        assert_eq!(tld4_arch_insn_word(insn, &mut w, &mut e), TLD4_OK);
        assert_eq!(w, word(SM120));
        let mut regs = [std::mem::zeroed::<tld4_used_register>(); TLD4_MAX_ARCH_USED_REGISTERS];
        let mut n = 0usize;
        let st = tld4_arch_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, &mut e);
        assert_eq!(st, TLD4_OK);
        let second: Vec<_> = regs[..n]
            .iter()
            .filter(|r| r.role == tld4_role::TLD4_ROLE_SECOND_UR)
            .collect();
        assert_eq!(second.len(), 1);
        assert_eq!(
            (second[0].file, second[0].number),
            (tld4_reg_file::TLD4_FILE_UREG, 251)
        );
        // The scheduling fields and the base-table instruction are SM100's reading.
        let (mut s, mut base_s) = (tld4_scheduling::default(), tld4_scheduling::default());
        assert_eq!(tld4_arch_insn_scheduling(insn, &mut s, &mut e), TLD4_OK);
        let mut base = null_mut();
        assert_eq!(tld4_arch_insn_base(insn, &mut base, &mut e), TLD4_OK);
        assert_eq!(tld4_insn_scheduling(base, &mut base_s, &mut e), TLD4_OK);
        assert_eq!(s, base_s);
        tld4_insn_free(base);

        let mut exec = null_mut();
        assert_eq!(tld4_arch_exec_new(insn, null(), &mut exec, &mut e), TLD4_OK);
        tld4_arch_insn_free(insn);
        let mut uregs = vec![0u32; 252];
        uregs[4] = handle();
        let mut warp = Warp::new(uregs);
        let mut flat = warp.flat();
        let st = tld4_arch_exec_run_flat(exec, null(), pool, &mut flat, null_mut(), &mut e);
        // A second uniform register other than URZ: valid, not modeled (docs/sources.md,
        // Decisions), the field and its value in the detail; nothing written.
        assert_eq!(st, TLD4_ERR_WARP_FAULT, "{}", e.message());
        assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NOT_MODELED);
        assert_eq!(
            e.detail.not_modeled,
            tld4_not_modeled::TLD4_NOT_MODELED_INSTRUCTION
        );
        assert_eq!(CStr::from_ptr(e.detail.field).to_str().unwrap(), "ur2");
        assert_eq!(e.detail.value, 251);
        assert_eq!(warp.regs, registers());
        // Too few uniform registers for UR251: the caller's input, refused first.
        let mut warp = Warp::new(vec![0, 0, 0, 0, handle()]);
        let mut flat = warp.flat();
        let st = tld4_arch_exec_run_flat(exec, null(), pool, &mut flat, null_mut(), &mut e);
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
        assert!(e.message().contains("UR251"), "{}", e.message());
        assert_eq!(warp.regs, registers());
        tld4_arch_exec_free(exec);
        tld4_pool_free(pool);
    }
}

/// `tld4_arch_exec_check` finds at load time what every execution would raise before
/// looking at a lane, the unmodeled handle sources included.
#[test]
fn check_finds_static_faults_and_unmodeled_forms() {
    let mut e = tld4_error::new();
    let exec = exec_of("sm_90", B63);
    unsafe {
        assert_eq!(tld4_arch_exec_check(exec, 255, &mut e), TLD4_OK);
        // Ra is R8 (the text: `R10, R8, ...`): past 8 registers a thread has.
        assert_eq!(tld4_arch_exec_check(exec, 8, &mut e), TLD4_ERR_WARP_FAULT);
        assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_REGISTER_OUT_OF_RANGE);
        tld4_arch_exec_free(exec);
        assert_eq!(
            tld4_arch_exec_check(null(), 255, &mut e),
            TLD4_ERR_NULL_POINTER
        );
    }
    // 0xb65 (immediates of unknown meaning) and 0xb63 with `.B`: valid, not modeled.
    for text in [
        "TLD4.G.B R10, R8, R4, R6, 0x3, 0x4, 0xfc, 2D ;",
        "TLD4.G.B R10, R8, R4, R6, 0x3, 0x10, 2D ;",
    ] {
        let c = CString::new(text).unwrap();
        let mut insn = null_mut();
        let mut exec = null_mut();
        unsafe {
            let st = tld4_parse_arch(arch("sm_90"), c.as_ptr(), &mut insn, &mut e);
            assert_eq!(st, TLD4_OK, "{text}: {}", e.message());
            assert_eq!(tld4_arch_exec_new(insn, null(), &mut exec, &mut e), TLD4_OK);
            assert_eq!(tld4_arch_exec_check(exec, 255, &mut e), TLD4_ERR_WARP_FAULT);
            assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NOT_MODELED, "{text}");
            tld4_arch_exec_free(exec);
            tld4_arch_insn_free(insn);
        }
    }
}
