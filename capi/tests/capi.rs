//! The C ABI called from Rust as a C program would call it: NULL pointers, a caught panic,
//! error records, names, operand lists and cubins (execution: capi/tests/execute.rs).

use crate::common;

use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_emu::decoder::{self, Location};
use tld4_emu::FaultKind;

use tld4_status::*;

use common::{cstr, exec_of, insn_of};

#[test]
fn null_pointers_are_errors_naming_the_argument() {
    let mut e = tld4_error::new();
    let mut insn = null_mut();
    let mut word = tld4_word::default();
    unsafe {
        assert_eq!(tld4_parse(null(), &mut insn, &mut e), TLD4_ERR_NULL_POINTER);
        assert_eq!(e.status, TLD4_ERR_NULL_POINTER);
        assert_eq!(e.message(), "text is NULL");
        let t = cstr("TLD4.R R10, R8, R20, UR4, 2D ;");
        assert_eq!(
            tld4_parse(t.as_ptr(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "out is NULL");
        assert_eq!(
            tld4_assemble(t.as_ptr(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "word is NULL");
        // No record at all: still an error code, no crash.
        assert_eq!(
            tld4_assemble(null(), &mut word, null_mut()),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(
            tld4_insn_text(null(), null_mut(), 0, null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "insn is NULL");
        assert_eq!(
            tld4_insn_used_registers(null(), null_mut(), 0, null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(
            tld4_insn_scheduling(null(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(tld4_pool_new(null_mut(), &mut e), TLD4_ERR_NULL_POINTER);
        assert_eq!(
            tld4_pool_set_texture(null_mut(), 0, null(), null(), 0, &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "pool is NULL");
        let mut pool = null_mut();
        assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK);
        assert_eq!(
            tld4_pool_set_texture(pool, 0, null(), null(), 0, &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "desc is NULL");
        let desc = tld4_texture_desc {
            kind: 0,
            format: null(),
            width: 1,
            height: 1,
            layers: 1,
        };
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, null(), 0, &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "desc.format is NULL");
        let f = cstr("r8_uint");
        let desc = tld4_texture_desc {
            format: f.as_ptr(),
            ..desc
        };
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, null(), 1, &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "fields is NULL");
        assert_eq!(
            tld4_pool_set_sampler(pool, 0, null(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(tld4_handle(0, 0, null_mut(), &mut e), TLD4_ERR_NULL_POINTER);
        let exec = exec_of("TLD4.R R10, R8, R20, UR4, 2D ;");
        assert_eq!(
            tld4_exec_run_flat(exec, pool, null_mut(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "warp is NULL");
        assert_eq!(
            tld4_exec_run_flat(null(), pool, null_mut(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "exec is NULL");
        let mut preds = [0u32; 7];
        let mut warp = tld4_warp_flat {
            regs: null_mut(),
            num_regs: 32,
            reg_stride: 32,
            lane_stride: 1,
            preds: preds.as_mut_ptr(),
            uregs: null(),
            num_uregs: 0,
            active_mask: !0,
        };
        assert_eq!(
            tld4_exec_run_flat(exec, pool, &warp, null_mut(), &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(e.message().contains("UR4"), "{}", e.message());
        let uregs = [0u32; 8];
        warp.uregs = uregs.as_ptr();
        warp.num_uregs = 8;
        assert_eq!(
            tld4_exec_run_flat(exec, pool, &warp, null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "warp.regs is NULL");
        let rf = tld4_regfile {
            user: null_mut(),
            reg: None,
            set_reg: None,
            pred: None,
            set_pred: None,
            ureg: None,
            active_mask: !0,
            regs_per_thread: 255,
        };
        assert_eq!(
            tld4_exec_run_callbacks(exec, pool, &rf, null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "regfile.reg is NULL");
        assert_eq!(
            tld4_exec_run_callbacks(exec, null(), &rf, null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "pool is NULL");
        assert_eq!(tld4_exec_check(null(), 255, &mut e), TLD4_ERR_NULL_POINTER);
        assert_eq!(
            tld4_cubin_find(null(), 4, null(), 0, null_mut(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "data is NULL");
        assert_eq!(
            tld4_cubin_find_file(null(), null(), 0, null_mut(), null_mut(), &mut e),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "path is NULL");
        // Freeing NULL does nothing.
        tld4_insn_free(null_mut());
        tld4_pool_free(null_mut());
        tld4_exec_free(null_mut());
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
    assert_eq!(tld4_fault_name(99), null());
    assert_eq!(tld4_format_name(tld4_format_count()), null());
}

#[test]
fn a_panic_is_caught_and_reported() {
    let mut e = tld4_error::new();
    let status = unsafe { boundary(&mut e, || panic!("boom at lane {}", 3)) };
    assert_eq!(status, TLD4_ERR_PANIC);
    assert_eq!(e.status, TLD4_ERR_PANIC);
    assert!(e.message().contains("boom at lane 3"), "{}", e.message());
    // Without a record.
    assert_eq!(
        unsafe { boundary(null_mut(), || panic!("again")) },
        TLD4_ERR_PANIC
    );
    // A successful call clears the record.
    assert_eq!(unsafe { boundary(&mut e, || Ok(())) }, TLD4_OK);
    assert_eq!(
        (e.status, e.fault, e.lane, e.message()),
        (TLD4_OK, tld4_fault_kind::TLD4_FAULT_NONE, -1, String::new())
    );
}

#[test]
fn errors_say_what_and_where() {
    let mut e = tld4_error::new();
    let mut buf = [0 as c_char; 128];
    unsafe {
        // Opcode 0x000: not TLD4.
        let st = tld4_disassemble(
            tld4_word { lo: 0, hi: 0 },
            buf.as_mut_ptr(),
            buf.len(),
            null_mut(),
            &mut e,
        );
        assert_eq!(st, TLD4_ERR_ILLEGAL_ENCODING);
        assert!(e.message().contains("not TLD4"), "{}", e.message());
        let t = cstr("TLD4.R R10, R8, R20, UR4, 5D ;");
        let mut w = tld4_word::default();
        assert_eq!(tld4_assemble(t.as_ptr(), &mut w, &mut e), TLD4_ERR_PARSE);
        assert!(
            e.message().starts_with("line 1, column "),
            "{}",
            e.message()
        );
        // Buffer too small: the size needed is stored, the buffer untouched.
        let word = decoder::assemble("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
        let text = decoder::disassemble(word).unwrap();
        let mut needed = 0usize;
        let st = tld4_disassemble(
            tld4_word::of(word),
            buf.as_mut_ptr(),
            4,
            &mut needed,
            &mut e,
        );
        assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL);
        assert_eq!(needed, text.len() + 1);
        assert_eq!(buf[0], 0);
        assert_eq!(
            tld4_disassemble(tld4_word::of(word), null_mut(), 0, &mut needed, &mut e),
            TLD4_ERR_BUFFER_TOO_SMALL
        );
        assert_eq!(
            tld4_disassemble(
                tld4_word::of(word),
                buf.as_mut_ptr(),
                needed,
                null_mut(),
                &mut e
            ),
            TLD4_OK
        );
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), text);
        // Invalid texture input.
        let mut pool = null_mut();
        tld4_pool_new(&mut pool, null_mut());
        let f = cstr("rgba9_unorm");
        let desc = tld4_texture_desc {
            kind: 0,
            format: f.as_ptr(),
            width: 1,
            height: 1,
            layers: 1,
        };
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, [0u32; 4].as_ptr(), 4, &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(e.message().contains("\"rgba9_unorm\""), "{}", e.message());
        let f = cstr("r8_unorm");
        let desc = tld4_texture_desc {
            kind: 7,
            format: f.as_ptr(),
            ..desc
        };
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, [0u32].as_ptr(), 1, &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(e.message().contains("desc.kind = 7"), "{}", e.message());
        let desc = tld4_texture_desc { kind: 0, ..desc };
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, [256u32].as_ptr(), 1, &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(
            e.message().starts_with("texture: invalid input"),
            "{}",
            e.message()
        );
        assert_eq!(
            tld4_pool_set_texture(pool, 1 << 20, &desc, [1u32].as_ptr(), 1, &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(
            e.message().contains("texture header 1048576"),
            "{}",
            e.message()
        );
        let mut s = tld4_sampler_desc {
            address_u: 0,
            address_v: 0,
            border: [0; 4],
            compare_enable: true,
            compare_op: 0,
            seamless_cube: true,
            normalized_coords: false,
        };
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        s.address_v = 5;
        assert_eq!(
            tld4_pool_set_sampler(pool, 0, &s, &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(
            e.message().contains("sampler.address_v = 5"),
            "{}",
            e.message()
        );
        let mut h = 0;
        assert_eq!(
            tld4_handle(0, 4096, &mut h, &mut e),
            TLD4_ERR_INVALID_ARGUMENT
        );
        assert!(
            e.message().contains("sampler index 4096"),
            "{}",
            e.message()
        );
        assert_eq!(tld4_handle(1_048_575, 4095, &mut h, &mut e), TLD4_OK);
        assert_eq!(h, u32::MAX);
        tld4_pool_free(pool);
    }
}

#[test]
fn format_names_are_the_texture_units() {
    let names: Vec<String> = (0..tld4_format_count())
        .map(|i| {
            unsafe { CStr::from_ptr(tld4_format_name(i)) }
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let rust: Vec<String> = tld4_emu::Format::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names, rust);
    assert!(names.contains(&"rgba8_unorm".to_string()));
}

#[test]
fn fault_names_are_the_stable_names() {
    for &k in FaultKind::ALL {
        let c = tld4_fault_kind::of(k) as i32;
        let name = unsafe { CStr::from_ptr(tld4_fault_name(c)) }
            .to_str()
            .unwrap();
        assert_eq!(name, k.name());
        assert_eq!(tld4_fault_is_not_modeled(c), k.is_not_modeled());
    }
    assert_eq!(
        unsafe { CStr::from_ptr(tld4_fault_name(0)) }
            .to_str()
            .unwrap(),
        "none"
    );
}

#[test]
fn operand_lists_and_scheduling_are_the_decoders() {
    for text in [
        "@P1 TLD4.G.AOFFI P0, R10, R8, R20, R24, UR4, 2D ;",
        "@P2 TLD4.R.B.PTP.DC P1, R12, R8, R20, R24, ARRAY_CUBE ;",
        "TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;",
        "TLD4.R RZ, R8, R254, UR4, ARRAY_CUBE ;",
    ] {
        let d = decoder::parse(text).unwrap();
        let insn = insn_of(text);
        let mut regs = [tld4_used_register {
            file: tld4_reg_file::TLD4_FILE_REG,
            number: 0,
            index: 0,
            access: tld4_access::TLD4_ACCESS_READ,
            role: tld4_role::TLD4_ROLE_GUARD,
        }; TLD4_MAX_USED_REGISTERS];
        let mut n = 0;
        let mut e = tld4_error::new();
        assert_eq!(
            unsafe {
                tld4_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, &mut e)
            },
            TLD4_OK
        );
        let used = d.used_registers();
        assert_eq!(n, used.len(), "{text}");
        for (c, r) in regs[..n].iter().zip(used.iter()) {
            let loc = match c.file {
                tld4_reg_file::TLD4_FILE_REG => Location::Reg(c.number),
                tld4_reg_file::TLD4_FILE_UREG => Location::UReg(c.number),
                tld4_reg_file::TLD4_FILE_PRED => Location::Pred(c.number),
            };
            assert_eq!(loc, r.location, "{text}");
            assert_eq!(c.index, r.index);
            assert_eq!(
                c.access == tld4_access::TLD4_ACCESS_COND_WRITE,
                r.access.is_write()
            );
            assert_eq!(
                c.access == tld4_access::TLD4_ACCESS_READ,
                r.role == decoder::OperandRole::Guard
            );
        }
        // Too small an array: the count is given, nothing written.
        let mut small = n;
        assert_eq!(
            unsafe { tld4_insn_used_registers(insn, regs.as_mut_ptr(), 1, &mut small, &mut e) },
            TLD4_ERR_BUFFER_TOO_SMALL
        );
        assert_eq!(small, n);
        let mut v = [tld4_operand_vector {
            role: tld4_role::TLD4_ROLE_RA,
            first: 0,
            count: 0,
            access: tld4_access::TLD4_ACCESS_READ,
        }; TLD4_MAX_OPERAND_VECTORS];
        let mut nv = 0;
        assert_eq!(
            unsafe { tld4_insn_operand_vectors(insn, v.as_mut_ptr(), v.len(), &mut nv, &mut e) },
            TLD4_OK
        );
        let dv = d.operand_vectors();
        assert_eq!(nv, dv.len());
        for (c, r) in v[..nv].iter().zip(dv.iter()) {
            assert_eq!((c.first, c.count), (r.first, r.count), "{text}");
        }
        let mut s = tld4_scheduling::default();
        assert_eq!(
            unsafe { tld4_insn_scheduling(insn, &mut s, &mut e) },
            TLD4_OK
        );
        assert_eq!(s.opex, d.opex());
        assert_eq!(s.usched_info, d.usched_info);
        unsafe { tld4_insn_free(insn) };
    }
    // The fullest instruction, by hand: guard P2, Ra R20..R23, Rb R24..R27, Rd R8, R9,
    // Rd2 R12, R13, predicate destination P1.
    let insn = insn_of("@P2 TLD4.R.B.PTP.DC P1, R12, R8, R20, R24, ARRAY_CUBE ;");
    let mut regs = [tld4_used_register {
        file: tld4_reg_file::TLD4_FILE_REG,
        number: 0,
        index: 0,
        access: tld4_access::TLD4_ACCESS_READ,
        role: tld4_role::TLD4_ROLE_GUARD,
    }; TLD4_MAX_USED_REGISTERS];
    let mut n = 0;
    unsafe { tld4_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, null_mut()) };
    let got: Vec<(u8, tld4_role)> = regs[..n].iter().map(|r| (r.number, r.role)).collect();
    use tld4_role::*;
    assert_eq!(
        got,
        [
            (2, TLD4_ROLE_GUARD),
            (20, TLD4_ROLE_RA),
            (21, TLD4_ROLE_RA),
            (22, TLD4_ROLE_RA),
            (23, TLD4_ROLE_RA),
            (24, TLD4_ROLE_RB),
            (25, TLD4_ROLE_RB),
            (26, TLD4_ROLE_RB),
            (27, TLD4_ROLE_RB),
            (8, TLD4_ROLE_RD),
            (9, TLD4_ROLE_RD),
            (12, TLD4_ROLE_RD2),
            (13, TLD4_ROLE_RD2),
            (1, TLD4_ROLE_PRED_DST),
        ]
    );
    unsafe { tld4_insn_free(insn) };
}

/// The text nvdisasm printed for `kernel`+`offset` in a committed listing.
fn listing_text(sass: &str, offset: u64) -> String {
    let tag = format!("/*{offset:04x}*/");
    let line = sass
        .lines()
        .find(|l| l.trim_start().starts_with(&tag))
        .expect("listing line");
    let after = line.trim_start()[tag.len()..].trim_start();
    after[..after.find(" ;").unwrap() + 2]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_tld4_from_a_cubin_is_nvdisasms() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/");
    let sass = std::fs::read_to_string(format!("{root}one_gather.sm100.sass")).unwrap();
    let path = cstr(&format!("{root}one_gather.sm100.cubin"));
    let kernel = cstr("one_gather");
    let mut word = tld4_word::default();
    let mut insn = null_mut();
    let mut e = tld4_error::new();
    unsafe {
        assert_eq!(
            tld4_cubin_find_file(
                path.as_ptr(),
                kernel.as_ptr(),
                0x90,
                &mut word,
                &mut insn,
                &mut e
            ),
            TLD4_OK,
            "{}",
            e.message()
        );
        let mut buf = [0 as c_char; 128];
        assert_eq!(
            tld4_insn_text(insn, buf.as_mut_ptr(), buf.len(), null_mut(), &mut e),
            TLD4_OK
        );
        let text = CStr::from_ptr(buf.as_ptr())
            .to_str()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(text, listing_text(&sass, 0x90));
        tld4_insn_free(insn);
        // The same through the bytes, from the fat binary, without an instruction.
        let fat = std::fs::read(format!("{root}one_gather.fatbin")).unwrap();
        let mut w2 = tld4_word::default();
        assert_eq!(
            tld4_cubin_find(
                fat.as_ptr(),
                fat.len(),
                kernel.as_ptr(),
                0x90,
                &mut w2,
                null_mut(),
                &mut e
            ),
            TLD4_OK,
            "{}",
            e.message()
        );
        assert_eq!(w2, word);
        // Errors.
        assert_eq!(
            tld4_cubin_find_file(
                path.as_ptr(),
                kernel.as_ptr(),
                0x98,
                &mut word,
                null_mut(),
                &mut e
            ),
            TLD4_ERR_CUBIN
        );
        assert!(
            e.message().contains("not a multiple of 16"),
            "{}",
            e.message()
        );
        assert_eq!(
            tld4_cubin_find_file(
                path.as_ptr(),
                kernel.as_ptr(),
                0x80,
                &mut word,
                null_mut(),
                &mut e
            ),
            TLD4_ERR_CUBIN
        );
        assert!(e.message().contains("not a TLD4"), "{}", e.message());
        let nope = cstr("no_kernel");
        assert_eq!(
            tld4_cubin_find_file(
                path.as_ptr(),
                nope.as_ptr(),
                0x90,
                &mut word,
                null_mut(),
                &mut e
            ),
            TLD4_ERR_CUBIN
        );
        assert!(e.message().contains("one_gather"), "{}", e.message());
        // An sm_90 cubin: found and decoded with sm_90's tables; its word is given, the
        // decoded instruction (the sm_100 family's only) is refused as not modeled.
        let sm90 = cstr(&format!("{root}one_gather.sm90.cubin"));
        let mut word90 = tld4_word::default();
        assert_eq!(
            tld4_cubin_find_file(
                sm90.as_ptr(),
                kernel.as_ptr(),
                0x90,
                &mut word90,
                null_mut(),
                &mut e
            ),
            TLD4_OK
        );
        // The word nvdisasm lists there (tests/cubins/one_gather.sm90.sass).
        let listing = std::fs::read_to_string(format!("{root}one_gather.sm90.sass")).unwrap();
        let listed = tld4_cubin::listing::parse_listing(&listing).unwrap();
        let at = listed.iter().find(|l| l.offset == 0x90).unwrap();
        assert!(at.is_tld4());
        assert_eq!(Some(word90.get()), at.word);
        let mut insn90 = null_mut();
        assert_eq!(
            tld4_cubin_find_file(
                sm90.as_ptr(),
                kernel.as_ptr(),
                0x90,
                &mut word90,
                &mut insn90,
                &mut e
            ),
            TLD4_ERR_NOT_MODELED
        );
        assert!(insn90.is_null());
        assert!(
            e.message().contains(&format!("sm_90's `{}`", at.text)),
            "{}",
            e.message()
        );
        let missing = cstr(&format!("{root}missing.cubin"));
        assert_eq!(
            tld4_cubin_find_file(
                missing.as_ptr(),
                kernel.as_ptr(),
                0x90,
                &mut word,
                null_mut(),
                &mut e
            ),
            TLD4_ERR_IO
        );
        assert!(e.message().contains("missing.cubin"), "{}", e.message());
        let junk = [1u8, 2, 3, 4, 5];
        assert_eq!(
            tld4_cubin_find(
                junk.as_ptr(),
                junk.len(),
                kernel.as_ptr(),
                0,
                &mut word,
                null_mut(),
                &mut e
            ),
            TLD4_ERR_CUBIN
        );
    }
}

/// The child half of `a_caught_panic_prints_nothing`: panics inside the boundary (and inside
/// a nested entry, as a callback calling back in would), then panics outside it.
#[test]
fn panic_child() {
    if std::env::var_os("TLD4_PANIC_CHILD").is_none() {
        return;
    }
    let mut e = tld4_error::new();
    let status = unsafe {
        boundary(&mut e, || {
            let inner = boundary(null_mut(), || panic!("inner boom"));
            assert_eq!(inner, TLD4_ERR_PANIC);
            panic!("outer boom")
        })
    };
    assert_eq!(status, TLD4_ERR_PANIC);
    assert!(e.message().contains("outer boom"), "{}", e.message());
    assert!(
        e.message().contains("capi.rs:"),
        "the location: {}",
        e.message()
    );
    assert_eq!(quiet(7, || panic!("quiet boom")), 7);
    // outside an entry point the host's hook (here the default) still prints
    let _ = std::panic::catch_unwind(|| panic!("host panic"));
}

#[test]
fn a_caught_panic_prints_nothing() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "capi::panic_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TLD4_PANIC_CHILD", "1")
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("boom"), "a caught panic printed: {stderr}");
    assert!(
        stderr.contains("host panic"),
        "the host's panics print: {stderr}"
    );
}

/// One rule for paths and for ambiguous kernels, as scenario references have it: a device or a
/// FIFO is refused without reading from it (a FIFO with no writer would block the call), and a
/// kernel in two SM100 cubins of a file is refused, not the first one returned.
#[test]
fn devices_fifos_and_a_kernel_in_two_cubins_are_refused() {
    let mut word = tld4_word { lo: 0, hi: 0 };
    let mut e = tld4_error::new();
    let kernel = cstr("gather_a");
    let call = |path: &str, e: &mut tld4_error, word: &mut tld4_word| {
        let p = cstr(path);
        // SAFETY: valid NUL-terminated strings and out-pointers.
        unsafe { tld4_cubin_find_file(p.as_ptr(), kernel.as_ptr(), 0x110, word, null_mut(), e) }
    };
    assert_eq!(call("/dev/zero", &mut e, &mut word), TLD4_ERR_IO);
    assert!(
        e.message().contains("a character device"),
        "{}",
        e.message()
    );
    let dir = std::env::temp_dir().join(format!("tld4-capi-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    assert_eq!(call(fifo.to_str().unwrap(), &mut e, &mut word), TLD4_ERR_IO);
    assert!(e.message().contains("a FIFO"), "{}", e.message());
    std::fs::remove_dir_all(&dir).unwrap();
    let shapes = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/shapes/");
    // gather_a is in the sm_100 and the sm_100a cubin of the library: refused, naming both.
    let multi = format!("{shapes}libgather_multi.so");
    assert_eq!(call(&multi, &mut e, &mut word), TLD4_ERR_CUBIN);
    assert!(
        e.message().contains("#4 (sm_100), #6 (sm_100a)"),
        "{}",
        e.message()
    );
    // In an object with one cubin it is found (a compressed one: LZ4).
    assert_eq!(
        call(&format!("{shapes}gather_a.lz4.o"), &mut e, &mut word),
        TLD4_OK
    );
    assert_eq!((word.hi, word.lo), (0x001f6200081e0f06, 0x20ff04ff04047f63));
}
