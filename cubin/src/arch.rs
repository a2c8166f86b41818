//! The GPU architecture a cubin was built for, read from its ELF header, and which
//! architectures this crate reads: [`SUPPORTED`], the one place that decision is written.

use std::fmt;

use crate::error::CubinError;

/// A streaming-multiprocessor architecture number: 100 for `sm_100` (B200).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SmArch(pub u32);

/// Blackwell B200, the architecture whose TLD4 `tld4-decoder` models.
pub const SM100: SmArch = SmArch(100);

/// Hopper H100/H200 (the hardware probe's cubins).
pub const SM90: SmArch = SmArch(90);

/// The architectures whose cubins are opened and listed; every other architecture's ELF
/// entries are counted as skipped. The one place this decision is written: the decoder models
/// SM100's TLD4 encoding (docs/sources.md, Encoding), so sm_100 and its `a`/`f` variants.
pub const SUPPORTED: &[SmArch] = &[SM100];

/// Whether `arch` is one of [`SUPPORTED`].
pub fn is_supported(arch: SmArch) -> bool {
    SUPPORTED.contains(&arch)
}

/// The variant of an architecture: `sm_100`, `sm_100a` (architecture-specific features) or
/// `sm_100f` (family-specific). ptxas writes the same ELF e_flags for all three
/// (docs/sources.md, Fat binaries); a fat-binary entry's flags tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// No suffix.
    Generic,
    /// `a`: architecture-specific.
    Specific,
    /// `f`: family-specific.
    Family,
}

/// An architecture with its variant, as nvcc's `-arch` names it (`sm_100a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Target {
    /// The architecture number.
    pub sm: SmArch,
    /// Its variant.
    pub variant: Variant,
}

impl Target {
    /// The architecture without a variant (a bare cubin: its ELF header cannot tell).
    pub fn generic(sm: SmArch) -> Self {
        Target {
            sm,
            variant: Variant::Generic,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            Variant::Generic => "",
            Variant::Specific => "a",
            Variant::Family => "f",
        };
        write!(f, "{}{suffix}", self.sm)
    }
}

impl fmt::Display for SmArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.0)
    }
}

/// Where each cubin ELF ABI version (`e_ident[EI_ABIVERSION]`) keeps the architecture number
/// in `e_flags`: (ABI version, shift of the 8-bit field). Source: LLVM BinaryFormat/ELF.h
/// (ELFABIVERSION_CUDA_V1 = 7 with EF_CUDA_SM = 0xff; ELFABIVERSION_CUDA_V2 = 8 with
/// EF_CUDA_SM_MASK = 0xff00, EF_CUDA_SM_OFFSET = 8), and measured
/// (docs/sources.md, What ptxas emits): ptxas 11.8 for sm_90 writes ABI 7, e_flags 0x5a055a; ptxas 13.5 writes ABI 8,
/// e_flags 0x6006402 for sm_100 and sm_100a, 0x6005a04 for sm_90, 0x6006702 for sm_103.
pub const ABI_ARCH_FIELD: &[(u8, u32)] = &[(7, 0), (8, 8)];

/// The architecture of a cubin, from its ELF ABI version and flags.
pub fn arch_from_header(abi_version: u8, e_flags: u32) -> Result<SmArch, CubinError> {
    ABI_ARCH_FIELD
        .iter()
        .find(|(v, _)| *v == abi_version)
        .map(|&(_, shift)| SmArch((e_flags >> shift) & 0xff))
        .ok_or(CubinError::UnknownAbiVersion { abi_version })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_abi_versions_read_what_ptxas_wrote() {
        // The e_flags words of the measured cubins (see ABI_ARCH_FIELD).
        assert_eq!(arch_from_header(7, 0x5a055a).unwrap(), SM90);
        assert_eq!(arch_from_header(8, 0x6005a04).unwrap(), SM90);
        assert_eq!(arch_from_header(8, 0x6006402).unwrap(), SM100);
        assert_eq!(arch_from_header(8, 0x6006702).unwrap(), SmArch(103));
        assert!(matches!(
            arch_from_header(9, 0x6006402),
            Err(CubinError::UnknownAbiVersion { abi_version: 9 })
        ));
        assert_eq!(SmArch(103).to_string(), "sm_103");
        let t = |variant| Target { sm: SM100, variant }.to_string();
        assert_eq!(
            [
                t(Variant::Generic),
                t(Variant::Specific),
                t(Variant::Family)
            ],
            ["sm_100", "sm_100a", "sm_100f"]
        );
        assert!(is_supported(SM100) && !is_supported(SM90));
    }
}
