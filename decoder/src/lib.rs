//! Decode, encode, disassemble and assemble NVIDIA SM100 (Blackwell) `TLD4` instruction
//! words exactly as nvdisasm does.
//!
//! ```
//! use tld4_decoder::{decode, parse, Component, Dimension, OffsetMode};
//!
//! // What ptxas emits for a PTX `tld4.g.2d` with an offset (bits per docs/sources.md).
//! let text = "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;";
//! let insn = parse(text)?;
//! assert_eq!(insn.component, Component::G);
//! assert_eq!(insn.offset_mode, OffsetMode::Aoffi);
//! assert_eq!(insn.dimension, Dimension::Tex2D);
//! let word = insn.encode();
//! assert_eq!(decode(word)?.to_string(), text);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The field table ([`FIELDS`], [`field`]) is the one place where bit positions are written.
//! The crate knows nothing of textures; `tld4-emu` gives the instruction its meaning.

#![warn(missing_docs)]

mod access;
mod error;
mod fast;
#[cfg(target_arch = "x86_64")]
mod fast_avx2;
// The field docs write operand vectors as `[layer], u, v`, which rustdoc reads as links;
// they are also the text of docs/fields.md, so they stay as they are.
#[allow(rustdoc::broken_intra_doc_links)]
mod fields;
mod operands;
mod opex;
mod scheduling;
mod text;
mod values;
mod word;

pub use access::{
    destination_counts, Access, Location, OperandRole, OperandVector, OperandVectors, UsedRegister,
    UsedRegisters, MAX_USED_REGISTERS,
};
pub use error::{DecodeError, EncodeError, ParseError};
pub use fields::{
    field, fields_markdown, AlwaysSet, FieldEffect, FieldSpec, FieldValue, Tld4, FIELDS,
};
pub use operands::{RaLayout, RbLayout};
pub use opex::{is_legal_opex, opex_value, LEGAL_OPEX_VALUES};
pub use scheduling::{BatchT, PmPred, Scheduling, Scoreboard, UschedInfo, WaitMask};
pub use text::{parse, PARSE_DEFAULT_IGNORED_48_59_UNIFORM};
pub use values::*;
pub use word::{looks_like_word, parse_half, parse_word, WordError, HALF_DIGITS, WORD_DIGITS};

/// Decodes a 128-bit word (`hi << 64 | lo`, as nvdisasm's two 64-bit halves) into a TLD4.
///
/// Fails exactly where nvdisasm refuses the word: an opcode other than 0xd64 and 0xf63,
/// bit 91 clear, or a scheduling pair outside nvdisasm's table `TABLES_opex_0`.
///
/// Two paths, one answer: a legal word is checked with a few compares and one table lookup
/// (derived from the field table and the opex table) and then built into the typed struct as
/// a whole, without a `Result` per field (with AVX2 where the CPU has it, detected at run
/// time; else with shifts: [`decode_portable`]); only a refused word takes
/// [`decode_detailed`], which finds the error in the same order as before. The tests check
/// that all of them give the same result on every word they try (decoder/README.md, Speed).
#[inline(always)]
pub fn decode(word: u128) -> Result<Tld4, DecodeError> {
    #[cfg(target_arch = "x86_64")]
    if fast_avx2::usable() {
        // SAFETY: `usable` checked that the CPU has AVX2.
        return unsafe { decode_avx2(word) };
    }
    decode_portable(word)
}

/// [`decode`] compiled for AVX2 as a whole, so that the check, the vector build of the
/// struct and the result are one function (one call from a caller compiled without AVX2).
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn decode_avx2(word: u128) -> Result<Tld4, DecodeError> {
    if Tld4::fields_accepted(word) & legal_opex_of_word(word) {
        // SAFETY: the caller promises AVX2.
        Ok(unsafe { Tld4::read_accepted_fields(word, true) })
    } else {
        decode_refused(word)
    }
}

/// [`decode`] without its AVX2 path: the fast path's portable shifts on every CPU. The same
/// result as [`decode`] for every word; for the tests and benchmarks that compare the paths.
#[doc(hidden)]
#[inline]
pub fn decode_portable(word: u128) -> Result<Tld4, DecodeError> {
    if Tld4::fields_accepted(word) & legal_opex_of_word(word) {
        // SAFETY: `avx2` false asks for nothing.
        Ok(unsafe { Tld4::read_accepted_fields(word, false) })
    } else {
        decode_refused(word)
    }
}

/// The slow path of [`decode`], kept out of line so the fast path stays small.
#[cold]
#[inline(never)]
fn decode_refused(word: u128) -> Result<Tld4, DecodeError> {
    decode_detailed(word)
}

/// Whether the word's scheduling pair is in nvdisasm's `TABLES_opex_0`, read straight from
/// its two fields.
#[inline(always)]
fn legal_opex_of_word(word: u128) -> bool {
    opex::is_legal_pair(field::usched_info.get(word), field::batch_t.get(word))
}

/// [`decode`] the detailed way: every field through [`FieldValue::from_raw`] in bit order,
/// stopping at the first refusal, then the opex check. Gives exactly what [`decode`] gives
/// (same value, same error) for every word; slower, since each field carries a `Result`.
/// Kept public as the reference the fast path is tested against.
pub fn decode_detailed(word: u128) -> Result<Tld4, DecodeError> {
    let insn = Tld4::read_fields(word)?;
    let opex = opex_value(insn.usched_info, insn.batch_t);
    if !is_legal_opex(opex) {
        return Err(DecodeError::UndefinedOpex {
            opex,
            usched_info: insn.usched_info,
            batch_t: insn.batch_t,
        });
    }
    Ok(insn)
}

/// Assembles one line of nvdisasm's text into a word (see [`parse`] for the hidden fields).
pub fn assemble(text: &str) -> Result<u128, ParseError> {
    Ok(parse(text)?.encode())
}

/// Disassembles a word into nvdisasm's text, or says why nvdisasm refuses it.
pub fn disassemble(word: u128) -> Result<String, DecodeError> {
    decode(word).map(|insn| insn.text())
}

impl Tld4 {
    /// The word of this instruction, checked: every numeric member fits its field and the
    /// word is one that nvdisasm accepts.
    pub fn try_encode(&self) -> Result<u128, EncodeError> {
        let word = self.encode();
        let back = decode(word)?;
        if back != *self {
            for ((spec, ours, _), (_, theirs, _)) in
                self.field_values().into_iter().zip(back.field_values())
            {
                if ours != theirs {
                    return Err(EncodeError::TooWide {
                        field: spec.name,
                        bits: spec.bits(),
                        width: spec.width(),
                        value: ours,
                    });
                }
            }
        }
        Ok(word)
    }

    /// nvdisasm's `opex` value of this instruction (usched_info | batch_t << 5).
    pub const fn opex(&self) -> u8 {
        opex_value(self.usched_info, self.batch_t)
    }
}
