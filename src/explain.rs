//! `tld4 explain`: what one TLD4 does, field by field, and (with a scenario) one lane's whole
//! path through the texture unit, with numbers, plus a picture of the footprint.
//!
//! Nothing here decides a rule. The fields and their meanings come from the decoder's field
//! table ([`tld4_decoder::FIELDS`], `Tld4::field_values`), the operand layouts from
//! `Tld4::ra_layout`/`rb_layout`, faults from `tld4_emu::illegal_encoding` and
//! `Tld4Exec::static_fault`, packing from `tld4_emu::write_plan`/`planned_value`/`f16_rn`/
//! `f16_rz`, and the lane's path from `tld4_textures::trace::trace`, which is built from the
//! fast path's own functions and tested against it. The lane's result is then checked against
//! `Tld4Exec::execute` on a copy of the scenario's warp, so the explanation cannot drift from
//! what `tld4 run` writes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_decoder::{decode, parse, Dimension, F16Mode, HandleForm, OffsetMode, Tld4};
use tld4_emu::{
    aoffi_offsets, f16_rn, f16_rz, gather_op, planned_value, ptp_offsets, write_plan, OutputMode,
    WarpFault, WarpState, NO_COMPONENT, WARP_SIZE,
};
use tld4_textures::cases::PrecisionSpec;
use tld4_textures::trace::{
    self, texel_components, texel_depth, texel_selected, GatherTrace, Selection, TexelSite,
    TexelValue, FACE_NAMES,
};
use tld4_textures::{
    Class, CompareOp, Format, GatherQuery, Handle, Precision, Rounding, Sampler, Source, Swizzle,
    Texture, ValueKind,
};

use crate::CmdResult;
use tld4_scenario as scenario;

/// Arguments of `tld4 explain`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The instruction: 32 hex digits (high half first, with or without 0x), nvdisasm -hex's
    /// two `/* 0x... */` halves, or nvdisasm's text (quoted, or as several words).
    #[arg(required = true, num_args = 1.., allow_hyphen_values = false)]
    pub instruction: Vec<String>,
    /// A scenario file (as for `tld4 run`) whose warp, textures and samplers the instruction
    /// runs on; the instruction given here replaces the scenario's.
    #[arg(long, value_name = "S.json")]
    pub scenario: Option<PathBuf>,
    /// The lane to follow through the texture unit (0..31).
    #[arg(long, default_value_t = 0, requires = "scenario")]
    pub lane: u32,
    /// Write a PNG picture of the texture, the sample point and the footprint.
    #[arg(long, value_name = "FILE", requires = "scenario")]
    pub png: Option<PathBuf>,
    /// Write the same picture as SVG.
    #[arg(long, value_name = "FILE", requires = "scenario")]
    pub svg: Option<PathBuf>,
}

/// Gather-order names of the four results, and their footprint positions (Vulkan "Texel
/// Gathering": x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0)).
pub const GATHER_ORDER: [(&str, &str); 4] = [
    ("x", "(i0,j1)"),
    ("y", "(i1,j1)"),
    ("z", "(i1,j0)"),
    ("w", "(i0,j0)"),
];

/// Reads the instruction argument: hex word, nvdisasm -hex halves, or nvdisasm text.
pub fn read_instruction(text: &str) -> Result<(Tld4, u128), String> {
    let t = text.trim();
    let word = if t.contains("/*") {
        let words = crate::words::parse_words(t);
        match words.as_slice() {
            [Ok((_, w))] => Some(*w),
            [Err(e)] => return Err(format!("`{t}`: {}", e.reason)),
            _ => {
                return Err(format!(
                "`{t}`: expected one instruction word (two `/* 0x... */` halves, low half first)"
            ))
            }
        }
    } else {
        if tld4_decoder::looks_like_word(t) {
            Some(tld4_decoder::parse_word(t).map_err(|e| e.to_string())?)
        } else {
            None
        }
    };
    match word {
        Some(w) => {
            let insn = decode(w).map_err(|e| format!("{w:032x}: {e}"))?;
            Ok((insn, w))
        }
        None => {
            let insn = parse(t).map_err(|e| format!("`{t}`: {e}"))?;
            Ok((insn, insn.encode()))
        }
    }
}

/// What a field does to an execution, for the field listing.
fn field_effect(name: &str) -> &'static str {
    match name {
        "form" => "operands",
        "guard_pred" | "guard_negated" => "lanes",
        "rd" | "rd2" | "write_mask" | "pred_dst" => "writes",
        "ra" | "rb" | "ur" => "reads",
        "dimension" | "offset_mode" | "depth_compare" | "f16_mode" | "component" => "value",
        "scr" | "eviction" | "nodep" | "pm_pred" | "usched_info" | "dst_wr_sb" | "src_rel_sb"
        | "req_bit_set" | "batch_t" => "hint",
        "bit_91" => "required",
        n if n.starts_with("ignored") => "none",
        _ => "-",
    }
}

/// A register name (RZ for 255).
fn reg(r: u8) -> String {
    if r == 255 {
        "RZ".into()
    } else {
        format!("R{r}")
    }
}

/// Register `base + k`, as the operand vector names it.
fn reg_at(base: u8, k: u8) -> String {
    reg(base.wrapping_add(k))
}

/// The instruction alone: fields, operands, destinations, modifiers, faults.
pub fn explain_instruction(out: &mut String, insn: &Tld4, word: u128, fault: Option<WarpFault>) {
    let _ = writeln!(out, "instruction: {insn}");
    let _ = writeln!(
        out,
        "word: {word:032x} (high half first; nvdisasm -hex shows /* {:#018x} */ /* {:#018x} */)",
        word as u64,
        (word >> 64) as u64
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "fields (bits hi:lo of the 128-bit word, from bit 0 of the low half; effect: what the field changes):"
    );
    let _ = writeln!(
        out,
        "  {:<16} {:>7}  {:>7}  {:<8}  meaning",
        "field", "bits", "raw", "effect"
    );
    for (spec, raw, meaning) in insn.field_values() {
        let _ = writeln!(
            out,
            "  {:<16} {:>7}  {:>#7x}  {:<8}  {meaning}",
            spec.name,
            spec.bits(),
            raw,
            field_effect(spec.name)
        );
    }
    let _ = writeln!(out);
    operands(out, insn);
    let _ = writeln!(out);
    destinations(out, insn);
    let _ = writeln!(out);
    modifiers(out, insn);
    let _ = writeln!(out);
    let _ = writeln!(out, "faults the instruction alone raises:");
    match fault {
        None => {
            let _ = writeln!(out, "  none");
        }
        Some(f) => {
            let _ = writeln!(
                out,
                "  {f}\n  This is a warp exception: it is raised whenever the instruction issues, even with no lane \
                 executing, and nothing is written."
            );
        }
    }
}

/// The Ra and Rb operand vectors and the handle (ptxas output; NAK for the register-handle
/// form; FACTS.md), from the decoder's `ra_layout`/`rb_layout`.
fn operands(out: &mut String, insn: &Tld4) {
    let _ = writeln!(out, "operands (what each source register holds):");
    let ra = insn.ra_layout();
    let mut parts = Vec::new();
    let mut k = 0u8;
    if ra.layer {
        parts.push(format!(
            "{}: layer (unsigned 16-bit integer, bits 15:0; clamped to the last layer)",
            reg_at(insn.ra.0, k)
        ));
        k += 1;
    }
    let names: &[&str] = if ra.coords == 3 {
        &["x", "y", "z"]
    } else {
        &["u", "v"]
    };
    for n in names {
        parts.push(format!("{}: {n} (f32)", reg_at(insn.ra.0, k)));
        k += 1;
    }
    let what = if insn.dimension.is_cube() {
        " - a direction; the unit projects it onto a face itself, so it need not be normalized"
    } else if insn.dimension.is_invalid() {
        " - the dimension is INVALID: the instruction cannot execute"
    } else {
        " - normalized coordinates, 0..1 across the texture"
    };
    let _ = writeln!(
        out,
        "  Ra = {} ({} register{}): {}{what}",
        reg(insn.ra.0),
        ra.len(),
        if ra.len() == 1 { "" } else { "s" },
        parts.join(", ")
    );
    let rb = insn.rb_layout();
    if rb.is_empty() {
        let _ = writeln!(
            out,
            "  Rb = {}: not read (this form has no handle, offsets or depth reference in Rb)",
            reg(insn.rb.0)
        );
    } else {
        let mut parts = Vec::new();
        let mut k = 0u8;
        if rb.handle {
            parts.push(format!(
                "{}: texture handle (per lane; header index bits 19:0, sampler index bits 31:20)",
                reg_at(insn.rb.0, k)
            ));
            k += 1;
        }
        match insn.offset_mode {
            OffsetMode::Aoffi => {
                parts.push(format!(
                    "{}: AOFFI offsets, x in bits 5:0, y in bits 13:8 (6-bit signed, -32..31)",
                    reg_at(insn.rb.0, k)
                ));
                k += 1;
            }
            OffsetMode::Ptp => {
                parts.push(format!(
                    "{}: PTP offsets of x and y, bytes {{x.dx, x.dy, y.dx, y.dy}}",
                    reg_at(insn.rb.0, k)
                ));
                parts.push(format!(
                    "{}: PTP offsets of z and w, bytes {{z.dx, z.dy, w.dx, w.dy}} (6-bit signed each)",
                    reg_at(insn.rb.0, k + 1)
                ));
                k += 2;
            }
            _ => {}
        }
        if rb.depth_ref {
            parts.push(format!("{}: depth reference (f32)", reg_at(insn.rb.0, k)));
        }
        let _ = writeln!(
            out,
            "  Rb = {} ({} register{}): {}",
            reg(insn.rb.0),
            rb.len(),
            if rb.len() == 1 { "" } else { "s" },
            parts.join("; ")
        );
    }
    match insn.form {
        HandleForm::Uniform => {
            let _ = writeln!(
                out,
                "  handle: {} (uniform register, one handle for the whole warp: header index bits 19:0, sampler index bits 31:20)",
                if insn.ur.is_urz() {
                    "URZ (reads 0: header 0, sampler 0)".to_string()
                } else {
                    format!("UR{}", insn.ur.0)
                }
            );
        }
        HandleForm::Register => {
            let _ = writeln!(
                out,
                "  handle: {} (the first Rb register, one per lane; the UR field, UR{}, is not used by form 0xd64)",
                reg(insn.rb.0),
                insn.ur.0
            );
        }
    }
}

/// The output mode of the F16 field.
fn output_mode(insn: &Tld4) -> OutputMode {
    match insn.f16_mode {
        F16Mode::Rn => OutputMode::F16Rn,
        F16Mode::Rz => OutputMode::F16Rz,
        _ => OutputMode::F32,
    }
}

/// Where each result lands (ptxas output and NAK for the mask; the F16 layout is the
/// project's unmeasured decision, FACTS.md), from `write_plan`.
fn destinations(out: &mut String, insn: &Tld4) {
    let mode = output_mode(insn);
    let mask = insn.write_mask.0;
    let enabled: Vec<&str> = (0..4)
        .filter(|&c| mask >> c & 1 != 0)
        .map(|c| GATHER_ORDER[c].0)
        .collect();
    let _ = writeln!(
        out,
        "destinations (write mask {mask:#x}: bits R, G, B, A select results x, y, z, w; {}):",
        match mode {
            OutputMode::F32 => "32-bit results, one a register, Rd, Rd+1, then Rd2, Rd2+1",
            OutputMode::F16Rn =>
                "F16.RN: two binary16 halves a register, lower result in bits 15:0, Rd then Rd2",
            OutputMode::F16Rz =>
                "F16.RZ: two binary16 halves a register, lower result in bits 15:0, Rd then Rd2",
        }
    );
    if enabled.is_empty() {
        let _ = writeln!(out, "  nothing is written (mask 0)");
    }
    let plan = write_plan(mask, mode);
    for &(dest, comps) in &plan.slots[..plan.len as usize] {
        let (base, name) = if dest < 2 {
            (insn.rd.0, "Rd")
        } else {
            (insn.rd2.0, "Rd2")
        };
        let what = |c: u8| {
            if c == NO_COMPONENT {
                "0".to_string()
            } else {
                format!(
                    "{} {}",
                    GATHER_ORDER[c as usize].0, GATHER_ORDER[c as usize].1
                )
            }
        };
        let content = match mode {
            OutputMode::F32 => what(comps[0]),
            _ => format!(
                "{} in bits 15:0, {} in bits 31:16",
                what(comps[0]),
                what(comps[1])
            ),
        };
        if base == 255 {
            let _ = writeln!(out, "  {content}: discarded ({name} = RZ)");
        } else {
            let _ = writeln!(out, "  {} <- {content}", reg_at(base, dest & 1));
        }
    }
    let two = match mode {
        OutputMode::F32 => enabled.len() <= 2,
        _ => enabled.len() <= 2,
    };
    if two && !insn.rd2.is_rz() && !enabled.is_empty() {
        let _ = writeln!(
            out,
            "  Rd2 = {}: left untouched (two or fewer results go to Rd)",
            reg(insn.rd2.0)
        );
    }
    if insn.pred_dst.is_pt() {
        let _ = writeln!(
            out,
            "  predicate destination PT: the residency flag is discarded"
        );
    } else {
        let _ = writeln!(
            out,
            "  P{} <- true when the footprint touched a non-resident tile (then every result is 0), else false",
            insn.pred_dst.0
        );
    }
}

/// Which modifiers change values and which are hints (emu's module doc; FACTS.md).
fn modifiers(out: &mut String, insn: &Tld4) {
    let _ = writeln!(out, "modifiers that change values:");
    let dim = match insn.dimension {
        Dimension::Tex2D => "2D: a 2D texture, Ra = (u, v)".to_string(),
        Dimension::Array2D => "ARRAY_2D: a 2D array texture, Ra = (layer, u, v)".to_string(),
        Dimension::Cube => {
            "CUBE: a cube map, Ra = (x, y, z); the footprint crosses face edges".to_string()
        }
        Dimension::ArrayCube => "ARRAY_CUBE: a cube-map array, Ra = (layer, x, y, z)".to_string(),
        d => format!("{}: no such dimension (the instruction faults)", d.name()),
    };
    let _ = writeln!(out, "  dimension {dim}");
    let comp = insn.component.name();
    if insn.depth_compare {
        let _ = writeln!(
            out,
            "  component {comp}: printed, but with .DC the texel's depth (first component) is compared instead"
        );
    } else {
        let _ = writeln!(
            out,
            "  component {comp}: each of the four texels contributes its {comp} (after the texture's swizzle)"
        );
    }
    let _ = writeln!(
        out,
        "  offsets {}",
        match insn.offset_mode {
            OffsetMode::None => "none: the footprint is the 2x2 block at (i0, j0)",
            OffsetMode::Aoffi =>
                ".AOFFI: one (dx, dy) moves the whole 2x2 footprint by whole texels",
            OffsetMode::Ptp => ".PTP: each texel k is read at (i0 + dx_k, j0 + dy_k)",
            OffsetMode::Invalid3 => ".INVALID3: no such offset mode (the instruction faults)",
        }
    );
    let _ = writeln!(
        out,
        "  depth compare {}",
        if insn.depth_compare {
            ".DC: each texel's depth is compared with the reference (the sampler's function): results 0.0 or 1.0"
        } else {
            "off: texel values are returned"
        }
    );
    let _ = writeln!(
        out,
        "  output {}",
        match insn.f16_mode {
            F16Mode::None => "32-bit",
            F16Mode::Rn => ".F16.RN: each result rounded to binary16, to nearest even",
            F16Mode::Rz => ".F16.RZ: each result rounded to binary16, toward zero",
            F16Mode::Invalid3 => ".INVALID3: no such output mode (the instruction faults)",
        }
    );
    let _ = writeln!(out, "modifiers and fields that change no value (hints):");
    let onoff = |b: bool| if b { "set" } else { "clear" };
    let _ = writeln!(
        out,
        "  .SCR {} (ptxas sets it on every TLD4; its effect is unknown and modeled as none)",
        onoff(insn.scr)
    );
    let _ = writeln!(
        out,
        "  eviction priority {} (a cache hint)",
        if insn.eviction.name().is_empty() {
            "default"
        } else {
            insn.eviction.name()
        }
    );
    let _ = writeln!(out, "  .NODEP {} (a scheduling hint)", onoff(insn.nodep));
    let _ = writeln!(
        out,
        "  scheduling: usched_info {:#x}, dst_wr_sb {}, src_rel_sb {}, req_bit_set {:#x}, batch_t {}, pm_pred {}",
        insn.usched_info,
        insn.dst_wr_sb,
        insn.src_rel_sb,
        insn.req_bit_set,
        insn.batch_t,
        insn.pm_pred
    );
    let _ = writeln!(
        out,
        "  bits without effect: 59:48 = {:#x}, 89 = {}, 101:92 = {:#x}, 104 = {}, 127:125 = {:#x}",
        insn.ignored_48_59,
        insn.ignored_89 as u8,
        insn.ignored_92_101,
        insn.ignored_104 as u8,
        insn.ignored_125_127
    );
}

/// A serde snake_case name (formats, kinds, address modes).
fn serde_name<T: serde::Serialize + std::fmt::Debug>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{v:?}"))
}

/// A result or converted value: integer for UINT/SINT, else f32.
fn show_value(bits: u32, kind: ValueKind) -> String {
    match kind {
        ValueKind::Uint => format!("{bits}"),
        ValueKind::Sint => format!("{}", bits as i32),
        _ => format!("{:?}", f32::from_bits(bits)),
    }
}

/// A converted component of `format`.
fn show_component(bits: u32, format: Format, c: usize) -> String {
    match format.class(c) {
        Class::Uint => format!("{bits}"),
        Class::Sint => format!("{}", bits as i32),
        _ => format!("{:?}", f32::from_bits(bits)),
    }
}

/// Raw fields: integers, or hex for 16/32-bit float fields.
fn show_raw(raw: &[u32; 4], format: Format) -> String {
    let parts: Vec<String> = (0..format.fields())
        .map(|i| {
            let bits = format.field_bits(i);
            if i < format.components() && format.class(i) == Class::Float && bits >= 16 {
                format!("{:#0w$x}", raw[i], w = bits as usize / 4 + 2)
            } else if format.field_is_signed(i) {
                let sh = 32 - bits;
                format!("{}", ((raw[i] << sh) as i32) >> sh)
            } else {
                format!("{}", raw[i])
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

fn show_converted(conv: &[u32; 4], format: Format) -> String {
    let parts: Vec<String> = (0..format.components())
        .map(|c| show_component(conv[c], format, c))
        .collect();
    format!("({})", parts.join(", "))
}

/// Component names for a format's converted components.
const RGBA: [&str; 4] = ["R", "G", "B", "A"];

fn source_name(s: Source) -> &'static str {
    match s {
        Source::R => "R",
        Source::G => "G",
        Source::B => "B",
        Source::A => "A",
        Source::Zero => "ZERO",
        Source::One => "ONE",
    }
}

fn swizzle_text(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        "identity (R, G, B, A)".into()
    } else {
        format!(
            "({})",
            s.0.iter()
                .map(|&x| source_name(x))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

fn compare_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Never => "never",
        CompareOp::Less => "<",
        CompareOp::Equal => "==",
        CompareOp::LessOrEqual => "<=",
        CompareOp::Greater => ">",
        CompareOp::NotEqual => "!=",
        CompareOp::GreaterOrEqual => ">=",
        CompareOp::Always => "always",
    }
}

/// Vulkan "Cube Map Face Selection and Transformations": (major axis index, sign of sc's
/// source, sc's axis, sign of tc's source, tc's axis) per face in storage order; a unit test
/// checks that it reproduces `tld4_textures::cube::project`.
const CUBE_TABLE: [(usize, f64, usize, f64, usize); 6] = [
    (0, -1.0, 2, -1.0, 1), // +X: sc = -z, tc = -y
    (0, 1.0, 2, -1.0, 1),  // -X: sc = +z, tc = -y
    (1, 1.0, 0, 1.0, 2),   // +Y: sc = +x, tc = +z
    (1, 1.0, 0, -1.0, 2),  // -Y: sc = +x, tc = -z
    (2, 1.0, 0, -1.0, 1),  // +Z: sc = +x, tc = -y
    (2, -1.0, 0, -1.0, 1), // -Z: sc = -x, tc = -y
];

const AXES: [&str; 3] = ["x", "y", "z"];

fn signed_axis(sign: f64, axis: usize) -> String {
    format!("{}{}", if sign < 0.0 { "-" } else { "+" }, AXES[axis])
}

/// The scenario with the command line's instruction in place of its own.
fn load_scenario(path: &Path, word: u128) -> Result<(scenario::Scenario, Precision), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Errors in the file as written (with its own lines and columns), except in the
    // instruction, which the command line replaces.
    if let Err(e) = scenario::load(&text) {
        if e.path != "instruction" {
            return Err(format!("{}: {e}", path.display()));
        }
    }
    let mut doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        // The loader reports the syntax error with its line and column.
        Err(_) => {
            return Err(match scenario::load(&text) {
                Err(e) => format!("{}: {e}", path.display()),
                Ok(_) => format!("{}: not a JSON document", path.display()),
            })
        }
    };
    let precision = match doc.get("config").and_then(|c| c.get("precision")) {
        Some(p) => {
            let spec: PrecisionSpec = serde_json::from_value(p.clone())
                .map_err(|e| format!("{}: config.precision: {e}", path.display()))?;
            spec.precision()
        }
        None => Precision::default(),
    };
    if let Some(obj) = doc.as_object_mut() {
        obj.insert(
            "instruction".into(),
            serde_json::Value::String(format!("{word:032x}")),
        );
    }
    let s = scenario::load(&doc.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((s, precision))
}

/// What the lane explanation produced, for the picture.
pub struct LaneOutcome {
    /// The texture and sampler the lane's handle names, when it resolves.
    pub texture: Option<(Texture, Sampler, u32, u32)>,
    /// The lane's trace, when it gathers.
    pub trace: Option<GatherTrace>,
    /// False when the lane's predicted writes differ from the emulator's.
    pub consistent: bool,
}

/// The lane's fault, if the warp's fault concerns it.
fn fault_lane(f: &WarpFault) -> Option<u8> {
    match f {
        WarpFault::BadHandle { lane, .. } => Some(*lane),
        WarpFault::NotModeled { lane, .. } => *lane,
        _ => None,
    }
}

/// The lane's path through the texture unit.
pub fn explain_lane(
    out: &mut String,
    s: &scenario::Scenario,
    precision: Precision,
    lane: usize,
    source: &str,
) -> LaneOutcome {
    let insn = &s.insn;
    let warp = &s.warp;
    let mut outcome = LaneOutcome {
        texture: None,
        trace: None,
        consistent: true,
    };
    let _ = writeln!(out, "lane {lane} of {source}:");
    // Run the warp as `tld4 run` would, on a copy.
    let mut after: WarpState = warp.clone();
    let result = s.exec.execute(&mut after, &s.pool);
    if let Some(f) = s.exec.static_fault(warp.regs_per_thread) {
        let _ = writeln!(
            out,
            "  the instruction faults before any lane runs: {f}\n  nothing is read or written in any lane"
        );
        return outcome;
    }
    // Does the lane execute?
    let active = warp.active_mask >> lane & 1 != 0;
    let g = insn.guard_pred;
    let guard = if g.is_pt() {
        !insn.guard_negated
    } else {
        warp.pred(lane, g.0) != insn.guard_negated
    };
    let guard_text = if g.is_pt() {
        format!("guard {}PT", if insn.guard_negated { "!" } else { "" })
    } else {
        format!(
            "guard @{}P{}: P{} = {} in this lane",
            if insn.guard_negated { "!" } else { "" },
            g.0,
            g.0,
            warp.pred(lane, g.0)
        )
    };
    if !active {
        let _ = writeln!(
            out,
            "  does not execute: the lane is inactive (bit {lane} of the active mask {:#010x} is clear); it reads and writes nothing",
            warp.active_mask
        );
        return outcome;
    }
    if !guard {
        let _ = writeln!(
            out,
            "  does not execute: {guard_text}, so the guard is false; it reads and writes nothing"
        );
        return outcome;
    }
    let _ = writeln!(
        out,
        "  executes: active (bit {lane} of the active mask {:#010x}), {guard_text}",
        warp.active_mask
    );
    // With a per-lane handle (0xd64), a fault of another lane leaves this lane's path to show;
    // with the warp's one uniform handle, the fault is every lane's.
    let other_fault = match &result {
        Err(f)
            if insn.form == HandleForm::Register
                && fault_lane(f).is_some_and(|l| l as usize != lane) =>
        {
            Some(f.clone())
        }
        _ => None,
    };
    let own_fault = match &result {
        Err(f) if other_fault.is_none() => Some(f.clone()),
        _ => None,
    };

    // The handle.
    let handle = match insn.form {
        HandleForm::Uniform => warp.ureg(insn.ur.0),
        HandleForm::Register => warp.reg(lane, insn.rb.0),
    };
    let hname = match insn.form {
        HandleForm::Uniform if insn.ur.is_urz() => "URZ".to_string(),
        HandleForm::Uniform => format!("UR{}", insn.ur.0),
        HandleForm::Register => reg(insn.rb.0),
    };
    let h = Handle(handle);
    let _ = writeln!(
        out,
        "  handle: {hname} = {handle:#010x}: texture header {} (bits 19:0), sampler {} (bits 31:20)",
        h.header_index(),
        h.sampler_index()
    );
    let resolved = s.pool.resolve(h);
    if let Ok((t, smp)) = &resolved {
        let d = t.desc();
        let layers = if d.kind.is_array() {
            format!(
                ", {} {}",
                d.layers,
                match (d.kind.is_cube(), d.layers) {
                    (true, 1) => "cube",
                    (true, _) => "cubes",
                    (false, 1) => "layer",
                    (false, _) => "layers",
                }
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  texture {}: {} {} {}x{}{layers}, swizzle {}",
            h.header_index(),
            serde_name(&d.kind),
            d.format.name(),
            d.width,
            d.height,
            swizzle_text(t.swizzle())
        );
        let border: Vec<String> = smp.border.words.iter().map(|w| format!("{w:#x}")).collect();
        let _ = writeln!(
            out,
            "  sampler {}: address u {}, v {}, border words ({}), compare {}{}",
            h.sampler_index(),
            serde_name(&smp.address_u),
            serde_name(&smp.address_v),
            border.join(", "),
            smp.compare.map_or("off".to_string(), |c| serde_name(&c)),
            if d.kind.is_cube() {
                if smp.seamless_cube {
                    ", seamless cube edges"
                } else {
                    ", cube faces addressed one by one (not seamless)"
                }
            } else {
                ""
            }
        );
        outcome.texture = Some(((*t).clone(), **smp, h.header_index(), h.sampler_index()));
    }

    // The registers read (the layout of Tld4Exec's query: ptxas output, NAK; FACTS.md).
    let _ = writeln!(out, "  registers read:");
    let regs = warp.lane_regs(lane);
    let ra = insn.ra_layout();
    let rb = insn.rb_layout();
    let mut q = GatherQuery::default();
    let mut at = insn.ra.0 as usize;
    let line = |out: &mut String, r: usize, what: String| {
        let _ = writeln!(
            out,
            "    {:<5} = {:#010x}  {what}",
            reg(r as u8),
            regs[r & 255]
        );
    };
    if ra.layer {
        q.layer = regs[at] & 0xffff;
        line(out, at, format!("layer: bits 15:0 = {}", q.layer));
        at += 1;
    }
    let names: &[&str] = if ra.coords == 3 {
        &["x", "y", "z"]
    } else {
        &["u", "v"]
    };
    for (k, n) in names.iter().enumerate() {
        q.coords[k] = f32::from_bits(regs[at + k]);
        line(out, at + k, format!("{n} = {:?}", q.coords[k]));
    }
    let rb0 = insn.rb.0 as usize;
    if rb.handle {
        line(out, rb0, "texture handle".into());
    }
    let o = rb0 + rb.offsets_at() as usize;
    match rb.offsets {
        1 => {
            q.offsets[0] = aoffi_offsets(regs[o]);
            line(
                out,
                o,
                format!(
                    "AOFFI: dx = {} (bits 5:0 = {:#04x}), dy = {} (bits 13:8 = {:#04x})",
                    q.offsets[0][0],
                    regs[o] & 0x3f,
                    q.offsets[0][1],
                    regs[o] >> 8 & 0x3f
                ),
            );
        }
        2 => {
            q.offsets = ptp_offsets(regs[o], regs[o + 1]);
            let p = q.offsets;
            line(
                out,
                o,
                format!(
                    "PTP: x ({}, {}), y ({}, {})",
                    p[0][0], p[0][1], p[1][0], p[1][1]
                ),
            );
            line(
                out,
                o + 1,
                format!(
                    "PTP: z ({}, {}), w ({}, {})",
                    p[2][0], p[2][1], p[3][0], p[3][1]
                ),
            );
        }
        _ => {}
    }
    if rb.depth_ref {
        let r = rb0 + rb.depth_ref_at() as usize;
        q.dref = f32::from_bits(regs[r]);
        line(out, r, format!("depth reference = {:?}", q.dref));
    }

    if let Some(f) = &own_fault {
        // A fault of the uniform handle names the lowest executing lane (FACTS.md, decisions).
        let why = match fault_lane(f) {
            Some(l) if l as usize != lane => {
                " (the handle is the warp's: the fault names the lowest executing lane)"
            }
            _ => "",
        };
        let _ = writeln!(
            out,
            "  fault: {f}{why}\n  the warp raises this exception: nothing is written in any lane"
        );
        return outcome;
    }
    if let Some(f) = &other_fault {
        let _ = writeln!(
            out,
            "  note: the warp faults in another lane ({f}), so nothing is written; this lane's path would be:"
        );
    }
    let Ok((texture, sampler)) = resolved else {
        let _ = writeln!(
            out,
            "  the handle names no texture and sampler of the scenario"
        );
        return outcome;
    };
    let Some(op) = gather_op(insn) else {
        return outcome;
    };
    let t = match trace::trace(texture, sampler, &op, precision, &q) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "  the texture unit refuses: {e}");
            return outcome;
        }
    };
    path(out, &t, texture, insn);

    // Packing and writes.
    let mode = output_mode(insn);
    let vk = if t.compare.is_some() {
        ValueKind::Float
    } else {
        t.format.value_kind()
    };
    if mode != OutputMode::F32 {
        let _ = writeln!(
            out,
            "  F16 rounding (f32 -> binary16 bits; {} is used):",
            insn.f16_mode.name()
        );
        for (k, &v) in t.values.iter().enumerate() {
            if insn.write_mask.0 >> k & 1 == 0 {
                continue;
            }
            let x = f32::from_bits(v);
            let (rn, rz) = (f16_rn(x), f16_rz(x));
            let hv = |b: u16| half::f16::from_bits(b).to_f32();
            let _ = writeln!(
                out,
                "    {}: {:?} -> RN {rn:#06x} ({:?}), RZ {rz:#06x} ({:?}){}",
                GATHER_ORDER[k].0,
                x,
                hv(rn),
                hv(rz),
                if rn == rz {
                    ""
                } else {
                    ": the rounding mode matters"
                }
            );
        }
    }
    let plan = write_plan(insn.write_mask.0, mode);
    let mut writes = Vec::new();
    for &(dest, comps) in &plan.slots[..plan.len as usize] {
        let base = if dest < 2 { insn.rd } else { insn.rd2 };
        if base.is_rz() {
            continue;
        }
        let r = base.0.wrapping_add(dest & 1);
        let v = planned_value(&t.values, comps, mode);
        let names: Vec<&str> = comps
            .iter()
            .filter(|&&c| c != NO_COMPONENT)
            .map(|&c| GATHER_ORDER[c as usize].0)
            .collect();
        writes.push((r, v, names.join(" | ")));
    }
    let verb = if other_fault.is_some() {
        "would write"
    } else {
        "writes"
    };
    if writes.is_empty() && insn.pred_dst.is_pt() {
        let _ = writeln!(
            out,
            "  {verb} nothing (mask and destinations discard every result)"
        );
    } else {
        let _ = writeln!(out, "  {verb}:");
    }
    for (r, v, names) in &writes {
        let shown = match mode {
            OutputMode::F32 => show_value(*v, vk),
            _ => {
                let h = |b: u32| half::f16::from_bits(b as u16).to_f32();
                format!("halves {:?}, {:?}", h(v & 0xffff), h(v >> 16))
            }
        };
        let _ = writeln!(out, "    {:<5} = {v:#010x}  {names} = {shown}", reg(*r));
    }
    if !insn.pred_dst.is_pt() {
        let _ = writeln!(
            out,
            "    P{}    = {}  ({})",
            insn.pred_dst.0,
            !t.resident,
            if t.resident {
                "every texel resident"
            } else {
                "a texel was not resident"
            }
        );
    }
    // The same as the emulator?
    if other_fault.is_none() {
        let mut same = true;
        for (r, v, _) in &writes {
            same &= after.reg(lane, *r) == *v;
        }
        if !insn.pred_dst.is_pt() {
            same &= after.pred(lane, insn.pred_dst.0) != t.resident;
        }
        if same {
            let _ = writeln!(
                out,
                "  check: the emulator (tld4 run) writes the same values in lane {lane}"
            );
        } else {
            let got: Vec<String> = writes
                .iter()
                .map(|(r, _, _)| format!("{} = {:#010x}", reg(*r), after.reg(lane, *r)))
                .collect();
            let _ = writeln!(
                out,
                "  MISMATCH: the emulator writes {} in lane {lane}",
                got.join(", ")
            );
            outcome.consistent = false;
        }
    }
    outcome.trace = Some(t);
    outcome
}

/// Describes a fixed-point rounding mode.
fn rounding_name(r: Rounding) -> &'static str {
    match r {
        Rounding::NearestEven => "round to nearest even",
        Rounding::TowardZero => "truncate toward zero",
        Rounding::Floor => "round down",
    }
}

/// The gather path of a trace, as text.
fn path(out: &mut String, t: &GatherTrace, texture: &Texture, insn: &Tld4) {
    let q = &t.query;
    // Address.
    if let Some(c) = &t.cube {
        let d = c.direction;
        let (axis, ssign, saxis, tsign, taxis) = CUBE_TABLE[c.face as usize % 6];
        let ma = (d[axis] as f64).abs();
        let _ = writeln!(
            out,
            "  direction (x, y, z) = ({:?}, {:?}, {:?}): major axis {} (|{}| = {} is the largest; ties go z, then y, then x)",
            d[0], d[1], d[2], AXES[axis], AXES[axis], ma
        );
        let _ = writeln!(
            out,
            "  face {} ({}): sc = {} = {:?}, tc = {} = {:?}, |ma| = {ma}",
            FACE_NAMES[c.face as usize % 6],
            c.face,
            signed_axis(ssign, saxis),
            ssign as f32 * d[saxis],
            signed_axis(tsign, taxis),
            tsign as f32 * d[taxis],
        );
        let _ = writeln!(
            out,
            "  face coordinates: s = (sc / |ma| + 1) / 2 = {}, t = (tc / |ma| + 1) / 2 = {}",
            c.s, c.t
        );
    } else {
        let _ = writeln!(
            out,
            "  coordinate: (u, v) = ({:?}, {:?})",
            q.coords[0], q.coords[1]
        );
    }
    if let Some(l) = &t.layer {
        let what = if t.kind.is_cube() { "cube" } else { "layer" };
        if l.given == l.used {
            let _ = writeln!(out, "  {what} {} (of 0..{})", l.used, l.last);
        } else {
            let _ = writeln!(
                out,
                "  {what} {} is past the last one: clamped to {}",
                l.given, l.used
            );
        }
        if t.kind.is_cube() {
            let _ = writeln!(
                out,
                "  storage layer = cube * 6 + face = {}",
                t.storage_layer
            );
        }
    }
    // Footprint origin, axis by axis.
    for (a, name, dim, o) in [(&t.u, "u", "W", "i0"), (&t.v, "v", "H", "j0")] {
        let coord = if t.kind.is_cube() {
            if name == "u" {
                "s"
            } else {
                "t"
            }
        } else {
            name
        };
        let mut line = format!("  {coord}*{dim} = {} * {} = {}", a.coord, a.size, a.texels);
        match a.fixed {
            Some((n, bits, r)) => {
                let _ = write!(
                    line,
                    "; fixed point ({bits} fractional bits, {}): {n} / 2^{bits} = {}; {o} = floor({} - 0.5) = {}",
                    rounding_name(r),
                    n as f64 / (1u64 << bits) as f64,
                    n as f64 / (1u64 << bits) as f64,
                    a.origin
                );
            }
            None => {
                let _ = write!(
                    line,
                    "; exact (no fixed point): {o} = floor({} - 0.5) = {}",
                    a.texels, a.origin
                );
            }
        }
        let _ = writeln!(out, "{line}");
        if a.rounding_decided() {
            let _ = writeln!(
                out,
                "    the rounding decided the texel: exact floor({coord}*{dim} - 0.5) = {}, the fixed-point value gives {o} = {}",
                a.exact_origin, a.origin
            );
        }
    }
    // Offsets.
    match (t.op.offsets, t.seamless) {
        (tld4_textures::OffsetMode::Aoffi, false) => {
            let (dx, dy) = t.texels[3].offset.unwrap_or((0, 0));
            let _ = writeln!(
                out,
                "  AOFFI offset (dx, dy) = ({dx}, {dy}): the footprint starts at ({}, {})",
                t.u.origin + dx,
                t.v.origin + dy
            );
        }
        (tld4_textures::OffsetMode::Ptp, false) => {
            let offs: Vec<String> = t
                .texels
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    let (dx, dy) = x.offset.unwrap_or((0, 0));
                    format!("{} ({dx}, {dy})", GATHER_ORDER[k].0)
                })
                .collect();
            let _ = writeln!(
                out,
                "  PTP offsets: {}; texel k is read at (i0 + dx_k, j0 + dy_k)",
                offs.join(", ")
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  no offsets: the footprint is i0..i0+1 = {}..{}, j0..j0+1 = {}..{}",
                t.u.origin,
                t.u.origin + 1,
                t.v.origin,
                t.v.origin + 1
            );
        }
    }
    // Selection.
    let f = t.format;
    match t.selection {
        Selection::Depth => {
            let _ = writeln!(
                out,
                "  .DC: the texel's depth (component R of {}) is compared; the component field and the swizzle are not used",
                f.name()
            );
        }
        Selection::Component(c) => {
            let _ = writeln!(
                out,
                "  swizzle: component {} reads the texel's {}{}",
                insn.component.name(),
                RGBA[c.min(3)],
                if RGBA[c.min(3)] == insn.component.name() {
                    " (unchanged)"
                } else {
                    ""
                }
            );
        }
        Selection::Constant(v) => {
            let why = match t.swizzle_source {
                Source::Zero => "the swizzle says ZERO".to_string(),
                Source::One => "the swizzle says ONE".to_string(),
                s => format!(
                    "{} has no {}: missing components read 0, 0, 0, 1",
                    f.name(),
                    source_name(s)
                ),
            };
            let _ = writeln!(
                out,
                "  swizzle: component {} is the constant {} ({why})",
                insn.component.name(),
                show_value(
                    v,
                    if f.is_integer() {
                        f.value_kind()
                    } else {
                        ValueKind::Float
                    }
                )
            );
        }
    }
    if let Some(c) = &t.compare {
        let clamp = if c.clamps {
            if c.used != c.dref || c.dref.is_nan() {
                format!(
                    ", clamped to [0, 1] for the UNORM depth format: {:?}",
                    c.used
                )
            } else {
                " (inside [0, 1]: the UNORM clamp changes nothing)".to_string()
            }
        } else {
            " (float depth: not clamped)".to_string()
        };
        let _ = writeln!(
            out,
            "  compare function {} (dref {} depth): dref = {:?}{clamp}",
            serde_name(&c.op),
            compare_symbol(c.op),
            c.dref
        );
    }
    // Texels.
    let vk = if t.compare.is_some() {
        ValueKind::Float
    } else {
        f.value_kind()
    };
    let comp = insn.component.name();
    let ptp = t.op.offsets == tld4_textures::OffsetMode::Ptp && !t.seamless;
    if ptp {
        let _ = writeln!(
            out,
            "  footprint in gather order x, y, z, w, texel k at (i0 + dx_k, j0 + dy_k):"
        );
    } else {
        let _ = writeln!(
            out,
            "  footprint in gather order x, y, z, w = (i0,j1), (i1,j1), (i1,j0), (i0,j0):"
        );
    }
    for (k, x) in t.texels.iter().enumerate() {
        let (name, place) = GATHER_ORDER[k];
        let place = if ptp { "" } else { place };
        let mut line = format!(
            "    {name}{}{place} = ({}, {}): ",
            if ptp { "" } else { " " },
            x.position.0,
            x.position.1
        );
        match x.site {
            TexelSite::Texel {
                layer,
                x: tx,
                y: ty,
            } => {
                let on = if t.kind.is_cube() {
                    format!("face {} ", FACE_NAMES[(layer % 6) as usize])
                } else if t.kind.is_array() {
                    format!("layer {layer} ")
                } else {
                    String::new()
                };
                if x.wrapped {
                    if t.kind.is_cube() && layer != t.storage_layer {
                        let _ = write!(line, "across the edge, on {on}texel ({tx}, {ty})");
                    } else {
                        let modes = [t.address[0], t.address[1]];
                        let moved: Vec<String> = [
                            (x.position.0 != tx as i64, "u", modes[0]),
                            (x.position.1 != ty as i64, "v", modes[1]),
                        ]
                        .iter()
                        .filter(|m| m.0)
                        .map(|m| format!("{} {}", m.1, serde_name(&m.2)))
                        .collect();
                        let _ = write!(
                            line,
                            "wrapped ({}) to {on}texel ({tx}, {ty})",
                            moved.join(", ")
                        );
                    }
                } else {
                    let _ = write!(line, "{on}texel ({tx}, {ty})");
                }
                if let (Some(raw), Some(conv)) = (x.raw, x.converted) {
                    let _ = write!(
                        line,
                        ", raw {} = {}",
                        show_raw(&raw, f),
                        show_converted(&conv, f)
                    );
                }
                match x.how {
                    TexelValue::Fetched => {
                        let _ = write!(line, " -> {comp} = {}", show_value(x.value, vk));
                    }
                    TexelValue::Constant => {
                        let _ = write!(line, " -> {comp} = {} (constant)", show_value(x.value, vk));
                    }
                    TexelValue::Compared { depth } => {
                        let c = t.compare.map(|c| c.op).unwrap_or(CompareOp::Never);
                        let _ = write!(
                            line,
                            " -> {:?} {} {:?} is {} -> {}",
                            t.compare.map_or(q.dref, |c| c.used),
                            compare_symbol(c),
                            depth,
                            f32::from_bits(x.value) == 1.0,
                            show_value(x.value, vk)
                        );
                    }
                    _ => {}
                }
                if !x.resident {
                    let _ = write!(line, " [tile not resident]");
                }
            }
            TexelSite::Border => {
                // The axis (or axes) whose address mode gives no texel (`wrap`).
                let outside: Vec<String> = [
                    (x.position.0, t.size[0], "i", "u", t.address[0]),
                    (x.position.1, t.size[1], "j", "v", t.address[1]),
                ]
                .iter()
                .filter(|a| tld4_textures::wrap(a.0, a.1 as i64, a.4).is_none())
                .map(|a| {
                    format!(
                        "{} = {} is outside 0..{} and {} is {}",
                        a.2,
                        a.0,
                        a.1 - 1,
                        a.3,
                        serde_name(&a.4)
                    )
                })
                .collect();
                let _ = write!(line, "{}: the border colour", outside.join("; "));
                match x.how {
                    TexelValue::Compared { depth } => {
                        let c = t.compare.map(|c| c.op).unwrap_or(CompareOp::Never);
                        let _ = write!(
                            line,
                            ", depth {:?} -> {:?} {} {:?} is {} -> {}",
                            depth,
                            t.compare.map_or(q.dref, |c| c.used),
                            compare_symbol(c),
                            depth,
                            f32::from_bits(x.value) == 1.0,
                            show_value(x.value, vk)
                        );
                    }
                    _ => {
                        let _ = write!(
                            line,
                            " -> {comp} = {} (the border word, not swizzled)",
                            show_value(x.value, vk)
                        );
                    }
                }
            }
            TexelSite::Corner => {
                let rule = if t.format.is_integer() && t.compare.is_none() {
                    format!("a copy of {} in the same column", GATHER_ORDER[3 - k].0)
                } else if matches!(t.selection, Selection::Constant(_)) {
                    "the swizzle constant".to_string()
                } else {
                    let others: Vec<&str> = (0..4)
                        .filter(|&o| o != k)
                        .map(|o| GATHER_ORDER[o].0)
                        .collect();
                    format!(
                        "the average of {}, as ((w + z) + (x + y)) * (1/3) in f32 with {} = 0",
                        others.join(", "),
                        GATHER_ORDER[k].0
                    )
                };
                let _ = write!(
                    line,
                    "a cube corner, on no face: {rule} -> {}",
                    show_value(x.value, vk)
                );
            }
        }
        let _ = writeln!(out, "{line}");
    }
    if !t.resident {
        let _ = writeln!(
            out,
            "  a texel lies in a non-resident tile: every result is 0 and the predicate destination is set"
        );
    }
    let shown: Vec<String> = t.values.iter().map(|&v| show_value(v, vk)).collect();
    let bits: Vec<String> = t.values.iter().map(|v| format!("{v:#010x}")).collect();
    let _ = writeln!(
        out,
        "  results (x, y, z, w) = ({}) = ({})",
        shown.join(", "),
        bits.join(", ")
    );
    let _ = texture;
}

/// `tld4 explain`.
pub fn explain(args: &ExplainArgs) -> CmdResult {
    let text = args.instruction.join(" ");
    let (insn, word) = read_instruction(&text)?;
    if args.lane >= WARP_SIZE as u32 {
        return Err(format!("--lane {}: a warp has lanes 0..31", args.lane).into());
    }
    let mut out = String::new();
    let mut code = ExitCode::SUCCESS;
    match &args.scenario {
        None => {
            let exec = tld4_emu::Tld4Exec::new(&insn, Default::default());
            explain_instruction(&mut out, &insn, word, exec.static_fault(255));
        }
        Some(path) => {
            let (s, precision) = load_scenario(path, word)?;
            explain_instruction(
                &mut out,
                &insn,
                word,
                s.exec.static_fault(s.warp.regs_per_thread),
            );
            let _ = writeln!(out);
            let source = path.display().to_string();
            let lane = explain_lane(&mut out, &s, precision, args.lane as usize, &source);
            if !lane.consistent {
                code = ExitCode::FAILURE;
            }
            if args.png.is_some() || args.svg.is_some() {
                let Some((texture, _, header, _)) = &lane.texture else {
                    print!("{out}");
                    return Err(
                        "no picture: the lane's handle names no texture of the scenario".into(),
                    );
                };
                if texture.width().max(texture.height()) > MAX_DRAWN {
                    print!("{out}");
                    return Err(format!(
                        "no picture: the texture is {}x{}, and pictures are drawn for textures of at most {MAX_DRAWN} texels a side",
                        texture.width(),
                        texture.height()
                    )
                    .into());
                }
                let pic = picture(
                    texture,
                    *header,
                    lane.trace.as_ref(),
                    &insn,
                    args.lane as usize,
                );
                if let Some(p) = &args.png {
                    write_png(&pic, p)?;
                    let _ = writeln!(out, "picture: {}", p.display());
                }
                if let Some(p) = &args.svg {
                    std::fs::write(p, svg(&pic)).map_err(|e| format!("{}: {e}", p.display()))?;
                    let _ = writeln!(out, "picture: {}", p.display());
                }
            }
        }
    }
    print!("{out}");
    Ok(code)
}

// ---------------------------------------------------------------------------------------
// The picture.
//
// Layout (pixels; the tests compute positions from these):
// - a title band TITLE px high at the top, then MARGIN px around every panel;
// - each texel is a T x T square, T = texel_px(max(width, height));
// - panels side by side: panel p's top-left corner is (MARGIN + p * (PW + MARGIN), TITLE +
//   MARGIN), PW = W * T (a cube cross: 4 * W * T wide, 3 * W * T high);
// - texel (x, y) of a 2D or array panel is the square at (ox + x * T, oy + y * T); in a cube
//   cross, face f sits at cell CROSS[f] (column, row), so its texel (x, y) is at
//   (ox + (col * W + x) * T, oy + (row * W + y) * T);
// - the sample point (u * W, v * H) in texels is the pixel (ox + u * W * T, oy + v * H * T);
// - the legend starts at oy + PH + MARGIN / 2.
// ---------------------------------------------------------------------------------------

/// Title band height.
pub const TITLE: u32 = 32;
/// Margin around each panel (room for a ring of border texels and the captions).
pub const MARGIN: u32 = 48;
/// Footprint outline band width (inside the texel square).
pub const OUTLINE: u32 = 3;
/// Outline colour of footprint texels.
pub const FOOTPRINT_RGB: [u8; 3] = [255, 0, 255];
/// The sample point's colour (a disc of radius 5 with a black rim).
pub const SAMPLE_RGB: [u8; 3] = [0, 255, 255];
/// The frame around the sampled layer or cube.
pub const SAMPLED_FRAME_RGB: [u8; 3] = [255, 210, 0];
/// Background.
pub const BACKGROUND_RGB: [u8; 3] = [250, 250, 250];
/// Grid lines between texels.
pub const GRID_RGB: [u8; 3] = [90, 90, 90];
/// Legend and caption text.
pub const TEXT_RGB: [u8; 3] = [20, 20, 20];
/// Cube cross: (column, row) of each face in storage order (+X, -X, +Y, -Y, +Z, -Z): the row
/// -X +Z +X -Z with +Y above +Z and -Y below, in which every shared edge touches (Vulkan's face
/// table).
pub const CROSS: [(u32, u32); 6] = [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (3, 1)];
/// The most array layers (or cubes) drawn: a window around the sampled one.
pub const MAX_PANELS: u32 = 8;
/// The most cubes of a cube array drawn.
pub const MAX_CUBES: u32 = 4;
/// The largest texture side drawn (a larger texture is refused with an error).
pub const MAX_DRAWN: u32 = 256;

/// Texel size in pixels for a texture whose larger side is `n` texels: 40 up to 12 texels,
/// else 480 / n, at least 1.
pub fn texel_px(n: u32) -> u32 {
    if n <= 12 {
        40
    } else {
        (480 / n).max(1)
    }
}

/// How a footprint texel is outlined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkStyle {
    /// Read where the footprint put it: a solid outline.
    Solid,
    /// Moved by wrapping or a cube face hop: a dashed outline.
    Dashed,
    /// The border colour or a cube corner (no texel): hatched, drawn outside the texture.
    Hatched,
}

/// A footprint texel mark.
#[derive(Clone, Debug)]
struct Mark {
    x: i64,
    y: i64,
    size: u32,
    k: usize,
    style: MarkStyle,
}

/// Where a mark's label goes: its top-left corner and side, inside the mark's corner given
/// by [`label_corner`], clear of the outline.
fn label_box(m: &Mark, label_scale: i64) -> (i64, i64, i64) {
    let (right, bottom) = label_corner(m.k);
    let size = 8 * label_scale + 2;
    let inset = OUTLINE as i64 + 1;
    let ms = m.size as i64;
    let lx = if right {
        m.x + ms - inset - size
    } else {
        m.x + inset
    };
    let ly = if bottom {
        m.y + ms - inset - size
    } else {
        m.y + inset
    };
    (lx, ly, size)
}

/// A text run.
#[derive(Clone, Debug)]
struct Text {
    x: i64,
    y: i64,
    scale: u32,
    text: String,
    rgb: [u8; 3],
    boxed: bool,
}

/// Everything drawn, in pixels.
struct Picture {
    width: u32,
    height: u32,
    t: u32,
    cells: Vec<(i64, i64, [u8; 3])>,
    frames: Vec<(i64, i64, u32, u32)>,
    marks: Vec<Mark>,
    sample: Option<(f64, f64)>,
    texts: Vec<Text>,
    key: Vec<(i64, i64, MarkStyle)>,
    key_sample: Option<(i64, i64)>,
}

/// The display colour of every texel of a storage layer's (x, y): RGB from the converted
/// components for formats with three or more non-integer components (sRGB formats show
/// their stored codes), else a grey ramp of the gathered component (the depth with .DC).
#[allow(clippy::type_complexity)]
fn colours(
    texture: &Texture,
    component: u8,
    compare: bool,
    layers: &[u32],
) -> (Vec<Vec<[u8; 3]>>, Option<(f64, f64)>) {
    let f = texture.format();
    let (w, h) = (texture.width() as usize, texture.height() as usize);
    let rgb = f.components() >= 3 && !f.is_integer() && !f.is_depth();
    let value = |l: usize, x: usize, y: usize| -> f64 {
        if compare || f.is_depth() {
            texel_depth(texture, l, x, y).map_or(0.0, |d| d as f64)
        } else {
            let v = texel_selected(texture, component, l, x, y).unwrap_or(0);
            match f.value_kind() {
                ValueKind::Uint => v as f64,
                ValueKind::Sint => v as i32 as f64,
                _ => f32::from_bits(v) as f64,
            }
        }
    };
    // The grey ramp's range: 0..1 (UNORM), -1..1 (SNORM), else the values' own range.
    let (lo, hi) = match f.class(0) {
        Class::Unorm | Class::Srgb if !rgb => (0.0, 1.0),
        Class::Snorm => (-1.0, 1.0),
        _ => {
            let mut lo = f64::INFINITY;
            let mut hi = f64::NEG_INFINITY;
            for &l in layers {
                for y in 0..h {
                    for x in 0..w {
                        let v = value(l as usize, x, y);
                        if v.is_finite() {
                            lo = lo.min(v);
                            hi = hi.max(v);
                        }
                    }
                }
            }
            (lo, hi)
        }
    };
    let grey = |v: f64| -> u8 {
        if hi <= lo || hi.is_nan() || lo.is_nan() || !v.is_finite() {
            128
        } else {
            (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8
        }
    };
    let cells = layers
        .iter()
        .map(|&l| {
            let l = l as usize;
            let mut row = Vec::with_capacity(w * h);
            for y in 0..h {
                for x in 0..w {
                    let c = if rgb {
                        let (raw, conv) = texel_components(texture, l, x, y).unwrap_or_default();
                        if f.class(0) == Class::Srgb {
                            [raw[0] as u8, raw[1] as u8, raw[2] as u8]
                        } else {
                            let ch = |c: usize| {
                                let v = f32::from_bits(conv[c]) as f64;
                                if v.is_finite() {
                                    (v.clamp(0.0, 1.0) * 255.0).round() as u8
                                } else {
                                    0
                                }
                            };
                            [ch(0), ch(1), ch(2)]
                        }
                    } else {
                        let g = grey(value(l, x, y));
                        [g, g, g]
                    };
                    row.push(c);
                }
            }
            row
        })
        .collect();
    (cells, (hi > lo).then_some((lo, hi)))
}

/// Builds the picture of `texture` (header index `header`), with the lane's footprint.
fn picture(
    texture: &Texture,
    header: u32,
    trace: Option<&GatherTrace>,
    insn: &Tld4,
    lane: usize,
) -> Picture {
    let (w, h) = (texture.width(), texture.height());
    let kind = texture.kind();
    let cube = kind.is_cube();
    let t = texel_px(w.max(h));
    let layers = texture.layers();
    // The sampled layer (or cube), and the window of panels drawn.
    let sampled = trace.map_or(0, |tr| {
        if cube {
            tr.storage_layer / 6
        } else {
            tr.storage_layer
        }
    });
    let count = layers.min(if cube { MAX_CUBES } else { MAX_PANELS });
    let first = sampled.saturating_sub(count / 2).min(layers - count);
    let panels: Vec<u32> = (first..first + count).collect();
    let (pw, ph) = if cube {
        (4 * w * t, 3 * h * t)
    } else {
        (w * t, h * t)
    };
    let ox = |p: u32| (MARGIN + p * (pw + MARGIN)) as i64;
    let oy = (TITLE + MARGIN) as i64;
    // Texel position of (storage layer, x, y) in pixels.
    let place = |layer: u32, x: i64, y: i64| -> Option<(i64, i64)> {
        let (panel, face) = if cube {
            (layer / 6, layer % 6)
        } else {
            (layer, 0)
        };
        let p = panels.iter().position(|&q| q == panel)? as u32;
        let (cx, cy) = if cube { CROSS[face as usize] } else { (0, 0) };
        Some((
            ox(p) + (cx as i64 * w as i64 + x) * t as i64,
            oy + (cy as i64 * w as i64 + y) * t as i64,
        ))
    };
    let component = insn.component.raw() as u8;
    let storage: Vec<u32> = panels
        .iter()
        .flat_map(|&p| {
            if cube {
                (p * 6..p * 6 + 6).collect::<Vec<_>>()
            } else {
                vec![p]
            }
        })
        .collect();
    let (col, range) = colours(texture, component, insn.depth_compare, &storage);
    let mut pic = Picture {
        width: 0,
        height: 0,
        t,
        cells: Vec::new(),
        frames: Vec::new(),
        marks: Vec::new(),
        sample: None,
        texts: Vec::new(),
        key: Vec::new(),
        key_sample: None,
    };
    for (li, &l) in storage.iter().enumerate() {
        for y in 0..h {
            for x in 0..w {
                if let Some((px, py)) = place(l, x as i64, y as i64) {
                    pic.cells.push((px, py, col[li][(y * w + x) as usize]));
                }
            }
        }
    }
    // Captions and the sampled panel's frame.
    for (p, &panel) in panels.iter().enumerate() {
        let name = if kind.is_array() {
            format!("{} {panel}", if cube { "cube" } else { "layer" })
        } else {
            format!(
                "texture {header}: {} {} {w}x{h}",
                serde_name(&kind),
                texture.format().name()
            )
        };
        let sampled_here = panel == sampled && trace.is_some();
        pic.texts.push(Text {
            x: ox(p as u32),
            y: TITLE as i64 - 2,
            scale: 1,
            text: if sampled_here && kind.is_array() {
                format!("{name} (sampled)")
            } else {
                name
            },
            rgb: TEXT_RGB,
            boxed: false,
        });
        if sampled_here && kind.is_array() {
            pic.frames.push((ox(p as u32), oy, pw, ph));
        }
        if cube {
            for (f, &(cx, cy)) in CROSS.iter().enumerate() {
                pic.texts.push(Text {
                    x: ox(p as u32) + (cx * w * t) as i64 + 2,
                    y: oy + (cy * h * t) as i64 + 2,
                    scale: 1,
                    text: FACE_NAMES[f].to_string(),
                    rgb: [255, 255, 255],
                    boxed: true,
                });
            }
        }
    }
    // The footprint and the sample point.
    let mut legend: Vec<String> = Vec::new();
    if let Some(tr) = trace {
        let face = tr.cube.map_or(0, |c| c.face);
        let (cx, cy) = if cube { CROSS[face as usize] } else { (0, 0) };
        let base_layer = tr.storage_layer;
        let ring = |i: i64, n: u32| i.clamp(-1, n as i64);
        for (k, x) in tr.texels.iter().enumerate() {
            let mut size = t;
            let (px, py, style) = match x.site {
                TexelSite::Texel {
                    layer,
                    x: tx,
                    y: ty,
                } => match place(layer, tx as i64, ty as i64) {
                    Some((px, py)) => (
                        px,
                        py,
                        if x.wrapped {
                            MarkStyle::Dashed
                        } else {
                            MarkStyle::Solid
                        },
                    ),
                    None => continue,
                },
                TexelSite::Corner => {
                    // No face holds it: a half-size hatched square on the face's corner.
                    let Some((px, py)) = place(base_layer, 0, 0) else {
                        continue;
                    };
                    size = t / 2;
                    let at = |i: i64| if i < 0 { 0 } else { (w * t) as i64 };
                    (
                        px + at(x.position.0) - (t / 4) as i64,
                        py + at(x.position.1) - (t / 4) as i64,
                        MarkStyle::Hatched,
                    )
                }
                TexelSite::Border => {
                    // Outside the texture: in the ring of texels around it.
                    let Some((px, py)) = place(base_layer, 0, 0) else {
                        continue;
                    };
                    (
                        px + ring(x.position.0, w) * t as i64,
                        py + ring(x.position.1, h) * t as i64,
                        MarkStyle::Hatched,
                    )
                }
            };
            pic.marks.push(Mark {
                x: px,
                y: py,
                size,
                k,
                style,
            });
        }
        if let Some(p) = panels.iter().position(|&q| q == sampled) {
            let ring_px = t as f64;
            let sx = (tr.u.texels * t as f64).clamp(-ring_px, (pw.min(w * t)) as f64 + ring_px);
            let sy = (tr.v.texels * t as f64).clamp(-ring_px, (ph.min(h * t)) as f64 + ring_px);
            pic.sample = Some((
                ox(p as u32) as f64 + (cx * w * t) as f64 + sx,
                oy as f64 + (cy * h * t) as f64 + sy,
            ));
        }
        let vk = if tr.compare.is_some() {
            ValueKind::Float
        } else {
            tr.format.value_kind()
        };
        legend.push(format!(
            "sample point: {} = {}, {} = {} (texels){}",
            if cube { "s*W" } else { "u*W" },
            short(tr.u.texels),
            if cube { "t*H" } else { "v*H" },
            short(tr.v.texels),
            if let Some(c) = &tr.cube {
                format!(" on face {}", FACE_NAMES[c.face as usize % 6])
            } else {
                String::new()
            }
        ));
        legend.push(format!(
            "i0 = {}, j0 = {}{}",
            tr.u.origin,
            tr.v.origin,
            match tr.op.offsets {
                _ if tr.seamless => String::new(),
                tld4_textures::OffsetMode::Aoffi => {
                    let (dx, dy) = tr.texels[3].offset.unwrap_or((0, 0));
                    format!(", AOFFI ({dx},{dy})")
                }
                tld4_textures::OffsetMode::Ptp => ", PTP".to_string(),
                _ => String::new(),
            }
        ));
        for (k, x) in tr.texels.iter().enumerate() {
            let site = match x.site {
                TexelSite::Texel {
                    layer,
                    x: tx,
                    y: ty,
                } => {
                    let on = if cube {
                        format!("{} ", FACE_NAMES[(layer % 6) as usize])
                    } else {
                        String::new()
                    };
                    if x.wrapped {
                        format!(" -> {on}({tx},{ty})")
                    } else {
                        String::new()
                    }
                }
                TexelSite::Border => " border".to_string(),
                TexelSite::Corner => " corner".to_string(),
            };
            legend.push(format!(
                "{} ({},{}){site}: {}",
                GATHER_ORDER[k].0,
                x.position.0,
                x.position.1,
                show_value(tr.values[k], vk)
            ));
        }
    }
    let colour_rule = {
        let f = texture.format();
        if f.components() >= 3 && !f.is_integer() && !f.is_depth() {
            "colour: the texel's RGB".to_string()
        } else {
            let what = if insn.depth_compare || f.is_depth() {
                "depth".to_string()
            } else {
                insn.component.name().to_string()
            };
            match range {
                Some((lo, hi)) => {
                    format!("grey: {what}, black {} .. white {}", short(lo), short(hi))
                }
                None => format!("grey: {what} (the same in every texel)"),
            }
        }
    };
    legend.push(colour_rule);
    // Layout of the canvas.
    let panels_w = MARGIN + panels.len() as u32 * (pw + MARGIN);
    let legend_scale = 2;
    let line_h = 8 * legend_scale + 6;
    let key_w = 40 * 16 + 4 * 48;
    let legend_w = legend
        .iter()
        .map(|l| l.len() as u32 * 8 * legend_scale)
        .max()
        .unwrap_or(0)
        .max(key_w)
        + 2 * MARGIN;
    let title = format!(
        "{}  lane {lane}, texture {header}",
        insn.text().trim_end_matches(" ;")
    );
    let title_w = title.len() as u32 * 16 + 16;
    pic.width = panels_w.max(legend_w).max(title_w);
    let legend_y = oy + ph as i64 + (MARGIN / 2) as i64;
    // Key: solid, dashed, hatched, sample point.
    let key_y = legend_y;
    let mut kx = MARGIN as i64;
    for (style, label) in [
        (MarkStyle::Solid, "read"),
        (MarkStyle::Dashed, "wrapped"),
        (MarkStyle::Hatched, if cube { "corner" } else { "border" }),
    ] {
        pic.key.push((kx, key_y, style));
        pic.texts.push(Text {
            x: kx + 24,
            y: key_y + 2,
            scale: legend_scale,
            text: label.to_string(),
            rgb: TEXT_RGB,
            boxed: false,
        });
        kx += 24 + label.len() as i64 * 16 + 24;
    }
    pic.key_sample = Some((kx + 8, key_y + 8));
    pic.texts.push(Text {
        x: kx + 24,
        y: key_y + 2,
        scale: legend_scale,
        text: "sample point".to_string(),
        rgb: TEXT_RGB,
        boxed: false,
    });
    let mut y = key_y + line_h as i64 + 6;
    if trace.is_none() {
        legend.insert(0, "no footprint: the lane does not gather".to_string());
    }
    for l in &legend {
        pic.texts.push(Text {
            x: MARGIN as i64,
            y,
            scale: legend_scale,
            text: l.clone(),
            rgb: TEXT_RGB,
            boxed: false,
        });
        y += line_h as i64;
    }
    pic.height = y as u32 + 12;
    pic.texts.push(Text {
        x: 8,
        y: 8,
        scale: 2,
        text: title,
        rgb: TEXT_RGB,
        boxed: false,
    });
    pic
}

/// A number in a few digits, for the legend.
fn short(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// True where a mark's outline covers pixel (dx, dy) of its T x T square.
fn outline_at(style: MarkStyle, dx: u32, dy: u32, t: u32) -> bool {
    let band = OUTLINE.min(t / 4).max(1);
    let on_edge = dx < band || dy < band || dx >= t - band || dy >= t - band;
    if !on_edge {
        return style == MarkStyle::Hatched && (dx + dy) % 8 < 2;
    }
    match style {
        MarkStyle::Solid | MarkStyle::Hatched => true,
        // Dashes of 6 px on, 4 px off, along each edge from the square's corners.
        MarkStyle::Dashed => {
            let along = if dy < band || dy >= t - band { dx } else { dy };
            along % 10 < 6
        }
    }
}

/// The label's corner for result k: x bottom-left, y bottom-right, z top-right, w top-left,
/// as the footprint places them (j grows downwards).
fn label_corner(k: usize) -> (bool, bool) {
    // (right, bottom)
    match k {
        0 => (false, true),
        1 => (true, true),
        2 => (true, false),
        _ => (false, false),
    }
}

/// The label scale for texel size t (0: no label).
fn label_scale(t: u32) -> u32 {
    if t >= 32 {
        2
    } else if t >= 14 {
        1
    } else {
        0
    }
}

/// Draws the picture into an RGB image.
fn render(pic: &Picture) -> image::RgbImage {
    let mut img = image::RgbImage::from_pixel(pic.width, pic.height, image::Rgb(BACKGROUND_RGB));
    let put = |img: &mut image::RgbImage, x: i64, y: i64, rgb: [u8; 3]| {
        if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
            img.put_pixel(x as u32, y as u32, image::Rgb(rgb));
        }
    };
    let t = pic.t as i64;
    for &(x, y, rgb) in &pic.cells {
        for dy in 0..t {
            for dx in 0..t {
                let grid = t >= 6 && (dx == 0 || dy == 0);
                put(&mut img, x + dx, y + dy, if grid { GRID_RGB } else { rgb });
            }
        }
    }
    for &(x, y, w, h) in &pic.frames {
        let (w, h) = (w as i64, h as i64);
        for d in 3..6 {
            for i in -d..w + d {
                put(&mut img, x + i, y - d, SAMPLED_FRAME_RGB);
                put(&mut img, x + i, y + h - 1 + d, SAMPLED_FRAME_RGB);
            }
            for j in -d..h + d {
                put(&mut img, x - d, y + j, SAMPLED_FRAME_RGB);
                put(&mut img, x + w - 1 + d, y + j, SAMPLED_FRAME_RGB);
            }
        }
    }
    let draw_mark = |img: &mut image::RgbImage, x: i64, y: i64, size: u32, style: MarkStyle| {
        for dy in 0..size {
            for dx in 0..size {
                if outline_at(style, dx, dy, size) {
                    let (px, py) = (x + dx as i64, y + dy as i64);
                    if px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height()
                    {
                        img.put_pixel(px as u32, py as u32, image::Rgb(FOOTPRINT_RGB));
                    }
                }
            }
        }
    };
    // Face names first: the footprint goes over them.
    for tx in pic.texts.iter().filter(|t| t.boxed) {
        draw_text(
            &mut img,
            tx.x,
            tx.y,
            tx.scale,
            &tx.text,
            tx.rgb,
            Some([40, 40, 40]),
        );
    }
    for m in &pic.marks {
        draw_mark(&mut img, m.x, m.y, m.size, m.style);
    }
    // Labels, after every outline, so that no outline covers a label.
    for m in &pic.marks {
        let ls = label_scale(m.size);
        if ls > 0 {
            let (lx, ly, _) = label_box(m, ls as i64);
            draw_text(
                &mut img,
                lx,
                ly,
                ls,
                GATHER_ORDER[m.k].0,
                [0, 0, 0],
                Some([255, 255, 255]),
            );
        }
    }
    for &(x, y, style) in &pic.key {
        for dy in 0..16 {
            for dx in 0..16 {
                put(&mut img, x + dx, y + dy, [200, 200, 200]);
            }
        }
        draw_mark(&mut img, x, y, 16, style);
    }
    let samples = pic
        .sample
        .map(|(x, y)| (x.floor() as i64, y.floor() as i64))
        .into_iter()
        .chain(pic.key_sample);
    for (cx, cy) in samples {
        for dy in -7i64..=7 {
            for dx in -7i64..=7 {
                let d2 = dx * dx + dy * dy;
                if d2 <= 25 {
                    put(&mut img, cx + dx, cy + dy, SAMPLE_RGB);
                } else if d2 <= 42 {
                    put(&mut img, cx + dx, cy + dy, [0, 0, 0]);
                }
            }
        }
    }
    for tx in pic.texts.iter().filter(|t| !t.boxed) {
        draw_text(&mut img, tx.x, tx.y, tx.scale, &tx.text, tx.rgb, None);
    }
    img
}

/// Draws `text` with the font8x8 bitmap font at `scale`, optionally on a box 1 px wider.
fn draw_text(
    img: &mut image::RgbImage,
    x: i64,
    y: i64,
    scale: u32,
    text: &str,
    rgb: [u8; 3],
    back: Option<[u8; 3]>,
) {
    use font8x8::UnicodeFonts;
    let s = scale.max(1) as i64;
    let mut put = |px: i64, py: i64, c: [u8; 3]| {
        if px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height() {
            img.put_pixel(px as u32, py as u32, image::Rgb(c));
        }
    };
    let n = text.chars().count() as i64;
    if let Some(b) = back {
        for py in y..y + 8 * s + 2 {
            for px in x..x + n * 8 * s + 2 {
                put(px, py, b);
            }
        }
    }
    for (i, ch) in text.chars().enumerate() {
        let glyph = font8x8::BASIC_FONTS
            .get(ch)
            .or_else(|| font8x8::BASIC_FONTS.get('?'))
            .unwrap_or([0; 8]);
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits >> col & 1 != 0 {
                    for dy in 0..s {
                        for dx in 0..s {
                            put(
                                x + 1 + (i as i64 * 8 + col) * s + dx,
                                y + 1 + row as i64 * s + dy,
                                rgb,
                            );
                        }
                    }
                }
            }
        }
    }
}

fn write_png(pic: &Picture, path: &Path) -> Result<(), String> {
    render(pic)
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn hex_rgb(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The picture as SVG, in the same geometry as the PNG.
fn svg(pic: &Picture) -> String {
    let mut s = String::new();
    let t = pic.t as i64;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" font-family="monospace">"#,
        pic.width, pic.height, pic.width, pic.height
    );
    let _ = writeln!(
        s,
        r#"<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="8" fill="{}"/></pattern></defs>"#,
        hex_rgb(FOOTPRINT_RGB)
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="{}"/>"#,
        hex_rgb(BACKGROUND_RGB)
    );
    for &(x, y, rgb) in &pic.cells {
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{t}" height="{t}" fill="{}" stroke="{}" stroke-width="1"/>"#,
            hex_rgb(rgb),
            hex_rgb(GRID_RGB)
        );
    }
    for &(x, y, w, h) in &pic.frames {
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="3"/>"#,
            x - 4,
            y - 4,
            w + 8,
            h + 8,
            hex_rgb(SAMPLED_FRAME_RGB)
        );
    }
    let mark = |s: &mut String, x: i64, y: i64, size: i64, style: MarkStyle| {
        let b = OUTLINE as f64;
        if style == MarkStyle::Hatched {
            let _ = writeln!(
                s,
                r#"<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="url(#hatch)"/>"#
            );
        }
        let dash = if style == MarkStyle::Dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="{b}"{dash}/>"#,
            x as f64 + b / 2.0,
            y as f64 + b / 2.0,
            size as f64 - b,
            size as f64 - b,
            hex_rgb(FOOTPRINT_RGB)
        );
    };
    for m in &pic.marks {
        mark(&mut s, m.x, m.y, m.size as i64, m.style);
    }
    for m in &pic.marks {
        let ls = label_scale(m.size).max(1) as i64;
        let (lx, ly, size) = label_box(m, ls);
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{ly}" width="{size}" height="{size}" fill="white"/><text x="{}" y="{}" font-size="{}" text-anchor="middle">{}</text>"#,
            lx + size / 2,
            ly + size - 2 * ls,
            10 * ls,
            GATHER_ORDER[m.k].0
        );
    }
    for &(x, y, style) in &pic.key {
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="16" height="16" fill="rgb(200,200,200)"/>"#
        );
        mark(&mut s, x, y, 16, style);
    }
    for (sx, sy) in pic
        .sample
        .into_iter()
        .chain(pic.key_sample.map(|(x, y)| (x as f64, y as f64)))
    {
        let _ = writeln!(
            s,
            r#"<circle cx="{sx}" cy="{sy}" r="5.5" fill="{}" stroke="black" stroke-width="1.5"/>"#,
            hex_rgb(SAMPLE_RGB)
        );
    }
    for tx in &pic.texts {
        let size = 8 * tx.scale.max(1) as i64;
        if tx.boxed {
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="rgb(40,40,40)"/>"#,
                tx.x,
                tx.y,
                tx.text.chars().count() as i64 * size + 2,
                size + 2
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="{}" fill="{}">{}</text>"#,
            tx.x + 1,
            tx.y + size,
            size + size / 4,
            hex_rgb(tx.rgb),
            xml_escape(&tx.text)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cube_table_reproduces_project() {
        let dirs = [
            [1.0f32, 0.5, -0.25],
            [-1.0, 0.25, 0.5],
            [0.3, 1.0, -0.7],
            [0.3, -1.0, 0.7],
            [0.2, -0.4, 1.0],
            [-0.6, 0.1, -1.0],
            [0.9, -0.95, 0.2],
            [-0.5, 0.5, 0.49],
        ];
        for d in dirs {
            let (face, s, t) = tld4_textures::cube::project(d[0], d[1], d[2]);
            let (axis, ss, sa, ts, ta) = CUBE_TABLE[face as usize];
            let ma = (d[axis] as f64).abs();
            let s2 = (ss * d[sa] as f64 / ma + 1.0) * 0.5;
            let t2 = (ts * d[ta] as f64 / ma + 1.0) * 0.5;
            assert_eq!((s, t), (s2, t2), "{d:?} face {face}");
        }
    }

    #[test]
    fn instructions_read_in_every_spelling() {
        let text = "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;";
        let (insn, word) = read_instruction(text).unwrap();
        assert_eq!(insn.to_string(), text);
        let hex = format!("{word:032x}");
        assert_eq!(read_instruction(&hex).unwrap().1, word);
        assert_eq!(read_instruction(&format!("0x{hex}")).unwrap().1, word);
        let halves = format!(
            "/* {:#018x} */ /* {:#018x} */",
            word as u64,
            (word >> 64) as u64
        );
        assert_eq!(read_instruction(&halves).unwrap().1, word);
        let e = read_instruction("TLD4.Q R1").unwrap_err();
        assert!(e.contains("column"), "{e}");
        let e = read_instruction("00000000000000000000000000000d64").unwrap_err();
        assert!(e.contains("bit 91"), "{e}");
    }

    #[test]
    fn outlines_and_dashes() {
        assert!(outline_at(MarkStyle::Solid, 0, 20, 40));
        assert!(outline_at(MarkStyle::Solid, 20, 39, 40));
        assert!(!outline_at(MarkStyle::Solid, 20, 20, 40));
        assert!(outline_at(MarkStyle::Dashed, 5, 0, 40));
        assert!(!outline_at(MarkStyle::Dashed, 7, 0, 40));
        assert!(outline_at(MarkStyle::Hatched, 20, 20, 40));
    }
}
