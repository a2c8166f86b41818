//! Helpers shared by the C ABI's integration tests.

use std::ffi::CString;
use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_status::*;

pub fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

pub fn insn_of(text: &str) -> *mut tld4_insn {
    let t = cstr(text);
    let mut insn = null_mut();
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_parse(t.as_ptr(), &mut insn, &mut e) },
        TLD4_OK,
        "{}",
        e.message()
    );
    insn
}

pub fn exec_of(text: &str) -> *mut tld4_exec {
    let insn = insn_of(text);
    let mut exec = null_mut();
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_exec_new(insn, null(), &mut exec, &mut e) },
        TLD4_OK
    );
    unsafe { tld4_insn_free(insn) };
    exec
}
