//! Every architecture's TLD4, executed: the embedder's constant memory beside its
//! [`RegisterFile`], for the forms that name their texture by a constant-bank slot.
//!
//! On SM75 to SM90a the form 0xb63 holds no handle register: its two immediates are a
//! constant bank and an offset (`c[bank][4 * offset]`, Mesa's NAK;
//! docs/sources.md, TLD4 on every architecture), and the texture handle is the 32-bit constant there. The simulator
//! holds that memory, so it provides it through [`ConstantBank`]; with none there
//! ([`NoConstants`], or nothing at the slot) the warp faults with
//! [`ArchExecError::NoConstant`] and writes nothing. The texture unit and every
//! [`crate::FaultKind`] are the same on every architecture: [`ArchExec`] runs the base
//! executor ([`Tld4Exec`]) with the handle delivered as a warp-uniform value, exactly as the
//! uniform-register form reads URc.

use std::collections::BTreeMap;

use thiserror::Error;
use tld4_decoder::{
    decode_arch, Arch, ArchTld4, BClear, Change, DecodeError, Family, HandleForm, OffsetMode, UReg,
};
use tld4_gpu_memory::MemoryPool;
use tld4_textures::{LaneTexels, TexturePool};

use crate::exec::{ExecConfig, ExecReport, LaneHandles, Tld4Exec};
use crate::fault::{NotModeledReason, WarpFault};
use crate::memory_exec::MemoryExecError;
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// The simulator's constant memory, as TLD4 reads it: the embedder's input beside
/// [`RegisterFile`].
pub trait ConstantBank {
    /// The little-endian 32-bit word at byte `offset` of constant bank `bank`, or `None`
    /// when the simulator holds nothing there.
    fn read_u32(&self, bank: u8, offset: u32) -> Option<u32>;
}

/// No constant memory at all: every read is `None` (a constant-bank TLD4 then faults with
/// [`ArchExecError::NoConstant`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoConstants;

impl ConstantBank for NoConstants {
    fn read_u32(&self, _bank: u8, _offset: u32) -> Option<u32> {
        None
    }
}

/// Constant banks held as bytes, each from offset 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstantBanks {
    banks: BTreeMap<u8, Vec<u8>>,
}

impl ConstantBanks {
    /// No banks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets bank `bank` to `bytes` (offset 0 first), replacing what it held.
    pub fn set_bank(&mut self, bank: u8, bytes: Vec<u8>) {
        self.banks.insert(bank, bytes);
    }

    /// The bytes of bank `bank`, if set.
    pub fn bank(&self, bank: u8) -> Option<&[u8]> {
        self.banks.get(&bank).map(Vec::as_slice)
    }
}

impl ConstantBank for ConstantBanks {
    fn read_u32(&self, bank: u8, offset: u32) -> Option<u32> {
        let bytes = self.banks.get(&bank)?;
        let at = usize::try_from(offset).ok()?;
        let word = bytes.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
    }
}

/// Why an [`ArchExec`] raised instead of writing results.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum ArchExecError {
    /// The form reads its texture handle from constant memory, and the embedder's
    /// [`ConstantBank`] holds nothing at the slot (or no constants were provided).
    #[error("no constant at c[{bank:#x}][{offset:#x}]: the texture handle of this TLD4 is read there, and the simulator provides none")]
    NoConstant {
        /// The constant bank.
        bank: u8,
        /// The byte offset in it.
        offset: u32,
    },
    /// A warp fault of the base executor, of the same kinds as on SM100.
    #[error(transparent)]
    Fault(#[from] WarpFault),
    /// Textures in GPU memory: a descriptor holding a value no hardware accepts, or a failed
    /// descriptor or texel read ([`ArchExec::execute_memory`]; never its `Fault` variant,
    /// which is [`ArchExecError::Fault`]).
    #[error(transparent)]
    Memory(MemoryExecError),
}

impl ArchExecError {
    /// The stable name of the error: `no_constant`, or the warp fault's
    /// [`crate::FaultKind`] name.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ArchExecError::NoConstant { .. } => "no_constant",
            ArchExecError::Fault(f) => f.kind().name(),
            ArchExecError::Memory(e) => e.kind().name(),
        }
    }
}

/// Where the executed instruction's texture handle comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HandleSource {
    /// As the base form reads it (URc, or the first Rb register).
    Base,
    /// The constant at `c[bank][offset]`.
    Constant { bank: u8, offset: u32 },
}

/// A field value of a valid word whose effect no source states: the instruction is valid
/// but not modeled (docs/sources.md, Decisions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Unmodeled {
    field: &'static str,
    value: u32,
    what: &'static str,
}

/// The first field of `insn` that makes it valid but not modeled, in the family rows' order
/// (docs/sources.md, Decisions: one rule for every unknown form or field value, a typed
/// not-modeled fault naming the field and its value; never executed as if absent, never an
/// illegal encoding for a value nvdisasm prints).
fn unmodeled(insn: &ArchTld4) -> Option<Unmodeled> {
    let at = |field, value, what| Some(Unmodeled { field, value, what });
    let has_imms = insn
        .rows()
        .any(|r| matches!(r.change, Change::HandleImm { .. }));
    if has_imms {
        match insn.constant_slot() {
            Some(_) if insn.b_flag => {
                return at(
                    "b_flag",
                    1,
                    "the constant-bank form with `.B` (bit 59 set): its handle source is unknown",
                )
            }
            Some(_) => {}
            None => {
                return at(
                    "form",
                    insn.opcode as u32,
                    "a TLD4 naming its texture by immediates of unknown meaning",
                )
            }
        }
    }
    insn.rows().find_map(|r| match r.change {
        Change::BFlag {
            clear: BClear::Unknown,
        } if !insn.b_flag => at(
            r.spec.name,
            0,
            "a TLD4 printed `.???0` (bit 59 clear): its handle source is unknown",
        ),
        Change::Uai if insn.uai => at(r.spec.name, 1, "`.UAI`: what it changes is unknown"),
        Change::SecondUr if !insn.ur2.is_urz() => at(
            r.spec.name,
            insn.ur2.0 as u32,
            "a second uniform register other than URZ: what it is read for is unknown",
        ),
        Change::ImmAfterUr if insn.imm8 != 0 => at(
            r.spec.name,
            insn.imm8 as u32,
            "the immediate after URc other than 0 (ptxas writes 0): what it changes is unknown",
        ),
        Change::Renamed { field, raw, .. }
            if field == "offset_mode" && insn.insn.offset_mode.raw() == raw =>
        {
            at(
                field,
                raw,
                "`UAOFFI` (offset value 3 on this family): what it changes is unknown",
            )
        }
        _ => None,
    })
}

/// A decoded TLD4 of any architecture, ready to execute many warps (the architecture-taking
/// counterpart of [`Tld4Exec`]).
#[derive(Clone, Debug)]
pub struct ArchExec {
    insn: ArchTld4,
    exec: Tld4Exec,
    source: HandleSource,
    /// Valid but not modeled: raised after the static faults, before anything is read.
    unmodeled: Option<Unmodeled>,
}

impl ArchExec {
    /// Prepares `insn` for execution.
    ///
    /// - The constant-bank form (0xb63 without `.B`) reads its handle at
    ///   [`ArchTld4::constant_slot`] (docs/sources.md, TLD4 on every architecture).
    /// - A uniform register the family prints `???<n>` (UR63 on SM75 to SM90a, narrowed
    ///   URc) is that family's zero register and reads 0, as URZ does (docs/sources.md, SM90).
    /// - Valid but not modeled (a typed [`WarpFault::NotModeled`] naming the field and its
    ///   value, after the static faults): 0xb63 with `.B`, `.???0` and 0xb65, whose handle
    ///   source no source states, and SM120's `.UAI`, `UAOFFI` and second uniform register
    ///   other than URZ, and the pre-SM100 immediate after URc other than 0, whose effects
    ///   no source states (docs/sources.md, Decisions).
    pub fn new(insn: &ArchTld4, config: ExecConfig) -> Self {
        let mut base = insn.insn;
        let mut source = HandleSource::Base;
        let unmodeled = unmodeled(insn);
        for r in insn.rows() {
            match r.change {
                Change::Narrowed {
                    unknown: Some(n), ..
                } if base.form == HandleForm::Uniform && base.ur.0 == n => base.ur = UReg::URZ,
                // A renamed value is valid on the family (not the base table's INVALID): the
                // base executor must not call it an illegal encoding; `unmodeled` names it.
                Change::Renamed {
                    field: "offset_mode",
                    raw,
                    ..
                } if base.offset_mode.raw() == raw => base.offset_mode = OffsetMode::None,
                _ => {}
            }
        }
        if let (Some(slot), None) = (insn.constant_slot(), unmodeled) {
            // The handle reaches the base executor as UR0's value (see `execute`).
            base.ur = UReg(0);
            source = HandleSource::Constant {
                bank: slot.bank,
                offset: slot.offset,
            };
        }
        ArchExec {
            insn: *insn,
            exec: Tld4Exec::new(&base, config),
            source,
            unmodeled,
        }
    }

    /// Decodes `word` for `arch` and prepares it.
    pub fn from_word(arch: Arch, word: u128, config: ExecConfig) -> Result<Self, DecodeError> {
        Ok(Self::new(&decode_arch(arch, word)?, config))
    }

    /// The instruction.
    pub fn insn(&self) -> &ArchTld4 {
        &self.insn
    }

    /// The base executor the instruction runs on.
    pub fn base(&self) -> &Tld4Exec {
        &self.exec
    }

    /// The family of the instruction's architecture.
    pub fn family(&self) -> Family {
        self.insn.arch.family()
    }

    /// Executes the instruction for `warp`, reading constant memory from `constants`:
    /// static faults first (as [`Tld4Exec::execute`]), then the not-modeled forms; the
    /// constant is read once for the warp when a lane executes (as URc is), and a missing
    /// one raises [`ArchExecError::NoConstant`] before anything is written.
    pub fn execute<R: RegisterFile + ?Sized, C: ConstantBank + ?Sized>(
        &self,
        warp: &mut R,
        constants: &C,
        pool: &TexturePool,
    ) -> Result<ExecReport, ArchExecError> {
        match self.constant_handle(warp, constants)? {
            None => Ok(self.exec.execute(warp, pool)?),
            Some(handle) => Ok(self.exec.execute(
                &mut ConstantHandle {
                    inner: warp,
                    handle,
                },
                pool,
            )?),
        }
    }

    /// [`ArchExec::execute`] against textures in GPU memory ([`Tld4Exec::execute_memory`]):
    /// the pool reads its descriptors as its class does
    /// ([`MemoryPool::with_descriptors`]); a failed descriptor or texel read is
    /// [`ArchExecError::Memory`].
    pub fn execute_memory<R: RegisterFile + ?Sized, C: ConstantBank + ?Sized>(
        &self,
        warp: &mut R,
        constants: &C,
        pool: &MemoryPool<'_>,
    ) -> Result<ExecReport, ArchExecError> {
        self.execute_memory_with_texels(warp, constants, pool, None)
    }

    /// [`ArchExec::execute_memory`], recording each executed lane's texel addresses into
    /// `texels` as [`Tld4Exec::execute_memory`] does (the same execution: the base executor
    /// records them while it gathers).
    pub fn execute_memory_with_texels<R: RegisterFile + ?Sized, C: ConstantBank + ?Sized>(
        &self,
        warp: &mut R,
        constants: &C,
        pool: &MemoryPool<'_>,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<ExecReport, ArchExecError> {
        let run = match self.constant_handle(warp, constants)? {
            None => self.exec.execute_memory(warp, pool, texels),
            Some(handle) => self.exec.execute_memory(
                &mut ConstantHandle {
                    inner: warp,
                    handle,
                },
                pool,
                texels,
            ),
        };
        run.map_err(|e| match e {
            MemoryExecError::Fault(f) => ArchExecError::Fault(f),
            other => ArchExecError::Memory(other),
        })
    }

    /// Each executing lane's handle as [`ArchExec::execute`] reads it (the base form's
    /// register or uniform register, or the constant at the form's slot, read once for the
    /// warp), after the same faults: static, not modeled, a missing constant. Reads no texture.
    pub fn lane_handles<R: RegisterFile + ?Sized, C: ConstantBank + ?Sized>(
        &self,
        warp: &R,
        constants: &C,
    ) -> Result<LaneHandles, ArchExecError> {
        Ok(match self.constant_handle(warp, constants)? {
            None => self.exec.lane_handles(warp)?,
            Some(handle) => {
                // the base form would read UR0, which stands for the constant (see `execute`)
                let (_, executed) = self.exec.executing(warp)?;
                LaneHandles {
                    executed,
                    handles: std::array::from_fn(
                        |l| {
                            if executed >> l & 1 != 0 {
                                handle
                            } else {
                                0
                            }
                        },
                    ),
                }
            }
        })
    }

    /// The static faults, then the handle: `None` where the base form reads it itself (or no
    /// lane executes), the constant at the form's slot otherwise.
    fn constant_handle<R: RegisterFile + ?Sized, C: ConstantBank + ?Sized>(
        &self,
        warp: &R,
        constants: &C,
    ) -> Result<Option<u32>, ArchExecError> {
        let (_, executed) = self.exec.executing(warp)?;
        if let Some(Unmodeled { field, value, what }) = self.unmodeled {
            let reason = NotModeledReason::Form { field, value, what };
            return Err(WarpFault::not_modeled(None, reason).into());
        }
        match self.source {
            HandleSource::Base => Ok(None),
            HandleSource::Constant { .. } if executed == 0 => Ok(None),
            HandleSource::Constant { bank, offset } => constants
                .read_u32(bank, offset)
                .map(Some)
                .ok_or(ArchExecError::NoConstant { bank, offset }),
        }
    }
}

/// A register file whose UR0 reads the constant-bank handle: the base executor's uniform
/// form then reads it where it reads URc. Every other access goes to `inner`.
struct ConstantHandle<'a, R: RegisterFile + ?Sized> {
    inner: &'a mut R,
    handle: u32,
}

impl<R: RegisterFile + ?Sized> RegisterFile for ConstantHandle<'_, R> {
    fn reg(&self, lane: usize, r: u8) -> u32 {
        self.inner.reg(lane, r)
    }
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        self.inner.set_reg(lane, r, value)
    }
    fn pred(&self, lane: usize, p: u8) -> bool {
        self.inner.pred(lane, p)
    }
    fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        self.inner.set_pred(lane, p, value)
    }
    fn ureg(&self, u: u8) -> u32 {
        if u == 0 {
            self.handle
        } else {
            self.inner.ureg(u)
        }
    }
    fn active_mask(&self) -> u32 {
        self.inner.active_mask()
    }
    fn regs_per_thread(&self) -> u16 {
        self.inner.regs_per_thread()
    }
    fn reg_lanes(&self, r: u8, lanes: u32, out: &mut [u32; WARP_SIZE]) {
        self.inner.reg_lanes(r, lanes, out)
    }
    fn reg_row(&self, r: u8) -> Option<&[u32; WARP_SIZE]> {
        self.inner.reg_row(r)
    }
    fn set_reg_lanes(&mut self, r: u8, lanes: u32, values: &[u32; WARP_SIZE]) {
        self.inner.set_reg_lanes(r, lanes, values)
    }
}
