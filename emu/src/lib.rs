//! Execute NVIDIA SM100 `TLD4` (texture gather) for a warp of 32 lanes against the tld4
//! software texture unit (`tld4-textures`).
//!
//! This is where the decoder (`tld4-decoder`, which knows encodings) and the texture unit
//! (which knows textures) meet. Decode once, execute many times: [`Tld4Exec::new`] checks and
//! precomputes what the instruction alone decides; [`Tld4Exec::execute`] runs a warp and
//! allocates nothing per lane.
//!
//! What changes values: the dimension, component, write mask, offsets (AOFFI, PTP), depth
//! compare and F16 output. What changes none: `.SCR` (its effect is an open question; it is
//! treated as a hint), `.NODEP`, the eviction priority, and the scheduling fields
//! (usched_info, barriers, wait mask, batch_t, pm_pred) — a warp executes one TLD4 at a time
//! here, so scheduling cannot be observed.

mod exec;
mod fault;
mod memory_exec;
mod pack;
mod warp;

pub use exec::{
    aoffi_offsets, gather_op, illegal_encoding, ptp_offsets, texture_kind, ExecConfig, ExecReport,
    Tld4Exec,
};
pub use fault::{Operand, WarpFault};
pub use memory_exec::MemoryExecError;
pub use pack::{
    destination_counts, f16_rn, f16_rz, pack, planned_value, write_plan, OutputMode, WritePlan,
    Writes, F16_NAN, NO_COMPONENT,
};
pub use tld4_textures::{LaneTexels, MemoryPool, TexelAddress};
pub use warp::{WarpState, RZ, WARP_SIZE};
