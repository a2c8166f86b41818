//! The GPU architecture a cubin was built for, read from its ELF header, and which
//! architectures this crate reads: [`supported`], every architecture `tld4-decoder` knows.

use std::fmt;
use std::sync::OnceLock;

use tld4_decoder::Arch;

use crate::error::CubinError;

/// A streaming-multiprocessor architecture number: 100 for `sm_100` (B200).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SmArch(pub u32);

/// Blackwell B200, the architecture whose TLD4 `tld4-decoder` models.
pub const SM100: SmArch = SmArch(100);

/// Hopper H100/H200 (the hardware probe's cubins).
pub const SM90: SmArch = SmArch(90);

/// The architectures whose cubins are opened and listed: every architecture of
/// `tld4_decoder::Arch` (nvdisasm 13.5's, sm_75 to sm_121;
/// docs/sources.md, TLD4 on every architecture), each number once, in order. Other architectures' ELF entries are counted as
/// skipped. Derived from the decoder's list, so the decision is written there only.
pub fn supported() -> &'static [SmArch] {
    static ALL: OnceLock<Vec<SmArch>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v: Vec<SmArch> = Arch::ALL
            .iter()
            .filter_map(|a| decoder_number(*a))
            .collect();
        v.sort();
        v.dedup();
        v
    })
}

/// The number of a decoder architecture (`sm_100a` -> 100).
pub fn arch_number(a: Arch) -> Option<SmArch> {
    decoder_number(a)
}

fn decoder_number(a: Arch) -> Option<SmArch> {
    let digits = a.name().strip_prefix("sm_")?;
    let digits = digits.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    digits.parse().ok().map(SmArch)
}

/// Whether `arch` is one of [`supported`].
pub fn is_supported(arch: SmArch) -> bool {
    supported().contains(&arch)
}

/// The decoder's architecture of a cubin built for `sm`: its words decode with that
/// architecture's tables (the `a`/`f` variants print as their plain architecture:
/// docs/sources.md, TLD4 on every architecture). `None` for an architecture the decoder does
/// not know.
pub fn decoder_arch(sm: SmArch) -> Option<Arch> {
    Arch::ALL
        .iter()
        .copied()
        .find(|a| decoder_number(*a) == Some(sm) && a.name()[3..] == sm.0.to_string())
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

impl Target {
    /// Whether a selection by architecture (`--arch`) takes this target: a plain name
    /// (`sm_100`) takes every variant of its number (`sm_100`, `sm_100a`, `sm_100f`), a variant
    /// (`sm_100a`) only itself.
    pub fn selected_by(&self, arch: Arch) -> bool {
        let plain = !arch.name().ends_with(['a', 'f']);
        if plain {
            decoder_number(arch) == Some(self.sm)
        } else {
            arch.name() == self.to_string()
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
        assert!(is_supported(SM100) && is_supported(SM90) && !is_supported(SmArch(70)));
    }

    #[test]
    fn every_decoder_architecture_is_supported_and_decodes_with_its_own_tables() {
        let numbers: Vec<u32> = supported().iter().map(|s| s.0).collect();
        assert_eq!(
            numbers,
            [75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121]
        );
        for &sm in supported() {
            assert_eq!(decoder_arch(sm).unwrap().name(), sm.to_string());
        }
        assert_eq!(decoder_arch(SmArch(70)), None);
        let t = |variant| Target { sm: SM100, variant };
        assert!(t(Variant::Specific).selected_by(Arch::Sm100));
        assert!(t(Variant::Specific).selected_by(Arch::Sm100a));
        assert!(!t(Variant::Generic).selected_by(Arch::Sm100a));
        assert!(!t(Variant::Family).selected_by(Arch::Sm100a));
        assert!(!t(Variant::Generic).selected_by(Arch::Sm103));
    }
}
