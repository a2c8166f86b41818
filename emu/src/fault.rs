//! Warp exceptions: what TLD4 raises instead of results.
//!
//! Faults found from the instruction alone (illegal encoding, then out-of-range register,
//! then misalignment) are raised even when no lane executes and win over per-lane faults;
//! among lanes the lowest lane number is reported (FACTS.md, decisions).

use thiserror::Error;

/// A register operand, for fault reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// A warp exception raised by TLD4.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum WarpFault {
    /// The encoding is one the hardware cannot execute (an INVALID value, or an operand
    /// vector that starts at register 255).
    #[error("illegal instruction encoding: {0}")]
    IllegalEncoding(String),
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
    /// The handle names a texture header or sampler that is not in the pools.
    #[error("lane {lane}: {source}")]
    BadHandle {
        /// The lowest lane with a bad handle.
        lane: u8,
        /// The handle it used.
        handle: u32,
        /// The texture unit's error (it names the index).
        source: tld4_textures::Error,
    },
    /// A valid instruction whose behaviour is not modeled (FACTS.md, decisions).
    #[error("not modeled{}: {what}", lane.map(|l| format!(" (lane {l})")).unwrap_or_default())]
    NotModeled {
        /// The lowest lane concerned, where it depends on the lane.
        lane: Option<u8>,
        /// What is not modeled.
        what: String,
    },
}

impl WarpFault {
    /// True for "valid but not modeled", as opposed to a fault the hardware raises.
    pub fn is_not_modeled(&self) -> bool {
        matches!(self, WarpFault::NotModeled { .. })
    }
}
