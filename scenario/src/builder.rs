//! The scenario model and its builder: textures, samplers, named handles, one instruction,
//! the warp's registers and what is expected. The JSON loader ([`crate::load`]) drives the
//! same builder, so both build the same model.

use std::collections::BTreeMap;

use tld4_decoder::{decode, looks_like_word, parse as parse_insn, parse_word, Tld4};
use tld4_emu::{
    ExecConfig, ExecReport, LaneTexels, MemoryExecError, Tld4Exec, WarpState, WARP_SIZE,
};
use tld4_gpu_memory::SparseMemory;
use tld4_textures::{Handle, Precision, Sampler, Texture, TexturePool};

use crate::error::{err, ScenarioError};
use crate::files::{too_much, MAX_SCENARIO_MEMORY_BYTES};
use crate::memory::MemoryImage;
use crate::value::{valid_handle_name, Expected, Lanes, Loc, RegValue, Tolerance};

/// Most textures a scenario holds: a handle's header index has 20 bits (Mesa NAK handle
/// layout, docs/sources.md, NAK conventions), so no handle reaches more.
pub const MAX_TEXTURES: usize = Handle::MAX_HEADER as usize + 1;
/// Most samplers a scenario holds: a handle's sampler index has 12 bits.
pub const MAX_SAMPLERS: usize = Handle::MAX_SAMPLER as usize + 1;

/// One expectation of one lane.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The register or predicate.
    pub loc: Loc,
    /// Its expected value.
    pub value: Expected,
    /// How close a float must be.
    pub tolerance: Tolerance,
    /// Where the expectation was written (a JSON path, or `expect_reg`).
    pub source: String,
}

/// Where a scenario's textures and samplers are.
#[derive(Debug, Clone)]
pub enum Textures {
    /// Owned textures and samplers (`textures`, `samplers`).
    Owned(TexturePool),
    /// Descriptors and texels in GPU memory (`memory`, `texture_header_pool`, `sampler_pool`).
    Memory(MemoryImage),
}

/// A scenario ready to run: decoded once, executable many times.
#[derive(Clone)]
pub struct Scenario {
    /// The instruction.
    pub insn: Tld4,
    /// Its word.
    pub word: u128,
    /// The prepared executor.
    pub exec: Tld4Exec,
    /// The warp before execution.
    pub warp: WarpState,
    /// Textures and samplers: owned, or in GPU memory.
    pub textures: Textures,
    /// Named handles (`texture | sampler << 20`).
    pub handles: BTreeMap<String, u32>,
    /// Per lane, what is expected (empty lists without expectations).
    pub expect: Vec<Vec<Check>>,
    /// The expected fault kind, if any.
    pub expect_fault: Option<tld4_emu::FaultKind>,
    /// Whether the scenario states expectations (lanes or a fault).
    pub has_expect: bool,
}

/// The warp after one execution.
#[derive(Debug, Clone)]
pub struct Executed {
    /// The registers and predicates after execution.
    pub warp: WarpState,
    /// What the executor reports (executed lanes, non-resident reads).
    pub report: ExecReport,
}

impl Executed {
    /// Register `r` of `lane`, as bits.
    pub fn reg(&self, lane: usize, r: u8) -> u32 {
        self.warp.reg(lane, r)
    }
    /// Register `r` of `lane`, as f32.
    pub fn reg_f32(&self, lane: usize, r: u8) -> f32 {
        self.warp.reg_f32(lane, r)
    }
    /// The two binary16 halves of register `r` of `lane` (low, high), as f32.
    pub fn reg_f16x2(&self, lane: usize, r: u8) -> (f32, f32) {
        let b = self.warp.reg(lane, r);
        let h = |x: u32| half::f16::from_bits(x as u16).to_f32();
        (h(b & 0xffff), h(b >> 16))
    }
    /// Predicate `p` of `lane`.
    pub fn pred(&self, lane: usize, p: u8) -> bool {
        self.warp.pred(lane, p)
    }
    /// Whether `lane` executed (active and guard true).
    pub fn executed(&self, lane: usize) -> bool {
        self.report.executed >> lane & 1 != 0
    }
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("insn", &self.insn.to_string())
            .field("word", &format_args!("{:032x}", self.word))
            .field("handles", &self.handles)
            .field("expect_fault", &self.expect_fault)
            .field("has_expect", &self.has_expect)
            .finish_non_exhaustive()
    }
}

impl Scenario {
    /// A builder for a scenario in code.
    pub fn builder() -> ScenarioBuilder {
        ScenarioBuilder::new()
    }

    /// Executes the instruction on a copy of the warp; the scenario is unchanged. Owned
    /// textures fault as [`MemoryExecError::Fault`]; textures in memory may also fail to
    /// read or decode ([`MemoryExecError::kind`] gives every error a fault kind).
    pub fn execute(&self) -> Result<Executed, MemoryExecError> {
        let mut warp = self.warp.clone();
        let report = match &self.textures {
            Textures::Owned(pool) => self.exec.execute(&mut warp, pool)?,
            Textures::Memory(m) => self.exec.execute_memory(&mut warp, &m.pool(), None)?,
        };
        Ok(Executed { warp, report })
    }

    /// [`Scenario::execute`], also recording each executed lane's texel addresses (textures
    /// in memory; with owned textures every entry is [`tld4_emu::TexelAddress::None`]: owned
    /// texels have no addresses, see [`Scenario::to_memory_form`]).
    pub fn execute_with_texels(
        &self,
    ) -> Result<(Executed, Box<[LaneTexels; WARP_SIZE]>), MemoryExecError> {
        let mut texels = Box::new([LaneTexels::default(); WARP_SIZE]);
        let mut warp = self.warp.clone();
        let report = match &self.textures {
            Textures::Owned(pool) => self.exec.execute(&mut warp, pool)?,
            Textures::Memory(m) => {
                self.exec
                    .execute_memory(&mut warp, &m.pool(), Some(&mut texels))?
            }
        };
        Ok((Executed { warp, report }, texels))
    }

    /// The owned textures and samplers, when the scenario has them.
    pub fn pool(&self) -> Option<&TexturePool> {
        match &self.textures {
            Textures::Owned(p) => Some(p),
            Textures::Memory(_) => None,
        }
    }

    /// The memory image, when the scenario's textures are in memory.
    pub fn memory(&self) -> Option<&MemoryImage> {
        match &self.textures {
            Textures::Owned(_) => None,
            Textures::Memory(m) => Some(m),
        }
    }

    /// The handle named `name`.
    pub fn handle(&self, name: &str) -> Option<Handle> {
        self.handles.get(name).map(|&h| Handle(h))
    }
}

/// Builds a [`Scenario`] in code. Fallible steps return a [`ScenarioError`] at once, named
/// by the method (`reg`, `handle`, ...).
///
/// ```
/// use tld4_scenario::{Lanes, Scenario};
/// use tld4_textures::{Format, Sampler, Texture, TextureDesc, TextureKind};
///
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
/// let mut b = Scenario::builder();
/// let tex = b.texture(Texture::from_fields(desc, &[1, 2, 3, 4])?)?;
/// let smp = b.sampler(Sampler::default())?;
/// let h = b.handle("t", tex, smp)?;
/// b.instruction("TLD4.R R10, R8, R4, UR4, 2D ;")?
///     .uniform(4, h)?
///     .reg(Lanes::ALL, 4, 0.5f32)?
///     .reg(Lanes::ALL, 5, 0.5f32)?;
/// let run = b.build()?.execute()?;
/// // Gather order x, y, z, w = (i0,j1), (i1,j1), (i1,j0), (i0,j0): texels 3, 4, 2, 1.
/// assert_eq!([run.reg(7, 8), run.reg(7, 9), run.reg(7, 10), run.reg(7, 11)], [3, 4, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ScenarioBuilder {
    pool: TexturePool,
    memory: SparseMemory,
    /// The memory regions so far (base, length), in the order given: region k is
    /// `memory[k]` of a scenario file.
    regions: Vec<(u64, u64)>,
    /// Region index by base address, for the overlap check.
    by_base: BTreeMap<u64, usize>,
    /// The bytes of all regions.
    mapped: u64,
    /// The most bytes all regions may hold.
    memory_limit: u64,
    header_pool: Option<u64>,
    sampler_pool: Option<u64>,
    textures: usize,
    samplers: usize,
    handles: BTreeMap<String, u32>,
    insn: Option<Tld4>,
    config: ExecConfig,
    warp: WarpState,
    expect: Vec<Vec<Check>>,
    expect_fault: Option<tld4_emu::FaultKind>,
    has_expect: bool,
}

impl Default for ScenarioBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ScenarioBuilder {
    /// An empty scenario: no textures, all 32 lanes active, 255 registers a thread, the
    /// default [`ExecConfig`].
    pub fn new() -> Self {
        ScenarioBuilder {
            pool: TexturePool::new(),
            memory: SparseMemory::new(),
            regions: Vec::new(),
            by_base: BTreeMap::new(),
            mapped: 0,
            memory_limit: MAX_SCENARIO_MEMORY_BYTES,
            header_pool: None,
            sampler_pool: None,
            textures: 0,
            samplers: 0,
            handles: BTreeMap::new(),
            insn: None,
            config: ExecConfig::default(),
            warp: WarpState::new(),
            expect: vec![Vec::new(); WARP_SIZE],
            expect_fault: None,
            has_expect: false,
        }
    }

    /// Adds a texture; returns its texture-header index.
    pub fn texture(&mut self, t: Texture) -> Result<u32, ScenarioError> {
        if self.textures >= MAX_TEXTURES {
            return Err(err("texture", format!("a scenario holds at most {MAX_TEXTURES} textures (a handle's header index has 20 bits)")));
        }
        let index = self.pool.add_texture(t).map_err(|e| err("texture", e))?;
        self.textures += 1;
        Ok(index)
    }

    /// Adds a sampler; returns its sampler index.
    pub fn sampler(&mut self, s: Sampler) -> Result<u32, ScenarioError> {
        if self.samplers >= MAX_SAMPLERS {
            return Err(err("sampler", format!("a scenario holds at most {MAX_SAMPLERS} samplers (a handle's sampler index has 12 bits)")));
        }
        let index = self.pool.add_sampler(s).map_err(|e| err("sampler", e))?;
        self.samplers += 1;
        Ok(index)
    }

    /// Maps `bytes` at `address` (the memory form: textures in GPU memory). Region k (from 0,
    /// in the order mapped) is named `memory[k]`; a region must hold a byte, lie within the
    /// 64-bit address space (it may hold the last byte, 0xffffffffffffffff), overlap no other
    /// (the error names both; found among the neighbours by base address, O(log n)) and keep
    /// the scenario's regions within their bound together ([`MAX_SCENARIO_MEMORY_BYTES`]
    /// unless [`ScenarioBuilder::memory_limit`] says otherwise).
    pub fn memory(&mut self, address: u64, bytes: Vec<u8>) -> Result<&mut Self, ScenarioError> {
        let k = self.regions.len();
        let len = bytes.len() as u64;
        let here = format!("memory[{k}]");
        if len == 0 {
            return Err(err(
                &here,
                "an empty region: a region maps at least one byte",
            ));
        }
        // One past the last byte, which may be 2^64 itself.
        let end = address as u128 + len as u128;
        if end > 1u128 << 64 {
            return Err(err(
                &here,
                format!("{len} bytes at {address:#x} pass the end of the 64-bit address space (the last byte is 0xffffffffffffffff)"),
            ));
        }
        let room = self.memory_limit.saturating_sub(self.mapped);
        if len > room {
            return Err(too_much(&here, len, room, self.memory_limit));
        }
        // Regions do not overlap one another, so the one with the highest base below `end`
        // is the only one that can overlap this one.
        if let Some((&b, &j)) = self.by_base.range(..=(end - 1) as u64).next_back() {
            let l = self.regions[j].1;
            if b as u128 + l as u128 > address as u128 {
                return Err(err(&here, format!("{len} bytes at {address:#x}..{end:#x} overlap memory[{j}] ({l} bytes at {b:#x}..{:#x})", b as u128 + l as u128)));
            }
        }
        self.memory.map(address, bytes).map_err(|e| err(&here, e))?;
        self.regions.push((address, len));
        self.by_base.insert(address, k);
        self.mapped += len;
        Ok(self)
    }

    /// The most bytes the memory regions may hold together (checked as each is mapped).
    pub fn memory_limit(&mut self, bytes: u64) -> &mut Self {
        self.memory_limit = bytes;
        self
    }

    /// The bytes the memory regions hold so far, together.
    pub fn mapped_bytes(&self) -> u64 {
        self.mapped
    }

    /// The address of texture header 0 (the memory form).
    pub fn texture_header_pool(&mut self, address: u64) -> &mut Self {
        self.header_pool = Some(address);
        self
    }

    /// The address of sampler 0 (the memory form).
    pub fn sampler_pool(&mut self, address: u64) -> &mut Self {
        self.sampler_pool = Some(address);
        self
    }

    /// Whether the builder holds anything of the memory form.
    pub fn is_memory_form(&self) -> bool {
        !self.regions.is_empty() || self.header_pool.is_some() || self.sampler_pool.is_some()
    }

    /// Names the handle of texture `texture` and sampler `sampler`. The slots need not exist
    /// (executing a handle that names none faults, as on hardware); the name must not be a
    /// value's spelling ([`crate::value::valid_handle_name`]) or already taken.
    pub fn handle(
        &mut self,
        name: &str,
        texture: u32,
        sampler: u32,
    ) -> Result<Handle, ScenarioError> {
        if !valid_handle_name(name) {
            return Err(err("handle", format!("`{name}` cannot name a handle: a name starts with a letter or `_`, continues with letters, digits, `_`, `.`, `-`, and is not `inf` or `nan`")));
        }
        if self.handles.contains_key(name) {
            return Err(err("handle", format!("the handle `{name}` is named twice")));
        }
        let h = Handle::new(texture, sampler).map_err(|e| err("handle", e))?;
        self.handles.insert(name.to_string(), h.0);
        Ok(h)
    }

    /// The named handles so far.
    pub fn handles(&self) -> &BTreeMap<String, u32> {
        &self.handles
    }

    /// The instruction, as nvdisasm's text or 32 hex digits ([`tld4_decoder::parse_word`]).
    pub fn instruction(&mut self, text: &str) -> Result<&mut Self, ScenarioError> {
        let t = text.trim();
        let insn = if looks_like_word(t) {
            let w = parse_word(t).map_err(|e| err("instruction", e))?;
            decode(w).map_err(|e| err("instruction", e))?
        } else {
            parse_insn(t).map_err(|e| err("instruction", e))?
        };
        self.insn = Some(insn);
        Ok(self)
    }

    /// The instruction as a word.
    pub fn word(&mut self, word: u128) -> Result<&mut Self, ScenarioError> {
        self.insn = Some(decode(word).map_err(|e| err("word", e))?);
        Ok(self)
    }

    /// The TLD4 that ptxas emitted at `offset` (bytes, as nvdisasm prints it) of `kernel` in a
    /// parsed cubin; a file (a fat binary, a host object) resolves through
    /// [`crate::cubin_ref::CubinRef::resolve`] and [`ScenarioBuilder::word`]. The error says
    /// what is at `offset` instead and where the kernel's TLD4s are.
    ///
    /// ```
    /// use tld4_cubin::{Cubin, SM100};
    /// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cuda/gather.sm100.cubin"))?;
    /// let cubin = Cubin::parse(&bytes, &[SM100])?;
    /// let mut b = tld4_scenario::Scenario::builder();
    /// b.instruction_from_cubin(&cubin, "gather_quad", 0x310)?;
    /// assert_eq!(b.build()?.insn.text(), "TLD4.R R10, R8, R2, UR4, 2D ;");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn instruction_from_cubin(
        &mut self,
        cubin: &tld4_cubin::Cubin,
        kernel: &str,
        offset: u64,
    ) -> Result<&mut Self, ScenarioError> {
        let (insn, _) = crate::cubin_ref::find_in_cubin(cubin, kernel, offset)
            .map_err(|e| err("instruction_from_cubin", e))?;
        self.insn = Some(insn);
        Ok(self)
    }

    /// Whether a 64-bit destination pair must start at an even register.
    pub fn require_aligned_pairs(&mut self, on: bool) -> &mut Self {
        self.config.require_aligned_pairs = on;
        self
    }

    /// The texture unit's precision model.
    pub fn precision(&mut self, p: Precision) -> &mut Self {
        self.config.precision = p;
        self
    }

    /// Registers a thread has (0..=255).
    pub fn regs_per_thread(&mut self, n: u16) -> Result<&mut Self, ScenarioError> {
        if n > 255 {
            return Err(err("regs_per_thread", format!("{n}: expected 0..=255")));
        }
        self.warp.regs_per_thread = n;
        Ok(self)
    }

    /// The active lanes.
    pub fn active_mask(&mut self, lanes: Lanes) -> &mut Self {
        self.warp.active_mask = lanes.0;
        self
    }

    /// Uniform register `UR{u}` (0..=254).
    pub fn uniform(&mut self, u: u8, v: impl Into<RegValue>) -> Result<&mut Self, ScenarioError> {
        if u == 255 {
            return Err(err("uniform", "UR255 is URZ; expected UR0..UR254"));
        }
        self.warp.set_ureg(u, v.into().bits());
        Ok(self)
    }

    /// Register `R{r}` (0..=254) of every lane in `lanes`.
    pub fn reg(
        &mut self,
        lanes: Lanes,
        r: u8,
        v: impl Into<RegValue>,
    ) -> Result<&mut Self, ScenarioError> {
        if r == 255 {
            return Err(err("reg", "R255 is RZ; expected R0..R254"));
        }
        let bits = v.into().bits();
        for lane in lanes.iter() {
            self.warp.set_reg(lane, r, bits);
        }
        Ok(self)
    }

    /// Predicate `P{p}` (0..=6) of every lane in `lanes`.
    pub fn pred(&mut self, lanes: Lanes, p: u8, v: bool) -> Result<&mut Self, ScenarioError> {
        if p > 6 {
            return Err(err("pred", format!("P{p}: expected P0..P6 (P7 is PT)")));
        }
        for lane in lanes.iter() {
            self.warp.set_pred(lane, p, v);
        }
        Ok(self)
    }

    /// Expects `value` in `loc` of every lane in `lanes` (a later expectation of the same
    /// place replaces an earlier one); `source` names it in reports.
    pub fn expect(
        &mut self,
        lanes: Lanes,
        loc: Loc,
        value: Expected,
        tolerance: Tolerance,
        source: &str,
    ) -> Result<&mut Self, ScenarioError> {
        match (loc, value) {
            (Loc::Reg(255), _) => return Err(err(source, "R255 is RZ; expected R0..R254")),
            (Loc::Pred(p), _) if p > 6 => {
                return Err(err(source, format!("P{p}: expected P0..P6")))
            }
            (Loc::Reg(_), Expected::Pred(_)) => {
                return Err(err(source, "a register expects a value, not true/false"))
            }
            (Loc::Pred(_), Expected::Float(_) | Expected::Bits(_)) => {
                return Err(err(source, "a predicate expects true or false"))
            }
            _ => {}
        }
        self.has_expect = true;
        for lane in lanes.iter() {
            let slot = &mut self.expect[lane];
            slot.retain(|c| c.loc != loc);
            slot.push(Check {
                loc,
                value,
                tolerance,
                source: source.to_string(),
            });
        }
        Ok(self)
    }

    /// Expects register `R{r}` of `lanes` to hold `value` (floats within `tolerance`).
    pub fn expect_reg(
        &mut self,
        lanes: Lanes,
        r: u8,
        value: impl Into<RegValue>,
        tolerance: Tolerance,
    ) -> Result<&mut Self, ScenarioError> {
        self.expect(
            lanes,
            Loc::Reg(r),
            value.into().into(),
            tolerance,
            "expect_reg",
        )
    }

    /// Expects the execution to fault with `kind` (a [`tld4_emu::FaultKind`] name; an
    /// unknown name is an error listing the known ones).
    pub fn expect_fault(&mut self, kind: &str) -> Result<&mut Self, ScenarioError> {
        let kind = kind
            .parse::<tld4_emu::FaultKind>()
            .map_err(|e| err("expect_fault", e.to_string()))?;
        Ok(self.expect_fault_kind(kind))
    }

    /// Expects the execution to fault with `kind`.
    pub fn expect_fault_kind(&mut self, kind: tld4_emu::FaultKind) -> &mut Self {
        self.has_expect = true;
        self.expect_fault = Some(kind);
        self
    }

    /// Marks the scenario as checked even without expectations (an `expect` section with
    /// nothing in it: every run passes).
    pub fn checked(&mut self) -> &mut Self {
        self.has_expect = true;
        self
    }

    /// The scenario; fails without an instruction, with owned textures and the memory form
    /// both, and in the memory form without both pool addresses.
    pub fn build(self) -> Result<Scenario, ScenarioError> {
        let textures = if self.is_memory_form() {
            if self.textures > 0 || self.samplers > 0 {
                return Err(err("memory", "give either owned textures and samplers (`textures`, `samplers`) or textures in memory (`memory`, `texture_header_pool`, `sampler_pool`), not both"));
            }
            let need = |v: Option<u64>, name: &str| {
                v.ok_or_else(|| err(name, format!("missing `{name}`: textures in memory need the address of texture header 0 (`texture_header_pool`) and of sampler 0 (`sampler_pool`), as \"0x...\" strings")))
            };
            Textures::Memory(MemoryImage {
                header_pool: need(self.header_pool, "texture_header_pool")?,
                sampler_pool: need(self.sampler_pool, "sampler_pool")?,
                memory: self.memory,
            })
        } else {
            Textures::Owned(self.pool)
        };
        let insn = self
            .insn
            .ok_or_else(|| err("instruction", "no instruction given"))?;
        Ok(Scenario {
            word: insn.encode(),
            exec: Tld4Exec::new(&insn, self.config),
            insn,
            warp: self.warp,
            textures,
            handles: self.handles,
            expect: self.expect,
            expect_fault: self.expect_fault,
            has_expect: self.has_expect,
        })
    }
}
