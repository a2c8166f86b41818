//! Typed errors: a file that is not what it claims (damaged ELF, damaged fat binary: invalid
//! input, a compressed entry that does not decompress) apart from a valid file this crate does
//! not model (another GPU architecture).

use thiserror::Error;
use tld4_decoder::{Arch, DecodeError};

use crate::arch::SmArch;
use crate::open::Skipped;

/// Which of the two families an error belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bytes are not a well-formed file of the kind they claim to be.
    Invalid,
    /// The file is well formed, but holds something this crate does not read.
    NotModeled,
}

/// Why a file could not be opened as a cubin (or as a fat binary holding one).
#[derive(Debug, Error)]
pub enum CubinError {
    /// Neither an ELF file nor a fat binary.
    #[error("not a cubin, fat binary or host executable: the file starts with {start} (an ELF file starts with 7f 45 4c 46, a fat binary with 50 ed 55 ba)")]
    NotRecognized {
        /// The first bytes, in hex.
        start: String,
    },
    /// The ELF structure is damaged (what the `object` crate reports).
    #[error("damaged ELF file{}: {source}", place.as_deref().map(|p| format!(" ({p})")).unwrap_or_default())]
    Elf {
        /// Where: a section, or a fat-binary entry.
        place: Option<String>,
        /// The reader's error.
        source: object::Error,
    },
    /// An ELF file for the CUDA machine whose header says no version this crate knows.
    #[error("cubin with ELF ABI version {abi_version} (e_ident[EI_ABIVERSION]): known are 7 (architecture in e_flags bits 7:0) and 8 (bits 15:8)")]
    UnknownAbiVersion {
        /// `e_ident[EI_ABIVERSION]`.
        abi_version: u8,
    },
    /// A cubin built for another architecture.
    #[error(
        "cubin built for {found} (ELF e_flags {e_flags:#x}); supported: {}",
        list(supported)
    )]
    UnsupportedArch {
        /// The architecture in the ELF header.
        found: SmArch,
        /// The header's flags word.
        e_flags: u32,
        /// What the caller accepts.
        supported: Vec<SmArch>,
    },
    /// A code section whose size is not a whole number of 16-byte instructions.
    #[error("code section .text.{kernel} is {size} bytes, not a multiple of 16 (every SASS instruction is 16 bytes)")]
    CodeSize {
        /// The kernel.
        kernel: String,
        /// The section's size.
        size: u64,
    },
    /// A code section with no bytes in the file (SHT_NOBITS).
    #[error("code section .text.{kernel} has no bytes in the file (SHT_NOBITS)")]
    NoCode {
        /// The kernel.
        kernel: String,
    },
    /// A host ELF file (not for the CUDA machine) without embedded device code.
    #[error("ELF file for {architecture} is not a cubin (e_machine 190, EM_CUDA) and has no .nv_fatbin or __nv_relfatbin section with embedded device code")]
    NoDeviceCode {
        /// The machine, as the `object` crate names it.
        architecture: String,
    },
    /// A static archive none of whose members holds device code.
    #[error("archive without device code: no member is a cubin or an object with a .nv_fatbin or __nv_relfatbin section")]
    NoDeviceCodeInArchive,
    /// A damaged fat binary.
    #[error("damaged fat binary at byte {offset:#x}{}: {what}", section_note(*in_section))]
    Fatbin {
        /// Where, from the start of the fat-binary data.
        offset: usize,
        /// Whether the data is a host ELF file's `.nv_fatbin` section.
        in_section: bool,
        /// What is wrong.
        what: String,
    },
    /// A compressed entry that does not decompress to what its header states (or states a
    /// size this crate does not allocate: a decompression bomb).
    #[error("{place}: {method} payload: {what}")]
    Decompress {
        /// The entry (`fat-binary entry #2 (sm_100, zstd)`).
        place: String,
        /// The compression.
        method: &'static str,
        /// What is wrong.
        what: String,
    },
    /// An error in one entry of a fat binary, or one member of an archive.
    #[error("{place}: {source}")]
    InEntry {
        /// The entry or member.
        place: String,
        /// The error.
        source: Box<CubinError>,
    },
    /// A fat binary without an ELF entry for a supported architecture.
    #[error("no {} cubin in the file's device code ({})", list(supported), if skipped.is_empty() { "it has no ELF entry".to_string() } else { skipped.to_string() })]
    NoSupportedCubin {
        /// What the caller accepts.
        supported: Vec<SmArch>,
        /// The ELF entries of other architectures.
        skipped: Skipped,
    },
}

fn list(archs: &[SmArch]) -> String {
    archs
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first names of a list, for a message that stays readable for a cubin of 100,000
/// functions.
pub fn names(all: &[String]) -> String {
    const SHOWN: usize = 20;
    let head = all[..all.len().min(SHOWN)].join(", ");
    match all.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{head} and {more} more"),
        _ => head,
    }
}

fn section_note(in_section: bool) -> &'static str {
    if in_section {
        " (in the .nv_fatbin section)"
    } else {
        ""
    }
}

impl CubinError {
    /// Invalid input, or a valid file this crate does not model.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CubinError::UnsupportedArch { .. }
            | CubinError::NoSupportedCubin { .. }
            | CubinError::UnknownAbiVersion { .. } => ErrorKind::NotModeled,
            CubinError::InEntry { source, .. } => source.kind(),
            _ => ErrorKind::Invalid,
        }
    }
}

/// Why one instruction could not be looked up by (kernel, offset).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LookupError {
    /// No code section `.text.<kernel>`.
    #[error("no kernel {kernel:?} (no section .text.{kernel}); the cubin has {}", if available.is_empty() { "no kernels".to_string() } else { names(available) })]
    NoSuchKernel {
        /// The name asked for.
        kernel: String,
        /// The kernels there are.
        available: Vec<String>,
    },
    /// Several code sections have this name (local helper functions linked from several
    /// translation units): each is named as nvdisasm names it, and one of those names must be
    /// given.
    #[error("{} code sections are named .text.{kernel}; name one as nvdisasm does: {}", candidates.len(), names(candidates))]
    Ambiguous {
        /// The name asked for.
        kernel: String,
        /// The sections' unique names (`name`, `name__1`, ...).
        candidates: Vec<String>,
    },
    /// An offset between two instructions.
    #[error("{kernel}: offset {offset:#06x} is not a multiple of 16 (instructions are 16 bytes)")]
    Misaligned {
        /// The kernel.
        kernel: String,
        /// The offset asked for.
        offset: u64,
    },
    /// An offset at or past the end of the kernel's code.
    #[error("{kernel}: offset {offset:#06x} is past the end of its code ({size:#06x} bytes)")]
    PastEnd {
        /// The kernel.
        kernel: String,
        /// The offset asked for.
        offset: u64,
        /// The code section's size.
        size: u64,
    },
    /// The word there is another instruction.
    #[error("{kernel}+{offset:#06x}: not a TLD4 (opcode bits 11:0 = {opcode:#05x})")]
    NotTld4 {
        /// The kernel.
        kernel: String,
        /// The offset.
        offset: u64,
        /// The word's opcode bits.
        opcode: u16,
    },
    /// The word has TLD4's opcode but nvdisasm would refuse it.
    #[error("{kernel}+{offset:#06x}: TLD4 opcode, but an illegal encoding: {source}")]
    IllegalTld4 {
        /// The kernel.
        kernel: String,
        /// The offset.
        offset: u64,
        /// Why the decoder refuses it.
        source: DecodeError,
    },
    /// The word is a TLD4 form of its architecture that tld4 does not model yet
    /// ([`DecodeError::FormNotModeled`]).
    #[error("{kernel}+{offset:#06x}: {source}; nvdisasm prints it")]
    FormNotModeled {
        /// The kernel.
        kernel: String,
        /// The offset.
        offset: u64,
        /// The decoder's error.
        source: DecodeError,
    },
    /// A TLD4 found and decoded with its architecture's tables, asked for where only the SM100
    /// family's instruction is taken (an execution, the C ABI's decoded instruction).
    #[error("{kernel}+{offset:#06x} is {arch}'s `{text}`: tld4 executes the sm_100 family's TLD4 (sm_100, sm_101, sm_103, sm_110 and their a/f variants); other architectures' TLD4s are found and printed, not executed yet")]
    OtherFamily {
        /// The kernel.
        kernel: String,
        /// The offset.
        offset: u64,
        /// The cubin's architecture.
        arch: Arch,
        /// The instruction, as that architecture's nvdisasm prints it.
        text: String,
    },
}

impl LookupError {
    /// Whether the file is valid and the TLD4 there is one tld4 does not model (an unmodeled
    /// form, another family's instruction where the SM100 family's is needed).
    pub fn is_not_modeled(&self) -> bool {
        matches!(
            self,
            LookupError::FormNotModeled { .. } | LookupError::OtherFamily { .. }
        )
    }
}
