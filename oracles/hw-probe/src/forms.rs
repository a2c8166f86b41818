//! The TLD4 words of a cubin of the probe's kernels, for any architecture tld4-decoder knows:
//! what the compiler that built it (the driver's JIT on the device, or ptxas/nvcc) emits for
//! each PTX `tld4` on the GPU at hand. This is the "each architecture's forms" measurement
//! (docs/sources.md, Open questions: 2, 7 and 8): which opcode form, whether `.SCR` is set,
//! which operands. Read with `tld4-cubin` (the ELF header names the architecture) and
//! `decode_arch` (docs/sources.md, TLD4 on every architecture); no NVIDIA tool is needed.

use serde::{Deserialize, Serialize};
use tld4_decoder::{decode_arch, DecodeError};

/// One TLD4 word found in a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundTld4 {
    /// The kernel.
    pub kernel: String,
    /// Byte offset of the word in the kernel's code.
    pub offset: u64,
    /// The word, 32 hex digits.
    pub word: String,
    /// The opcode form (bits 11:0), `0xf63`.
    pub form: String,
    /// tld4's text of the word for the architecture (nvdisasm's syntax), or why tld4 could not
    /// decode a word whose opcode is a TLD4 form there.
    pub text: String,
    /// Whether tld4-decoder decoded the word.
    pub decoded: bool,
    /// `.SCR` (bit 60), when decoded.
    pub scr: Option<bool>,
}

/// The TLD4 words of a whole cubin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CubinForms {
    /// The architecture in the ELF header (`sm_86`).
    pub arch: String,
    /// The decoder tables that read it (`sm_86`; an `a`/`f` variant reads as its plain name).
    pub tables: String,
    /// Kernels in the cubin.
    pub kernels: usize,
    /// Every TLD4 word, in kernel order.
    pub tld4: Vec<FoundTld4>,
}

/// Finds and decodes every TLD4 word of a cubin built for any architecture tld4 knows.
pub fn cubin_forms(cubin: &[u8]) -> Result<CubinForms, String> {
    let c = tld4_cubin::Cubin::parse(cubin, tld4_cubin::supported()).map_err(|e| e.to_string())?;
    let arch = c.tables();
    let mut tld4 = Vec::new();
    for k in c.kernels() {
        for (offset, w) in k.words() {
            let form = format!("{:#05x}", (w & 0xfff) as u16);
            let (text, decoded, scr) = match decode_arch(arch, w) {
                Ok(t) => (t.to_string(), true, Some(t.insn.scr)),
                Err(DecodeError::NotTld4OnArch { .. }) => continue,
                Err(e) => (e.to_string(), false, None),
            };
            // A word whose opcode is no TLD4 form never gets here; one that is, is kept even
            // when tld4 refuses it, so that a refusal shows in the report.
            tld4.push(FoundTld4 {
                kernel: k.name().to_string(),
                offset,
                word: format!("{w:032x}"),
                form,
                text,
                decoded,
                scr,
            });
        }
    }
    Ok(CubinForms {
        arch: format!("sm_{}", c.arch().0),
        tables: arch.name().to_string(),
        kernels: c.kernels().len(),
        tld4,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{layout, CUBIN};

    #[test]
    fn the_committed_sm90_cubin_has_the_layout_s_tld4_words() {
        let f = cubin_forms(CUBIN).unwrap();
        assert_eq!(f.arch, "sm_90");
        let l = layout().unwrap();
        assert_eq!(f.tld4.len(), l.kernels.len());
        for k in &l.kernels {
            let found: Vec<&FoundTld4> = f.tld4.iter().filter(|t| t.kernel == k.name).collect();
            assert_eq!(found.len(), 1, "{}", k.name);
            assert_eq!(
                crate::layout::parse_word(&found[0].word).unwrap(),
                crate::layout::parse_word(&k.tld4_word).unwrap()
            );
            assert!(found[0].decoded);
            assert_eq!(found[0].form, "0xf63");
            // ptxas 11.8 leaves .SCR clear for sm_90 (README, SM90 encoding)
            assert_eq!(found[0].scr, Some(false));
        }
    }

    #[test]
    fn what_is_not_a_cubin_is_an_error() {
        assert!(cubin_forms(b"no elf").is_err());
    }
}
