//! Warp exceptions: what TLD4 raises instead of results, and their stable kinds.
//!
//! Faults found without any lane (an invalid executor setting, then illegal encoding, then
//! out-of-range register, then misalignment) are raised even when no lane executes and win
//! over per-lane faults; among lanes the lowest lane number is reported (docs/sources.md,
//! Decisions). A fault writes nothing.

use thiserror::Error;

/// A register operand, for fault reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operand {
    /// Rd, destination of components 0-1.
    Rd,
    /// Rd2, destination of components 2-3.
    Rd2,
    /// Ra, the coordinate vector.
    Ra,
    /// Rb, the handle/offsets/depth-reference vector.
    Rb,
}

impl core::fmt::Display for Operand {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Operand::Rd => "Rd",
            Operand::Rd2 => "Rd2",
            Operand::Ra => "Ra",
            Operand::Rb => "Rb",
        })
    }
}

/// An [`crate::ExecConfig`] the executor cannot run with: invalid input from the embedder,
/// found when the config is validated ([`crate::ExecConfig::validate`]) or the instruction
/// prepared ([`crate::Tld4Exec::new`]), never at a lane.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The sub-texel precision has more fractional bits than the texture unit models.
    #[error("precision: {fraction_bits} fractional bits, more than the texture unit's {max}")]
    Precision {
        /// The bits asked for.
        fraction_bits: u8,
        /// The most the texture unit takes ([`tld4_textures::Precision::MAX_FRACTION_BITS`]).
        max: u8,
    },
}

/// Why the hardware cannot execute an encoding: an INVALID value of a field (nvdisasm prints
/// them as INVALIDn), or an operand vector that would start at register 255 (nvdisasm prints
/// `???255` there; docs/sources.md, Decisions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IllegalEncoding {
    /// A field holds a value with no meaning.
    #[error("the {field} field holds {value}, which has no meaning")]
    InvalidValue {
        /// The field (`dimension`, `offset`, `F16`, `eviction`).
        field: &'static str,
        /// nvdisasm's name of the value (`INVALID3`, ...).
        value: &'static str,
    },
    /// Ra is register 255.
    #[error(
        "Ra is register 255 (nvdisasm prints ???255): the coordinate vector cannot start at RZ"
    )]
    RaIsRz,
    /// Rb is register 255 but the form reads Rb registers.
    #[error("Rb is register 255 (RZ) but this form reads {reads} Rb register(s) (handle, offsets, depth reference)")]
    RbIsRz {
        /// Rb registers the form reads.
        reads: u8,
    },
}

/// A warp exception raised by TLD4.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum WarpFault {
    /// The encoding is one the hardware cannot execute (an INVALID value, or an operand
    /// vector that starts at register 255).
    #[error("illegal instruction encoding: {0}")]
    IllegalEncoding(IllegalEncoding),
    /// An operand vector runs past R254 or past the registers a thread has.
    #[error(
        "register out of range: {operand} = R{first} spans R{first}..R{last}, beyond {limit_name} (R{limit})"
    )]
    RegisterOutOfRange {
        /// The operand.
        operand: Operand,
        /// Its first register.
        first: u8,
        /// Its last register (may be 255 or more: past the file).
        last: u16,
        /// The last usable register.
        limit: u16,
        /// What limits it: "R254" or "the registers per thread".
        limit_name: &'static str,
    },
    /// A 64-bit destination pair is not even-aligned (only with
    /// [`crate::ExecConfig::require_aligned_pairs`]).
    #[error("misaligned register: {operand} = R{reg} holds a 64-bit pair and must be even")]
    MisalignedRegister {
        /// The operand.
        operand: Operand,
        /// Its register.
        reg: u8,
    },
    /// The handle's texture-header index (bits 19:0) names no header in the pool.
    #[error("lane {lane}: handle {handle:#010x}: {source}")]
    UnknownTextureHeader {
        /// The lowest lane with this handle.
        lane: u8,
        /// The handle it used.
        handle: u32,
        /// The texture unit's error (it names the index and the pool's size).
        source: tld4_textures::Error,
    },
    /// The handle's sampler index (bits 31:20) names no sampler in the pool.
    #[error("lane {lane}: handle {handle:#010x}: {source}")]
    UnknownSampler {
        /// The lowest lane with this handle.
        lane: u8,
        /// The handle it used.
        handle: u32,
        /// The texture unit's error (it names the index and the pool's size).
        source: tld4_textures::Error,
    },
    /// The handle resolves, but the texture unit refuses the texture or sampler it names as
    /// invalid input (for example texel storage that is not contiguous).
    #[error("lane {lane}: handle {handle:#010x}: {source}")]
    InvalidTexture {
        /// The lowest lane with this handle.
        lane: u8,
        /// The handle it used.
        handle: u32,
        /// The texture unit's error.
        source: tld4_textures::Error,
    },
    /// The executor's settings are invalid (see [`ConfigError`]).
    #[error("invalid executor setting: {0}")]
    InvalidConfig(ConfigError),
    /// A valid instruction whose behaviour is not modeled (docs/sources.md, Decisions).
    /// Made by [`WarpFault::not_modeled`], so `what` is always `reason`'s sentence.
    #[error("not modeled{}: {what}", lane.map(|l| format!(" (lane {l})")).unwrap_or_default())]
    NotModeled {
        /// The lowest lane concerned, where it depends on the lane.
        lane: Option<u8>,
        /// What is not modeled: the sentence of `reason`.
        what: String,
        /// Why, typed: the descriptor field and value, the instruction field, or the
        /// texture unit's reason.
        reason: NotModeledReason,
    },
}

/// Why a valid instruction, texture header or sampler is not modeled, typed, so that a
/// simulator tells an address mode from a compressed format without reading the sentence
/// (which is derived from it: its `Display`).
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum NotModeledReason {
    /// A field of the handle's texture header or sampler in GPU memory (docs/sources.md,
    /// Descriptors; the field's name is clcd97tex.h's, as docs/descriptors.md lists them).
    #[error("handle {handle:#010x}: {descriptor} {field} = {value:#x}: {why}")]
    Descriptor {
        /// The handle whose descriptor it is.
        handle: u32,
        /// "texture header" or "sampler".
        descriptor: &'static str,
        /// The field.
        field: &'static str,
        /// Its raw value.
        value: u64,
        /// What is not modeled.
        why: &'static str,
    },
    /// An instruction field's value with the texture it reads (docs/sources.md, Decisions).
    #[error("{value} output from the integer format {format:?}")]
    Instruction {
        /// The field (as docs/fields.md names it).
        field: &'static str,
        /// Its value, as nvdisasm prints it.
        value: &'static str,
        /// The texture's format.
        format: tld4_textures::Format,
    },
    /// The texture unit's reason (the dimension, offsets or depth compare against the
    /// texture and sampler).
    #[error("{0}")]
    Texture(tld4_textures::NotModeled),
    /// A valid instruction form or field value whose effect no source states: the field as
    /// the field table names it (docs/fields.md) and its raw value (0xb65, 0xb63 with `.B`,
    /// `.???0`, SM120's `.UAI`, `UAOFFI` and second uniform register, the pre-SM100
    /// immediate after URc; docs/sources.md, Decisions: one rule, valid but not modeled).
    #[error("{field} = {value:#x}: {what}")]
    Form {
        /// The field (its name in the field table or the family rows).
        field: &'static str,
        /// Its raw value.
        value: u32,
        /// What is not modeled.
        what: &'static str,
    },
    /// An owned texture the memory form cannot express.
    #[error("handle {handle:#010x}: {what}")]
    Unrepresentable {
        /// The handle.
        handle: u32,
        /// What cannot be expressed.
        what: &'static str,
    },
}

/// Declares the fault kinds: variant, stable name, meaning. The one table of names.
macro_rules! fault_kinds {
    ( $( $(#[doc = $doc:literal])+ $variant:ident = $name:literal, )* ) => {
        /// The kind of a [`WarpFault`], with a stable name (`illegal_encoding`, ...): what a
        /// simulator maps to its own exceptions, and what scenario files write.
        ///
        /// ```
        /// use tld4_emu::FaultKind;
        /// for &kind in FaultKind::ALL {
        ///     assert_eq!(kind.name().parse::<FaultKind>(), Ok(kind));
        /// }
        /// assert_eq!(FaultKind::from_name("unknown_sampler"), Some(FaultKind::UnknownSampler));
        /// assert!("bad_handle".parse::<FaultKind>().is_err());
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum FaultKind {
            $( $(#[doc = $doc])+ $variant, )*
        }

        impl FaultKind {
            /// Every kind, in the order of the enum.
            pub const ALL: &'static [FaultKind] = &[ $( FaultKind::$variant, )* ];

            /// The stable name.
            pub const fn name(self) -> &'static str {
                match self { $( FaultKind::$variant => $name, )* }
            }

            /// The kind of a stable name.
            pub fn from_name(name: &str) -> Option<FaultKind> {
                match name { $( $name => Some(FaultKind::$variant), )* _ => None }
            }
        }
    };
}

fault_kinds! {
    /// An encoding the hardware cannot execute (an INVALID field value, `???255` operand).
    IllegalEncoding = "illegal_encoding",
    /// An operand vector past R254 or past the registers a thread has.
    RegisterOutOfRange = "register_out_of_range",
    /// An odd 64-bit destination pair, with alignment required.
    MisalignedRegister = "misaligned_register",
    /// A handle whose texture-header index names no header.
    UnknownTextureHeader = "unknown_texture_header",
    /// A handle whose sampler index names no sampler.
    UnknownSampler = "unknown_sampler",
    /// A texture or sampler the texture unit refuses as invalid input.
    InvalidTexture = "invalid_texture",
    /// An invalid executor setting (for example the sub-texel precision).
    InvalidConfig = "invalid_config",
    /// Valid, but what the hardware does is not modeled.
    NotModeled = "not_modeled",
}

impl FaultKind {
    /// True for [`FaultKind::NotModeled`]: valid input the emulator cannot answer, as
    /// opposed to a fault the hardware (or the embedder's setup) raises.
    pub const fn is_not_modeled(self) -> bool {
        matches!(self, FaultKind::NotModeled)
    }
}

impl core::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`FaultKind`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("`{name}` is not a fault kind: one of {}", FaultKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownFaultKind {
    /// The name given.
    pub name: String,
}

impl core::str::FromStr for FaultKind {
    type Err = UnknownFaultKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FaultKind::from_name(s).ok_or_else(|| UnknownFaultKind {
            name: s.to_string(),
        })
    }
}

impl WarpFault {
    /// The fault's kind.
    pub const fn kind(&self) -> FaultKind {
        match self {
            WarpFault::IllegalEncoding(_) => FaultKind::IllegalEncoding,
            WarpFault::RegisterOutOfRange { .. } => FaultKind::RegisterOutOfRange,
            WarpFault::MisalignedRegister { .. } => FaultKind::MisalignedRegister,
            WarpFault::UnknownTextureHeader { .. } => FaultKind::UnknownTextureHeader,
            WarpFault::UnknownSampler { .. } => FaultKind::UnknownSampler,
            WarpFault::InvalidTexture { .. } => FaultKind::InvalidTexture,
            WarpFault::InvalidConfig(_) => FaultKind::InvalidConfig,
            WarpFault::NotModeled { .. } => FaultKind::NotModeled,
        }
    }

    /// The lowest lane the fault concerns, for faults that depend on a lane.
    pub const fn lane(&self) -> Option<u8> {
        match self {
            WarpFault::UnknownTextureHeader { lane, .. }
            | WarpFault::UnknownSampler { lane, .. }
            | WarpFault::InvalidTexture { lane, .. } => Some(*lane),
            WarpFault::NotModeled { lane, .. } => *lane,
            _ => None,
        }
    }

    /// True for "valid but not modeled", as opposed to a fault the hardware raises.
    pub fn is_not_modeled(&self) -> bool {
        self.kind().is_not_modeled()
    }

    /// The not-modeled fault of `lane` for `reason`, its sentence derived from the reason.
    pub fn not_modeled(lane: Option<u8>, reason: NotModeledReason) -> Self {
        WarpFault::NotModeled {
            lane,
            what: reason.to_string(),
            reason,
        }
    }

    /// The typed reason of a not-modeled fault.
    pub fn not_modeled_reason(&self) -> Option<&NotModeledReason> {
        match self {
            WarpFault::NotModeled { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_snake_case_and_parse_back() {
        let mut names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
        for n in &names {
            assert!(n.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{n}");
            assert_eq!(FaultKind::from_name(n).map(FaultKind::name), Some(*n));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), FaultKind::ALL.len());
        let e = "bad_handle".parse::<FaultKind>().unwrap_err();
        assert!(e.to_string().contains("unknown_texture_header"), "{e}");
    }
}
