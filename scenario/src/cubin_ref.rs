//! A TLD4 in compiled code, named by its file, kernel and offset: the scenario key
//! `"instruction": {"cubin": "k.cubin", "kernel": "name", "offset": "0x0070"}`, the builder's
//! [`crate::ScenarioBuilder::instruction_from_cubin`], and the argument
//! `FILE.cubin:KERNEL:0x0070` of `tld4 explain`. The file may be anything `tld4-cubin` opens:
//! a cubin, a fat binary, or a host executable, library or object embedding cubins, of any
//! architecture the decoder knows (each word decoded with its own architecture's tables). The
//! instruction executed is the sm_100 family's (sm_100, sm_101, sm_103, sm_110 and their
//! variants); another family's TLD4 is found, decoded and named in a not-modeled error.
//!
//! ```
//! use std::path::Path;
//! use tld4_scenario::cubin_ref::CubinRef;
//!
//! let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cuda"));
//! let r = CubinRef::parse("gather.sm100.cubin:gather_quad:0x0310")?;
//! let found = r.resolve(dir)?;
//! assert_eq!(found.insn.text(), "TLD4.R R10, R8, R2, UR4, 2D ;");
//! let e = CubinRef::parse("gather.sm100.cubin:gather_quad:0x0300")?.resolve(dir).unwrap_err();
//! assert_eq!(e.key(), "offset");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use thiserror::Error;
pub use tld4_cubin::MAX_FILE_BYTES;
use tld4_cubin::{
    find_kernel, read_file, supported, Cubin, CubinError, ErrorKind, FileError, FindError,
    LookupError, Origin, Place, Target,
};
use tld4_decoder::{DecodeError, Family, Tld4};

/// A TLD4 named by file, kernel and the byte offset in the kernel's code section (as
/// nvdisasm and `tld4 scan` print it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CubinRef {
    /// The cubin, fat binary or host ELF file; a relative path is relative to the directory
    /// given to [`CubinRef::resolve`].
    pub file: PathBuf,
    /// The kernel: its code section's name without `.text.`.
    pub kernel: String,
    /// Byte offset in the kernel's code section.
    pub offset: u64,
}

/// The TLD4 a [`CubinRef`] names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CubinTld4 {
    /// The decoded instruction.
    pub insn: Tld4,
    /// Its word, `hi << 64 | lo`, exactly as the file holds it.
    pub word: u128,
    /// Where the cubin was in the file (the file itself, an archive member, a fat-binary
    /// entry).
    pub origin: Origin,
    /// The cubin's architecture.
    pub target: Target,
}

/// Why a [`CubinRef`] names no TLD4.
#[derive(Debug, Error)]
pub enum CubinRefError {
    /// `tld4 explain`'s `FILE:KERNEL:OFFSET` argument lacks a part.
    #[error("`{spec}`: expected FILE:KERNEL:OFFSET (a cubin, fat binary or host ELF file, a kernel name, and an offset such as 0x0070){why}")]
    Spec {
        /// The argument.
        spec: String,
        /// What is missing, with a leading separator.
        why: &'static str,
    },
    /// An offset that is neither `0x` hex nor a non-negative integer.
    #[error("offset `{text}`: {why}")]
    Offset {
        /// The offset as written.
        text: String,
        /// What is wrong.
        why: &'static str,
    },
    /// The file cannot be read (missing, not a regular file, too large).
    #[error("{source}")]
    Read {
        /// The path, as resolved.
        file: PathBuf,
        /// The reader's error.
        source: FileError,
    },
    /// The file holds no cubin this crate reads (damaged, an architecture the decoder does
    /// not know, ...).
    #[error("{}: {source}", file.display())]
    Open {
        /// The path, as resolved.
        file: PathBuf,
        /// Why `tld4-cubin` cannot open it.
        source: CubinError,
    },
    /// No kernel of that name.
    #[error("no kernel {kernel}; kernels: {}", if available.is_empty() { "none".to_string() } else { available.join(", ") })]
    NoKernel {
        /// The name asked for.
        kernel: String,
        /// Every kernel of every cubin in the file.
        available: Vec<String>,
    },
    /// The kernel is in more than one cubin of the file, and not in exactly one sm_100 cubin
    /// (`tld4_cubin::find_kernel`).
    #[error("kernel {kernel} is in {} cubins of the file (entries {}); extract the one meant with `cuobjdump -xelf all FILE` and name that cubin", places.len(), list(places, |o| o.to_string()))]
    Ambiguous {
        /// The kernel.
        kernel: String,
        /// Where each cubin holding it is (`#2 (sm_100)`, `(bar.o)#1 (sm_100a)`).
        places: Vec<Place>,
    },
    /// Several code sections of one cubin have the name (a helper function linked from
    /// several translation units); nvdisasm names them apart.
    #[error("{} code sections are named .text.{kernel}; name one as nvdisasm does: {}", candidates.len(), list(candidates, |c| c.clone()))]
    AmbiguousName {
        /// The name given.
        kernel: String,
        /// Their unique names (`name`, `name__1`, ...).
        candidates: Vec<String>,
    },
    /// No TLD4 at that offset (another instruction, between instructions, past the end).
    #[error(
        "no TLD4 at {offset:#06x} in kernel {kernel} ({why}); {}",
        tld4_list(tld4s)
    )]
    NoTld4 {
        /// The kernel.
        kernel: String,
        /// The offset asked for.
        offset: u64,
        /// What is there instead.
        why: String,
        /// The offsets of the kernel's TLD4s (those that decode).
        tld4s: Vec<u64>,
    },
    /// A TLD4 tld4 does not execute: a form of its architecture not modeled yet, or another
    /// family's instruction (found and decoded with its own tables).
    #[error(transparent)]
    NotModeled(LookupError),
    /// A word with TLD4's opcode that nvdisasm refuses.
    #[error(
        "{kernel}+{offset:#06x}: the word has TLD4's opcode, but nvdisasm refuses it: {source}"
    )]
    Illegal {
        /// The kernel.
        kernel: String,
        /// The offset.
        offset: u64,
        /// Why the decoder refuses it.
        source: DecodeError,
    },
}

fn list<T>(items: &[T], show: impl Fn(&T) -> String) -> String {
    items.iter().map(show).collect::<Vec<_>>().join(", ")
}

fn tld4_list(offsets: &[u64]) -> String {
    if offsets.is_empty() {
        "the kernel has no TLD4".to_string()
    } else {
        format!(
            "its TLD4s are at {}",
            list(offsets, |o| format!("{o:#06x}"))
        )
    }
}

impl CubinRefError {
    /// Invalid input, or a valid file this project does not model (an architecture the
    /// decoder does not know: [`CubinError::kind`]; a TLD4 it does not execute).
    pub fn kind(&self) -> ErrorKind {
        match self {
            CubinRefError::Open { source, .. } => source.kind(),
            CubinRefError::NotModeled(_) => ErrorKind::NotModeled,
            _ => ErrorKind::Invalid,
        }
    }

    /// Which part of the reference the error concerns: `cubin`, `kernel` or `offset` (the
    /// keys of the scenario's `instruction` object), or `""` for the whole argument.
    pub fn key(&self) -> &'static str {
        match self {
            CubinRefError::Spec { .. } => "",
            CubinRefError::Read { .. } | CubinRefError::Open { .. } => "cubin",
            CubinRefError::NoKernel { .. }
            | CubinRefError::Ambiguous { .. }
            | CubinRefError::AmbiguousName { .. } => "kernel",
            CubinRefError::Offset { .. }
            | CubinRefError::NoTld4 { .. }
            | CubinRefError::NotModeled(_)
            | CubinRefError::Illegal { .. } => "offset",
        }
    }
}

/// Reads an offset written as nvdisasm and `tld4 scan` print it: `0x` (or `0X`) and 1 to 16
/// hex digits. Without the prefix it is an error: `0310` would be hex to nvdisasm's
/// `/*0310*/` and decimal to a reader (docs/sources.md, Decisions).
pub fn parse_offset(text: &str) -> Result<u64, CubinRefError> {
    let bad = |why| CubinRefError::Offset {
        text: text.to_string(),
        why,
    };
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .ok_or_else(|| {
            bad("expected 0x and hex digits, as nvdisasm and tld4 scan print offsets (0x0070)")
        })?;
    if digits.is_empty() || digits.len() > 16 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad("expected 0x and 1 to 16 hex digits (0x0070)"));
    }
    u64::from_str_radix(digits, 16).map_err(|_| bad("expected 0x and 1 to 16 hex digits (0x0070)"))
}

impl CubinRef {
    /// Reads `FILE:KERNEL:OFFSET`. The offset follows the last `:` and the kernel the one
    /// before it, so the file's name may itself hold `:`; kernel names never do (PTX
    /// identifiers are letters, digits, `_` and `$`: docs/sources.md, What ptxas emits).
    pub fn parse(spec: &str) -> Result<CubinRef, CubinRefError> {
        let bad = |why| CubinRefError::Spec {
            spec: spec.to_string(),
            why,
        };
        let (rest, offset) = spec.rsplit_once(':').ok_or_else(|| bad(": no `:`"))?;
        let (file, kernel) = rest.rsplit_once(':').ok_or_else(|| bad(": only one `:`"))?;
        if file.is_empty() {
            return Err(bad(": the file is empty"));
        }
        if kernel.is_empty() {
            return Err(bad(": the kernel is empty"));
        }
        Ok(CubinRef {
            file: PathBuf::from(file),
            kernel: kernel.to_string(),
            offset: parse_offset(offset)?,
        })
    }

    /// Maps the file (relative paths from `dir`; `Path::new("")` is the current directory;
    /// a regular file only, as everywhere a path is opened: `tld4_cubin::read_file`) and finds
    /// the TLD4. The kernel is looked up in every cubin of the file; it must be in exactly
    /// one, or in exactly one sm_100 cubin (docs/sources.md, Decisions), and its name must
    /// name one code section.
    pub fn resolve(&self, dir: &Path) -> Result<CubinTld4, CubinRefError> {
        let file = dir.join(&self.file);
        let bytes = read_file(&file).map_err(|source| CubinRefError::Read {
            file: file.clone(),
            source,
        })?;
        let found = find_kernel(&bytes, supported(), &self.kernel, |image| {
            find_in_cubin(&image.cubin, &self.kernel, self.offset)
        });
        match found {
            Ok((Place { origin, target }, Ok((insn, word)))) => Ok(CubinTld4 {
                insn,
                word,
                origin,
                target,
            }),
            Ok((_, Err(e))) => Err(e),
            Err(FindError::Open(source)) => Err(CubinRefError::Open { file, source }),
            Err(FindError::NoKernel { kernel, available }) => {
                Err(CubinRefError::NoKernel { kernel, available })
            }
            Err(FindError::InSeveral { kernel, places }) => {
                Err(CubinRefError::Ambiguous { kernel, places })
            }
            Err(FindError::AmbiguousName { kernel, candidates }) => {
                Err(CubinRefError::AmbiguousName { kernel, candidates })
            }
        }
    }
}

/// The TLD4 at `offset` of `kernel` in a parsed cubin, with its word; an error says what is
/// there instead and where the kernel's TLD4s are. The word is decoded with the cubin's
/// architecture's tables; only the sm_100 family's TLD4 is returned for execution, another
/// family's is a [`CubinRefError::NotModeled`] naming its architecture and text.
pub fn find_in_cubin(
    cubin: &Cubin,
    kernel: &str,
    offset: u64,
) -> Result<(Tld4, u128), CubinRefError> {
    let no_tld4 = |why: String| {
        let tld4s = cubin
            .kernel(kernel)
            .map(|k| {
                k.tld4s()
                    .filter(|s| s.decoded.is_ok())
                    .map(|s| s.offset)
                    .collect()
            })
            .unwrap_or_default();
        CubinRefError::NoTld4 {
            kernel: kernel.to_string(),
            offset,
            why,
            tld4s,
        }
    };
    match cubin.tld4_at(kernel, offset) {
        Ok(site) => match site.decoded {
            Ok(insn) if insn.arch.family() == Family::Sm100 => Ok((insn.insn, site.word)),
            Ok(insn) => Err(CubinRefError::NotModeled(LookupError::OtherFamily {
                kernel: kernel.to_string(),
                offset,
                arch: insn.arch,
                text: insn.text(),
            })),
            Err(source) => Err(CubinRefError::Illegal {
                kernel: kernel.to_string(),
                offset,
                source,
            }),
        },
        Err(LookupError::NoSuchKernel { available, .. }) => Err(CubinRefError::NoKernel {
            kernel: kernel.to_string(),
            available,
        }),
        Err(LookupError::Ambiguous { candidates, .. }) => Err(CubinRefError::AmbiguousName {
            kernel: kernel.to_string(),
            candidates,
        }),
        Err(LookupError::Misaligned { .. }) => Err(no_tld4(
            "not a multiple of 16: instructions are 16 bytes".into(),
        )),
        Err(LookupError::PastEnd { size, .. }) => Err(no_tld4(format!(
            "past the end of its code, {size:#06x} bytes"
        ))),
        Err(LookupError::NotTld4 { opcode, .. }) => Err(no_tld4(format!(
            "another instruction is there: opcode bits 11:0 = {opcode:#05x}"
        ))),
        Err(LookupError::IllegalTld4 { source, .. }) => Err(CubinRefError::Illegal {
            kernel: kernel.to_string(),
            offset,
            source,
        }),
        Err(e @ (LookupError::FormNotModeled { .. } | LookupError::OtherFamily { .. })) => {
            Err(CubinRefError::NotModeled(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_split_at_the_last_two_colons() {
        let r = CubinRef::parse("dir:x/k.cubin:_Z4quadPf:0x0070").unwrap();
        assert_eq!(r.file, PathBuf::from("dir:x/k.cubin"));
        assert_eq!((r.kernel.as_str(), r.offset), ("_Z4quadPf", 0x70));
        for (spec, why) in [
            ("k.cubin", "no `:`"),
            ("k.cubin:0x70", "only one `:`"),
            (":k:0x70", "the file is empty"),
            ("k.cubin::0x70", "the kernel is empty"),
        ] {
            let e = CubinRef::parse(spec).unwrap_err();
            assert_eq!(e.key(), "");
            assert!(e.to_string().ends_with(why), "{spec}: {e}");
        }
        assert_eq!(CubinRef::parse("k.cubin:k:70").unwrap_err().key(), "offset");
    }

    #[test]
    fn offsets_are_hex_with_0x() {
        assert_eq!(parse_offset("0x0310").unwrap(), 0x310);
        assert_eq!(parse_offset("0XfFfFfFfFfFfFfFfF").unwrap(), u64::MAX);
        for bad in [
            "",
            "0x",
            "310",
            "0x-1",
            "0x 10",
            "0x10000000000000000",
            "+0x10",
        ] {
            assert!(parse_offset(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_kernel_without_tld4s_says_so() {
        assert_eq!(tld4_list(&[]), "the kernel has no TLD4");
        assert_eq!(tld4_list(&[0x70, 0xf0]), "its TLD4s are at 0x0070, 0x00f0");
    }
}
