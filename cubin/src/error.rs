//! Typed errors: a file that is not what it claims (damaged ELF, damaged fat binary: invalid
//! input) apart from a valid file this crate does not model (another GPU architecture, a
//! compressed fat-binary entry).

use thiserror::Error;
use tld4_decoder::DecodeError;

use crate::arch::SmArch;

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
    /// Two code sections of one name: a kernel name would not name one kernel, so lookups by
    /// (kernel, offset) could miss instructions the listing shows.
    #[error("two code sections are named .text.{kernel}: a kernel's name must be unique")]
    DuplicateKernel {
        /// The kernel.
        kernel: String,
    },
    /// A code section with no bytes in the file (SHT_NOBITS).
    #[error("code section .text.{kernel} has no bytes in the file (SHT_NOBITS)")]
    NoCode {
        /// The kernel.
        kernel: String,
    },
    /// A host ELF file (not for the CUDA machine) without embedded device code.
    #[error("ELF file for {architecture} is not a cubin (e_machine 190, EM_CUDA) and has no .nv_fatbin section with embedded device code")]
    NoDeviceCode {
        /// The machine, as the `object` crate names it.
        architecture: String,
    },
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
    /// The SM100 cubin of a fat binary is compressed.
    #[error("fat-binary entry {index} ({arch} ELF) is compressed ({method}, entry flags {flags:#x}); extract the cubin first with `cuobjdump -xelf all FILE` and scan the extracted .cubin")]
    Compressed {
        /// The entry's place among all entries.
        index: usize,
        /// Its architecture.
        arch: SmArch,
        /// The compression named by the flags.
        method: &'static str,
        /// The entry's flags word.
        flags: u64,
    },
    /// A fat binary without an ELF entry for a supported architecture.
    #[error("no {} cubin among the fat binary's entries ({})", list(supported), if entries.is_empty() { "it has none".to_string() } else { entries.join(", ") })]
    NoSupportedCubin {
        /// What the caller accepts.
        supported: Vec<SmArch>,
        /// Every entry, described (`sm_90 ELF`, `sm_100 PTX`).
        entries: Vec<String>,
    },
}

fn list(archs: &[SmArch]) -> String {
    archs
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
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
            | CubinError::Compressed { .. }
            | CubinError::NoSupportedCubin { .. }
            | CubinError::UnknownAbiVersion { .. } => ErrorKind::NotModeled,
            _ => ErrorKind::Invalid,
        }
    }
}

/// Why one instruction could not be looked up by (kernel, offset).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LookupError {
    /// No code section `.text.<kernel>`.
    #[error("no kernel {kernel:?} (no section .text.{kernel}); the cubin has {}", if available.is_empty() { "no kernels".to_string() } else { available.join(", ") })]
    NoSuchKernel {
        /// The name asked for.
        kernel: String,
        /// The kernels there are.
        available: Vec<String>,
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
}
