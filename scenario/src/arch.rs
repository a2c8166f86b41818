//! Scenarios of every architecture: `"arch"` names the architecture the instruction is
//! written for (nvdisasm's text or word for that architecture), and `"constants"` the
//! constant banks a constant-bank TLD4 (SM75 to SM90a, form 0xb63) reads its texture handle
//! from (docs/sources.md, TLD4 on every architecture).
//!
//! ```json
//! { "arch": "sm_90",
//!   "instruction": "TLD4.R R10, R8, R4, 0x3, 0x10, 2D ;",
//!   "constants": [ { "bank": 3, "offset": "0x40", "words": ["tex"] } ],
//!   "handles": { "tex": { "texture": 0, "sampler": 0 } },
//!   ... }
//! ```
//!
//! A `constants` entry writes its `words` (32-bit values as in `lanes`: integers, hex,
//! floats or handle names), little-endian, from byte `offset` (default 0) of bank `bank`
//! (0..31, the 5 bits 0xb63 holds); a bank is at most 64 KiB. Everything else is read as in
//! [`crate::load_with`].
//!
//! The architecture also names the GPU class whose texture header and sampler layouts
//! textures in memory (`memory`) are read with ([`GpuClass::for_arch`]; docs/sources.md, Descriptors per GPU class):
//! an `sm_75` .. `sm_89` scenario's headers are in the V1 layout (TURING_A .. ADA_A),
//! `sm_90` onwards V2. An architecture without a known class (sm_88, sm_107) takes owned
//! textures only.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;
use tld4_decoder::{decode_arch, looks_like_word, parse_arch, parse_word, Arch, ArchTld4};
use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass};
use tld4_emu::{ArchExec, ArchExecError, ConstantBanks, LaneTexels, WARP_SIZE};

use crate::builder::{Executed, Scenario, Textures};
use crate::error::{err, ScenarioError};
use crate::files::LoadOptions;
use crate::json::{arch_parts, build_arch_parts};
use crate::value::{reg_value_text, RegValue};

/// The most bytes a constant bank holds (64 KiB, the bank size CUDA documents for
/// `__constant__` memory).
pub const MAX_CONSTANT_BANK_BYTES: u32 = 0x1_0000;

/// The most banks the constant-bank form names (its bank field has 5 bits).
pub const CONSTANT_BANKS: u32 = 32;

/// A scenario for an architecture, with its constant banks.
#[derive(Clone, Debug)]
pub struct ArchScenario {
    /// Everything but the architecture's own parts: the warp, textures, handles and
    /// expectations; its `insn` is the base table's reading of the instruction.
    pub scenario: Scenario,
    /// The instruction as its architecture reads it.
    pub insn: ArchTld4,
    /// Its executor.
    pub exec: ArchExec,
    /// The constant banks (`constants`; empty when the scenario gives none).
    pub constants: ConstantBanks,
    /// How the architecture's GPU reads descriptors in memory (`None`: no class is known for
    /// it, and the scenario's textures are owned).
    pub descriptors: Option<ClassDescriptors>,
}

impl ArchScenario {
    /// Executes the instruction on a copy of the warp, reading the scenario's constants.
    pub fn execute(&self) -> Result<Executed, ArchExecError> {
        self.execute_recording(None)
    }

    /// [`ArchScenario::execute`], with each executed lane's texel addresses for textures in
    /// memory (as [`Scenario::execute_with_texels`]; owned textures record none).
    pub fn execute_with_texels(
        &self,
    ) -> Result<(Executed, Box<[LaneTexels; WARP_SIZE]>), ArchExecError> {
        let mut texels = Box::new([LaneTexels::default(); WARP_SIZE]);
        let run = self.execute_recording(Some(&mut texels))?;
        Ok((run, texels))
    }

    /// The one execution, recording texel addresses into `texels` when given.
    fn execute_recording(
        &self,
        texels: Option<&mut [LaneTexels; WARP_SIZE]>,
    ) -> Result<Executed, ArchExecError> {
        let mut warp = self.scenario.warp.clone();
        let report = match &self.scenario.textures {
            Textures::Owned(pool) => self.exec.execute(&mut warp, &self.constants, pool)?,
            Textures::Memory(m) => self.exec.execute_memory_with_texels(
                &mut warp,
                &self.constants,
                &self.pool_of(m),
                texels,
            )?,
        };
        Ok(Executed { warp, report })
    }

    /// The memory pool its textures in memory are read through, with the architecture's
    /// descriptor layouts (`load_arch` refuses memory without a class; a hand-built scenario
    /// without one reads as the default class, BLACKWELL_A); `None` for owned textures.
    pub fn memory_pool(&self) -> Option<tld4_emu::gpu_memory::MemoryPool<'_>> {
        self.scenario.memory().map(|m| self.pool_of(m))
    }

    /// `m`'s pool read with the architecture's descriptor layouts.
    fn pool_of<'a>(
        &self,
        m: &'a crate::memory::MemoryImage,
    ) -> tld4_emu::gpu_memory::MemoryPool<'a> {
        m.pool()
            .with_descriptors(self.descriptors.unwrap_or_default())
    }

    /// The same scenario with its owned textures laid out in memory as
    /// [`Scenario::to_memory_form`] lays them out: its headers are in the default class's
    /// layout (BLACKWELL_A, V2), which the converted scenario then reads them with
    /// (`descriptors`), whatever the architecture's own class (the texel addresses depend on
    /// the layout alone, not on the header's layout). A scenario in memory is returned
    /// unchanged.
    pub fn to_memory_form(
        &self,
        layout: tld4_gpu_memory::LayoutChoice,
        base: u64,
    ) -> Result<ArchScenario, ScenarioError> {
        if self.scenario.memory().is_some() {
            return Ok(self.clone());
        }
        Ok(ArchScenario {
            scenario: self.scenario.to_memory_form(layout, base)?,
            descriptors: Some(ClassDescriptors::default()),
            ..self.clone()
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstantDoc {
    bank: u32,
    #[serde(default)]
    offset: Option<Box<RawValue>>,
    words: Vec<Box<RawValue>>,
}

/// Reads a scenario of any architecture (`arch`, default `sm_100`) with its `constants`;
/// every error names its JSON path. Textures are owned (`textures`, `samplers`) or in GPU
/// memory (`memory`), read as the architecture's GPU class reads them (an architecture
/// without a known class takes owned textures only: an error at `arch`).
pub fn load_arch(
    text: &str,
    dir: &Path,
    options: &LoadOptions,
) -> Result<ArchScenario, ScenarioError> {
    let parts = arch_parts(text)?;
    let arch: Arch = parts
        .arch
        .as_deref()
        .unwrap_or("sm_100")
        .parse()
        .map_err(|e| err("arch", e))?;
    let written: String = serde_json::from_str(&parts.instruction).map_err(|e| {
        err(
            "instruction",
            format!("expected nvdisasm's text or 32 hex digits for {arch}: {e}"),
        )
    })?;
    let t = written.trim();
    let insn = if looks_like_word(t) {
        let w = parse_word(t).map_err(|e| err("instruction", e))?;
        decode_arch(arch, w).map_err(|e| err("instruction", e))?
    } else {
        parse_arch(arch, t).map_err(|e| err("instruction", e))?
    };
    let constants_doc = parts.constants.clone();
    let base = format!("\"{:032x}\"", insn.insn.encode());
    let scenario = build_arch_parts(parts, &base, dir, options)?;
    let class = GpuClass::for_arch(arch.name());
    if let (Textures::Memory(_), Err(e)) = (&scenario.textures, &class) {
        return Err(err(
            "arch",
            format!("{e}: its texture headers in `memory` cannot be read (owned textures can)"),
        ));
    }
    let constants = match constants_doc {
        Some(c) => read_constants(&c, &scenario.handles)?,
        None => ConstantBanks::new(),
    };
    let exec = ArchExec::new(&insn, *scenario.exec.config());
    Ok(ArchScenario {
        scenario,
        insn,
        exec,
        constants,
        descriptors: class.ok().map(ClassDescriptors::new),
    })
}

/// Whether a scenario document is one for [`load_arch`]: it names an `arch` or
/// `constants` (the plain reader refuses both).
pub fn names_arch(text: &str) -> Result<bool, ScenarioError> {
    let parts = arch_parts(text)?;
    Ok(parts.arch.is_some() || parts.constants.is_some())
}

/// Runs an architecture's scenario (on a copy of its warp) and describes each lane, as
/// [`crate::run`] does; the first lines name the instruction as its architecture prints
/// it and the GPU class its descriptors are read as.
pub fn run_arch(a: &ArchScenario) -> crate::report::Outcome {
    let arch = a.insn.arch;
    let class = match a.descriptors {
        Some(d) => format!(
            "{} ({}, texture headers {:?})",
            d.class,
            d.class.tex_header(),
            d.format
        ),
        None => "none known (owned textures only)".to_string(),
    };
    let head = vec![
        format!(
            "instruction ({}): {}  ({:032x})",
            arch.name(),
            a.insn,
            a.insn.encode()
        ),
        format!("GPU class: {class}"),
    ];
    let result = a.execute();
    crate::report::describe_lines(
        &a.scenario,
        head,
        result.as_ref().map_err(|e| (e.kind_name(), e.to_string())),
    )
}

/// The `constants` section.
fn read_constants(
    text: &str,
    handles: &BTreeMap<String, u32>,
) -> Result<ConstantBanks, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let docs: Vec<ConstantDoc> = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let p = e.path().to_string();
        err(
            if p == "." {
                "constants".to_string()
            } else {
                format!("constants{}{p}", if p.starts_with('[') { "" } else { "." })
            },
            e.inner(),
        )
    })?;
    let mut banks: BTreeMap<u8, Vec<u8>> = BTreeMap::new();
    for (i, c) in docs.iter().enumerate() {
        let base = format!("constants[{i}]");
        if c.bank >= CONSTANT_BANKS {
            return Err(err(
                format!("{base}.bank"),
                format!(
                    "bank {}: the constant-bank form names banks 0..{} (5 bits)",
                    c.bank,
                    CONSTANT_BANKS - 1
                ),
            ));
        }
        let offset = match &c.offset {
            None => 0,
            Some(o) => {
                match reg_value_text(o.get(), &BTreeMap::new(), &format!("{base}.offset"))? {
                    RegValue::Bits(b) => b,
                    RegValue::Float(_) => {
                        return Err(err(
                            format!("{base}.offset"),
                            "expected a byte offset (an integer or \"0x...\")",
                        ))
                    }
                }
            }
        };
        let end = offset as u64 + 4 * c.words.len() as u64;
        if end > MAX_CONSTANT_BANK_BYTES as u64 {
            return Err(err(
                format!("{base}.words"),
                format!(
                    "{} words from byte {offset:#x} end at {end:#x}, past the bank's 64 KiB",
                    c.words.len()
                ),
            ));
        }
        let bytes = banks.entry(c.bank as u8).or_default();
        if bytes.len() < end as usize {
            bytes.resize(end as usize, 0);
        }
        for (k, w) in c.words.iter().enumerate() {
            let v = match reg_value_text(w.get(), handles, &format!("{base}.words[{k}]"))? {
                RegValue::Bits(b) => b,
                RegValue::Float(f) => f.to_bits(),
            };
            let at = offset as usize + 4 * k;
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let mut out = ConstantBanks::new();
    for (bank, bytes) in banks {
        out.set_bank(bank, bytes);
    }
    Ok(out)
}
