//! Typed errors of decoding and of parsing nvdisasm's text.

use thiserror::Error;

use crate::arch::Arch;

/// Why a 128-bit word is not a TLD4 that nvdisasm accepts.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// Bits 11:0 hold another instruction's opcode (nvdisasm: "Unrecognized operation ..." or
    /// another mnemonic).
    #[error(
        "opcode {opcode:#05x} (bits 11:0) is not TLD4: TLD4 is 0xd64 (texture handle in a register) \
         or 0xf63 (handle in a uniform register)"
    )]
    NotTld4 {
        /// The 12-bit opcode found.
        opcode: u16,
    },
    /// Bit 91 is clear (nvdisasm: "Illegal instruction").
    #[error(
        "bit 91 is clear, and every TLD4 needs it set (nvdisasm reports an illegal instruction)"
    )]
    Bit91Clear,
    /// The scheduling pair is not in nvdisasm's table `TABLES_opex_0`.
    #[error(
        "the scheduling bits are not a valid combination: opex {opex:#04x} (usched_info, bits 109:105 = \
         {usched_info:#04x}; batch_t, bits 124:122 = {batch_t}) is undefined in nvdisasm's table TABLES_opex_0"
    )]
    UndefinedOpex {
        /// The combined value nvdisasm checks.
        opex: u8,
        /// Bits 109:105.
        usched_info: u8,
        /// Bits 124:122.
        batch_t: u8,
    },
    /// The opcode is not a TLD4 form on this architecture
    /// (docs/sources.md, TLD4 on every architecture).
    #[error("opcode {opcode:#05x} (bits 11:0) is not TLD4 on {arch}")]
    NotTld4OnArch {
        /// The architecture.
        arch: Arch,
        /// The 12-bit opcode found.
        opcode: u16,
    },
    /// The opcode is a TLD4 form to nvdisasm on this architecture, but tld4 does not model
    /// it: valid or not, the word is not decoded (its other fields are not checked).
    #[error("opcode {opcode:#05x} is a TLD4 form on {arch} that tld4 does not model (valid but not modeled)")]
    FormNotModeled {
        /// The architecture.
        arch: Arch,
        /// The 12-bit opcode.
        opcode: u16,
    },
    /// Bits that must hold one value on this architecture do not (nvdisasm: "Unrecognized
    /// operation").
    #[error("bits {bits} must be {value} in a TLD4 on {arch} (nvdisasm reports an unrecognized operation)")]
    RequiredBits {
        /// The architecture.
        arch: Arch,
        /// The bit range, `hi:lo` or one bit.
        bits: String,
        /// The value they must hold.
        value: u32,
    },
}

/// Why [`crate::decode_many`] decoded nothing: its two slices differ in length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("decode_many was given {words} words and room for {results} results; the two must be equally long")]
pub struct LengthMismatch {
    /// The number of words given.
    pub words: usize,
    /// The number of result slots given.
    pub results: usize,
}

/// Why a line of text is not a TLD4 in nvdisasm's syntax.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("column {column}: expected {expected}, found {found}")]
pub struct ParseError {
    /// 1-based column (in characters) where the problem starts.
    pub column: usize,
    /// What the parser expected there.
    pub expected: String,
    /// What it found, quoted, or "the end of the line".
    pub found: String,
}

/// Why a typed [`crate::Tld4`] cannot be encoded as a word that nvdisasm accepts.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EncodeError {
    /// A numeric member holds more bits than its field.
    #[error("field `{field}` (bits {bits}) cannot hold {value}: it has {width} bits")]
    TooWide {
        /// The field's name.
        field: &'static str,
        /// Its bit range.
        bits: String,
        /// Its width.
        width: u32,
        /// The value given.
        value: u32,
    },
    /// The encoded word would be refused.
    #[error(transparent)]
    Illegal(#[from] DecodeError),
}
