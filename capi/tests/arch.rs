//! Every architecture through the C ABI: names and values, decoding and printing against
//! nvdisasm's golden corpora (`tests/golden/nvdisasm_arch_*.tsv`) and tld4-decoder, and the
//! constant-bank TLD4 of SM75 to SM90a executed with the embedder's constants, checked
//! against SM100's uniform-handle form on the same texture (results are whatever both
//! executions compute, never written down here).

use std::ffi::{c_void, CStr, CString};
use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_emu::decoder::{decode_arch, Arch, Family};
use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass};
use tld4_emu::Handle;

use tld4_status::*;

const CORPORA: [(Family, &str); 5] = [
    (
        Family::Sm75,
        include_str!("../../tests/golden/nvdisasm_arch_sm_75.tsv"),
    ),
    (
        Family::Sm80,
        include_str!("../../tests/golden/nvdisasm_arch_sm_80.tsv"),
    ),
    (
        Family::Sm100,
        include_str!("../../tests/golden/nvdisasm_arch_sm_100.tsv"),
    ),
    (
        Family::Sm107,
        include_str!("../../tests/golden/nvdisasm_arch_sm_107.tsv"),
    ),
    (
        Family::Sm120,
        include_str!("../../tests/golden/nvdisasm_arch_sm_120.tsv"),
    ),
];

/// nvdisasm's SM80-family listing of this word (tests/golden/nvdisasm_arch_sm_80.tsv):
/// `TLD4.G.AOFFI R10, R8, R28, R24, 0x3, 0x3f04, 2D ;`, the constant-bank form 0xb63.
const B63: &str = "00000000009e1f0a20ff04181c087b63";
/// nvdisasm's SM100 listing of this word (tests/golden/nvdisasm_arch_sm_100.tsv):
/// `TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;`, the same fields with the handle in UR4.
const F63: &str = "00000000089e1f0a20ff04181c087f63";

const HEADER: u32 = 3;
const SAMPLER: u32 = 1;
const W: u32 = 8;
const H: u32 = 4;
const BASE: u64 = 0x10_0000;
const REGS: usize = 32;

fn word(hex: &str) -> tld4_word {
    tld4_word::of(u128::from_str_radix(hex, 16).unwrap())
}

fn arch(name: &str) -> u32 {
    let c = CString::new(name).unwrap();
    let mut a = 0u32;
    let mut e = tld4_error::new();
    let st = unsafe { tld4_arch_from_name(c.as_ptr(), &mut a, &mut e) };
    assert_eq!(st, TLD4_OK, "{name}: {}", e.message());
    a
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn disassemble(a: u32, w: tld4_word) -> Result<String, (tld4_status, String)> {
    let mut buf = [0 as std::ffi::c_char; 128];
    let mut e = tld4_error::new();
    let st =
        unsafe { tld4_disassemble_arch(a, w, buf.as_mut_ptr(), buf.len(), null_mut(), &mut e) };
    if st != TLD4_OK {
        return Err((st, e.message()));
    }
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string())
}

#[test]
fn names_and_values_cover_every_architecture() {
    let mut all = vec![0u32; 64];
    let mut count = 0usize;
    let mut e = tld4_error::new();
    let st = unsafe { tld4_arch_list(all.as_mut_ptr(), all.len(), &mut count, &mut e) };
    assert_eq!(st, TLD4_OK);
    assert_eq!(count, Arch::ALL.len());
    for (&v, a) in all[..count].iter().zip(Arch::ALL) {
        assert_eq!(arch(a.name()), v, "{a}");
        assert_eq!(arch(a.nvdisasm_name()), v, "{a}");
        let name = unsafe { CStr::from_ptr(tld4_arch_name(v)) };
        assert_eq!(name.to_str().unwrap(), a.name());
    }
    assert_eq!(arch("sm_90"), tld4_arch::TLD4_ARCH_SM_90 as u32);
    assert_eq!(arch("SM100a"), tld4_arch::TLD4_ARCH_SM_100A as u32);
    // The header's enum names exactly the architectures, each with its value.
    let header = include_str!("../include/tld4.h");
    let listed: Vec<(String, u32)> = header
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("TLD4_ARCH_SM_")?;
            let (name, value) = l.split_once(" = ")?;
            Some((
                format!("sm_{}", name.to_ascii_lowercase()),
                value.trim_end_matches(',').parse().ok()?,
            ))
        })
        .collect();
    assert_eq!(listed.len(), Arch::ALL.len(), "{listed:?}");
    for (name, value) in &listed {
        assert_eq!(arch(name), *value, "{name}");
    }
}

#[test]
fn unknown_architectures_are_typed_errors() {
    let mut a = 7u32;
    let mut e = tld4_error::new();
    for bad in ["sm_91", "sm_100b", "", "hopper"] {
        let c = CString::new(bad).unwrap();
        let st = unsafe { tld4_arch_from_name(c.as_ptr(), &mut a, &mut e) };
        assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH, "{bad}");
        assert_eq!(e.status, TLD4_ERR_UNKNOWN_ARCH);
        assert!(e.message().contains(&format!("`{bad}`")), "{}", e.message());
        assert!(e.message().contains("sm_75, sm_80"), "{}", e.message());
        assert_eq!(a, 7, "nothing written");
    }
    let st = unsafe { tld4_arch_from_name(null(), &mut a, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(tld4_arch_name(0).is_null());
    assert!(tld4_arch_name(905).is_null());
    let mut insn = null_mut();
    let st = unsafe { tld4_decode_arch(905, word(B63), &mut insn, &mut e) };
    assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH);
    assert!(insn.is_null());
    assert_eq!(
        disassemble(12345, word(F63)).unwrap_err().0,
        TLD4_ERR_UNKNOWN_ARCH
    );
    let mut exec = null_mut();
    let st = unsafe { tld4_arch_exec_from_word(1, word(F63), null(), &mut exec, &mut e) };
    assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH);
}

/// For every family corpus and every architecture of the family: `tld4_disassemble_arch`
/// prints what tld4-decoder prints and, where nvdisasm printed a TLD4, nvdisasm's text;
/// where tld4-decoder refuses the word, the C call refuses it as an illegal encoding; the
/// text assembles back to the word, and decodes through `tld4_decode_arch` alike.
#[test]
fn disassembly_is_the_decoders_text_on_every_architecture() {
    let mut checked = [0usize; 2];
    for (family, corpus) in CORPORA {
        for a in family.archs() {
            let v = arch(a.name());
            for line in corpus
                .lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
            {
                let (hex, verdict) = line.split_once('\t').unwrap();
                let w = word(hex);
                let c = disassemble(v, w);
                match decode_arch(a, w.get()) {
                    Ok(insn) => {
                        let text = c.unwrap_or_else(|e| panic!("{a} {hex}: {e:?}"));
                        assert_eq!(text, insn.text(), "{a} {hex}");
                        assert_eq!(collapse(&text), verdict, "{a} {hex}");
                        checked[0] += 1;
                        round_trip(a, v, w, &text);
                    }
                    Err(_) => {
                        let (st, _) = c.unwrap_err();
                        assert_eq!(st, TLD4_ERR_ILLEGAL_ENCODING, "{a} {hex}");
                        checked[1] += 1;
                    }
                }
            }
        }
    }
    // Both outcomes occur in the corpora.
    assert!(checked[0] > 10_000 && checked[1] > 10_000, "{checked:?}");
}

fn round_trip(a: Arch, v: u32, w: tld4_word, text: &str) {
    let c = CString::new(text).unwrap();
    let mut back = tld4_word::default();
    let mut e = tld4_error::new();
    let st = unsafe { tld4_assemble_arch(v, c.as_ptr(), &mut back, &mut e) };
    assert_eq!(st, TLD4_OK, "{a} `{text}`: {}", e.message());
    assert_eq!(disassemble(v, back).unwrap(), text, "{a}");
    let mut insn = null_mut();
    unsafe {
        assert_eq!(tld4_decode_arch(v, w, &mut insn, &mut e), TLD4_OK);
        let mut again = tld4_word::default();
        assert_eq!(tld4_arch_insn_word(insn, &mut again, &mut e), TLD4_OK);
        assert_eq!(again, w, "{a}");
        let mut buf = [0 as std::ffi::c_char; 128];
        let st = tld4_arch_insn_text(insn, buf.as_mut_ptr(), 128, null_mut(), &mut e);
        assert_eq!(st, TLD4_OK);
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), text);
        tld4_arch_insn_free(insn);
    }
}

#[test]
fn the_constant_bank_form_names_its_slot_and_reads_no_uniform_register() {
    let mut e = tld4_error::new();
    let mut insn = null_mut();
    unsafe {
        assert_eq!(
            tld4_decode_arch(arch("sm_90"), word(B63), &mut insn, &mut e),
            TLD4_OK
        );
        let (mut a, mut op) = (0u32, 0u16);
        assert_eq!(tld4_arch_insn_form(insn, &mut a, &mut op, &mut e), TLD4_OK);
        assert_eq!((a, op), (tld4_arch::TLD4_ARCH_SM_90 as u32, 0xb63));
        let mut slot = tld4_constant_slot::default();
        assert_eq!(
            tld4_arch_insn_constant_slot(insn, &mut slot, &mut e),
            TLD4_OK
        );
        // The text prints bank 0x3 and word offset 0x3f04: c[3][4 * 0x3f04].
        assert!(slot.present);
        assert_eq!((slot.bank, slot.offset), (3, 4 * 0x3f04));
        let mut regs = [std::mem::zeroed::<tld4_used_register>(); TLD4_MAX_ARCH_USED_REGISTERS];
        let mut n = 0usize;
        let st = tld4_arch_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, &mut e);
        assert_eq!(st, TLD4_OK);
        assert!(n > 0);
        assert!(regs[..n]
            .iter()
            .all(|r| r.file != tld4_reg_file::TLD4_FILE_UREG));
        tld4_arch_insn_free(insn);

        // SM100's uniform form names no slot and reads UR4.
        assert_eq!(
            tld4_decode_arch(arch("sm_100"), word(F63), &mut insn, &mut e),
            TLD4_OK
        );
        assert_eq!(
            tld4_arch_insn_constant_slot(insn, &mut slot, &mut e),
            TLD4_OK
        );
        assert!(!slot.present);
        let st = tld4_arch_insn_used_registers(insn, regs.as_mut_ptr(), regs.len(), &mut n, &mut e);
        assert_eq!(st, TLD4_OK);
        assert!(regs[..n]
            .iter()
            .any(|r| r.file == tld4_reg_file::TLD4_FILE_UREG && r.number == 4));
        tld4_arch_insn_free(insn);
    }
}

fn handle() -> u32 {
    Handle::new(HEADER, SAMPLER).unwrap().0
}

/// The owned pool (texture header 3: RGBA8 UNORM 8x4, sampler 1: clamp to edge).
fn pool() -> *mut tld4_pool {
    let mut e = tld4_error::new();
    let mut pool = null_mut();
    let fields: Vec<u32> = (0..W * H)
        .flat_map(|i| [30 * (i % W), 60 * (i / W), i, 255])
        .collect();
    let format = CString::new("rgba8_unorm").unwrap();
    let desc = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: format.as_ptr(),
        width: W,
        height: H,
        layers: 1,
    };
    unsafe {
        assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK);
        let st = tld4_pool_set_texture(pool, HEADER, &desc, fields.as_ptr(), fields.len(), &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
        let mut s = std::mem::zeroed::<tld4_sampler_desc>();
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        s.address_u = 2;
        s.address_v = 2;
        assert_eq!(tld4_pool_set_sampler(pool, SAMPLER, &s, &mut e), TLD4_OK);
    }
    pool
}

/// The pool laid out as GPU memory (V2 headers): (image, header pool, sampler pool).
fn image(pool: *const tld4_pool) -> (Vec<u8>, u64, u64) {
    let entry = tld4_image_entry {
        texture: HEADER,
        sampler: SAMPLER,
        layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
        layout_param: 64,
    };
    let (mut needed, mut hp, mut sp) = (0usize, 0u64, 0u64);
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            BASE,
            null_mut(),
            0,
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL);
    let mut bytes = vec![0u8; needed];
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            BASE,
            bytes.as_mut_ptr(),
            bytes.len(),
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    (bytes, hp, sp)
}

/// A warp's registers, register-major: coordinates in [0, 1) in every register (so any
/// operand layout reads plausible ones), a distinct value per lane.
fn registers() -> Vec<u32> {
    (0..REGS * 32)
        .map(|i| (((i * 37) % 101) as f32 / 101.0).to_bits())
        .collect()
}

struct Warp {
    regs: Vec<u32>,
    uregs: Vec<u32>,
    preds: [u32; 7],
}

impl Warp {
    fn new(uregs: Vec<u32>) -> Self {
        Warp {
            regs: registers(),
            uregs,
            preds: [u32::MAX; 7],
        }
    }
    fn flat(&mut self) -> tld4_warp_flat {
        tld4_warp_flat {
            regs: self.regs.as_mut_ptr(),
            num_regs: REGS as u32,
            reg_stride: 32,
            lane_stride: 1,
            preds: self.preds,
            uregs: if self.uregs.is_empty() {
                null()
            } else {
                self.uregs.as_ptr()
            },
            num_uregs: self.uregs.len() as u32,
            active_mask: u32::MAX,
        }
    }
}

fn exec_of(arch_name: &str, hex: &str) -> *mut tld4_arch_exec {
    let mut exec = null_mut();
    let mut e = tld4_error::new();
    let st =
        unsafe { tld4_arch_exec_from_word(arch(arch_name), word(hex), null(), &mut exec, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    exec
}

/// SM100's uniform form over the owned pool, the handle in UR4: the reference results.
fn sm100_results(pool: *const tld4_pool) -> Vec<u32> {
    let exec = exec_of("sm_100", F63);
    let mut warp = Warp::new(vec![0, 0, 0, 0, handle()]);
    let mut flat = warp.flat();
    let mut e = tld4_error::new();
    let mut report = tld4_exec_report::default();
    let st = unsafe { tld4_arch_exec_run_flat(exec, null(), pool, &mut flat, &mut report, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(report.executed, u32::MAX);
    unsafe { tld4_arch_exec_free(exec) };
    assert_ne!(warp.regs, registers(), "the gather wrote results");
    warp.regs
}

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

fn memory_of(bytes: &[u8]) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
        base: BASE,
        bytes: bytes.as_ptr(),
        len: bytes.len(),
        user: null_mut(),
        read: None,
    }
}

/// The handle of `image`'s entry 0: header 0, sampler 0 (`tld4_image_entry`).
fn image_handle() -> u32 {
    Handle::new(0, 0).unwrap().0
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

/// nvdisasm's SM120-family listing of this word (tests/golden/nvdisasm_arch_sm_120.tsv):
/// `TLD4.G.AOFFI R10, R8, R28, R24, UR4, UR251, 2D ;`, with a second uniform register.
const SM120: &str = "00000000089e1f0a20fb04181c087f63";

unsafe extern "C" fn cb_reg(user: *mut c_void, lane: u32, r: u32) -> u32 {
    let w = unsafe { &*user.cast::<Warp>() };
    w.regs[r as usize * 32 + lane as usize]
}
unsafe extern "C" fn cb_set_reg(user: *mut c_void, lane: u32, r: u32, value: u32) {
    let w = unsafe { &mut *user.cast::<Warp>() };
    w.regs[r as usize * 32 + lane as usize] = value;
}
unsafe extern "C" fn cb_pred(user: *mut c_void, lane: u32, p: u32) -> bool {
    let w = unsafe { &*user.cast::<Warp>() };
    w.preds[p as usize] >> lane & 1 != 0
}
unsafe extern "C" fn cb_set_pred(user: *mut c_void, lane: u32, p: u32, value: bool) {
    let w = unsafe { &mut *user.cast::<Warp>() };
    w.preds[p as usize] = w.preds[p as usize] & !(1 << lane) | (value as u32) << lane;
}
unsafe extern "C" fn cb_ureg(user: *mut c_void, u: u32) -> u32 {
    let w = unsafe { &*user.cast::<Warp>() };
    w.uregs.get(u as usize).copied().unwrap_or(0)
}

fn regfile(w: &mut Warp) -> tld4_regfile {
    tld4_regfile {
        user: (w as *mut Warp).cast(),
        reg: Some(cb_reg),
        set_reg: Some(cb_set_reg),
        pred: Some(cb_pred),
        set_pred: Some(cb_set_pred),
        ureg: Some(cb_ureg),
        active_mask: u32::MAX,
        regs_per_thread: REGS as u32,
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
        assert_eq!(st, TLD4_OK, "{}", e.message());
        assert_eq!(warp.regs, expected);
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
