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
mod arch;
mod arch_insn;
mod arch_text;
mod error;
mod fast;
#[cfg(target_arch = "x86_64")]
mod fast_avx2;
// The field docs write operand vectors as `[layer], u, v`, which rustdoc reads as links;
// they are also the text of docs/fields.md, so they stay as they are.
#[allow(rustdoc::broken_intra_doc_links)]
mod fields;
mod immediates;
mod operands;
mod opex;
mod scheduling;
mod text;
mod text_pieces;
mod values;
mod word;

pub use access::{
    destination_counts, Access, Location, OperandRole, OperandVector, OperandVectors, UsedRegister,
    UsedRegisters, MAX_USED_REGISTERS,
};
pub use arch::{Arch, Family, UnknownArch};
pub use arch_insn::{decode_arch, ArchTld4};
pub use arch_text::parse_arch;
pub use error::{DecodeError, EncodeError, LengthMismatch, ParseError};
pub use fields::arch_rows::{
    family_markdown, BClear, Change, FamilyRow, FormRow, ImmRole, FAMILY_ROWS, FORMS,
};
pub use fields::{
    field, fields_markdown, AlwaysSet, FieldEffect, FieldSpec, FieldValue, Tld4, FIELDS,
};
pub use immediates::{immediates, Immediate, ImmediateSlot};
pub use operands::{RaLayout, RbLayout};
pub use opex::{is_legal_opex, opex_value, LEGAL_OPEX_VALUES};
pub use scheduling::{BatchT, PmPred, Scheduling, Scoreboard, UschedInfo, WaitMask};
pub use text::{parse, without_closing, PARSE_DEFAULT_IGNORED_48_59_UNIFORM};
pub use values::*;
pub use word::{looks_like_word, parse_half, parse_word, WordError, HALF_DIGITS, WORD_DIGITS};

/// Decodes a 128-bit word (`hi << 64 | lo`, as nvdisasm's two 64-bit halves) into a TLD4.
///
/// Fails exactly where nvdisasm refuses the word: an opcode other than 0xd64 and 0xf63,
/// bit 91 clear, or a scheduling pair outside nvdisasm's table `TABLES_opex_0`.
///
/// Two paths, one answer: a legal word is checked with a few branch-free operations and one
/// test (derived from the field table and the opex table) and then built into the typed
/// struct as a whole, without a `Result` per field (with AVX2 where the CPU has it, else
/// with shifts: [`decode_portable`]); only a refused word takes [`decode_detailed`], which
/// finds the error in the same order as before. The tests check that all of them give the
/// same result on every word they try (decoder/README.md, Speed).
///
/// Where the crate is compiled with AVX2 enabled (`-C target-feature=+avx2`, or a
/// `-C target-cpu` that has it) the whole decode inlines into the caller; otherwise the AVX2
/// path is chosen on the first call and is then one indirect call. To decode many words,
/// [`decode_many`] makes that choice once for the whole slice.
#[inline(always)]
pub fn decode(word: u128) -> Result<Tld4, DecodeError> {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        // SAFETY: the crate is compiled for CPUs with AVX2 (`target_feature = "avx2"`).
        unsafe { decode_fast(word, fast_avx2::usable()) }
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        dispatch::decode(word)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        decode_portable(word)
    }
}

/// Decodes `words[i]` into `out[i]` for every `i`: [`decode`] of each word, with the AVX2
/// choice made once for the slice and the loop compiled with AVX2 as a whole (how a simulator
/// decodes a cubin's words). Fails, decoding nothing, when the two slices differ in length.
pub fn decode_many(
    words: &[u128],
    out: &mut [Result<Tld4, DecodeError>],
) -> Result<(), LengthMismatch> {
    if words.len() != out.len() {
        return Err(LengthMismatch {
            words: words.len(),
            results: out.len(),
        });
    }
    #[cfg(target_arch = "x86_64")]
    if fast_avx2::usable() {
        // SAFETY: `usable` checked that the CPU has AVX2.
        unsafe { decode_many_avx2(words, out) };
        return Ok(());
    }
    for (w, o) in words.iter().zip(out.iter_mut()) {
        *o = decode_portable(*w);
    }
    Ok(())
}

/// [`decode_many`]'s loop compiled for AVX2 as a whole: the check and the vector build of
/// each word inline in it, each result written straight into its slot.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn decode_many_avx2(words: &[u128], out: &mut [Result<Tld4, DecodeError>]) {
    for (w, o) in words.iter().zip(out.iter_mut()) {
        let word = *w;
        if refusals(word) == 0 {
            // SAFETY: the caller promises AVX2, and the vector is `word`'s, so the chunks are
            // its chunks.
            *o = Ok(unsafe {
                let chunks = fast_avx2::chunks(fast_avx2::word_vector_at(w), &Tld4::AVX2);
                Tld4::from_accepted_chunks(word, chunks)
            });
        } else {
            decode_refused_into(word, o);
        }
    }
}

/// The run-time choice of [`decode`]'s path, where the crate is compiled without AVX2: a
/// function pointer, set on the first call, so that each later call is one load and one
/// indirect call (testing std's cached feature flags each time costs four instructions
/// more, a tenth of a decode).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
mod dispatch {
    use super::{decode_avx2, decode_portable, fast_avx2, DecodeError, Tld4};
    use core::sync::atomic::{AtomicPtr, Ordering};

    /// A decode path; `unsafe` because the AVX2 path is sound only where the CPU has AVX2.
    type Path = unsafe fn(u128) -> Result<Tld4, DecodeError>;

    /// `choose` until the first call, then the path it chose. Every value it ever holds is
    /// sound to call on this CPU: `choose` itself, and what `choose` stores after checking.
    static PATH: AtomicPtr<()> = AtomicPtr::new(choose as Path as *mut ());

    /// Picks the path for this CPU, remembers it and decodes `word` with it. Threads that
    /// race here all pick the same path.
    unsafe fn choose(word: u128) -> Result<Tld4, DecodeError> {
        let path: Path = if fast_avx2::usable() {
            decode_avx2
        } else {
            portable
        };
        PATH.store(path as *mut (), Ordering::Relaxed);
        // SAFETY: `decode_avx2` only where `usable` found AVX2; `portable` anywhere.
        unsafe { path(word) }
    }

    /// [`decode_portable`] as a [`Path`].
    unsafe fn portable(word: u128) -> Result<Tld4, DecodeError> {
        decode_portable(word)
    }

    /// [`super::decode`] through the chosen path.
    #[inline(always)]
    pub(super) fn decode(word: u128) -> Result<Tld4, DecodeError> {
        let path = PATH.load(Ordering::Relaxed);
        // SAFETY: `PATH` only ever holds a `Path` (stored from one, above) that is sound to
        // call on this CPU.
        unsafe { core::mem::transmute::<*mut (), Path>(path)(word) }
    }
}

/// [`decode`] compiled for AVX2 as a whole, so that the check, the vector build of the
/// struct and the result are one function (one call from a caller compiled without AVX2).
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[target_feature(enable = "avx2")]
unsafe fn decode_avx2(word: u128) -> Result<Tld4, DecodeError> {
    // SAFETY: the caller promises AVX2.
    unsafe { decode_fast(word, true) }
}

/// [`decode`] without its AVX2 path: the fast path's portable shifts on every CPU. The same
/// result as [`decode`] for every word; for the tests and benchmarks that compare the paths.
#[doc(hidden)]
#[inline]
pub fn decode_portable(word: u128) -> Result<Tld4, DecodeError> {
    // SAFETY: `avx2` false asks for nothing.
    unsafe { decode_fast(word, false) }
}

/// The fast path: one test of the word's refusals, then the struct built as a whole; a
/// refused word goes to the detailed path for its error.
///
/// # Safety
///
/// `avx2` may be true only where the CPU has AVX2.
#[inline(always)]
unsafe fn decode_fast(word: u128, avx2: bool) -> Result<Tld4, DecodeError> {
    if refusals(word) == 0 {
        // SAFETY: every field accepts its bits (zero refusals), and the chunks are `word`'s;
        // the caller vouches for `avx2`.
        Ok(unsafe { Tld4::from_accepted_chunks(word, accepted_chunks(word, avx2)) })
    } else {
        decode_refused(word)
    }
}

/// The word's chunks, with AVX2 (`avx2` true) or with shifts.
///
/// # Safety
///
/// `avx2` may be true only where the CPU has AVX2.
#[inline(always)]
unsafe fn accepted_chunks(word: u128, avx2: bool) -> [u64; fast::CHUNKS] {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller promises AVX2 with `avx2`.
        return unsafe { fast_avx2::chunks(fast_avx2::word_vector(word), &Tld4::AVX2) };
    }
    let _ = avx2;
    Tld4::portable_chunks(word)
}

/// The slow path of [`decode`], kept out of line so the fast path stays small.
#[cold]
#[inline(never)]
fn decode_refused(word: u128) -> Result<Tld4, DecodeError> {
    decode_detailed(word)
}

/// [`decode_refused`] written straight into `out`, so that the hot loop of
/// [`decode_many`] stores its vector into the slot and nothing else. The detailed path is
/// inlined here, so that it writes its result into the slot itself: copying a returned
/// result over would load 16 bytes at a time what it stored a few bytes at a time, which
/// stalls on store forwarding (half the speed on refused words).
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn decode_refused_into(word: u128, out: &mut Result<Tld4, DecodeError>) {
    *out = detailed(word);
}

/// Zero exactly when nvdisasm accepts the word: every field's refusal
/// ([`FieldValue::rejects`]) and the scheduling pair's (nvdisasm's `TABLES_opex_0`, read
/// straight from its two fields), ORed as integers so that the fast path branches once.
#[inline(always)]
fn refusals(word: u128) -> u32 {
    Tld4::fields_rejected(word)
        | opex::rejects_pair(field::usched_info.get(word), field::batch_t.get(word))
}

/// [`decode`] the detailed way: every field through [`FieldValue::from_raw`] in bit order,
/// stopping at the first refusal, then the opex check. Gives exactly what [`decode`] gives
/// (same value, same error) for every word; slower, since each field carries a `Result`.
/// Kept public as the reference the fast path is tested against.
pub fn decode_detailed(word: u128) -> Result<Tld4, DecodeError> {
    detailed(word)
}

/// The body of [`decode_detailed`], for callers that want it inlined.
#[inline(always)]
fn detailed(word: u128) -> Result<Tld4, DecodeError> {
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
