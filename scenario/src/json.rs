//! Scenario files: the JSON form of a scenario (docs/scenarios.md), read into the
//! same model the builder makes. Every error names its JSON path and the valid forms;
//! duplicate keys, unknown keys and text after the document are errors.

use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use tld4_gather_cases::{
    self as cases, Num, PrecisionSpec, ResidencySpec, SamplerSpec, TextureSpec,
};
use tld4_textures::{Format, Source, TextureDesc, TextureKind};

use crate::builder::{Scenario, ScenarioBuilder, MAX_TEXTURES};
use crate::error::{err, ScenarioError};
use crate::files::{locate, read_region_file, too_much, LoadOptions};
use crate::generate::{generate, Generate};
use crate::memory::{parse_address, parse_hex, ADDRESS_FORMS};
use crate::value::{
    lanes_text, pred_value_text, reg_value_text, uniform_register, Expected, Lanes, Loc, RegValue,
    Tolerance,
};

/// An object's entries in order; a key given twice is an error, not silently resolved.
#[derive(Debug)]
struct Entries<V>(Vec<(String, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Vis<V> {
            type Value = Entries<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<V>, A::Error> {
                let mut out: Vec<(String, V)> = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    if out.iter().any(|(o, _)| *o == k) {
                        return Err(de::Error::custom(format!("the key `{k}` is given twice")));
                    }
                    let v = map.next_value()?;
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Vis(PhantomData))
    }
}

type Raw = Box<RawValue>;

/// The scenario document, as read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    #[serde(default)]
    textures: Option<Vec<TextureDoc>>,
    #[serde(default)]
    samplers: Option<Vec<SamplerSpec>>,
    #[serde(default)]
    memory: Option<Vec<RegionDoc>>,
    #[serde(default)]
    texture_header_pool: Option<Raw>,
    #[serde(default)]
    sampler_pool: Option<Raw>,
    #[serde(default)]
    handles: Entries<HandleDoc>,
    /// nvdisasm text, 32 hex digits, or a cubin reference (`crate::instruction_doc`).
    instruction: Raw,
    #[serde(default)]
    config: ConfigDoc,
    #[serde(default)]
    active_mask: Option<Raw>,
    #[serde(default)]
    uniform: Entries<Raw>,
    #[serde(default)]
    lanes: Vec<Entries<Raw>>,
    #[serde(default)]
    expect: Option<ExpectDoc>,
    /// The architecture the instruction is written for (`crate::arch::load_arch`).
    #[serde(default)]
    arch: Option<String>,
    /// Constant banks (`crate::arch::load_arch`).
    #[serde(default)]
    constants: Option<Raw>,
}

/// A scenario document split for [`crate::arch::load_arch`]: the architecture, the
/// instruction as written, the constants, and the rest, which [`build_doc`] reads.
pub(crate) struct ArchParts {
    pub arch: Option<String>,
    pub instruction: String,
    pub constants: Option<String>,
    doc: Doc,
}

/// Reads the document and takes out what [`crate::arch::load_arch`] reads itself.
pub(crate) fn arch_parts(text: &str) -> Result<ArchParts, ScenarioError> {
    let mut doc = read_doc(text)?;
    Ok(ArchParts {
        arch: doc.arch.take(),
        instruction: doc.instruction.get().to_string(),
        constants: doc.constants.take().map(|c| c.get().to_string()),
        doc,
    })
}

/// Builds the rest of an [`ArchParts`] document with `instruction` (JSON text) in place of
/// the one it was written with.
pub(crate) fn build_arch_parts(
    mut parts: ArchParts,
    instruction: &str,
    dir: &Path,
    options: &LoadOptions,
) -> Result<Scenario, ScenarioError> {
    parts.doc.instruction =
        RawValue::from_string(instruction.to_string()).map_err(|e| err("instruction", e))?;
    build_doc(parts.doc, dir, options)
}

/// A texture: the `tld4 gather` texture keys, with `texels` or `generate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TextureDoc {
    dim: TextureKind,
    format: Format,
    width: u32,
    height: u32,
    #[serde(default = "one")]
    layers: u32,
    #[serde(default)]
    texels: Option<Vec<Num>>,
    #[serde(default)]
    generate: Option<Generate>,
    #[serde(default)]
    swizzle: Option<[Source; 4]>,
    #[serde(default)]
    residency: Option<ResidencySpec>,
}

/// A memory region: its address and its bytes, as hex or a file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionDoc {
    address: Raw,
    #[serde(default)]
    hex: Option<String>,
    #[serde(default)]
    file: Option<String>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HandleDoc {
    texture: u32,
    sampler: u32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigDoc {
    #[serde(default)]
    regs_per_thread: Option<u16>,
    #[serde(default)]
    require_aligned_pairs: bool,
    #[serde(default)]
    precision: Option<PrecisionSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectDoc {
    #[serde(default)]
    fault: Option<String>,
    #[serde(default)]
    tolerance: Option<Tolerance>,
    #[serde(default)]
    lanes: Vec<Entries<Raw>>,
}

fn build_texture(b: &mut ScenarioBuilder, t: TextureDoc, path: &str) -> Result<(), ScenarioError> {
    let texture = match (t.texels, &t.generate) {
        (Some(texels), None) => {
            let spec = TextureSpec {
                dim: t.dim,
                format: t.format,
                width: t.width,
                height: t.height,
                layers: t.layers,
                texels,
                swizzle: t.swizzle,
                residency: t.residency,
            };
            // Through `tld4 gather`'s texture model, so both read texels alike.
            cases::build_texture(&spec, path).map_err(|e| err(e.path, e.message))?
        }
        (None, Some(g)) => {
            let desc = TextureDesc {
                kind: t.dim,
                format: t.format,
                width: t.width,
                height: t.height,
                layers: t.layers,
            };
            let tex = generate(desc, g, path)?;
            cases::finish_texture(tex, t.swizzle, t.residency.as_ref(), path)
                .map_err(|e| err(e.path, e.message))?
        }
        (Some(_), Some(_)) => {
            return Err(err(path, "give either `texels` or `generate`, not both"))
        }
        (None, None) => {
            return Err(err(
                path,
                "missing `texels` (a flat list) or `generate` (checker, gradient, random)",
            ))
        }
    };
    b.texture(texture).map_err(|e| e.at(path))?;
    Ok(())
}

/// An address written as a JSON string `"0x..."`.
fn address_value(raw: &RawValue, path: &str) -> Result<u64, ScenarioError> {
    match serde_json::from_str::<String>(raw.get()) {
        Ok(text) => parse_address(&text, path),
        Err(_) => Err(err(
            path,
            format!(
                "`{}` is not an address; expected {ADDRESS_FORMS}",
                raw.get()
            ),
        )),
    }
}

/// The memory form: `memory` regions (hex or a file relative to `dir`) and the two pools.
fn build_memory(
    b: &mut ScenarioBuilder,
    doc: &Doc,
    dir: &Path,
    options: &LoadOptions,
) -> Result<(), ScenarioError> {
    for key in ["textures", "samplers"] {
        let given = match key {
            "textures" => doc.textures.is_some(),
            _ => doc.samplers.is_some(),
        };
        if given {
            return Err(err(key, format!("`{key}` with `memory`: give either owned textures (`textures`, `samplers`) or textures in GPU memory (`memory`, `texture_header_pool`, `sampler_pool`), not both")));
        }
    }
    let regions = doc.memory.as_ref().ok_or_else(|| {
        err("memory", "missing `memory`: textures in GPU memory need the mapped regions, a list of {\"address\": \"0x...\", \"hex\": \"...\"} or {\"address\": \"0x...\", \"file\": \"name.bin\"}")
    })?;
    for (k, r) in regions.iter().enumerate() {
        let base = format!("memory[{k}]");
        let address = address_value(&r.address, &format!("{base}.address"))?;
        // What the scenario's total bound leaves, checked before the bytes are allocated.
        let limit = options.memory_limit;
        let room = limit.saturating_sub(b.mapped_bytes());
        let bytes = match (&r.hex, &r.file) {
            (Some(h), None) => {
                // hex bytes are at most half the text, which is in memory already
                let at = format!("{base}.hex");
                let bytes = parse_hex(h, &at)?;
                if bytes.len() as u64 > room {
                    return Err(too_much(&at, bytes.len() as u64, room, limit));
                }
                bytes
            }
            (None, Some(f)) => {
                let at = format!("{base}.file");
                let file = locate(dir, Path::new(f), options, &at)?;
                read_region_file(&file, f, (room, limit), &at)?
            }
            (Some(_), Some(_)) => {
                return Err(err(&base, "give either `hex` or `file`, not both"))
            }
            (None, None) => {
                return Err(err(
                    &base,
                    "missing the bytes: `hex` (hex digits, two a byte) or `file` (a file name, relative to the scenario's directory)",
                ))
            }
        };
        b.memory(address, bytes)?;
    }
    for (name, v) in [
        ("texture_header_pool", &doc.texture_header_pool),
        ("sampler_pool", &doc.sampler_pool),
    ] {
        let Some(raw) = v else {
            return Err(err(name, format!("missing `{name}`: textures in GPU memory need the address of texture header 0 (`texture_header_pool`) and of sampler 0 (`sampler_pool`), as \"0x...\" strings")));
        };
        let a = address_value(raw, name)?;
        match name {
            "texture_header_pool" => b.texture_header_pool(a),
            _ => b.sampler_pool(a),
        };
    }
    Ok(())
}

/// The top-level keys of a scenario document in order, each with its value's text as
/// written (for rewriting a file without respelling it). Errors name the JSON path.
pub(crate) fn top_level_entries(text: &str) -> Result<Vec<(String, Raw)>, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let doc: Entries<Raw> = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let p = e.path().to_string();
        err(if p == "." { String::new() } else { p }, e.inner())
    })?;
    de.end()
        .map_err(|e| err("", format!("after the document: {e}")))?;
    Ok(doc.0)
}

/// The `lanes` selector of a lane entry.
fn entry_lanes(entry: &Entries<Raw>, base: &str) -> Result<Lanes, ScenarioError> {
    let (_, sel) = entry
        .0
        .iter()
        .find(|(k, _)| k == "lanes")
        .ok_or_else(|| err(base, "missing `lanes` (which lanes this entry concerns)"))?;
    lanes_text(sel.get(), &format!("{base}.lanes"))
}

/// Reads a scenario; every error names its JSON path. Files the scenario names (cubins,
/// memory images) are found relative to the current directory; use [`load_in`] for a
/// scenario read from a file.
pub fn load(text: &str) -> Result<Scenario, ScenarioError> {
    load_in(text, Path::new(""))
}

/// Reads a scenario whose relative file names (cubins, memory images) are relative to
/// `dir`: the directory of the scenario file. Every error names its JSON path. Files may be
/// anywhere the process may read ([`load_with`] and [`LoadOptions::confine`] keep them in
/// `dir`).
pub fn load_in(text: &str, dir: &Path) -> Result<Scenario, ScenarioError> {
    load_with(text, dir, &LoadOptions::default())
}

/// [`load_in`] with options: [`LoadOptions::confine`] refuses files outside `dir`.
pub fn load_with(text: &str, dir: &Path, options: &LoadOptions) -> Result<Scenario, ScenarioError> {
    let doc = read_doc(text)?;
    if let Some(a) = &doc.arch {
        return Err(err("arch", format!("the scenario names architecture `{a}`: read it with `load_arch`, which executes every architecture's TLD4")));
    }
    if doc.constants.is_some() {
        return Err(err("constants", "constants are read by the constant-bank TLD4 of SM75 to SM90a: give `arch` and read the scenario with `load_arch`"));
    }
    build_doc(doc, dir, options)
}

/// The document, with every error at its JSON path.
fn read_doc(text: &str) -> Result<Doc, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let doc: Doc = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let p = e.path().to_string();
        err(if p == "." { String::new() } else { p }, e.inner())
    })?;
    // Text after the document is an error (with its line and column), not ignored.
    de.end()
        .map_err(|e| err("", format!("after the document: {e}")))?;
    Ok(doc)
}

/// Builds a read document.
fn build_doc(doc: Doc, dir: &Path, options: &LoadOptions) -> Result<Scenario, ScenarioError> {
    let mut b = ScenarioBuilder::new();
    b.memory_limit(options.memory_limit);
    let memory_form =
        doc.memory.is_some() || doc.texture_header_pool.is_some() || doc.sampler_pool.is_some();
    if memory_form {
        build_memory(&mut b, &doc, dir, options)?;
    } else {
        let missing = if doc.textures.is_none() {
            "textures"
        } else {
            "samplers"
        };
        let (Some(textures), Some(samplers)) = (doc.textures, &doc.samplers) else {
            return Err(err(missing, format!("missing `{missing}`: a scenario gives owned textures (`textures` and `samplers`) or textures in GPU memory (`memory`, `texture_header_pool` and `sampler_pool`)")));
        };
        if textures.len() > MAX_TEXTURES {
            return Err(err("textures", format!("{} textures: a scenario holds at most {MAX_TEXTURES} (a handle's header index has 20 bits)", textures.len())));
        }
        for (i, t) in textures.into_iter().enumerate() {
            build_texture(&mut b, t, &format!("textures[{i}]"))?;
        }
        for (i, s) in samplers.iter().enumerate() {
            let path = format!("samplers[{i}]");
            let sampler = cases::build_sampler(s, &path).map_err(|e| err(e.path, e.message))?;
            b.sampler(sampler).map_err(|e| e.at(&path))?;
        }
    }
    for (name, h) in &doc.handles.0 {
        b.handle(name, h.texture, h.sampler)
            .map_err(|e| e.at(format!("handles.{name}")))?;
    }
    crate::instruction_doc::set_instruction(&mut b, &doc.instruction, dir, options)?;
    if let Some(p) = doc.config.precision {
        b.precision(p.precision());
    }
    b.require_aligned_pairs(doc.config.require_aligned_pairs);
    if let Some(n) = doc.config.regs_per_thread {
        b.regs_per_thread(n)
            .map_err(|e| e.at("config.regs_per_thread"))?;
    }
    if let Some(m) = &doc.active_mask {
        match reg_value_text(m.get(), &Default::default(), "active_mask")? {
            RegValue::Bits(bits) => b.active_mask(Lanes(bits)),
            RegValue::Float(_) => {
                return Err(err(
                    "active_mask",
                    "expected a 32-bit integer or hex mask (\"0x0000ffff\")",
                ))
            }
        };
    }
    let handles = b.handles().clone();
    for (name, v) in &doc.uniform.0 {
        let path = format!("uniform.{name}");
        let u = uniform_register(name).map_err(|e| e.at(&path))?;
        b.uniform(u, reg_value_text(v.get(), &handles, &path)?)
            .map_err(|e| e.at(&path))?;
    }
    for (k, entry) in doc.lanes.iter().enumerate() {
        let base = format!("lanes[{k}]");
        let lanes = entry_lanes(entry, &base)?;
        for (name, v) in entry.0.iter().filter(|(n, _)| n != "lanes") {
            let path = format!("{base}.{name}");
            match Loc::parse(name).map_err(|e| e.at(&path))? {
                Loc::Reg(r) => b.reg(lanes, r, reg_value_text(v.get(), &handles, &path)?),
                Loc::Pred(p) => b.pred(lanes, p, pred_value_text(v.get(), &path)?),
            }
            .map_err(|e| e.at(&path))?;
        }
    }
    if let Some(e) = &doc.expect {
        b.checked();
        if let Some(f) = &e.fault {
            b.expect_fault(f).map_err(|x| x.at("expect.fault"))?;
        }
        let global = e.tolerance.unwrap_or_default();
        for (k, entry) in e.lanes.iter().enumerate() {
            let base = format!("expect.lanes[{k}]");
            let lanes = entry_lanes(entry, &base)?;
            let tol = match entry.0.iter().find(|(n, _)| n == "tolerance") {
                Some((_, t)) => serde_json::from_str::<Tolerance>(t.get())
                    .map_err(|x| err(format!("{base}.tolerance"), x))?,
                None => global,
            };
            for (name, v) in entry
                .0
                .iter()
                .filter(|(n, _)| n != "lanes" && n != "tolerance")
            {
                let path = format!("{base}.{name}");
                let loc = Loc::parse(name).map_err(|x| x.at(&path))?;
                let value = match loc {
                    Loc::Reg(_) => Expected::from(reg_value_text(v.get(), &handles, &path)?),
                    Loc::Pred(_) => Expected::Pred(pred_value_text(v.get(), &path)?),
                };
                b.expect(lanes, loc, value, tol, &path)?;
            }
        }
    }
    b.build()
}
