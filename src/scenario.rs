//! Scenario files: a warp, its textures and one TLD4, with optional expected results.
//! The format is documented in the README ("Scenario files").

use std::collections::BTreeMap;
use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::Value;

use tld4_decoder::{decode, parse as parse_insn, Tld4};
use tld4_emu::{ExecConfig, OutputMode, Tld4Exec, WarpFault, WarpState, WARP_SIZE};
use tld4_textures::cases::{self, Num, PrecisionSpec, SamplerSpec, TextureSpec};
use tld4_textures::{Class, Format, Handle, Sampler, Source, Texture, TexturePool};

/// An error in a scenario, with the JSON path it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// JSON path, e.g. `lanes[2].R21`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn err(path: impl Into<String>, message: impl fmt::Display) -> ScenarioError {
    ScenarioError {
        path: path.into(),
        message: message.to_string(),
    }
}

/// The scenario document, as read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    textures: Vec<TextureDoc>,
    samplers: Vec<SamplerSpec>,
    #[serde(default)]
    handles: BTreeMap<String, HandleDoc>,
    instruction: String,
    #[serde(default)]
    config: ConfigDoc,
    #[serde(default)]
    active_mask: Option<Value>,
    #[serde(default)]
    uniform: BTreeMap<String, Value>,
    #[serde(default)]
    lanes: Vec<serde_json::Map<String, Value>>,
    #[serde(default)]
    expect: Option<ExpectDoc>,
}

/// A texture: the `tld4 gather` texture keys, with `texels` or `generate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TextureDoc {
    dim: tld4_textures::TextureKind,
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
    residency: Option<cases::ResidencySpec>,
}

fn one() -> u32 {
    1
}

/// Generated texels.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "pattern", rename_all = "snake_case", deny_unknown_fields)]
enum Generate {
    /// Squares of `cell` texels alternating between the format's zero and its maximum
    /// (1.0 for float fields), in every component.
    Checker {
        #[serde(default = "one")]
        cell: u32,
    },
    /// R ramps with x, G with y, B with the layer, from 0 to the maximum; A is the maximum.
    Gradient,
    /// Uniform random raw values (floats in [0, 1)), reproducible from `seed` (ChaCha8).
    Random { seed: u64 },
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
    lanes: Vec<serde_json::Map<String, Value>>,
}

/// How close a float result must be to its expected value. Exact when absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Largest absolute difference.
    #[serde(default)]
    pub abs: f64,
    /// Largest distance in f32 units in the last place.
    #[serde(default)]
    pub ulps: u64,
}

/// A register or predicate named in a lane entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Loc {
    /// R0..R254.
    Reg(u8),
    /// P0..P6.
    Pred(u8),
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::Reg(r) => write!(f, "R{r}"),
            Loc::Pred(p) => write!(f, "P{p}"),
        }
    }
}

/// An expected value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expected {
    /// A float result: compared with the tolerance.
    Float(f32),
    /// Exact bits (integers, hex, handles).
    Bits(u32),
    /// A predicate.
    Pred(bool),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Float(x) => write!(f, "{x:?}"),
            Expected::Bits(b) => write!(f, "{b:#010x}"),
            Expected::Pred(p) => write!(f, "{p}"),
        }
    }
}

/// One lane's expectation: (location, value, tolerance, JSON path).
pub type LaneExpect = Vec<(Loc, Expected, Tolerance, String)>;

/// A scenario ready to run.
pub struct Scenario {
    pub insn: Tld4,
    pub word: u128,
    pub exec: Tld4Exec,
    pub warp: WarpState,
    pub pool: TexturePool,
    /// Per lane, what is expected (empty without `expect`).
    pub expect: Vec<LaneExpect>,
    /// The expected fault kind, if any.
    pub expect_fault: Option<String>,
    /// Whether the scenario has an `expect` section.
    pub has_expect: bool,
}

/// The names of fault kinds in scenario files: [`tld4_emu::FaultKind::name`].
pub fn fault_kind(f: &WarpFault) -> &'static str {
    f.kind().name()
}

/// Parses the lane selector: `all`, `N`, `A-B`, or a comma list of those.
fn lane_set(sel: &Value, path: &str) -> Result<u32, ScenarioError> {
    let bad = || {
        err(path, "expected a lane selector: \"all\", a lane number 0..31, \"A-B\", or a comma list of those")
    };
    if let Some(n) = sel.as_u64() {
        return if n < 32 { Ok(1 << n) } else { Err(bad()) };
    }
    let s = sel.as_str().ok_or_else(bad)?;
    let mut mask = 0u32;
    for part in s.split(',').map(str::trim) {
        if part == "all" {
            mask = u32::MAX;
            continue;
        }
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let a: u32 = a.trim().parse().map_err(|_| bad())?;
        let b: u32 = b.trim().parse().map_err(|_| bad())?;
        if a > b || b > 31 {
            return Err(bad());
        }
        for l in a..=b {
            mask |= 1 << l;
        }
    }
    Ok(mask)
}

fn loc(name: &str, path: &str) -> Result<Loc, ScenarioError> {
    let num = |s: &str, max: u32| {
        s.parse::<u32>()
            .ok()
            .filter(|&n| n <= max && (s == "0" || !s.starts_with('0')))
    };
    if let Some(n) = name.strip_prefix('R').and_then(|s| num(s, 254)) {
        return Ok(Loc::Reg(n as u8));
    }
    if let Some(n) = name.strip_prefix('P').and_then(|s| num(s, 6)) {
        return Ok(Loc::Pred(n as u8));
    }
    Err(err(
        path,
        format!("`{name}` is not a register R0..R254 or predicate P0..P6"),
    ))
}

/// A register value: a float (a JSON number with a fraction or exponent), an integer
/// (-2^31..2^32-1), a hex string "0x...", "inf"/"-inf"/"nan", or a handle name.
fn reg_value(
    v: &Value,
    handles: &BTreeMap<String, u32>,
    path: &str,
) -> Result<Expected, ScenarioError> {
    let what = "expected a float (0.5), an integer (7, -1), a hex string (\"0x3f800000\"), \"inf\", \"-inf\", \"nan\" or a handle name";
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().ok_or_else(|| err(path, what))?;
            Ok(Expected::Float(x as f32))
        }
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u32::try_from(u)
                    .map(Expected::Bits)
                    .map_err(|_| err(path, format!("{u} does not fit in 32 bits")))
            } else {
                let i = n.as_i64().ok_or_else(|| err(path, what))?;
                i32::try_from(i)
                    .map(|i| Expected::Bits(i as u32))
                    .map_err(|_| err(path, format!("{i} does not fit in 32 bits")))
            }
        }
        Value::String(s) => {
            if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                return u32::from_str_radix(h, 16)
                    .map(Expected::Bits)
                    .map_err(|_| err(path, format!("`{s}` is not a 32-bit hex value")));
            }
            match s.as_str() {
                "inf" => Ok(Expected::Float(f32::INFINITY)),
                "-inf" => Ok(Expected::Float(f32::NEG_INFINITY)),
                "nan" | "NaN" => Ok(Expected::Float(f32::NAN)),
                name => handles
                    .get(name)
                    .map(|&h| Expected::Bits(h))
                    .ok_or_else(|| {
                        err(
                            path,
                            format!("`{name}` is not a value or a handle name ({what})"),
                        )
                    }),
            }
        }
        _ => Err(err(path, what)),
    }
}

fn pred_value(v: &Value, path: &str) -> Result<bool, ScenarioError> {
    v.as_bool()
        .ok_or_else(|| err(path, "expected true or false for a predicate"))
}

/// The raw value range of field `i` of `format`, and whether the JSON gives it as a float.
fn field_range(format: Format, i: usize) -> (bool, i64, i64) {
    let bits = format.field_bits(i);
    // As `tld4 gather` reads texels: 16- and 32-bit float fields are numbers, the rest raw integers.
    let float_field =
        i < format.components() && matches!(format.class(i), Class::Float) && bits >= 16;
    let (min, max) = if format.field_is_signed(i) {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    (float_field, min, max)
}

/// Generates the flat texel list of a texture.
fn generate(t: &TextureDoc, g: &Generate) -> Vec<Num> {
    let nf = t.format.fields();
    let layers = t.layers * if t.dim.is_cube() { 6 } else { 1 };
    let mut rng = match g {
        Generate::Random { seed } => Some(ChaCha8Rng::seed_from_u64(*seed)),
        _ => None,
    };
    let mut out = Vec::with_capacity((t.width * t.height * layers) as usize * nf);
    for l in 0..layers {
        for y in 0..t.height {
            for x in 0..t.width {
                for i in 0..nf {
                    let (float, min, max) = field_range(t.format, i);
                    // A fraction 0..=1 of the field's positive range.
                    let frac = match g {
                        Generate::Checker { cell } => {
                            (((x / cell.max(&1)) + (y / cell.max(&1)) + l) % 2) as f64
                        }
                        Generate::Gradient => match i {
                            0 => x as f64 / (t.width.max(2) - 1) as f64,
                            1 => y as f64 / (t.height.max(2) - 1) as f64,
                            2 => l as f64 / (layers.max(2) - 1) as f64,
                            _ => 1.0,
                        },
                        Generate::Random { .. } => {
                            let r = rng.as_mut().expect("random has a generator");
                            if float {
                                r.gen::<f64>()
                            } else {
                                out.push(Num::Int(r.gen_range(min..=max)));
                                continue;
                            }
                        }
                    };
                    out.push(if float {
                        Num::Float(frac)
                    } else {
                        Num::Int((frac * max as f64).round() as i64)
                    });
                }
            }
        }
    }
    out
}

/// The most texel values (texels x fields) a `generate` pattern makes (256 MiB of values).
pub const MAX_GENERATED_VALUES: u64 = 1 << 26;

/// Builds a texture through `tld4 gather`'s texture model, so both read texels alike.
fn build_texture(t: &TextureDoc, path: &str) -> Result<Texture, ScenarioError> {
    let texels = match (&t.texels, &t.generate) {
        (Some(v), None) => v.clone(),
        (None, Some(g)) => {
            // Generated data is bounded before anything is allocated.
            let layers = t.layers as u64 * if t.dim.is_cube() { 6 } else { 1 };
            let values = t.width as u64 * t.height as u64 * layers * t.format.fields() as u64;
            if values > MAX_GENERATED_VALUES {
                return Err(err(
                    path,
                    format!("a generated texture is limited to {MAX_GENERATED_VALUES} texel values; this one needs {values}"),
                ));
            }
            generate(t, g)
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
    let spec = TextureSpec {
        dim: t.dim,
        format: t.format,
        width: t.width,
        height: t.height,
        layers: t.layers,
        texels,
        swizzle: t.swizzle,
        residency: t.residency.clone(),
    };
    cases::build_texture(&spec, path).map_err(|e| err(e.path, e.message))
}

/// Reads a scenario; every error names its JSON path.
pub fn load(text: &str) -> Result<Scenario, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let doc: Doc = serde_path_to_error::deserialize(de).map_err(|e| {
        let p = e.path().to_string();
        err(if p == "." { String::new() } else { p }, e.inner())
    })?;

    let mut pool = TexturePool::new();
    for (i, t) in doc.textures.iter().enumerate() {
        pool.add_texture(build_texture(t, &format!("textures[{i}]"))?);
    }
    for (i, s) in doc.samplers.iter().enumerate() {
        let sampler: Sampler = cases::build_sampler(s, &format!("samplers[{i}]"))
            .map_err(|e| err(e.path, e.message))?;
        pool.add_sampler(sampler);
    }
    let mut handles = BTreeMap::new();
    for (name, h) in &doc.handles {
        let path = format!("handles.{name}");
        // A handle may name slots that do not exist: executing it then faults, as on hardware.
        let handle = Handle::new(h.texture, h.sampler).map_err(|e| err(&path, e))?;
        handles.insert(name.clone(), handle.0);
    }

    let insn_text = doc.instruction.trim();
    let hex = insn_text.strip_prefix("0x").unwrap_or(insn_text);
    let insn = if hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        let word = u128::from_str_radix(hex, 16).map_err(|e| err("instruction", e))?;
        decode(word).map_err(|e| err("instruction", e))?
    } else {
        parse_insn(insn_text).map_err(|e| err("instruction", e))?
    };

    let precision = doc
        .config
        .precision
        .map_or_else(Default::default, |p| p.precision());
    let config = ExecConfig {
        require_aligned_pairs: doc.config.require_aligned_pairs,
        precision,
    };
    let exec = Tld4Exec::new(&insn, config);

    let mut warp = WarpState::new();
    if let Some(n) = doc.config.regs_per_thread {
        if n > 255 {
            return Err(err("config.regs_per_thread", "must be 0..=255"));
        }
        warp.regs_per_thread = n;
    }
    if let Some(m) = &doc.active_mask {
        warp.active_mask = match reg_value(m, &BTreeMap::new(), "active_mask")? {
            Expected::Bits(b) => b,
            _ => return Err(err("active_mask", "expected a 32-bit integer or hex mask")),
        };
    }
    for (name, v) in &doc.uniform {
        let path = format!("uniform.{name}");
        let u = name
            .strip_prefix("UR")
            .and_then(|s| s.parse::<u8>().ok())
            .filter(|&u| u < 255)
            .ok_or_else(|| {
                err(
                    &path,
                    format!("`{name}` is not a uniform register UR0..UR254"),
                )
            })?;
        let bits = match reg_value(v, &handles, &path)? {
            Expected::Float(x) => x.to_bits(),
            Expected::Bits(b) => b,
            Expected::Pred(_) => unreachable!("reg_value never gives a predicate"),
        };
        warp.set_ureg(u, bits);
    }
    for (k, entry) in doc.lanes.iter().enumerate() {
        let base = format!("lanes[{k}]");
        let mask = lane_set(
            entry
                .get("lanes")
                .ok_or_else(|| err(&base, "missing `lanes` (which lanes this entry sets)"))?,
            &format!("{base}.lanes"),
        )?;
        for (name, v) in entry {
            if name == "lanes" {
                continue;
            }
            let path = format!("{base}.{name}");
            let l = loc(name, &path)?;
            for lane in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
                match l {
                    Loc::Reg(r) => {
                        let bits = match reg_value(v, &handles, &path)? {
                            Expected::Float(x) => x.to_bits(),
                            Expected::Bits(b) => b,
                            Expected::Pred(_) => unreachable!("reg_value never gives a predicate"),
                        };
                        warp.set_reg(lane, r, bits);
                    }
                    Loc::Pred(p) => warp.set_pred(lane, p, pred_value(v, &path)?),
                }
            }
        }
    }

    let mut expect: Vec<LaneExpect> = vec![Vec::new(); WARP_SIZE];
    let mut expect_fault = None;
    let has_expect = doc.expect.is_some();
    if let Some(e) = &doc.expect {
        if let Some(f) = &e.fault {
            if let Err(e) = f.parse::<tld4_emu::FaultKind>() {
                return Err(err("expect.fault", e.to_string()));
            }
            expect_fault = Some(f.clone());
        }
        let global = e.tolerance.unwrap_or_default();
        for (k, entry) in e.lanes.iter().enumerate() {
            let base = format!("expect.lanes[{k}]");
            let mask = lane_set(
                entry
                    .get("lanes")
                    .ok_or_else(|| err(&base, "missing `lanes`"))?,
                &format!("{base}.lanes"),
            )?;
            let tol = match entry.get("tolerance") {
                Some(t) => {
                    Tolerance::deserialize(t).map_err(|e| err(format!("{base}.tolerance"), e))?
                }
                None => global,
            };
            for (name, v) in entry {
                if name == "lanes" || name == "tolerance" {
                    continue;
                }
                let path = format!("{base}.{name}");
                let l = loc(name, &path)?;
                let value = match l {
                    Loc::Reg(_) => reg_value(v, &handles, &path)?,
                    Loc::Pred(_) => Expected::Pred(pred_value(v, &path)?),
                };
                for lane in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
                    let slot = &mut expect[lane];
                    slot.retain(|(old, ..)| *old != l);
                    slot.push((l, value, tol, path.clone()));
                }
            }
        }
    }

    Ok(Scenario {
        word: insn.encode(),
        insn,
        exec,
        warp,
        pool,
        expect,
        expect_fault,
        has_expect,
    })
}

/// Distance between two f32 values in units in the last place (0 for equal values,
/// u64::MAX when either is NaN and the other is not).
pub fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Whether `got` meets `expected`.
pub fn matches(expected: Expected, tol: Tolerance, got_bits: u32, got_pred: bool) -> bool {
    match expected {
        Expected::Bits(b) => b == got_bits,
        Expected::Pred(p) => p == got_pred,
        Expected::Float(x) => {
            let g = f32::from_bits(got_bits);
            g.to_bits() == x.to_bits()
                || ulps(g, x) <= tol.ulps
                || (x.is_finite() && g.is_finite() && ((g as f64) - (x as f64)).abs() <= tol.abs)
        }
    }
}

/// Formats a register value: hex, then as f32 and u32 (and the two halves with F16 output).
pub fn show_value(bits: u32, mode: OutputMode) -> String {
    match mode {
        OutputMode::F32 => format!("{bits:#010x} (f32 {:?}, u32 {bits})", f32::from_bits(bits)),
        _ => {
            let h = |x: u32| half::f16::from_bits(x as u16).to_f32();
            format!(
                "{bits:#010x} (f16 lo {}, hi {})",
                h(bits & 0xffff),
                h(bits >> 16)
            )
        }
    }
}

/// What running a scenario gave.
pub struct Outcome {
    /// The report, one line each.
    pub lines: Vec<String>,
    /// Failed checks (lanes, or the fault expectation).
    pub failed: usize,
}

/// Runs a scenario and describes each lane.
pub fn run(mut s: Scenario) -> Outcome {
    let result = s.exec.execute(&mut s.warp, &s.pool);
    let mut lines = vec![format!("instruction: {}  ({:032x})", s.insn, s.word)];
    let (mut passed, mut failed) = (0, 0);
    match &result {
        Err(fault) => {
            lines.push(format!("fault ({}): {fault}", fault_kind(fault)));
            if s.has_expect {
                let ok = s.expect_fault.as_deref() == Some(fault_kind(fault));
                lines.push(format!(
                    "{}: expected {}",
                    if ok { "pass" } else { "FAIL" },
                    s.expect_fault
                        .as_deref()
                        .map_or("results, not a fault".to_string(), |f| format!(
                            "the fault {f}"
                        ))
                ));
                if ok {
                    passed += 1
                } else {
                    failed += 1
                }
            }
        }
        Ok(rep) => {
            if let Some(f) = &s.expect_fault {
                lines.push(format!(
                    "FAIL: expected the fault {f}, but the instruction executed"
                ));
                failed += 1;
            }
            let dests = s.exec.destinations();
            let pdst = s.insn.pred_dst;
            let mode = s.exec.output_mode();
            for lane in 0..WARP_SIZE {
                let executed = rep.executed >> lane & 1 != 0;
                let mut line = format!("lane {lane:2}:");
                if executed {
                    for &r in &dests {
                        line.push_str(&format!(
                            "  R{r} = {}",
                            show_value(s.warp.reg(lane, r), mode)
                        ));
                    }
                    if !pdst.is_pt() {
                        line.push_str(&format!("  P{} = {}", pdst.0, s.warp.pred(lane, pdst.0)));
                    }
                    if dests.is_empty() && pdst.is_pt() {
                        line.push_str("  (writes nothing)");
                    }
                } else {
                    line.push_str("  (not executed)");
                }
                let checks = &s.expect[lane];
                if !checks.is_empty() {
                    let mut bad = Vec::new();
                    for (l, want, tol, path) in checks {
                        let (bits, pred) = match l {
                            Loc::Reg(r) => (s.warp.reg(lane, *r), false),
                            Loc::Pred(p) => (0, s.warp.pred(lane, *p)),
                        };
                        if !matches(*want, *tol, bits, pred) {
                            let got = match l {
                                Loc::Reg(_) => show_value(bits, OutputMode::F32),
                                Loc::Pred(_) => pred.to_string(),
                            };
                            bad.push(format!("{l} = {got}, expected {want} ({path})"));
                        }
                    }
                    if bad.is_empty() {
                        passed += 1;
                        line.push_str("  [pass]");
                    } else {
                        failed += 1;
                        line.push_str(&format!("  [FAIL: {}]", bad.join("; ")));
                    }
                }
                lines.push(line);
            }
        }
    }
    if s.has_expect {
        lines.push(format!("{passed} passed, {failed} failed"));
    }
    Outcome { lines, failed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EXAMPLE: &str = include_str!("../examples/scenarios/gather_green.json");

    #[test]
    fn the_example_runs_and_passes() {
        let outcome = run(load(EXAMPLE).expect("example loads"));
        assert_eq!(outcome.failed, 0, "{:?}", outcome.lines);
        assert!(outcome
            .lines
            .last()
            .unwrap()
            .contains("32 passed, 0 failed"));
    }

    #[test]
    fn lane_selectors() {
        assert_eq!(lane_set(&Value::from("all"), "p").unwrap(), u32::MAX);
        assert_eq!(lane_set(&Value::from("0-3,31"), "p").unwrap(), 0x8000_000f);
        assert_eq!(lane_set(&Value::from(5u64), "p").unwrap(), 1 << 5);
        for bad in ["32", "3-1", "x", "1-40", ""] {
            assert_eq!(
                lane_set(&Value::from(bad), "lanes[0].lanes")
                    .unwrap_err()
                    .path,
                "lanes[0].lanes",
                "{bad}"
            );
        }
    }

    #[test]
    fn register_values() {
        let h = BTreeMap::from([("tex".to_string(), 0x0010_0002u32)]);
        let v = |j: &str| reg_value(&serde_json::from_str(j).unwrap(), &h, "p");
        assert_eq!(v("0.5").unwrap(), Expected::Float(0.5));
        assert_eq!(v("1.0").unwrap(), Expected::Float(1.0));
        assert_eq!(v("1").unwrap(), Expected::Bits(1));
        assert_eq!(v("-1").unwrap(), Expected::Bits(u32::MAX));
        assert_eq!(v("\"0x3f800000\"").unwrap(), Expected::Bits(0x3f80_0000));
        assert_eq!(v("\"tex\"").unwrap(), Expected::Bits(0x0010_0002));
        assert!(v("4294967296").is_err());
        assert!(v("-2147483649").is_err());
        assert!(v("\"nope\"").is_err());
        assert!(v("[1]").is_err());
    }

    #[test]
    fn ulps_count_representable_steps() {
        assert_eq!(ulps(1.0, 1.0), 0);
        assert_eq!(ulps(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulps(-0.0, 0.0), 0);
        assert_eq!(ulps(f32::from_bits(1), -f32::from_bits(1)), 2);
        assert_eq!(ulps(f32::NAN, 1.0), u64::MAX);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Damaged scenarios give errors or results, never a panic.
        #[test]
        fn damaged_scenarios_never_panic(cut in 0usize..EXAMPLE.len(), junk in "[ -~]{0,8}", drop in 0usize..40) {
            let end = (cut + drop).min(EXAMPLE.len());
            let (a, b) = (&EXAMPLE[..cut], &EXAMPLE[end..]);
            let text = format!("{a}{junk}{b}");
            if let Ok(s) = load(&text) {
                let _ = run(s);
            }
        }
    }
}
