//! Every TLD4 of a cubin, and one TLD4 by (kernel, offset).

use tld4_decoder::{decode_arch, Arch, ArchTld4, DecodeError};

use crate::cubin::{Cubin, Kernel, INSN_BYTES};
use crate::error::LookupError;

/// One TLD4 found in a kernel's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tld4Site<'k> {
    /// The kernel, as nvdisasm names it ([`Kernel::name`]).
    pub kernel: &'k str,
    /// Byte offset within the kernel's section, as nvdisasm prints it (`/*0090*/`).
    pub offset: u64,
    /// The word, `hi << 64 | lo`.
    pub word: u128,
    /// The decoded instruction, read with the cubin's architecture's tables; an error where
    /// the word has a TLD4 opcode of that architecture but an encoding nvdisasm refuses, or a
    /// form tld4 does not model yet ([`DecodeError::FormNotModeled`]): such words are listed,
    /// never dropped.
    pub decoded: Result<ArchTld4, DecodeError>,
}

/// Whether a word is TLD4 on `arch` at all, decided by the decoder (opcode bits 11:0 and the
/// architecture's forms; docs/sources.md, TLD4 on every architecture): `None` for another
/// instruction, else the decoding (which may be an error, `FormNotModeled` included).
pub fn classify(arch: Arch, word: u128) -> Option<Result<ArchTld4, DecodeError>> {
    match decode_arch(arch, word) {
        Err(DecodeError::NotTld4 { .. } | DecodeError::NotTld4OnArch { .. }) => None,
        other => Some(other),
    }
}

impl Kernel<'_> {
    /// Every TLD4 in this kernel's code, in address order.
    pub fn tld4s(&self) -> impl Iterator<Item = Tld4Site<'_>> + '_ {
        let kernel = self.name();
        let arch = self.tables();
        self.words().filter_map(move |(offset, word)| {
            classify(arch, word).map(|decoded| Tld4Site {
                kernel,
                offset,
                word,
                decoded,
            })
        })
    }
}

impl Cubin<'_> {
    /// Every TLD4 of every kernel, kernels in section-header order.
    pub fn tld4s(&self) -> Vec<Tld4Site<'_>> {
        self.kernels().iter().flat_map(|k| k.tld4s()).collect()
    }

    /// The TLD4 at `offset` of `kernel`'s code section (`kernel` as nvdisasm names it).
    pub fn tld4_at(&self, kernel: &str, offset: u64) -> Result<Tld4Site<'_>, LookupError> {
        let k = self.kernel(kernel)?;
        if !offset.is_multiple_of(INSN_BYTES as u64) {
            return Err(LookupError::Misaligned {
                kernel: kernel.to_string(),
                offset,
            });
        }
        let word = k.word_at(offset).ok_or_else(|| LookupError::PastEnd {
            kernel: kernel.to_string(),
            offset,
            size: k.code().len() as u64,
        })?;
        match decode_arch(k.tables(), word) {
            Ok(insn) => Ok(Tld4Site {
                kernel: k.name(),
                offset,
                word,
                decoded: Ok(insn),
            }),
            Err(DecodeError::NotTld4 { opcode } | DecodeError::NotTld4OnArch { opcode, .. }) => {
                Err(LookupError::NotTld4 {
                    kernel: kernel.to_string(),
                    offset,
                    opcode,
                })
            }
            Err(source @ DecodeError::FormNotModeled { .. }) => Err(LookupError::FormNotModeled {
                kernel: kernel.to_string(),
                offset,
                source,
            }),
            Err(source) => Err(LookupError::IllegalTld4 {
                kernel: kernel.to_string(),
                offset,
                source,
            }),
        }
    }
}
