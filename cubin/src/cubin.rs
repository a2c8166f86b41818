//! One cubin: its architecture and the code section of every kernel, read with `object`.

use std::borrow::Cow;
use std::collections::HashMap;

use object::elf::EM_CUDA;
use object::read::elf::{ElfFile64, FileHeader};
use object::{LittleEndian, Object, ObjectSection};

use tld4_decoder::Arch;

use crate::arch::{arch_from_header, decoder_arch, SmArch};
use crate::error::{CubinError, LookupError};

/// Prefix of a kernel's code section: ptxas writes the code of kernel `k` (and of each
/// non-inlined function) to `.text.k` (docs/sources.md, What ptxas emits; nvdisasm -c prints
/// these sections).
pub const TEXT_PREFIX: &str = ".text.";

/// What nvdisasm appends to the name of the second, third, ... code section of one name
/// (`.text.f`, `.text.f__1`, `.text.f__2`: nvdisasm 13.5 on a device-linked cubin holding one
/// copy of a libdevice helper per translation unit; docs/sources.md, Fat binaries).
pub const DUPLICATE_SUFFIX: &str = "__";

/// Bytes per SASS instruction on every architecture from SM75 on (docs/sources.md, Encoding;
/// nvdisasm -b reads 16-byte words for each of them).
pub const INSN_BYTES: usize = 16;

/// A parsed cubin: an ELF64 little-endian file for EM_CUDA.
#[derive(Clone, Debug)]
pub struct Cubin<'data> {
    data: &'data [u8],
    arch: SmArch,
    tables: Arch,
    e_flags: u32,
    kernels: Vec<Kernel<'data>>,
    /// Section names (without `.text.`) that more than one code section has.
    duplicated: std::collections::HashSet<&'data str>,
}

/// One kernel's (or local function's) code section.
#[derive(Clone, Debug)]
pub struct Kernel<'data> {
    name: Cow<'data, str>,
    section_name: &'data str,
    tables: Arch,
    file_offset: u64,
    code: &'data [u8],
}

/// Whether `data` is an ELF file for the CUDA machine (a cubin), without checking more.
pub fn is_cuda_elf(data: &[u8]) -> bool {
    ElfFile64::<LittleEndian>::parse(data)
        .map(|f| f.elf_header().e_machine(LittleEndian) == EM_CUDA)
        .unwrap_or(false)
}

fn elf_error(place: Option<String>) -> impl FnOnce(object::Error) -> CubinError {
    move |source| CubinError::Elf { place, source }
}

impl<'data> Cubin<'data> {
    /// Parses a cubin and checks that it was built for one of `supported`.
    pub fn parse(data: &'data [u8], supported: &[SmArch]) -> Result<Self, CubinError> {
        let file = ElfFile64::<LittleEndian>::parse(data).map_err(elf_error(None))?;
        let header = file.elf_header();
        let machine = header.e_machine(LittleEndian);
        if machine != EM_CUDA {
            return Err(CubinError::NoDeviceCode {
                architecture: format!("{:?}", file.architecture()),
            });
        }
        let e_flags = header.e_flags(LittleEndian).0;
        let arch = arch_from_header(header.e_ident().abi_version, e_flags)?;
        let unsupported = || CubinError::UnsupportedArch {
            found: arch,
            e_flags,
            supported: supported.to_vec(),
        };
        if !supported.contains(&arch) {
            return Err(unsupported());
        }
        let tables = decoder_arch(arch).ok_or_else(unsupported)?;
        let mut kernels = Vec::new();
        // How many code sections of each name so far: one hash look-up a section, so a cubin of
        // 150,000 functions parses in linear time.
        let mut seen: HashMap<&'data str, u32> = HashMap::new();
        for section in file.sections() {
            let name = section.name().map_err(elf_error(None))?;
            let Some(kernel) = name.strip_prefix(TEXT_PREFIX) else {
                continue;
            };
            let place = || Some(format!("section {name}"));
            let code = section.data().map_err(elf_error(place()))?;
            let (file_offset, _) = section.file_range().ok_or_else(|| CubinError::NoCode {
                kernel: kernel.to_string(),
            })?;
            if !code.len().is_multiple_of(INSN_BYTES) {
                return Err(CubinError::CodeSize {
                    kernel: kernel.to_string(),
                    size: code.len() as u64,
                });
            }
            // The n-th further section of a name is `name__n`, as nvdisasm names it.
            let copies = seen.entry(kernel).or_insert(0u32);
            let name = match *copies {
                0 => Cow::Borrowed(kernel),
                n => Cow::Owned(format!("{kernel}{DUPLICATE_SUFFIX}{n}")),
            };
            *copies += 1;
            kernels.push(Kernel {
                name,
                section_name: kernel,
                tables,
                file_offset,
                code,
            });
        }
        let duplicated = seen
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(name, _)| name)
            .collect();
        Ok(Cubin {
            data,
            arch,
            tables,
            e_flags,
            kernels,
            duplicated,
        })
    }

    /// The file's bytes.
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The architecture in the ELF header.
    pub fn arch(&self) -> SmArch {
        self.arch
    }

    /// The decoder architecture whose tables read its words (the ELF header's architecture;
    /// an `a`/`f` variant reads as its plain architecture).
    pub fn tables(&self) -> Arch {
        self.tables
    }

    /// The ELF header's flags word.
    pub fn e_flags(&self) -> u32 {
        self.e_flags
    }

    /// Every kernel's code section, in section-header order.
    pub fn kernels(&self) -> &[Kernel<'data>] {
        &self.kernels
    }

    /// The kernel named `name` as nvdisasm names it. A name that several code sections share
    /// is refused, listing their unique names ([`LookupError::Ambiguous`]).
    pub fn kernel(&self, name: &str) -> Result<&Kernel<'data>, LookupError> {
        if self.duplicated.contains(name) {
            return Err(LookupError::Ambiguous {
                kernel: name.to_string(),
                candidates: self
                    .kernels
                    .iter()
                    .filter(|k| k.section_name == name)
                    .map(|k| k.name.to_string())
                    .collect(),
            });
        }
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| LookupError::NoSuchKernel {
                kernel: name.to_string(),
                available: self.kernel_names(),
            })
    }

    /// The names of all kernels, as nvdisasm names them.
    pub fn kernel_names(&self) -> Vec<String> {
        self.kernels.iter().map(|k| k.name.to_string()).collect()
    }
}

impl<'data> Kernel<'data> {
    /// The kernel's name as nvdisasm prints it: its section's name without `.text.`, with
    /// `__1`, `__2`, ... for the second, third, ... section of one name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its section's name without `.text.` (shared by the copies of a duplicated helper).
    pub fn section_name(&self) -> &'data str {
        self.section_name
    }

    /// The decoder architecture whose tables read its words ([`Cubin::tables`]).
    pub fn tables(&self) -> Arch {
        self.tables
    }

    /// Where the code starts in the file.
    pub fn file_offset(&self) -> u64 {
        self.file_offset
    }

    /// The code: whole 16-byte instructions.
    pub fn code(&self) -> &'data [u8] {
        self.code
    }

    /// Every instruction as (byte offset within the section, word). The word is
    /// `hi << 64 | lo` of two little-endian 64-bit halves, the low half first in the file
    /// (docs/sources.md, Encoding: nvdisasm -b reads words so).
    pub fn words(&self) -> impl Iterator<Item = (u64, u128)> + 'data {
        self.code
            .chunks_exact(INSN_BYTES)
            .enumerate()
            .map(|(i, c)| ((i * INSN_BYTES) as u64, read_word(c)))
    }

    /// The word at `offset`, if it is a whole instruction inside the section.
    pub fn word_at(&self, offset: u64) -> Option<u128> {
        let at = usize::try_from(offset).ok()?;
        if !at.is_multiple_of(INSN_BYTES) {
            return None;
        }
        self.code
            .get(at..at.checked_add(INSN_BYTES)?)
            .map(read_word)
    }
}

/// One instruction's 16 bytes as a word (see [`Kernel::words`]).
pub fn read_word(bytes: &[u8]) -> u128 {
    let mut b = [0u8; INSN_BYTES];
    b.copy_from_slice(bytes);
    u128::from_le_bytes(b)
}
