//! Find every SM100 TLD4 in compiled code: CUDA cubins (the ELF files ptxas writes), fat
//! binaries (their entries compressed or not), host ELF files (executables, libraries,
//! objects, relocatable objects) that embed them, and static archives of such objects.
//!
//! ```no_run
//! use tld4_cubin::{map_file, visit, SUPPORTED};
//!
//! let bytes = map_file("libkernels.so".as_ref())?;
//! let visited = visit(&bytes, SUPPORTED, |image| match image {
//!     Ok(image) => {
//!         for site in image.cubin.tld4s() {
//!             println!("{}{} {} {:#06x} {:032x}", "libkernels.so", image.origin, site.kernel, site.offset, site.word);
//!         }
//!     }
//!     Err(e) => eprintln!("{e}"),
//! })?;
//! if !visited.skipped.is_empty() {
//!     eprintln!("{}", visited.skipped);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ELF is read with the `object` crate; TLD4 words are recognised and decoded by
//! `tld4-decoder`, so the crate writes no opcode or field of its own.

mod arch;
mod cubin;
pub mod decompress;
mod error;
pub mod fatbin;
mod file;
mod find;
pub mod listing;
mod open;
mod sites;

pub use arch::{
    arch_from_header, is_supported, SmArch, Target, Variant, ABI_ARCH_FIELD, SM100, SM90, SUPPORTED,
};
pub use cubin::{is_cuda_elf, read_word, Cubin, Kernel, DUPLICATE_SUFFIX, INSN_BYTES, TEXT_PREFIX};
pub use error::{CubinError, ErrorKind, LookupError};
pub use file::{map_file, FileBytes, FileError, MAX_FILE_BYTES};
pub use find::{find_kernel, FindError};
pub use open::{
    extract, is_archive, is_compiled, is_elf, visit, visit_file, Extracted, Image, Origin, Skipped,
    Visited, ARCHIVE_MAGIC, ELF_MAGIC,
};
pub use sites::{classify, Tld4Site};
