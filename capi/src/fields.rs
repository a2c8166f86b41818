//! The texture-header and sampler field tables in C: each field's name, bit range and
//! meaning as tld4-gpu-memory's descriptor tables give them for an architecture's GPU class
//! (`ClassDescriptors::tic_table` / `tsc_table`: clcd97tex.h and the other classes'
//! headers; docs/sources.md, Descriptors; docs/sources.md, Descriptors per GPU class), never
//! restated here; and which fields two descriptors' words disagree on.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::{Mutex, OnceLock};

use tld4_emu::gpu_memory::descriptor::{differing, DescField};
use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass, HeaderLayout};

use crate::arch::arch_of;
use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::ptr::out_array;

/// Which descriptor table (`tld4_desc_fields`, `tld4_desc_diff`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_desc_table {
    /// The block-linear texture header (HEADER_VERSION BLOCKLINEAR: `TEXHEAD_V2_BL`, or
    /// `TEXHEAD_BL` where the class reads V1 headers).
    TLD4_DESC_TIC_BLOCK_LINEAR = 0,
    /// The pitch-linear texture header (HEADER_VERSION PITCH: `TEXHEAD_V2_PITCH`, V1's
    /// `TEXHEAD_PITCH`).
    TLD4_DESC_TIC_PITCH = 1,
    /// The sampler (`TEXSAMP0..7`, with the class's own names for word 0 bits 19:14).
    TLD4_DESC_TSC = 2,
}

/// One field of a descriptor table: the name as NVIDIA's class header writes it (without
/// the `NVCD97_TEXHEAD_V2_BL_` style prefix), its bits `hi:lo` over the 256-bit entry (word
/// `lo / 32`, bit `lo % 32`) and what it means. The strings are static: never free them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct tld4_desc_field {
    /// The field's name, e.g. `"SECTOR_PROMOTION"`.
    pub name: *const c_char,
    /// Its lowest bit over the entry.
    pub lo: u32,
    /// Its highest bit (inclusive).
    pub hi: u32,
    /// What it means, in a few words.
    pub meaning: *const c_char,
}

/// A static NUL-terminated copy of `s` (each distinct string made once and kept).
fn c_static(s: &'static str) -> *const c_char {
    static STRINGS: OnceLock<Mutex<HashMap<&'static str, CString>>> = OnceLock::new();
    let mut m = STRINGS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    // The CString's buffer does not move when the map grows, and nothing is removed.
    m.entry(s)
        .or_insert_with(|| CString::new(s).unwrap_or_default())
        .as_ptr()
}

/// The table `table` of `arch`'s GPU class, as its default header layout reads it.
fn table_of(arch: u32, table: u32) -> Result<&'static [DescField], Error> {
    let class = GpuClass::for_arch(arch_of(arch)?.name())?;
    let d = ClassDescriptors::new(class);
    Ok(match table {
        0 => d.tic_table(HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: 0,
        }),
        1 => d.tic_table(HeaderLayout::Pitch { pitch: 0 }),
        2 => d.tsc_table(),
        t => {
            return Err(Error::Invalid(format!(
                "table = {t}: not a tld4_desc_table (0..=2)"
            )))
        }
    })
}

/// Reads eight words.
///
/// # Safety
/// `p` is NULL or valid for eight reads.
unsafe fn words(p: *const u32, what: &'static str) -> Result<[u32; 8], Error> {
    // SAFETY: the caller's guarantee.
    let s = unsafe { crate::ptr::in_slice(p, 8, what) }?;
    let mut w = [0u32; 8];
    w.copy_from_slice(s);
    Ok(w)
}

/// The fields of descriptor table `table` (a `tld4_desc_table`) for architecture `arch` (a
/// `tld4_arch`: its GPU class's default layout, as the `_arch` executions read descriptors),
/// in bit order, into `fields` (`cap` entries; `*count` receives how many there are, and too
/// few is `TLD4_ERR_BUFFER_TOO_SMALL`: call with `cap` 0 to learn it). An architecture
/// without a class is `TLD4_ERR_NOT_MODELED`.
///
/// # Safety
/// `fields` NULL or valid for `cap` writes; `count`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_desc_fields(
    arch: u32,
    table: u32,
    fields: *mut tld4_desc_field,
    cap: usize,
    count: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let rows: Vec<tld4_desc_field> = table_of(arch, table)?
            .iter()
            .map(|f| tld4_desc_field {
                name: c_static(f.name),
                lo: f.lo.into(),
                hi: f.hi.into(),
                meaning: c_static(f.meaning),
            })
            .collect();
        out_array(fields, cap, count, "fields", &rows)
    })
}

/// Which fields of table `table` for `arch` (as `tld4_desc_fields` lists them) differ
/// between the descriptors `a` and `b` (eight words each, as the encoders write them): their
/// positions in that list, in bit order, into `indices` (`cap` entries; `*count` receives
/// how many differ, too few is `TLD4_ERR_BUFFER_TOO_SMALL`). For texture headers the caller
/// names the layout (HEADER_VERSION, bits 127:124, selects it); reserved fields are
/// compared too.
///
/// # Safety
/// `a`, `b` valid for eight reads; `indices` NULL or valid for `cap` writes; `count`, `err`
/// NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_desc_diff(
    arch: u32,
    table: u32,
    a: *const u32,
    b: *const u32,
    indices: *mut u32,
    cap: usize,
    count: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let t = table_of(arch, table)?;
        let (a, b) = (words(a, "a")?, words(b, "b")?);
        let rows: Vec<u32> = differing(t, &a, &b).map(|i| i as u32).collect();
        out_array(indices, cap, count, "indices", &rows)
    })
}
