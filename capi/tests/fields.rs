//! The descriptor field tables from C (`tld4_desc_fields`) are tld4-gpu-memory's, row for
//! row, per architecture's GPU class; `tld4_desc_diff` names the fields two descriptors
//! disagree on.

use std::ffi::CStr;
use std::ptr::null_mut;

use crate::arch_fixture::arch;
use crate::common::cstr;
use tld4_capi::*;
use tld4_emu::gpu_memory::descriptor::tic::{TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
use tld4_emu::gpu_memory::GpuClass;
use tld4_status::*;

fn fields(arch_name: &str, table: tld4_desc_table) -> Vec<(String, u32, u32, String)> {
    let mut e = tld4_error::new();
    let mut n = 0usize;
    let a = arch(arch_name);
    let st = unsafe { tld4_desc_fields(a, table as u32, null_mut(), 0, &mut n, &mut e) };
    assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL, "{}", e.message());
    let blank = tld4_desc_field {
        name: std::ptr::null(),
        lo: 0,
        hi: 0,
        meaning: std::ptr::null(),
    };
    let mut rows = vec![blank; n];
    let st = unsafe { tld4_desc_fields(a, table as u32, rows.as_mut_ptr(), n, &mut n, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let s = |p| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
    rows.iter()
        .map(|f| (s(f.name), f.lo, f.hi, s(f.meaning)))
        .collect()
}

fn rust_rows(t: &[tld4_emu::gpu_memory::descriptor::DescField]) -> Vec<(String, u32, u32, String)> {
    t.iter()
        .map(|f| (f.name.into(), f.lo.into(), f.hi.into(), f.meaning.into()))
        .collect()
}

#[test]
fn field_tables_from_c_are_the_descriptor_tables_of_the_class() {
    use tld4_desc_table::*;
    let bl = fields("sm_100", TLD4_DESC_TIC_BLOCK_LINEAR);
    assert_eq!(bl, rust_rows(TEXHEAD_V2_BL));
    assert!(bl
        .iter()
        .any(|f| f.0 == "SECTOR_PROMOTION" && (f.1, f.2) == (154, 155)));
    assert_eq!(
        fields("sm_100", TLD4_DESC_TIC_PITCH),
        rust_rows(TEXHEAD_V2_PITCH)
    );
    let tsc = fields("sm_100", TLD4_DESC_TSC);
    assert_eq!(tsc, rust_rows(GpuClass::BlackwellA.tsc_table()));
    assert!(tsc.iter().any(|f| f.0 == "FONT_FILTER"));
    // Turing's class names word 0 bits 19:14 itself; its headers are V1.
    let tsc75 = fields("sm_75", TLD4_DESC_TSC);
    assert_eq!(tsc75, rust_rows(GpuClass::TuringA.tsc_table()));
    assert!(
        tsc75.iter().any(|f| f.0 == "RESERVED0A") && !tsc75.iter().any(|f| f.0 == "FONT_FILTER")
    );
    assert_ne!(fields("sm_75", TLD4_DESC_TIC_BLOCK_LINEAR), bl);
    // Not a table.
    let mut e = tld4_error::new();
    let mut n = 0usize;
    let st = unsafe { tld4_desc_fields(arch("sm_100"), 3, null_mut(), 0, &mut n, &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(e.message().contains("tld4_desc_table"), "{}", e.message());
}

/// An 8 x 4 RGBA8 pitch header at `address` with swizzle `swizzle`.
fn header(address: u64, swizzle: [u32; 4]) -> [u32; 8] {
    let f = cstr("rgba8_unorm");
    let d = tld4_tic_desc {
        layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
        pitch: 64,
        gobs_per_block_height_log2: 0,
        address,
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: f.as_ptr(),
        width: 8,
        height: 4,
        depth: 1,
        swizzle,
        depth_texture: false,
        normalized_coords: true,
    };
    let mut w = [0u32; 8];
    let mut e = tld4_error::new();
    let st = unsafe { tld4_tic_encode(&d, w.as_mut_ptr(), &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    w
}

#[test]
fn the_diff_names_the_fields_two_descriptors_disagree_on() {
    let a = header(0x1000, [0, 1, 2, 3]);
    let b = header(0x2000, [0, 1, 2, 5]);
    let names = fields("sm_100", tld4_desc_table::TLD4_DESC_TIC_PITCH);
    let mut e = tld4_error::new();
    let mut idx = [0u32; 8];
    let mut n = 0usize;
    let table = tld4_desc_table::TLD4_DESC_TIC_PITCH as u32;
    let sm100 = arch("sm_100");
    let st = unsafe {
        tld4_desc_diff(
            sm100,
            table,
            a.as_ptr(),
            b.as_ptr(),
            idx.as_mut_ptr(),
            8,
            &mut n,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let differ: Vec<&str> = idx[..n]
        .iter()
        .map(|&i| names[i as usize].0.as_str())
        .collect();
    assert_eq!(differ, ["ADDRESS_BITS31TO5", "W_SOURCE"]);
    // Equal words: none; too small a buffer: the count.
    let st = unsafe {
        tld4_desc_diff(
            sm100,
            table,
            a.as_ptr(),
            a.as_ptr(),
            idx.as_mut_ptr(),
            8,
            &mut n,
            &mut e,
        )
    };
    assert_eq!((st, n), (TLD4_OK, 0));
    let st = unsafe {
        tld4_desc_diff(
            sm100,
            table,
            a.as_ptr(),
            b.as_ptr(),
            idx.as_mut_ptr(),
            1,
            &mut n,
            &mut e,
        )
    };
    assert_eq!((st, n), (TLD4_ERR_BUFFER_TOO_SMALL, 2));
    let st = unsafe {
        tld4_desc_diff(
            sm100,
            table,
            std::ptr::null(),
            b.as_ptr(),
            idx.as_mut_ptr(),
            8,
            &mut n,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
}
