//! What the operand vectors Ra and Rb hold, for each form and set of modifiers.
//!
//! Sources: the ptxas output in docs/sources.md (Ra = {[layer], u, v} or {[layer], x, y, z}; Rb =
//! {offsets, depth reference} in that order) and Mesa NAK's convention for the
//! register-handle form (the handle first). ptxas never emits the 0xd64 form, so the
//! position of the handle there is NAK's, not a measurement.

use crate::fields::Tld4;
use crate::values::*;

/// The registers of the Ra vector, starting at Ra.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaLayout {
    /// Ra holds the array layer (an unsigned 16-bit integer in the low half) before the
    /// coordinates (ARRAY_2D, ARRAY_CUBE; ptxas output).
    pub layer: bool,
    /// The number of f32 coordinates: 2 (u, v) or 3 (x, y, z) (ptxas output).
    pub coords: u8,
}

impl RaLayout {
    /// The number of registers the Ra vector spans.
    pub const fn len(&self) -> u8 {
        self.layer as u8 + self.coords
    }
    /// Never empty: kept for clippy's `len_without_is_empty`.
    pub const fn is_empty(&self) -> bool {
        false
    }
}

/// The registers of the Rb vector, starting at Rb, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RbLayout {
    /// The texture handle comes first (register-handle form 0xd64; NAK's convention).
    pub handle: bool,
    /// Offset registers next: 1 for AOFFI, 2 for PTP (ptxas output; NAK).
    pub offsets: u8,
    /// The depth reference (f32) last, with `.DC` (ptxas output).
    pub depth_ref: bool,
}

impl RbLayout {
    /// The number of registers the Rb vector spans (0: Rb is not read).
    pub const fn len(&self) -> u8 {
        self.handle as u8 + self.offsets + self.depth_ref as u8
    }
    /// True when the instruction reads nothing from Rb.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The register index, relative to Rb, of the first offset register.
    pub const fn offsets_at(&self) -> u8 {
        self.handle as u8
    }
    /// The register index, relative to Rb, of the depth reference.
    pub const fn depth_ref_at(&self) -> u8 {
        self.handle as u8 + self.offsets
    }
}

impl Tld4 {
    /// What the Ra vector holds for this dimension (INVALIDn dimensions read 2 coordinates:
    /// they never execute).
    pub const fn ra_layout(&self) -> RaLayout {
        RaLayout {
            layer: self.dimension.is_array(),
            coords: if self.dimension.is_cube() { 3 } else { 2 },
        }
    }

    /// What the Rb vector holds for this form and these modifiers.
    pub const fn rb_layout(&self) -> RbLayout {
        RbLayout {
            handle: matches!(self.form, HandleForm::Register),
            offsets: self.offset_mode.registers(),
            depth_ref: self.depth_compare,
        }
    }
}
