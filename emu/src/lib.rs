//! Execute NVIDIA SM100 `TLD4` (texture gather) for a warp of 32 lanes against the tld4
//! software texture unit (`tld4-textures`).
//!
//! This is where the decoder (`tld4-decoder`, which knows encodings) and the texture unit
//! (which knows textures) meet. Decode once, execute many times: [`Tld4Exec::new`] checks and
//! precomputes what the instruction alone decides; [`Tld4Exec::execute`] runs a warp and
//! allocates nothing per lane; [`Tld4Exec::bind`] binds it to a texture pool for many warps,
//! preparing the texture unit once per handle instead of once per warp.
//!
//! What changes values: the dimension, component, write mask, offsets (AOFFI, PTP), depth
//! compare and F16 output. What changes none: `.SCR` (its effect is an open question; it is
//! treated as a hint), `.NODEP`, the eviction priority, and the scheduling fields
//! (usched_info, barriers, wait mask, batch_t, pm_pred) — a warp executes one TLD4 at a time
//! here, so scheduling cannot be observed.
//!
//! # Embedding
//!
//! One dependency is enough: this crate re-exports the decoder ([`decoder`]) and the texture
//! unit ([`textures`]), and the items an embedder uses most at its root. With
//! `default-features = false` it pulls in no JSON crate (only half, ndarray and thiserror).
//!
//! * Before running: [`Tld4::used_registers`] and [`Tld4::operand_vectors`] list what an
//!   instruction reads and writes; [`Tld4::scheduling`] gives the scheduling fields.
//! * Running on the simulator's own registers: implement [`RegisterFile`].
//! * Faults: every [`WarpFault`] has a [`FaultKind`] with a stable name.
//!
//! ```
//! use tld4_emu::{decoder, textures, ExecConfig, FaultKind, Tld4Exec, WarpState};
//! use textures::{Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool};
//!
//! let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
//! let mut pool = TexturePool::new();
//! pool.set_texture(1_048_575, Texture::from_fields(desc, &[1, 2, 3, 4])?)?;
//! pool.set_sampler(4095, Sampler::default())?;
//! let exec = Tld4Exec::from_word(decoder::assemble("TLD4.R R10, R8, R4, UR4, 2D ;")?, ExecConfig::default())?;
//! exec.check(255)?;
//! let mut warp = WarpState::new();
//! warp.set_ureg(4, Handle::new(1_048_575, 4095)?.0);
//! exec.execute(&mut warp, &pool)?;
//! warp.set_ureg(4, Handle::new(7, 4095)?.0);
//! assert_eq!(exec.execute(&mut warp, &pool).unwrap_err().kind(), FaultKind::UnknownTextureHeader);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod batch;
mod constants;
mod exec;
mod fault;
mod memory_exec;
pub mod pack;
mod regfile;
mod warp;

/// The decoder crate (`tld4-decoder`): decode, encode, disassemble, assemble, operands.
pub use tld4_decoder as decoder;
/// The GPU-memory model this crate executes against (memory, descriptors, pools).
pub use tld4_gpu_memory as gpu_memory;
/// The texture unit crate (`tld4-textures`): textures, samplers, pools, gathers.
pub use tld4_textures as textures;

pub use batch::{
    execute_batch, execute_batch_memory, execute_batch_sequential, MemoryWarpOutcome, WarpOutcome,
};
pub use constants::{ArchExec, ArchExecError, ConstantBank, ConstantBanks, NoConstants};
pub use exec::{
    aoffi_offsets, gather_op, illegal_encoding, ptp_offsets, texture_kind, Binding, BoundExec,
    ExecConfig, ExecReport, LaneHandles, Tld4Exec,
};
pub use fault::{
    ConfigError, FaultKind, IllegalEncoding, NotModeledReason, Operand, UnknownFaultKind, WarpFault,
};
pub use memory_exec::{MemoryExecError, MemoryRead};
pub use pack::{destination_counts, OutputMode};
pub use regfile::RegisterFile;
pub use tld4_gpu_memory::MemoryPool;
pub use tld4_textures::{LaneTexels, TexelAddress};
pub use warp::{copy_lanes, WarpState, RZ, WARP_SIZE};

pub use tld4_decoder::{
    decode, Access, DecodeError, Location, OperandRole, OperandVector, Scheduling, Tld4,
    UsedRegister, UsedRegisters,
};
pub use tld4_textures::{
    Error as TextureError, Format, Handle, Precision, Sampler, Texture, TextureDesc, TextureKind,
    TexturePool,
};
