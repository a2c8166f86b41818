//! Texture headers and samplers as the driver of a given architecture's GPU writes them, for
//! C: which 3-D class and header layout an architecture's GPUs use (`tld4_arch_descriptors`),
//! encoding and decoding texture headers and samplers in that class's layout
//! (`tld4_tic_encode_arch`, ...), and gathering from textures in GPU memory whose headers
//! are in it (`tld4_mem_gather_arch`). The classes, their layouts and the architecture of
//! each are tld4-gpu-memory's tables (`ARCH_CLASSES`, `ClassDescriptors`; docs/sources.md,
//! Descriptors per GPU class), never restated here.

use std::ffi::c_char;

use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass, HeaderFormat};

use crate::arch::arch_of;
use crate::descriptor::{descriptor, in_words, out_words, tld4_tic_desc, tld4_tsc_desc};
use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::exec::tld4_exec_config;
use crate::gather::{gather_with, tld4_gather_query, tld4_gather_result};
use crate::insn::tld4_insn;
use crate::memory::tld4_memory;
use crate::ptr::{in_ref, out};

/// Bytes of [`tld4_arch_class::name`], the NUL included.
pub const TLD4_CLASS_NAME_LEN: usize = 16;

/// The 3-D class an architecture's GPUs use and the texture header layout its driver
/// writes (`tld4_arch_descriptors`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct tld4_arch_class {
    /// The class number (0xc597 for TURING_A, ..., 0xce97 for BLACKWELL_B).
    pub class_id: u32,
    /// The texture header layout: 1 for V1 (`TEXHEAD_BL` / `TEXHEAD_PITCH`, TURING_A to
    /// ADA_A), 2 for V2 (`TEXHEAD_V2_BL` / `TEXHEAD_V2_PITCH`, HOPPER_A and later).
    pub header_version: u32,
    /// The class's name (`TURING_A`), NUL-terminated.
    pub name: [c_char; TLD4_CLASS_NAME_LEN],
}

/// The descriptors of architecture `arch` (a `tld4_arch` value): its GPU class with the
/// class's default header layout. An unknown value is `TLD4_ERR_UNKNOWN_ARCH`; an
/// architecture no source ties to a class (sm_88, sm_107) is `TLD4_ERR_NOT_MODELED`.
fn descriptors_of(arch: u32) -> Result<ClassDescriptors, Error> {
    let a = arch_of(arch)?;
    Ok(ClassDescriptors::new(GpuClass::for_arch(a.name())?))
}

/// Which 3-D class the GPUs of architecture `arch` (a `tld4_arch` value) use, and which
/// texture header layout their driver writes (V1 up to ADA_A, V2 from HOPPER_A on, as
/// Mesa's NIL does): into `*class`. Errors: `TLD4_ERR_UNKNOWN_ARCH` for a value that is no
/// `tld4_arch`, `TLD4_ERR_NOT_MODELED` for an architecture whose class no source names
/// (sm_88, sm_107; the message says so).
///
/// # Safety
/// `class` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_descriptors(
    arch: u32,
    class: *mut tld4_arch_class,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let d = descriptors_of(arch)?;
        let mut name = [0 as c_char; TLD4_CLASS_NAME_LEN];
        for (n, b) in name.iter_mut().zip(d.class.name().bytes()) {
            *n = b as c_char;
        }
        let header_version = match d.format {
            HeaderFormat::V1 => 1,
            HeaderFormat::V2 => 2,
        };
        out(
            class,
            "class",
            tld4_arch_class {
                class_id: d.class.id(),
                header_version,
                name,
            },
        )
    })
}

/// `tld4_tic_encode` in the texture header layout of architecture `arch`'s class: the
/// header a driver for that GPU writes (V1, `TEXHEAD_BL` / `TEXHEAD_PITCH`, for sm_75 to
/// sm_89; V2 for sm_90 and later). It is checked by decoding it back in that layout; errors
/// as `tld4_tic_encode`'s, a V1 error naming V1's field, and as `tld4_arch_descriptors`' for
/// `arch`. Nothing is written on an error.
///
/// # Safety
/// `desc` valid with a NUL-terminated `format`; `words` valid for 8 writes; `err` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tic_encode_arch(
    arch: u32,
    desc: *const tld4_tic_desc,
    words: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let d = descriptors_of(arch)?;
        let h = in_ref(desc, "desc")?.header()?;
        let w = d.encode_tic(&h).map_err(descriptor("texture header"))?;
        d.decode_tic(&w).map_err(descriptor("texture header"))?;
        out_words(words, &w)
    })
}

/// `tld4_tic_decode` of a texture header in the layout of architecture `arch`'s class (a V1
/// header is read field by field as V1 places them). Errors as `tld4_tic_decode`'s, a V1
/// error naming V1's field, and as `tld4_arch_descriptors`' for `arch`.
///
/// # Safety
/// `words` valid for 8 reads; `desc` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tic_decode_arch(
    arch: u32,
    words: *const u32,
    desc: *mut tld4_tic_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let d = descriptors_of(arch)?;
        let w = in_words(words)?;
        let h = d.decode_tic(&w).map_err(descriptor("texture header"))?;
        out(desc, "desc", tld4_tic_desc::of(&h))
    })
}

/// `tld4_tsc_encode` for architecture `arch`'s class. Every class restated places the
/// sampler's typed fields at the same bits (its classes differ only in the names of unused
/// bits: docs/sources.md, Descriptors per GPU class), so the words equal
/// `tld4_tsc_encode`'s; the architecture is checked as `tld4_arch_descriptors` does.
///
/// # Safety
/// `desc` valid; `words` valid for 8 writes; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tsc_encode_arch(
    arch: u32,
    desc: *const tld4_tsc_desc,
    words: *mut u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let d = descriptors_of(arch)?;
        let s = in_ref(desc, "desc")?.state()?;
        out_words(words, &d.encode_tsc(&s))
    })
}

/// `tld4_tsc_decode` for architecture `arch`'s class (see `tld4_tsc_encode_arch`).
///
/// # Safety
/// `words` valid for 8 reads; `desc` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_tsc_decode_arch(
    arch: u32,
    words: *const u32,
    desc: *mut tld4_tsc_desc,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let d = descriptors_of(arch)?;
        let w = in_words(words)?;
        out(desc, "desc", tld4_tsc_desc::of(&d.decode_tsc(&w)))
    })
}

/// `tld4_mem_gather` with the texture headers and samplers in the pools read as the GPUs of
/// architecture `arch` read them (its class's layout, `tld4_arch_descriptors`): a texture
/// a driver for that GPU wrote with `tld4_tic_encode_arch`. `insn` gives the gather's form
/// (component, dimension, offsets, depth compare) as for `tld4_mem_gather`. Errors as
/// `tld4_mem_gather`'s, and as `tld4_arch_descriptors`' for `arch`.
///
/// # Safety
/// As `tld4_mem_gather`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_mem_gather_arch(
    arch: u32,
    insn: *const tld4_insn,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    handle: u32,
    config: *const tld4_exec_config,
    queries: *const tld4_gather_query,
    count: usize,
    results: *mut tld4_gather_result,
    err: *mut tld4_error,
) -> tld4_status {
    let descriptors = match descriptors_of(arch) {
        Ok(d) => d,
        // The arch's error, reported through the entry point's boundary.
        Err(e) => return entry!(err, { Err::<(), Error>(e) }),
    };
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        gather_with(
            descriptors,
            insn,
            memory,
            header_pool,
            sampler_pool,
            handle,
            config,
            queries,
            count,
            results,
            err,
        )
    }
}
