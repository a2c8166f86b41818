//! Fault kinds for C: an enum whose values follow `tld4_emu::FaultKind::ALL`, and their
//! stable names, which come from `tld4_emu` (the one table of names).

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use tld4_emu::FaultKind;

/// The kind of a warp fault (`tld4_error::fault`). Value `k` (from 1) is entry `k - 1` of
/// tld4-emu's `FaultKind::ALL`; `tld4_fault_name` gives its stable name.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_fault_kind {
    /// No fault (the call did not raise a warp exception).
    TLD4_FAULT_NONE = 0,
    /// An encoding the hardware cannot execute (an INVALID field value, a `???255` operand).
    TLD4_FAULT_ILLEGAL_ENCODING = 1,
    /// An operand vector past R254 or past the registers a thread has.
    TLD4_FAULT_REGISTER_OUT_OF_RANGE = 2,
    /// An odd 64-bit destination pair, with alignment required.
    TLD4_FAULT_MISALIGNED_REGISTER = 3,
    /// A handle whose texture-header index names no header.
    TLD4_FAULT_UNKNOWN_TEXTURE_HEADER = 4,
    /// A handle whose sampler index names no sampler.
    TLD4_FAULT_UNKNOWN_SAMPLER = 5,
    /// A texture or sampler the texture unit refuses as invalid input.
    TLD4_FAULT_INVALID_TEXTURE = 6,
    /// An invalid executor setting (for example the sub-texel precision).
    TLD4_FAULT_INVALID_CONFIG = 7,
    /// Valid, but what the hardware does is not modeled.
    TLD4_FAULT_NOT_MODELED = 8,
    /// A constant-bank TLD4 (SM75 to SM90a, form 0xb63) whose texture-handle constant the
    /// embedder does not hold (tld4-emu's `ArchExecError::NoConstant`, named `no_constant`;
    /// not one of `FaultKind::ALL`, hence a value apart from theirs).
    TLD4_FAULT_NO_CONSTANT = 64,
    /// A kind this version of the C interface does not name yet (tld4-emu added one).
    TLD4_FAULT_OTHER = 255,
}

/// The C values in order, after `TLD4_FAULT_NONE`: entry `k` is `FaultKind::ALL[k]`.
const BY_POSITION: [tld4_fault_kind; 8] = {
    use tld4_fault_kind::*;
    [
        TLD4_FAULT_ILLEGAL_ENCODING,
        TLD4_FAULT_REGISTER_OUT_OF_RANGE,
        TLD4_FAULT_MISALIGNED_REGISTER,
        TLD4_FAULT_UNKNOWN_TEXTURE_HEADER,
        TLD4_FAULT_UNKNOWN_SAMPLER,
        TLD4_FAULT_INVALID_TEXTURE,
        TLD4_FAULT_INVALID_CONFIG,
        TLD4_FAULT_NOT_MODELED,
    ]
};

impl tld4_fault_kind {
    /// The C value of a kind: its position in `FaultKind::ALL`, plus one.
    pub fn of(kind: FaultKind) -> Self {
        FaultKind::ALL
            .iter()
            .position(|&k| k == kind)
            .and_then(|i| BY_POSITION.get(i).copied())
            .unwrap_or(tld4_fault_kind::TLD4_FAULT_OTHER)
    }

    /// The Rust kind of a C value (None for NONE, OTHER and values that are no kind).
    pub fn kind(value: i32) -> Option<FaultKind> {
        let i = usize::try_from(value).ok()?.checked_sub(1)?;
        BY_POSITION.get(i)?;
        FaultKind::ALL.get(i).copied()
    }
}

/// The names, NUL-terminated, built once from `FaultKind::name` (immutable after that).
fn names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    NAMES.get_or_init(|| {
        FaultKind::ALL
            .iter()
            .map(|k| CString::new(k.name()).unwrap_or_default())
            .collect()
    })
}

/// The stable name of a fault kind (`"unknown_sampler"`), `"none"` for `TLD4_FAULT_NONE`,
/// or NULL for a value that names no kind. The string is static: never free it.
#[no_mangle]
pub extern "C" fn tld4_fault_name(kind: i32) -> *const c_char {
    crate::error::quiet(std::ptr::null(), || {
        if kind == tld4_fault_kind::TLD4_FAULT_NONE as i32 {
            return c"none".as_ptr();
        }
        if kind == tld4_fault_kind::TLD4_FAULT_NO_CONSTANT as i32 {
            return crate::arch_exec::NO_CONSTANT_NAME.as_ptr();
        }
        match tld4_fault_kind::kind(kind) {
            Some(k) => FaultKind::ALL
                .iter()
                .position(|&x| x == k)
                .and_then(|i| names().get(i))
                .map_or(std::ptr::null(), |s| s.as_ptr()),
            None => std::ptr::null(),
        }
    })
}

/// Whether a fault kind is "valid but not modeled" (as opposed to a fault the hardware, or
/// the caller's setup, raises).
#[no_mangle]
pub extern "C" fn tld4_fault_is_not_modeled(kind: i32) -> bool {
    crate::error::quiet(false, || {
        tld4_fault_kind::kind(kind).is_some_and(FaultKind::is_not_modeled)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rust_kind_has_its_own_c_value() {
        assert_eq!(FaultKind::ALL.len(), BY_POSITION.len());
        for (i, &k) in FaultKind::ALL.iter().enumerate() {
            let c = tld4_fault_kind::of(k);
            assert_eq!(c as i32, i as i32 + 1);
            assert_eq!(tld4_fault_kind::kind(c as i32), Some(k));
        }
        assert_eq!(tld4_fault_kind::kind(0), None);
        assert_eq!(tld4_fault_kind::kind(255), None);
        assert_eq!(tld4_fault_kind::kind(-1), None);
    }
}
