//! Find every TLD4 in compiled code, for every architecture `tld4-decoder` knows (sm_75 to
//! sm_121), each decoded with its own architecture's tables: CUDA cubins (the ELF files ptxas writes), fat
//! binaries (their entries compressed or not), host ELF files (executables, libraries,
//! objects, relocatable objects) that embed them, and static archives of such objects.
//!
//! ```no_run
//! use tld4_cubin::{read_file, supported, visit};
//!
//! let bytes = read_file("libkernels.so".as_ref())?;
//! let visited = visit(&bytes, supported(), |image| match image {
//!     Ok(image) => {
//!         for site in image.cubin.tld4s() {
//!             println!("{}{} {} {:#06x} {:032x} {}", "libkernels.so", image.origin, site.kernel, site.offset, site.word, image.target);
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
    arch_from_header, arch_number, decoder_arch, is_supported, supported, SmArch, Target, Variant,
    ABI_ARCH_FIELD, SM100, SM90,
};
pub use cubin::{is_cuda_elf, read_word, Cubin, Kernel, DUPLICATE_SUFFIX, INSN_BYTES, TEXT_PREFIX};
pub use error::{CubinError, ErrorKind, LookupError};
pub use file::{
    open_regular, read_file, read_input, read_limited, read_regular, read_text, read_text_file,
    FileBytes, FileError, MAX_FILE_BYTES, MAX_TEXT_BYTES,
};
pub use find::{find_kernel, FindError, Place};
pub use open::{
    extract, is_archive, is_compiled, is_elf, visit, Extracted, Image, Origin, Skipped, Visited,
    ARCHIVE_MAGIC, ELF_MAGIC,
};
pub use sites::{classify, Tld4Site};
