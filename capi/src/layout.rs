//! What each register of the Ra and Rb operand vectors holds, per decoded instruction: the
//! decoder's `ra_layout()` / `rb_layout()` (ptxas output and Mesa NAK's register-handle
//! convention, docs/sources.md), so that a simulator need not restate them.

use crate::error::{entry, tld4_error, tld4_status};
use crate::insn::tld4_insn;
use crate::ptr::{in_ref, out};

/// The meaning of the Ra and Rb registers of one instruction (`tld4_insn_operand_layout`).
/// Positions are relative to the vector's first register; a vector of count 0 is not read.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct tld4_operand_layout {
    /// Ra's first register (255: RZ, the vector reads zeros).
    pub ra: u8,
    /// How many registers Ra spans: `ra_layer` + `coords`.
    pub ra_count: u8,
    /// Ra + 0 holds the array layer (an unsigned 16-bit integer in the low half) before the
    /// coordinates (ARRAY_2D, ARRAY_CUBE).
    pub ra_layer: bool,
    /// How many f32 coordinates: 2 (u, v) or 3 (x, y, z, the cube kinds).
    pub coords: u8,
    /// The position in Ra of the first coordinate (1 after a layer, else 0).
    pub coords_at: u8,
    /// Rb's first register (255: RZ).
    pub rb: u8,
    /// How many registers Rb spans (0: Rb is not read).
    pub rb_count: u8,
    /// Rb + 0 holds the texture handle (the register-handle form; NAK's convention).
    pub handle_in_rb: bool,
    /// How many offset registers: 0, 1 (AOFFI: four 6-bit pairs packed) or 2 (PTP).
    pub offsets: u8,
    /// The position in Rb of the first offset register.
    pub offsets_at: u8,
    /// Rb holds the depth reference (f32; `.DC`).
    pub depth_ref: bool,
    /// The position in Rb of the depth reference (after the handle and offsets).
    pub depth_ref_at: u8,
}

/// What the Ra and Rb registers of `insn` hold (`*out`).
///
/// # Safety
/// `insn` is a live instruction; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_operand_layout(
    insn: *const tld4_insn,
    out_ptr: *mut tld4_operand_layout,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let i = &in_ref(insn, "insn")?.0;
        let (ra, rb) = (i.ra_layout(), i.rb_layout());
        out(
            out_ptr,
            "out",
            tld4_operand_layout {
                ra: i.ra.0,
                ra_count: ra.len(),
                ra_layer: ra.layer,
                coords: ra.coords,
                coords_at: ra.layer as u8,
                rb: i.rb.0,
                rb_count: rb.len(),
                handle_in_rb: rb.handle,
                offsets: rb.offsets,
                offsets_at: rb.offsets_at(),
                depth_ref: rb.depth_ref,
                depth_ref_at: rb.depth_ref_at(),
            },
        )
    })
}
