//! The probe's view of its cubin: a kernel's `.text.<kernel>` section, its instruction words,
//! and a copy with one word replaced. The ELF is read by `tld4-cubin` (the `object` crate),
//! with its architecture check set to sm_90, the probe's target.

use std::fmt;

use tld4_cubin::{Cubin, SM90};

/// One kernel's code section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The section's name, `.text.<kernel>`.
    pub name: String,
    /// Where the section's bytes start in the file.
    pub offset: usize,
    /// How many bytes it has.
    pub size: usize,
}

/// Why a file is not a readable sm_90 cubin, or has no such kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfError(pub String);

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a readable sm_90 cubin: {}", self.0)
    }
}

impl std::error::Error for ElfError {}

/// The `.text.<kernel>` section of an sm_90 cubin.
pub fn kernel_text(b: &[u8], kernel: &str) -> Result<Section, ElfError> {
    let cubin = Cubin::parse(b, &[SM90]).map_err(|e| ElfError(e.to_string()))?;
    let k = cubin.kernel(kernel).map_err(|e| {
        ElfError(format!(
            "no section .text.{kernel}: {e} (kernels: {})",
            cubin.kernel_names().join(", ")
        ))
    })?;
    Ok(Section {
        name: format!("{}{kernel}", tld4_cubin::TEXT_PREFIX),
        offset: k.file_offset() as usize,
        size: k.code().len(),
    })
}

/// The 128-bit instruction words of a text section (each 16 bytes, little-endian, low 64 bits
/// first: docs/sources.md, The oracles). `s` must come from [`kernel_text`] of the same bytes.
pub fn words(b: &[u8], s: &Section) -> Vec<u128> {
    b[s.offset..s.offset + s.size]
        .chunks_exact(tld4_cubin::INSN_BYTES)
        .map(tld4_cubin::read_word)
        .collect()
}

/// `b` with the instruction at `index` of section `s` replaced by `word`.
pub fn with_word(b: &[u8], s: &Section, index: usize, word: u128) -> Vec<u8> {
    let mut out = b.to_vec();
    let at = s.offset + index * tld4_cubin::INSN_BYTES;
    out[at..at + tld4_cubin::INSN_BYTES].copy_from_slice(&word.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::CUBIN;

    #[test]
    fn finds_the_raw_kernel_and_refuses_what_is_not_an_sm90_cubin() {
        let s = kernel_text(CUBIN, "raw").unwrap();
        assert_eq!(s.name, ".text.raw");
        assert_eq!(words(CUBIN, &s).len() * 16, s.size);
        let e = kernel_text(CUBIN, "nope").unwrap_err();
        assert!(e.0.contains("raw"), "{e}");
        assert!(kernel_text(b"not an elf", "raw").is_err());
        let patched = with_word(CUBIN, &s, 1, 7);
        assert_eq!(words(&patched, &s)[1], 7);
        assert_eq!(words(&patched, &s)[0], words(CUBIN, &s)[0]);
    }
}
