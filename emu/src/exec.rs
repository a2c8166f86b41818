//! Executing one decoded TLD4 for a warp.
//!
//! Decode once ([`Tld4Exec::new`] checks and precomputes everything the instruction alone
//! decides), execute many times ([`Tld4Exec::execute`]): the per-lane loop allocates nothing.

use tld4_decoder::{Dimension, Eviction, F16Mode, HandleForm, OffsetMode, OperandRole, Tld4};
use tld4_textures::{
    Error as TexError, GatherOp, Gatherer, Handle, InvalidInput, LaneResults, Precision,
    TextureKind, TexturePool,
};

use crate::fault::{ConfigError, IllegalEncoding, NotModeledReason, Operand, WarpFault};
use crate::pack::{planned_value, write_plan, OutputMode};
use crate::regfile::RegisterFile;
use crate::warp::{RZ, WARP_SIZE};

mod binding;
mod bound;
mod last;
pub(crate) mod last_memory;
mod sources;
pub use binding::Binding;
pub use bound::BoundExec;
pub use sources::LaneHandles;
use sources::Sources;
pub use sources::{aoffi_offsets, ptp_offsets};

/// Settings of the executor where no source says what the hardware does.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ExecConfig {
    /// Fault when a 64-bit destination pair (Rd or Rd2 receiving two registers) starts at an
    /// odd register. Guess, no public source: off by default, since nvdisasm accepts odd
    /// registers (docs/sources.md, Decisions).
    pub require_aligned_pairs: bool,
    /// The texture unit's sub-texel precision model (see [`Precision`]).
    pub precision: Precision,
}

impl ExecConfig {
    /// Checks the settings: an invalid one is the embedder's error, found here (or by
    /// [`Tld4Exec::new`], which keeps it and raises it as [`WarpFault::InvalidConfig`] from
    /// every execution), never as a handle fault at a lane.
    ///
    /// ```
    /// use tld4_emu::{ConfigError, ExecConfig};
    /// use tld4_textures::{Precision, Rounding};
    /// let bad = ExecConfig {
    ///     precision: Precision::Fixed { fraction_bits: 21, rounding: Rounding::NearestEven },
    ///     ..ExecConfig::default()
    /// };
    /// assert!(matches!(bad.validate(), Err(ConfigError::Precision { fraction_bits: 21, .. })));
    /// assert_eq!(ExecConfig::default().validate(), Ok(()));
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self.precision.validate() {
            Ok(()) => Ok(()),
            Err(_) => Err(ConfigError::Precision {
                fraction_bits: match self.precision {
                    Precision::Fixed { fraction_bits, .. } => fraction_bits,
                    Precision::Exact => 0,
                },
                max: Precision::MAX_FRACTION_BITS,
            }),
        }
    }
}

/// What an execution did, lane by lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ExecReport {
    /// Lanes that executed (active and guard true).
    pub executed: u32,
    /// Executed lanes whose footprint touched a non-resident tile (they read zeros).
    pub nonresident: u32,
}

/// An operand vector the instruction reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OperandSpan {
    operand: Operand,
    /// Its first register.
    first: u8,
    /// Registers in it.
    count: u8,
}

/// One register an executing lane writes, and which result components go into it (32-bit
/// output: the first; F16 output: the low and high halves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RegisterWrite {
    register: u8,
    components: [u8; 2],
}

/// A decoded TLD4, checked and prepared for execution.
///
/// ```
/// use tld4_emu::{ExecConfig, Tld4Exec, WarpState};
/// use tld4_textures::*;
///
/// // A 2x2 R8_UINT texture, texels (x, y): (0,0)=1, (1,0)=2, (0,1)=3, (1,1)=4.
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
/// let mut pool = TexturePool::new();
/// let tex = pool.add_texture(Texture::from_fields(desc, &[1, 2, 3, 4])?)?;
/// let smp = pool.add_sampler(Sampler::default())?;
///
/// let insn = tld4_decoder::parse("TLD4.R R10, R8, R4, UR4, 2D ;")?;
/// let exec = Tld4Exec::new(&insn, ExecConfig::default());
/// let mut warp = WarpState::new();
/// warp.set_ureg(4, Handle::new(tex, smp)?.0);
/// for lane in 0..32 {
///     warp.set_reg_f32(lane, 4, 0.5); // u
///     warp.set_reg_f32(lane, 5, 0.5); // v
/// }
/// exec.execute(&mut warp, &pool)?;
/// // x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0) land in R8, R9, R10, R11.
/// assert_eq!([warp.reg(0, 8), warp.reg(0, 9), warp.reg(0, 10), warp.reg(0, 11)], [3, 4, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Tld4Exec {
    insn: Tld4,
    config: ExecConfig,
    /// Why the config is invalid, if it is.
    config_fault: Option<ConfigError>,
    /// The fault the instruction alone raises (illegal encoding), if any.
    illegal: Option<IllegalEncoding>,
    op: GatherOp,
    output: OutputMode,
    vectors: [OperandSpan; 4],
    nvectors: usize,
    /// Each write, in order; RZ destinations left out.
    writes: [RegisterWrite; 4],
    nwrites: usize,
    /// Where the query's parts are read from.
    sources: Sources,
    /// With enough registers per thread (this many or more) no static fault is raised:
    /// [`Tld4Exec::static_fault`]'s answer for the common case, computed once (None when a
    /// fault is raised whatever the register count).
    clean_regs: Option<u16>,
    /// What the texture unit kept between [`Tld4Exec::execute`] calls is keyed by, besides
    /// the pool's generation: a number no other construction had (a clone shares it, and
    /// prepares alike: the fields preparing reads never change after construction).
    setup: u64,
}

/// The texture kind a dimension names (None for INVALIDn).
pub fn texture_kind(dim: Dimension) -> Option<TextureKind> {
    match dim {
        Dimension::Tex2D => Some(TextureKind::Tex2D),
        Dimension::Array2D => Some(TextureKind::Tex2DArray),
        Dimension::Cube => Some(TextureKind::Cube),
        Dimension::ArrayCube => Some(TextureKind::CubeArray),
        _ => None,
    }
}

/// What the texture unit is asked for: the dimension, component, offset mode and depth
/// compare of the instruction (None for an INVALIDn dimension).
pub fn gather_op(insn: &Tld4) -> Option<GatherOp> {
    Some(GatherOp {
        dim: texture_kind(insn.dimension)?,
        component: insn.component.raw() as u8,
        offsets: match insn.offset_mode {
            OffsetMode::Aoffi => tld4_textures::OffsetMode::Aoffi,
            OffsetMode::Ptp => tld4_textures::OffsetMode::Ptp,
            _ => tld4_textures::OffsetMode::None,
        },
        compare: insn.depth_compare,
    })
}

/// Why the hardware cannot execute this encoding, if it cannot ([`IllegalEncoding`]).
pub fn illegal_encoding(insn: &Tld4) -> Option<IllegalEncoding> {
    let field = |field: &'static str, value: &'static str| {
        Some(IllegalEncoding::InvalidValue { field, value })
    };
    if insn.dimension.is_invalid() {
        return field("dimension", insn.dimension.name());
    }
    if insn.offset_mode == OffsetMode::Invalid3 {
        return field("offset", "INVALID3");
    }
    if insn.f16_mode == F16Mode::Invalid3 {
        return field("F16", "INVALID3");
    }
    if matches!(insn.eviction, Eviction::Invalid6 | Eviction::Invalid7) {
        return field("eviction", insn.eviction.name());
    }
    if insn.ra.is_rz() {
        return Some(IllegalEncoding::RaIsRz);
    }
    if insn.rb.is_rz() && !insn.rb_layout().is_empty() {
        return Some(IllegalEncoding::RbIsRz {
            reads: insn.rb_layout().len(),
        });
    }
    None
}

impl Tld4Exec {
    /// Prepares `insn` for execution. Never fails: an illegal encoding is kept and raised by
    /// every [`Tld4Exec::execute`] (it is a warp exception, not a decoding error).
    pub fn new(insn: &Tld4, config: ExecConfig) -> Self {
        let config_fault = config.validate().err();
        let illegal = illegal_encoding(insn);
        let output = match insn.f16_mode {
            F16Mode::Rn => OutputMode::F16Rn,
            F16Mode::Rz => OutputMode::F16Rz,
            _ => OutputMode::F32,
        };
        let ra = insn.ra_layout();
        let rb = insn.rb_layout();
        // The operand vectors, as the decoder lists them (the one place of the rule).
        let mut vectors = [OperandSpan {
            operand: Operand::Ra,
            first: 0,
            count: 0,
        }; 4];
        let mut n = 0;
        for v in insn.operand_vectors().iter() {
            let operand = match v.role {
                OperandRole::Rb => Operand::Rb,
                OperandRole::Rd => Operand::Rd,
                OperandRole::Rd2 => Operand::Rd2,
                _ => Operand::Ra,
            };
            vectors[n] = OperandSpan {
                operand,
                first: v.first,
                count: v.count,
            };
            n += 1;
        }
        // INVALIDn dimensions never execute (an illegal encoding): any op will do.
        let op = gather_op(insn).unwrap_or(GatherOp::new(TextureKind::Tex2D, 0));
        let plan = write_plan(insn.write_mask.0, output);
        let mut writes = [RegisterWrite {
            register: RZ,
            components: [0; 2],
        }; 4];
        let mut nwrites = 0;
        for &(dest, comps) in &plan.slots[..plan.len as usize] {
            // Rd or Rd2 = RZ discards.
            let base = if dest < 2 { insn.rd } else { insn.rd2 };
            if !base.is_rz() {
                writes[nwrites] = RegisterWrite {
                    register: base.0.wrapping_add(dest & 1),
                    components: comps,
                };
                nwrites += 1;
            }
        }
        let mut exec = Self {
            insn: *insn,
            config,
            config_fault,
            illegal,
            op,
            output,
            vectors,
            nvectors: n,
            writes,
            nwrites,
            sources: Sources::new(insn, ra, rb),
            clean_regs: None,
            setup: last::fresh_setup(),
        };
        // The fewest registers per thread with which `static_fault` finds nothing.
        let need = exec.vectors[..n]
            .iter()
            .map(|v| v.first as u16 + v.count as u16)
            .max()
            .unwrap_or(0);
        if exec.static_fault(255).is_none() {
            exec.clean_regs = Some(need);
        }
        exec
    }

    /// [`Tld4Exec::static_fault`], answered without its checks when the registers per thread
    /// suffice and nothing else can fault (the precomputed `clean_regs`).
    #[inline(always)]
    fn static_fault_fast(&self, regs_per_thread: u16) -> Option<WarpFault> {
        match self.clean_regs {
            Some(need) if regs_per_thread >= need => None,
            _ => self.static_fault(regs_per_thread),
        }
    }

    /// Decodes `word` and prepares it.
    pub fn from_word(word: u128, config: ExecConfig) -> Result<Self, tld4_decoder::DecodeError> {
        Ok(Self::new(&tld4_decoder::decode(word)?, config))
    }

    /// The instruction.
    pub fn insn(&self) -> &Tld4 {
        &self.insn
    }

    /// The registers an executing lane writes, in write order (Rd, Rd+1, Rd2, Rd2+1; RZ
    /// destinations left out), as [`write_plan`] lays the values out.
    pub fn destinations(&self) -> Vec<u8> {
        self.writes[..self.nwrites]
            .iter()
            .map(|w| w.register)
            .collect()
    }

    /// How the results are written (32-bit, or binary16 rounded to nearest or toward zero).
    pub fn output_mode(&self) -> OutputMode {
        self.output
    }

    /// The faults raised without looking at any lane, with `regs_per_thread` registers, in
    /// order: invalid config, illegal encoding, out-of-range register, misaligned register
    /// (decision of this crate: the embedder's setting is reported before the program's
    /// fault; docs/sources.md, Decisions).
    pub fn static_fault(&self, regs_per_thread: u16) -> Option<WarpFault> {
        if let Some(e) = &self.config_fault {
            return Some(WarpFault::InvalidConfig(e.clone()));
        }
        if let Some(why) = &self.illegal {
            return Some(WarpFault::IllegalEncoding(*why));
        }
        for &OperandSpan {
            operand,
            first,
            count,
        } in &self.vectors[..self.nvectors]
        {
            let last = first as u16 + count as u16 - 1;
            if last > 254 {
                return Some(WarpFault::RegisterOutOfRange {
                    operand,
                    first,
                    last,
                    limit: 254,
                    limit_name: "R254",
                });
            }
            if last >= regs_per_thread {
                return Some(WarpFault::RegisterOutOfRange {
                    operand,
                    first,
                    last,
                    limit: regs_per_thread.saturating_sub(1),
                    limit_name: "the registers per thread",
                });
            }
        }
        if self.config.require_aligned_pairs {
            for &OperandSpan {
                operand,
                first,
                count,
            } in &self.vectors[..self.nvectors]
            {
                if matches!(operand, Operand::Rd | Operand::Rd2) && count == 2 && first % 2 == 1 {
                    return Some(WarpFault::MisalignedRegister {
                        operand,
                        reg: first,
                    });
                }
            }
        }
        None
    }

    /// Checks at load time what [`Tld4Exec::execute`] would raise before looking at a lane
    /// (see [`Tld4Exec::static_fault`]).
    ///
    /// ```
    /// use tld4_emu::{ExecConfig, FaultKind, Tld4Exec};
    /// // Dimension INVALID2 decodes (nvdisasm prints it), but cannot execute.
    /// let exec = Tld4Exec::new(&tld4_decoder::parse("TLD4.R R10, R8, R20, UR4, INVALID2 ;")?, ExecConfig::default());
    /// assert_eq!(exec.check(255).unwrap_err().kind(), FaultKind::IllegalEncoding);
    /// # Ok::<(), tld4_decoder::ParseError>(())
    /// ```
    pub fn check(&self, regs_per_thread: u16) -> Result<(), WarpFault> {
        match self.static_fault(regs_per_thread) {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Prepares the texture unit for one handle; errors become warp faults of `lane`.
    pub(crate) fn gatherer<'p>(
        &self,
        pool: &'p TexturePool,
        handle: u32,
        lane: usize,
    ) -> Result<Gatherer<'p>, WarpFault> {
        let wrap = |e: TexError| texture_fault(e, handle, lane);
        let (texture, sampler) = pool.resolve(Handle(handle)).map_err(wrap)?;
        self.check_output_format(texture.format(), lane)?;
        Gatherer::new(texture, sampler, &self.op, self.config.precision).map_err(wrap)
    }

    /// F16 output from a UINT or SINT texture is not modeled (docs/sources.md, Decisions).
    pub(crate) fn check_output_format(
        &self,
        format: tld4_textures::Format,
        lane: usize,
    ) -> Result<(), WarpFault> {
        if self.output != OutputMode::F32 && format.is_integer() {
            return Err(WarpFault::not_modeled(
                Some(lane as u8),
                NotModeledReason::Instruction {
                    field: "f16_mode",
                    value: self.insn.f16_mode.name(),
                    format,
                },
            ));
        }
        Ok(())
    }

    /// The settings the executor was prepared with.
    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    /// The gather the instruction asks for, and the precision model.
    pub(crate) fn gather_setup(&self) -> (&GatherOp, Precision) {
        (&self.op, self.config.precision)
    }

    /// Executes the instruction for the warp held in `warp`, a [`crate::WarpState`] or the
    /// simulator's own storage (see [`RegisterFile`] for what is called, and how): reads every
    /// source of every executing lane, gathers, then writes the destinations. On a fault
    /// nothing is written. The texture unit prepared for a handle is kept between calls on
    /// the calling thread while the pool is unchanged (keyed by
    /// [`TexturePool::generation`]; see `exec/last.rs`), so a loop of calls over one pool
    /// costs what a bound loop ([`Tld4Exec::bind`]) costs: the same results, no preparing a
    /// warp.
    pub fn execute<R: RegisterFile + ?Sized>(
        &self,
        warp: &mut R,
        pool: &TexturePool,
    ) -> Result<ExecReport, WarpFault> {
        // The texture unit this thread last prepared for the pool as it is (see `last`):
        // the same results as preparing it again, without the work.
        last::execute(self, warp, pool)
    }

    /// The static faults, then the lanes that execute (active, guard true).
    #[inline(always)]
    pub(crate) fn executing<R: RegisterFile + ?Sized>(
        &self,
        warp: &R,
    ) -> Result<(ExecReport, u32), WarpFault> {
        if let Some(fault) = self.static_fault_fast(warp.regs_per_thread()) {
            return Err(fault);
        }
        let g = self.insn.guard_pred.0;
        let neg = self.insn.guard_negated;
        let active = warp.active_mask();
        let mut executed = 0u32;
        if g >= 7 {
            // PT (predicate 7) is true in every lane and is not read.
            if !neg {
                executed = active;
            }
        } else {
            for lane in 0..WARP_SIZE {
                if active >> lane & 1 != 0 && warp.pred(lane, g) != neg {
                    executed |= 1 << lane;
                }
            }
        }
        let report = ExecReport {
            executed,
            nonresident: 0,
        };
        Ok((report, executed))
    }

    /// The runs of executing lanes (indices into `lanes`) that share a handle, in order: the
    /// whole warp for the uniform form (the URc operand; URZ reads 0); for the register form
    /// a handle per lane, the first Rb register (docs/sources.md, NAK conventions;
    /// unmeasured).
    #[inline(always)]
    pub(crate) fn handle_runs<'a, R: RegisterFile + ?Sized>(
        &'a self,
        warp: &'a R,
        lanes: &'a [u8],
    ) -> HandleRuns<'a, R> {
        HandleRuns {
            exec: self,
            warp,
            lanes,
            start: 0,
        }
    }
}

/// [`Tld4Exec::handle_runs`]: an iterator, so that the executor's per-run work is inlined in
/// its loop (a closure called from two places was not).
pub(crate) struct HandleRuns<'a, R: ?Sized> {
    exec: &'a Tld4Exec,
    warp: &'a R,
    lanes: &'a [u8],
    start: usize,
}

/// A run of lanes sharing a handle.
pub(crate) struct HandleRun {
    pub(crate) handle: u32,
    pub(crate) range: std::ops::Range<usize>,
}

impl<R: RegisterFile + ?Sized> Iterator for HandleRuns<'_, R> {
    type Item = HandleRun;

    #[inline(always)]
    fn next(&mut self) -> Option<HandleRun> {
        let (n, start) = (self.lanes.len(), self.start);
        if start >= n {
            return None;
        }
        let insn = &self.exec.insn;
        let (handle, end) = match insn.form {
            HandleForm::Uniform => (
                if insn.ur.is_urz() {
                    0
                } else {
                    self.warp.ureg(insn.ur.0)
                },
                n,
            ),
            HandleForm::Register => {
                let reg = |k: usize| self.warp.reg(self.lanes[k] as usize, insn.rb.0);
                let handle = reg(start);
                let mut end = start + 1;
                while end < n && reg(end) == handle {
                    end += 1;
                }
                (handle, end)
            }
        };
        self.start = end;
        Some(HandleRun {
            handle,
            range: start..end,
        })
    }
}

impl Tld4Exec {
    /// All sources have been read: write the destinations of lanes `lanes[k]` from lane k
    /// of `results`, register by register (each lane's writes keep the plan's order).
    #[inline(always)]
    pub(crate) fn write_lane_results<R: RegisterFile + ?Sized>(
        &self,
        warp: &mut R,
        results: &LaneResults,
        lanes: &[u8],
        report: &mut ExecReport,
    ) {
        let n = lanes.len().min(WARP_SIZE);
        let lanes = &lanes[..n];
        let mut nonresident = 0u32;
        if results.nonresident != 0 {
            for (k, &lane) in lanes.iter().enumerate() {
                nonresident |= (results.nonresident >> k & 1) << lane;
            }
        }
        report.nonresident |= nonresident;
        let writes = &self.writes[..self.nwrites];
        let executed = if lanes.len() == WARP_SIZE {
            u32::MAX
        } else {
            lanes
                .iter()
                .fold(0u32, |m, &lane| m | 1 << (lane as usize & (WARP_SIZE - 1)))
        };
        let mut buf = [0u32; WARP_SIZE];
        for &RegisterWrite {
            register: reg,
            components: comps,
        } in writes
        {
            if self.output == OutputMode::F32 {
                // 32-bit output: each register takes one component (the hot case).
                let values = &results.values[comps[0] as usize & 3];
                if lanes.len() == WARP_SIZE {
                    // every lane executes: lanes[k] == k
                    warp.set_reg_lanes(reg, executed, values);
                    continue;
                }
                for (&lane, &v) in lanes.iter().zip(values) {
                    buf[lane as usize & (WARP_SIZE - 1)] = v;
                }
            } else {
                for (k, &lane) in lanes.iter().enumerate() {
                    let values = std::array::from_fn(|c| results.values[c][k]);
                    buf[lane as usize & (WARP_SIZE - 1)] =
                        planned_value(&values, comps, self.output);
                }
            }
            warp.set_reg_lanes(reg, executed, &buf);
        }
        // The predicate destination is set when the footprint was not resident (ptxas
        // turns PTX's "resident" predicate into its negation;
        // docs/sources.md, What ptxas emits). PT discards.
        let pdst = self.insn.pred_dst.0;
        if pdst < 7 {
            for &lane in lanes {
                warp.set_pred(lane as usize, pdst, nonresident >> lane & 1 != 0);
            }
        }
    }
}

/// The texture unit's error for `handle` as the warp fault of `lane`: not modeled, an
/// unknown texture header or sampler, an invalid configuration, or an invalid texture.
pub(crate) fn texture_fault(e: TexError, handle: u32, lane: usize) -> WarpFault {
    let lane8 = lane as u8;
    match e {
        TexError::NotModeled(m) => {
            WarpFault::not_modeled(Some(lane8), NotModeledReason::Texture(m))
        }
        TexError::Invalid(InvalidInput::BadHeaderIndex { .. }) => WarpFault::UnknownTextureHeader {
            lane: lane8,
            handle,
            source: e,
        },
        TexError::Invalid(InvalidInput::BadSamplerIndex { .. }) => WarpFault::UnknownSampler {
            lane: lane8,
            handle,
            source: e,
        },
        // Validated by `Tld4Exec::new` already; kept typed should a caller bypass it.
        TexError::Invalid(InvalidInput::Precision(bits)) => {
            WarpFault::InvalidConfig(ConfigError::Precision {
                fraction_bits: bits.min(u8::MAX as u32) as u8,
                max: Precision::MAX_FRACTION_BITS,
            })
        }
        other => WarpFault::InvalidTexture {
            lane: lane8,
            handle,
            source: other,
        },
    }
}
