//! One question answered as data, for `tld4 serve`'s API and page: the explanation's text and
//! the numbers a picture needs (the footprint, the texels read, the values, the registers
//! written, the instruction's fields), all from the same run as the text.

use serde::Serialize;
use serde_json::Value;
use tld4_decoder::{without_closing, Tld4};
use tld4_textures::trace::{texel_selected_in, TexelSite, TexelValue, FACE_NAMES};
use tld4_textures::{TexelSource, ValueKind};

use super::geometry::unfold;
use super::instruction::{explain_instruction, reg};
use super::provenance::{tag, PROVENANCE};
use super::question::{scenario_json, Question};
use super::show::{serde_name, show_value, CUBE_TABLE};
use super::{lane, load, GATHER_ORDER};

/// One field of the instruction word.
#[derive(Debug, Serialize)]
pub struct FieldRow {
    /// The field's name (the decoder's table).
    pub name: &'static str,
    /// Its bits, `hi:lo`.
    pub bits: String,
    /// Its raw value.
    pub raw: u64,
    /// What it changes.
    pub effect: &'static str,
    /// What it means here.
    pub meaning: String,
}

/// The instruction's modifiers, as the page's controls name them.
#[derive(Debug, Serialize)]
pub struct Decoded {
    /// R, G, B or A.
    pub component: String,
    /// "", "AOFFI" or "PTP".
    pub offsets: String,
    /// .DC set.
    pub dc: bool,
    /// "", "F16.RN" or "F16.RZ".
    pub f16: String,
    /// 2D, ARRAY_2D, CUBE, ARRAY_CUBE.
    pub dimension: String,
}

/// One texel of the footprint, in gather order.
#[derive(Debug, Serialize)]
pub struct TexelRow {
    /// x, y, z or w.
    pub name: &'static str,
    /// The footprint position (i, j) before any redirection (the ghost).
    pub position: [i64; 2],
    /// The offset that moved it, if any.
    pub offset: Option<[i64; 2]>,
    /// "texel", "border" or "corner".
    pub site: &'static str,
    /// The texel read (x, y, storage layer), for a texel.
    pub read: Option<[u32; 3]>,
    /// Redirected by an address mode or a cube edge.
    pub redirected: bool,
    /// The value it gives, as text.
    pub value: String,
    /// With depth compare: the depth the reference was compared with.
    pub depth: Option<f32>,
}

/// One result as F16.RN and F16.RZ would round it (binary16 bits and value).
#[derive(Debug, Serialize)]
pub struct F16Row {
    /// RN bits.
    pub rn: String,
    /// RN value.
    pub rn_value: f32,
    /// RZ bits.
    pub rz: String,
    /// RZ value.
    pub rz_value: f32,
}

/// A register the lane ends with.
#[derive(Debug, Serialize)]
pub struct RegRow {
    /// Register name.
    pub reg: String,
    /// Its bits.
    pub bits: String,
    /// As an f32 (or integer) and as two F16 halves.
    pub shown: String,
}

/// The lane's path, as numbers.
#[derive(Debug, Serialize)]
pub struct LaneData {
    /// The four results (x, y, z, w), as text.
    pub values: Vec<String>,
    /// Their bits.
    pub bits: Vec<String>,
    /// The footprint.
    pub texels: Vec<TexelRow>,
    /// u*W and v*H exactly.
    pub scaled: [f64; 2],
    /// u*W and v*H after the sub-texel rounding (equal to `scaled` with exact precision).
    pub rounded: [f64; 2],
    /// i0, j0 before offsets.
    pub origin: [i64; 2],
    /// The storage layer sampled (cube: cube * 6 + face).
    pub storage_layer: u32,
    /// The cube face, for cube kinds.
    pub face: Option<u32>,
    /// The registers written, after the emulator ran.
    pub registers: Vec<RegRow>,
    /// Each result rounded to F16 both ways (the F16 panel).
    pub f16: Vec<F16Row>,
    /// With depth compare: the function and the reference as used.
    pub compare: Option<(String, f32)>,
}

/// A cell of the ring around a cube face.
#[derive(Debug, Serialize)]
pub struct RingCell {
    /// The texel read there: face, x, y (None at a corner).
    pub read: Option<[u32; 3]>,
    /// Its face's name (+X, -X, ...).
    pub face: String,
    /// Its value.
    pub value: String,
}

/// The whole answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// nvdisasm's text, as the architecture's nvdisasm prints it.
    pub sass: String,
    /// The base table's 128-bit word, 32 hex digits (the fields are its fields).
    pub word: String,
    /// The fields.
    pub fields: Vec<FieldRow>,
    /// The modifiers.
    pub decoded: Decoded,
    /// The architecture the instruction was read on (SM100 unless one was named).
    pub arch: ArchData,
    /// The architectures a question may name (nvdisasm's names of every architecture with a
    /// TLD4: SM107 has none), for the page's choice.
    pub arches: Vec<&'static str>,
    /// `tld4 explain`'s text for the same question.
    pub text: String,
    /// The scenario document `tld4 explain --scenario` reproduces this with.
    pub scenario: Value,
    /// Texture width, height, storage layers.
    pub size: [u32; 3],
    /// The texture's kind (2d, 2d_array, cube, cube_array).
    pub kind: String,
    /// The selected component of every texel of the sampled storage layer, row by row.
    pub grid: Vec<String>,
    /// The lane's path, when it gathers.
    pub lane: Option<LaneData>,
    /// For cube kinds: the sampled face unfolded with its four neighbours (the 3x3 unfolding
    /// of the pictures), `ring_reach` texels deep past each edge: (W + 2 reach) x (H + 2
    /// reach) cells row by row from (-reach, -reach); the corner blocks, where no face lies,
    /// are cells without a texel.
    pub ring: Vec<RingCell>,
    /// How many texels past each edge of the sampled face `ring` reaches (the face size, at
    /// most [`MAX_RING_REACH`]; 0 for 2D kinds).
    pub ring_reach: u32,
    /// For cube kinds: the sampled face's axes, (major axis, its sign, sc's axis and sign,
    /// tc's axis and sign), so a point (s, t) of the face is the direction whose major axis
    /// component is the sign and whose others are sign_s * (2s - 1), sign_t * (2t - 1).
    pub face_axes: Option<[f64; 6]>,
    /// The provenance tags the text carries.
    pub tags: Vec<String>,
    /// The text's check against the emulator passed.
    pub consistent: bool,
}

/// The architecture a question is asked on: the instruction as that architecture writes it,
/// and the GPU class whose layouts its descriptors in memory have.
#[derive(Debug, Serialize)]
pub struct ArchData {
    /// nvdisasm's name (`SM90`).
    pub name: String,
    /// The instruction as that architecture's nvdisasm prints it.
    pub sass: String,
    /// Its word on that architecture, 32 hex digits.
    pub word: String,
    /// The form's opcode there (bits 11:0), `0x...`.
    pub form: String,
    /// The base table's reading of it (what the fields, the lane and the emulator follow).
    pub base_sass: String,
    /// The GPU class and its texture header layout (`HOPPER_A, TEXHEAD_V2`), or why none is
    /// known (docs/sources.md, Descriptors per GPU class).
    pub descriptor_class: String,
}

/// The instruction `insn_text` (32 hex digits, or text as `arch`'s nvdisasm or SM100's
/// prints it: [`written_for`]) read on `arch`, with its [`ArchData`]: the constant-bank form
/// is refused (explain follows a lane whose handle is in
/// a register), as for `tld4 explain --scenario`.
pub fn read_on(
    insn_text: &str,
    arch: tld4_decoder::Arch,
) -> Result<(super::ReadInstruction, ArchData), String> {
    if insn_text.contains(':') {
        return Err("insn: a file reference (FILE:KERNEL:OFFSET) is not read here; give the instruction's text or its 32 hex digits".into());
    }
    let t = insn_text.trim();
    let on = if tld4_decoder::looks_like_word(t) {
        let w = tld4_decoder::parse_word(t).map_err(|e| e.to_string())?;
        tld4_decoder::decode_arch(arch, w).map_err(|e| format!("{w:032x}: {e}"))?
    } else {
        match tld4_decoder::parse_arch(arch, t) {
            Ok(on) => on,
            // SM100's spelling (what the page's controls write), written for `arch`.
            Err(e) => tld4_decoder::parse(t)
                .ok()
                .and_then(|base| written_for(arch, base))
                .ok_or_else(|| format!("`{t}`: {e}"))?,
        }
    };
    let read = super::read_arch_instruction(&format!("{:032x}", on.encode()), arch, true)?;
    let descriptor_class = match tld4_gpu_memory::GpuClass::for_arch(arch.name()) {
        Ok(c) => {
            let d = tld4_gpu_memory::ClassDescriptors::new(c);
            format!("{c}, texture headers {:?}", d.format)
        }
        Err(e) => format!("none known ({e}): owned textures only"),
    };
    let data = ArchData {
        name: arch.nvdisasm_name().to_string(),
        sass: without_closing(&on.to_string()).to_string(),
        word: format!("{:032x}", on.encode()),
        form: format!("{:#05x}", on.opcode),
        base_sass: without_closing(&read.insn.to_string()).to_string(),
        descriptor_class,
    };
    Ok((read, data))
}

/// The base table's instruction `insn` as `arch` writes it: the first of the family's forms
/// read as `insn`'s form ([`tld4_decoder::FORMS`]) whose word, decoded on `arch`, reads as
/// `insn` (its text: ignored bits aside) and names no constant-bank slot (the family's extra immediates 0, URZ, `.B` as the
/// form prints it); `None` where no form does.
pub fn written_for(arch: tld4_decoder::Arch, insn: Tld4) -> Option<tld4_decoder::ArchTld4> {
    let rows = tld4_decoder::FORMS
        .iter()
        .filter(|f| f.family == arch.family() && f.modeled_as == Some(insn.form));
    for row in rows {
        for b_flag in [false, true] {
            let a = tld4_decoder::ArchTld4 {
                opcode: row.opcode,
                b_flag,
                ..tld4_decoder::ArchTld4::base(arch, insn)
            };
            let Ok(w) = a.try_encode() else { continue };
            match tld4_decoder::decode_arch(arch, w) {
                // (the same instruction: bits the unit ignores may differ, the family's
                // immediates lying over some)
                Ok(d) if d.insn.to_string() == insn.to_string() && d.constant_slot().is_none() => {
                    return Some(d)
                }
                _ => {}
            }
        }
    }
    None
}

/// Answers `q` for instruction `insn_text` (text or hex only: a `FILE:KERNEL:OFFSET`
/// reference, which would open a file, is refused) on `arch` (the scenario then names it:
/// `None` is SM100, unnamed) and lane `lane`.
pub fn answer(
    insn_text: &str,
    arch: Option<tld4_decoder::Arch>,
    lane_no: u32,
    q: &Question,
) -> Result<Answer, String> {
    if lane_no >= tld4_emu::WARP_SIZE as u32 {
        return Err(format!("lane {lane_no}: a warp has lanes 0..31"));
    }
    let (super::ReadInstruction { insn, word, from }, on) =
        read_on(insn_text, arch.unwrap_or_default())?;
    let mut doc = scenario_json(&insn, &on.sass, q)?;
    if let (Some(a), Some(obj)) = (arch, doc.as_object_mut()) {
        obj.insert("arch".into(), Value::String(a.name().into()));
    }
    let options = tld4_scenario::LoadOptions::default().confine(true);
    let (s, precision) = load::load_text(
        &doc.to_string(),
        std::path::Path::new(""),
        word,
        &options,
        "the question",
    )?;
    let loaded = Loaded {
        insn: &insn,
        word,
        on,
        from,
        s: &s,
        precision,
        doc,
        note: q.layer_note(),
        name: "the question",
    };
    answer_loaded(loaded, lane_no, &|_| Ok(()))
}

/// What a pasted scenario document may not name: files (a `memory` region's `file`, an
/// instruction in compiled code), which a server must not read.
fn names_files(doc: &Value) -> Option<&'static str> {
    if !matches!(doc.get("instruction"), None | Some(Value::String(_))) {
        return Some("instruction: a cubin reference is not read here; give the instruction's text or its 32 hex digits");
    }
    let regions = doc.get("memory").and_then(Value::as_array);
    if regions.is_some_and(|r| r.iter().any(|m| m.get("file").is_some())) {
        return Some("memory: a region's `file` is not read here; give its bytes as `hex`");
    }
    None
}

/// Answers a whole scenario document `text` (as `tld4 explain --scenario FILE` does):
/// its own instruction and architecture unless `insn`/`arch` are given, lane `lane`, loaded
/// with `options`. A document naming files is refused. `bounds` judges the texture drawn
/// (width, height, storage layers) before its texels are listed.
pub fn answer_document(
    text: &str,
    insn: Option<&str>,
    arch: Option<tld4_decoder::Arch>,
    lane_no: u32,
    options: &tld4_scenario::LoadOptions,
    bounds: &dyn Fn([u32; 3]) -> Result<(), String>,
) -> Result<Answer, String> {
    if lane_no >= tld4_emu::WARP_SIZE as u32 {
        return Err(format!("lane {lane_no}: a warp has lanes 0..31"));
    }
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("the scenario: {e}"))?;
    if !doc.is_object() {
        return Err("the scenario: expected a JSON object (a scenario document)".into());
    }
    if let Some(why) = names_files(&doc) {
        return Err(format!("the scenario: {why}"));
    }
    let (own, own_arch) = match insn {
        Some(i) => (i.to_string(), None),
        None => load::document_instruction(text).map_err(|e| format!("the scenario: {e}"))?,
    };
    let arch = arch.or(own_arch);
    let (super::ReadInstruction { insn, word, from }, on) =
        read_on(&own, arch.unwrap_or_default())?;
    let name = "the scenario";
    let (s, precision) = load::load_text(text, std::path::Path::new(""), word, options, name)?;
    let loaded = Loaded {
        insn: &insn,
        word,
        on,
        from,
        s: &s,
        precision,
        doc,
        note: None,
        name,
    };
    answer_loaded(loaded, lane_no, bounds)
}

/// A question or document, loaded: the instruction (base table), its word, its reading on
/// the architecture, the scenario, the document, a float layer's note.
struct Loaded<'a> {
    insn: &'a Tld4,
    word: u128,
    on: ArchData,
    from: Option<String>,
    s: &'a tld4_scenario::Scenario,
    precision: tld4_textures::Precision,
    doc: Value,
    note: Option<String>,
    name: &'a str,
}

/// The answer for a loaded question or document, following lane `lane_no`.
fn answer_loaded(
    l: Loaded<'_>,
    lane_no: u32,
    bounds: &dyn Fn([u32; 3]) -> Result<(), String>,
) -> Result<Answer, String> {
    let Loaded {
        insn,
        word,
        on,
        from,
        s,
        precision,
        doc,
        note,
        name,
    } = l;
    let insn = *insn;
    let sass = on.sass.clone();
    let mut text = from.unwrap_or_default();
    explain_instruction(
        &mut text,
        &insn,
        word,
        s.exec.static_fault(s.warp.regs_per_thread),
    );
    text.push('\n');
    if let Some(note) = note {
        text.push_str(&note);
    }
    let outcome = lane::explain_lane(&mut text, s, precision, lane_no as usize, name);
    let fields = insn
        .field_values()
        .into_iter()
        .map(|(spec, raw, meaning)| FieldRow {
            name: spec.name,
            bits: spec.bits(),
            raw: raw as u64,
            effect: spec.effect.name(),
            meaning: meaning.to_string(),
        })
        .collect();
    let mut size = [0, 0, 0];
    let mut kind = String::new();
    let mut grid = Vec::new();
    if let Some((tex, _, _, _)) = &outcome.texture {
        let shape = tex.shape();
        let faces = if shape.kind.is_cube() { 6 } else { 1 };
        size = [shape.width, shape.height, shape.layers * faces];
        bounds(size)?;
        kind = serde_name(&shape.kind);
        let layer = outcome.trace.as_ref().map_or(0, |t| t.storage_layer);
        let vk = if insn.depth_compare {
            ValueKind::Float
        } else {
            shape.format.value_kind()
        };
        for y in 0..shape.height {
            for x in 0..shape.width {
                let v = texel_selected_in(tex, insn.component.raw() as u8, layer, x, y);
                grid.push(v.map_or("?".into(), |v| show_value(v, vk)));
            }
        }
    }
    let lane = outcome.trace.as_ref().map(|t| lane_data(s, lane_no, t));
    let ring = cube_ring(&insn, &outcome);
    let tags = PROVENANCE
        .iter()
        .map(|p| tag(p.key))
        .filter(|t| text.contains(t.as_str()))
        .collect();
    Ok(Answer {
        sass,
        word: format!("{word:032x}"),
        fields,
        decoded: decoded(&insn),
        arch: on,
        arches: tld4_decoder::Arch::ALL
            .into_iter()
            .filter(|a| a.family() != tld4_decoder::Family::Sm107)
            .map(tld4_decoder::Arch::nvdisasm_name)
            .collect(),
        text,
        scenario: doc,
        size,
        kind,
        grid,
        lane,
        ring: ring.cells,
        ring_reach: ring.reach,
        face_axes: ring.axes,
        tags,
        consistent: outcome.consistent,
    })
}

/// The modifiers as the page's controls name them.
fn decoded(insn: &Tld4) -> Decoded {
    Decoded {
        component: insn.component.name().to_string(),
        offsets: match insn.offset_mode {
            tld4_decoder::OffsetMode::Aoffi => "AOFFI",
            tld4_decoder::OffsetMode::Ptp => "PTP",
            _ => "",
        }
        .into(),
        dc: insn.depth_compare,
        f16: match insn.f16_mode {
            tld4_decoder::F16Mode::Rn => "F16.RN",
            tld4_decoder::F16Mode::Rz => "F16.RZ",
            _ => "",
        }
        .into(),
        dimension: insn.dimension.name().to_string(),
    }
}

/// The lane's numbers from its trace, and its registers after the emulator ran.
fn lane_data(
    s: &tld4_scenario::Scenario,
    lane: u32,
    t: &tld4_textures::trace::GatherTrace,
) -> LaneData {
    let vk = if t.compare.is_some() {
        ValueKind::Float
    } else {
        t.format.value_kind()
    };
    let texels = t
        .texels
        .iter()
        .enumerate()
        .map(|(k, x)| TexelRow {
            name: GATHER_ORDER[k].0,
            position: [x.position.0, x.position.1],
            offset: x.offset.map(|o| [o.0, o.1]),
            site: match x.site {
                TexelSite::Texel { .. } => "texel",
                TexelSite::Border => "border",
                TexelSite::Corner => "corner",
            },
            read: match x.site {
                TexelSite::Texel { layer, x, y } => Some([x, y, layer]),
                _ => None,
            },
            redirected: x.wrapped,
            value: show_value(x.value, vk),
            depth: match x.how {
                TexelValue::Compared { depth } => Some(depth),
                _ => None,
            },
        })
        .collect();
    let rounded = |a: &tld4_textures::trace::AxisTrace| match a.fixed {
        Some((n, bits, _)) => n as f64 / (1u64 << bits) as f64,
        None => a.texels,
    };
    let mut registers = Vec::new();
    if let Ok(run) = s.execute() {
        // The registers the instruction writes, as the emulator lays the results out (F16:
        // two halves a register, so Rd and Rd2 only; a partial write mask: fewer), docs/sources.md,
        // Open questions (F16 packing).
        for r in s.exec.destinations() {
            let v = run.warp.reg(lane as usize, r);
            let h = |b: u32| half::f16::from_bits(b as u16).to_f32();
            registers.push(RegRow {
                reg: reg(r),
                bits: format!("{v:#010x}"),
                shown: format!(
                    "{} | halves {:?}, {:?}",
                    show_value(v, vk),
                    h(v & 0xffff),
                    h(v >> 16)
                ),
            });
        }
    }
    LaneData {
        values: t.values.iter().map(|&v| show_value(v, vk)).collect(),
        bits: t.values.iter().map(|v| format!("{v:#010x}")).collect(),
        texels,
        scaled: [t.u.texels, t.v.texels],
        rounded: [rounded(&t.u), rounded(&t.v)],
        origin: [t.u.origin, t.v.origin],
        storage_layer: t.storage_layer,
        face: t.cube.as_ref().map(|c| c.face),
        registers,
        f16: t
            .values
            .iter()
            .map(|&v| {
                let x = f32::from_bits(v);
                let (rn, rz) = (tld4_emu::pack::f16_rn(x), tld4_emu::pack::f16_rz(x));
                let hv = |b: u16| half::f16::from_bits(b).to_f32();
                F16Row {
                    rn: format!("{rn:#06x}"),
                    rn_value: hv(rn),
                    rz: format!("{rz:#06x}"),
                    rz_value: hv(rz),
                }
            })
            .collect(),
        compare: t.compare.as_ref().map(|c| (serde_name(&c.op), c.used)),
    }
}

/// The deepest the page's cube unfolding reaches into each neighbour face, in texels (a
/// bound on the answer's size: a 64x64 cube shows 16 texels of each neighbour).
pub const MAX_RING_REACH: u32 = 16;

/// A cube lane's unfolding: the sampled face and its four neighbours turned as the texture unit
/// joins them (the pictures' `unfold`, built on `tld4_textures::cube::seamless_texel`), the
/// reach, and the face's axes.
struct CubeRing {
    cells: Vec<RingCell>,
    reach: u32,
    axes: Option<[f64; 6]>,
}

/// For a cube lane: the sampled face unfolded with its neighbours ([`CubeRing`]).
fn cube_ring(insn: &Tld4, outcome: &lane::LaneOutcome<'_>) -> CubeRing {
    let mut ring = Vec::new();
    let none = CubeRing {
        cells: Vec::new(),
        reach: 0,
        axes: None,
    };
    let (Some((tex, _, _, _)), Some(t)) = (&outcome.texture, outcome.trace.as_ref()) else {
        return none;
    };
    let Some(c) = t.cube.as_ref() else {
        return none;
    };
    let cube_base = t.storage_layer - t.storage_layer % 6;
    let n = tex.shape().width as i64;
    let (axis, ss, sa, ts, ta) = CUBE_TABLE[c.face as usize % 6];
    let sign = if c.face % 2 == 0 { 1.0 } else { -1.0 };
    let vk = if insn.depth_compare {
        ValueKind::Float
    } else {
        tex.shape().format.value_kind()
    };
    let reach = n.clamp(1, MAX_RING_REACH as i64);
    for j in -reach..n + reach {
        for i in -reach..n + reach {
            ring.push(match unfold(c.face, i, j, n) {
                Some((f, x, y)) => {
                    let v = texel_selected_in(
                        tex,
                        insn.component.raw() as u8,
                        cube_base + f,
                        x as u32,
                        y as u32,
                    );
                    RingCell {
                        read: Some([cube_base + f, x as u32, y as u32]),
                        face: FACE_NAMES[f as usize % 6].to_string(),
                        value: v.map_or("?".into(), |v| show_value(v, vk)),
                    }
                }
                None => RingCell {
                    read: None,
                    face: String::new(),
                    value: String::new(),
                },
            });
        }
    }
    CubeRing {
        cells: ring,
        reach: reach as u32,
        axes: Some([axis as f64, sign, sa as f64, ss, ta as f64, ts]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube_answer(coord: &str) -> Answer {
        let q = Question {
            texture: Some("4x4".into()),
            coord: Some(coord.into()),
            ..Default::default()
        };
        answer("TLD4.A R10, R8, R20, R24, UR4, CUBE", None, 0, &q).unwrap()
    }

    /// The cell of the unfolding at (i, j) of the sampled face's plane: (face, x, y).
    fn cell(a: &Answer, i: i64, j: i64) -> Option<(String, u32, u32)> {
        let r = a.ring_reach as i64;
        let row = a.size[0] as i64 + 2 * r;
        let c = &a.ring[((j + r) * row + (i + r)) as usize];
        c.read.map(|[_, x, y]| (c.face.clone(), x, y))
    }

    #[test]
    fn the_cube_unfolding_holds_the_four_neighbours_whole() {
        // +X (direction (1, 0, 0)): Vulkan's cube table gives sc = -rz, tc = -ry on +X, so
        // the face left of it (s < 0, rz > 0) is +Z, right -Z, above (t < 0, ry > 0) +Y,
        // below -Y. On +Z, sc = +rx: its column x = 3 (rx near +1) touches +X's column 0.
        // On +Y, sc = +rx and tc = +rz: +X's texel (0, -1) has rx = 1, rz = 0.75, so +Y's
        // (3, 3).
        let a = cube_answer("1,0,0");
        assert_eq!(a.ring_reach, 4);
        assert_eq!(a.ring.len(), 12 * 12);
        assert_eq!(cell(&a, 0, 0), Some(("+X".into(), 0, 0)));
        assert_eq!(cell(&a, -1, 1), Some(("+Z".into(), 3, 1)));
        assert_eq!(cell(&a, -4, 1), Some(("+Z".into(), 0, 1)));
        assert_eq!(cell(&a, 4, 2), Some(("-Z".into(), 0, 2)));
        assert_eq!(cell(&a, 0, -1), Some(("+Y".into(), 3, 3)));
        assert_eq!(cell(&a, 1, 4).map(|c| c.0), Some("-Y".into()));
        // The corner blocks hold no face.
        for (i, j) in [(-1, -1), (-4, -4), (4, -1), (7, 7), (-1, 4)] {
            assert_eq!(cell(&a, i, j), None, "({i}, {j})");
        }
        // Every neighbour appears whole: 16 texels each, each texel once.
        for f in ["+Y", "-Y", "+Z", "-Z"] {
            let mut seen: Vec<(u32, u32)> = a
                .ring
                .iter()
                .filter(|c| c.face == f)
                .map(|c| (c.read.unwrap()[1], c.read.unwrap()[2]))
                .collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 16, "{f}");
        }
        // A 2D question has none.
        let q = Question {
            texture: Some("4x4".into()),
            ..Default::default()
        };
        let a = answer("TLD4.A R10, R8, R20, R24, UR4, 2D", None, 0, &q).unwrap();
        assert_eq!((a.ring_reach, a.ring.len()), (0, 0));
    }

    /// A question asked on another architecture: the instruction written as that architecture's
    /// nvdisasm prints it (SM100's spelling accepted), the same lane values as on SM100, the
    /// architecture and its GPU class named, and the scenario, which names `arch`, answered as a
    /// document gives the same answer.
    #[test]
    fn a_question_on_another_architecture_names_it_and_reads_back() {
        use tld4_decoder::Arch;
        let q = Question {
            texture: Some("4x4".into()),
            coord: Some("0.3,0.6".into()),
            ..Default::default()
        };
        let insn = "TLD4.G R10, R8, R20, R24, UR4, 2D";
        let base = answer(insn, None, 0, &q).unwrap();
        assert_eq!(base.arch.name, "SM100");
        assert!(base.scenario.get("arch").is_none());
        let values = |a: &Answer| a.lane.as_ref().unwrap().values.clone();
        for arch in [Arch::Sm75, Arch::Sm86, Arch::Sm90, Arch::Sm120, Arch::Sm121] {
            let a = answer(insn, Some(arch), 0, &q).unwrap();
            assert_eq!(a.arch.name, arch.nvdisasm_name());
            assert_eq!(values(&a), values(&base), "{arch}");
            assert_eq!(a.scenario["arch"], arch.name());
            assert_eq!(a.scenario["instruction"], a.sass.as_str());
            assert_eq!(a.sass, a.arch.sass);
            let again = tld4_decoder::parse_arch(arch, &a.sass).unwrap();
            assert_eq!(format!("{:032x}", again.encode()), a.arch.word, "{arch}");
            assert!(a.text.starts_with(arch.name()), "{}", a.text);
            let doc = a.scenario.to_string();
            let opts = tld4_scenario::LoadOptions::default().confine(true);
            let d = answer_document(&doc, None, None, 0, &opts, &|_| Ok(())).unwrap();
            assert_eq!(values(&d), values(&a), "{arch}");
            assert_eq!(d.arch.word, a.arch.word);
            assert_eq!(d.scenario, a.scenario);
        }
        let turing = answer(insn, Some(Arch::Sm75), 0, &q).unwrap();
        assert!(
            turing.arch.descriptor_class.starts_with("TURING_A"),
            "{}",
            turing.arch.descriptor_class
        );
        assert!(turing.arch.descriptor_class.contains("V1"));
        let hopper = answer(insn, Some(Arch::Sm90), 0, &q).unwrap();
        assert!(
            hopper.arch.descriptor_class.starts_with("HOPPER_A"),
            "{}",
            hopper.arch.descriptor_class
        );
    }

    /// A pasted document that names a file, or is no scenario, is refused with the reason.
    #[test]
    fn a_document_naming_files_or_malformed_is_refused() {
        let opts = tld4_scenario::LoadOptions::default().confine(true);
        let ok = |_: [u32; 3]| Ok(());
        let e = |t: &str| answer_document(t, None, None, 0, &opts, &ok).err().unwrap();
        assert!(e("{").contains("the scenario"), "{}", e("{"));
        assert!(e("[1]").contains("JSON object"));
        assert!(e(r#"{"instruction": "TLD4.R R10, R8, R20, R24, UR4, 2D", "memory": [{"address": 0, "file": "x"}]}"#).contains("`file` is not read here"));
        assert!(
            e(r#"{"instruction": {"cubin": "a.cubin", "kernel": "k", "offset": 0}}"#)
                .contains("cubin reference")
        );
        assert!(e(r#"{"texture": 1}"#).contains("no `instruction`"));
        let small = |s: [u32; 3]| {
            if s[0] > 2 {
                Err(format!("{s:?} too large"))
            } else {
                Ok(())
            }
        };
        let q = Question {
            texture: Some("4x4".into()),
            ..Default::default()
        };
        let doc = answer("TLD4.R R10, R8, R20, R24, UR4, 2D", None, 0, &q)
            .unwrap()
            .scenario
            .to_string();
        let e = answer_document(&doc, None, None, 0, &opts, &small)
            .err()
            .unwrap();
        assert!(e.contains("too large"), "{e}");
    }

    /// The registers panel lists the registers the instruction writes: F16 packs two halves a
    /// register, so only Rd and Rd2 (explain's destinations: R8 <- x, y; R10 <- z, w); 32-bit
    /// results take Rd, Rd+1, Rd2, Rd2+1.
    #[test]
    fn the_registers_written_are_the_destinations() {
        let q = Question {
            texture: Some("4x4".into()),
            ..Default::default()
        };
        let regs = |insn: &str| -> Vec<String> {
            let a = answer(insn, None, 0, &q).unwrap();
            assert!(a.text.contains("destinations"), "{}", a.text);
            a.lane
                .unwrap()
                .registers
                .into_iter()
                .map(|r| r.reg)
                .collect()
        };
        assert_eq!(
            regs("TLD4.A.F16.RN R10, R8, R20, R24, UR4, 2D"),
            ["R8", "R10"]
        );
        assert_eq!(
            regs("TLD4.A.F16.RZ R10, R8, R20, R24, UR4, 2D"),
            ["R8", "R10"]
        );
        assert_eq!(
            regs("TLD4.A R10, R8, R20, R24, UR4, 2D"),
            ["R8", "R9", "R10", "R11"]
        );
    }
}
