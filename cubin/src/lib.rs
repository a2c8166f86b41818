//! Find every SM100 TLD4 in compiled code: CUDA cubins (the ELF files ptxas writes), fat
//! binaries, and host ELF files (executables, libraries, objects) that embed them.
//!
//! ```no_run
//! use tld4_cubin::{open, SM100};
//!
//! let bytes = std::fs::read("kernels.cubin")?;
//! for image in open(&bytes, &[SM100])? {
//!     for site in image.cubin.tld4s() {
//!         let insn = site.decoded?;
//!         println!("{} {:#06x} {:032x} {}", site.kernel, site.offset, site.word, insn);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ELF is read with the `object` crate; TLD4 words are recognised and decoded by
//! `tld4-decoder`, so the crate writes no opcode or field of its own.

mod arch;
mod cubin;
mod error;
pub mod fatbin;
pub mod listing;
mod open;
mod sites;

pub use arch::{arch_from_header, SmArch, ABI_ARCH_FIELD, SM100, SM90};
pub use cubin::{is_cuda_elf, read_word, Cubin, Kernel, INSN_BYTES, TEXT_PREFIX};
pub use error::{CubinError, ErrorKind, LookupError};
pub use open::{is_elf, open, Image, Origin, ELF_MAGIC};
pub use sites::{classify, Tld4Site};
