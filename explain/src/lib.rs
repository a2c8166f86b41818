//! What one TLD4 does, field by field, and (on a scenario or a question) one lane's whole
//! path through the texture unit, with numbers, plus a picture of the footprint: the engine
//! of `tld4 explain`, of `tld4 serve`'s answers and of Python's `tld4.explain`. The CLI only
//! reads its arguments and writes files; the text and the pictures are made here, so every
//! caller gets the same bytes.
//!
//! Nothing here decides a rule. The fields, their meanings and their effects come from the
//! decoder's field table ([`tld4_decoder::FIELDS`], `FieldSpec::effect`,
//! `Tld4::field_values`), the operand layouts from `Tld4::ra_layout`/`rb_layout`, faults from
//! `tld4_emu::illegal_encoding` and `Tld4Exec::static_fault`, packing from
//! `tld4_emu::pack::write_plan`/`planned_value`/`f16_rn`/`f16_rz`, and the lane's path from
//! `tld4_textures::trace::trace`, which is built from the fast path's own functions and tested
//! against it. The lane's result is then checked against `Tld4Exec::execute` on a copy of the
//! scenario's warp, so the explanation cannot drift from what `tld4 run` writes.
//!
//! The crate's files, one reason to change each: `instruction` (fields, operands,
//! destinations, modifiers), `load` (the scenario with the given instruction in place of its
//! own), `lane` (whether the lane runs, what it reads and writes, the check against the
//! emulator), `memory` (for textures in GPU memory: the descriptors a lane reads and its
//! texel addresses), `path` (the gather path of its trace), `show` (how values and names are
//! written), `geometry` (the picture's layout and marks), `picture` (what the picture
//! shows), `legend` (its words and where they go), `panels` (its depth-compare and F16
//! panels), `png` and `svg` (drawing it), `question` (a question without a scenario file),
//! `answer` (the same as data, for `tld4 serve`), `provenance` (what is measured and what
//! assumed), `words` (instruction words in text). This file reads the instruction and puts
//! the text and the picture together ([`explain`], [`explain_on`]).

mod annotate;
pub mod answer;
mod axes;
#[cfg(test)]
mod axes_tests;
mod bridge;
mod geometry;
mod inset;
mod instruction;
mod lane;
#[cfg(test)]
mod layout_tests;
mod legend;
mod load;
pub use load::document_instruction;
mod memory;
mod panels;
mod path;
mod picture;
mod png;
pub mod provenance;
pub mod question;
pub mod raster;
mod show;
mod source;
mod svg;
pub mod words;

use std::path::Path;

use tld4_decoder::{decode, parse, without_closing, Tld4};
use tld4_emu::WARP_SIZE;
use tld4_scenario::cubin_ref::{CubinRef, CubinRefError};
use tld4_scenario::LoadOptions;
use tld4_textures::TexelSource;

/// The picture's layout (explain/src/geometry.rs), for tests that read pictures back.
pub use geometry::{texel_px, AXIS_RGB, CAPTION, MARGIN, MAX_DRAWN, PANEL_TOP, RING, TITLE};
pub use question::Question;

/// Why explain gave no text: bad input, named with its place (the instruction, the scenario
/// file with its line and column, the question's flag, the lane).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExplainError(pub String);

impl From<String> for ExplainError {
    fn from(s: String) -> Self {
        ExplainError(s)
    }
}

/// Why an explanation has no picture (the lane does not execute, its handle names no
/// texture, the texture is larger than [`MAX_DRAWN`], no scenario was given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no picture: {0}")]
pub struct NoPicture(pub String);

/// What the instruction is explained on.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// Nothing: the instruction alone (fields, operands, destinations, faults); no lane.
    Alone,
    /// A scenario document, as for `tld4 run`: its warp, textures and samplers (the
    /// instruction given replaces the document's, which may be left out).
    Document {
        /// The JSON text.
        text: &'a str,
        /// Where its relative file names (memory regions, cubins) are read from.
        dir: &'a Path,
        /// Its name in messages and in the text (`lane 0 of NAME:`): the file's path.
        name: &'a str,
        /// How it is loaded (confinement, memory limit).
        options: &'a LoadOptions,
    },
    /// A question without a scenario file (`tld4 explain --texture ...`).
    Question(&'a Question),
}

/// The picture of a lane's footprint: PNG or SVG, and what it leaves out.
pub struct Picture(geometry::Picture);

impl Picture {
    /// What the picture leaves out and why (`tld4 explain` prints each after `picture: `).
    pub fn notes(&self) -> &[String] {
        &self.0.notes
    }

    /// The picture as PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, ::png::EncodingError> {
        png::png_bytes(&self.0)
    }

    /// The picture as an SVG document.
    pub fn svg(&self) -> String {
        svg::svg(&self.0)
    }
}

/// An explanation: the text `tld4 explain` prints and the picture `--png`/`--svg` draw.
pub struct Explanation {
    /// The text, line by line (with a `from:` or architecture line first when the
    /// instruction was read so, for [`explain`]; [`explain_on`] leaves that line to its
    /// caller).
    pub text: String,
    /// False when the lane's predicted writes differ from the emulator's (`tld4 explain`
    /// then exits 1): a bug of this crate, never of the input.
    pub consistent: bool,
    /// The picture, or why there is none (also when none was asked for).
    pub picture: Result<Picture, NoPicture>,
}

/// Explains `instruction` (every spelling [`read_arch_instruction`] reads, for `arch`) on
/// `subject`, following lane `lane`, drawing the picture when `picture` is set: exactly what
/// `tld4 explain` prints, `from:` line included.
pub fn explain(
    instruction: &str,
    arch: tld4_decoder::Arch,
    subject: &Subject<'_>,
    lane: u32,
    picture: bool,
) -> Result<Explanation, ExplainError> {
    let with_scenario = matches!(subject, Subject::Document { .. });
    let ReadInstruction { insn, word, from } =
        read_arch_instruction(instruction, arch, with_scenario)?;
    if lane >= WARP_SIZE as u32 {
        return Err(format!("lane {lane}: a warp has lanes 0..31").into());
    }
    let mut e = explain_on(&insn, word, subject, lane, picture)?;
    if let Some(from) = from {
        e.text.insert_str(0, &from);
    }
    Ok(e)
}

/// Explains the read instruction `insn` (word `word`) on `subject`, following lane `lane`
/// (0..31; only 0 for [`Subject::Alone`]), drawing the picture when `picture` is set.
pub fn explain_on(
    insn: &Tld4,
    word: u128,
    subject: &Subject<'_>,
    lane: u32,
    picture: bool,
) -> Result<Explanation, ExplainError> {
    // A float layer's conversion, said before the lane's path.
    let note = match *subject {
        Subject::Question(q) => q.layer_note(),
        _ => None,
    };
    let (s, precision, name) = match *subject {
        Subject::Alone => {
            if lane != 0 {
                return Err(format!("lane {lane}: a lane is followed on a scenario or a question, and none was given").into());
            }
            let mut text = String::new();
            let exec = tld4_emu::Tld4Exec::new(insn, Default::default());
            instruction::explain_instruction(&mut text, insn, word, exec.static_fault(255));
            return Ok(Explanation {
                text,
                consistent: true,
                picture: Err(NoPicture(
                    "the instruction alone has no texture: give a scenario".into(),
                )),
            });
        }
        Subject::Document {
            text,
            dir,
            name,
            options,
        } => {
            let (s, precision) = load::load_text(text, dir, word, options, name)?;
            (s, precision, name.to_string())
        }
        Subject::Question(q) => {
            let text = insn.to_string();
            let doc = question::scenario_json(insn, without_closing(&text), q)?;
            let name = "the command line's texture";
            let (s, precision) = load::load_text(
                &doc.to_string(),
                Path::new(""),
                word,
                &LoadOptions::default(),
                name,
            )?;
            (s, precision, name.to_string())
        }
    };
    let float_layer = match *subject {
        Subject::Question(q) => q.float_layer_line(),
        _ => None,
    };
    let source = LaneSource {
        name: &name,
        note: note.as_deref().unwrap_or(""),
        float_layer,
    };
    Ok(explain_loaded(
        insn, word, &s, precision, lane, &source, picture,
    ))
}

/// [`read_instruction`] for `arch`: the SM100 family as there; another architecture's word
/// or text through `decode_arch`/`parse_arch`, giving the base table's instruction and word
/// and a line naming the architecture and form. A form whose handle is not in a register
/// (the constant-bank form) cannot run on a scenario here.
pub fn read_arch_instruction(
    text: &str,
    arch: tld4_decoder::Arch,
    with_scenario: bool,
) -> Result<ReadInstruction, String> {
    if arch.family() == tld4_decoder::Family::Sm100 {
        return read_instruction(text);
    }
    let t = text.trim();
    let insn = if tld4_decoder::looks_like_word(t) {
        let w = tld4_decoder::parse_word(t).map_err(|e| e.to_string())?;
        tld4_decoder::decode_arch(arch, w).map_err(|e| format!("{w:032x}: {e}"))?
    } else {
        tld4_decoder::parse_arch(arch, t).map_err(|e| format!("`{t}`: {e}"))?
    };
    if with_scenario && insn.constant_slot().is_some() {
        return Err(format!(
            "`{t}`: on {arch} this TLD4 reads its texture handle from constant memory; explain --scenario does not model that yet"
        ));
    }
    let line = format!(
        "{arch}: {insn} (word {:032x}, form {:#05x}), read as the base table's {} form\n",
        insn.encode(),
        insn.opcode,
        if insn.insn.form == tld4_decoder::HandleForm::Register {
            "register"
        } else {
            "uniform"
        }
    );
    Ok(ReadInstruction {
        insn: insn.insn,
        word: insn.insn.encode(),
        from: Some(line),
    })
}

/// An instruction argument, read: the instruction, its word (the base table's, for another
/// architecture's form), and the line `tld4 explain` prints first when the word came from
/// compiled code or another architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadInstruction {
    /// The instruction.
    pub insn: Tld4,
    /// Its 128-bit word.
    pub word: u128,
    /// Where it came from (`from: FILE ...` or `sm_90: ...`), a whole line, if it says more
    /// than the argument.
    pub from: Option<String>,
}

/// Gather-order names of the four results, and their footprint positions (Vulkan "Texel
/// Gathering": x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0)).
pub const GATHER_ORDER: [(&str, &str); 4] = [
    ("x", "(i0,j1)"),
    ("y", "(i1,j1)"),
    ("z", "(i1,j0)"),
    ("w", "(i0,j0)"),
];

/// Reads the instruction argument: hex word, nvdisasm -hex halves, nvdisasm text, or a TLD4
/// in compiled code, `FILE:KERNEL:OFFSET` (an argument holding `:` is such a reference: no
/// TLD4 word or text holds one, docs/sources.md, Encoding; the file is relative to the
/// current directory; the split rule is `CubinRef::parse`'s). With a reference, also the line
/// saying where the word came from (file, fat-binary entry, kernel, offset).
pub fn read_instruction(text: &str) -> Result<ReadInstruction, String> {
    let t = text.trim();
    if t.contains(':') {
        let r = CubinRef::parse(t).map_err(|e| e.to_string())?;
        let found = r.resolve(Path::new("")).map_err(|e| match e {
            // It quotes the argument itself.
            CubinRefError::Spec { .. } => e.to_string(),
            _ => format!("{t}: {e}"),
        })?;
        // A fat-binary entry or archive member: where, as `tld4 scan` prints it, and its
        // architecture.
        let place = if found.origin == tld4_cubin::Origin::default() {
            String::new()
        } else {
            format!("{} ({})", found.origin, found.target)
        };
        let from = format!(
            "from: {}{place}, kernel {}, offset {:#06x} in its code section\n",
            r.file.display(),
            r.kernel,
            r.offset
        );
        return Ok(ReadInstruction {
            insn: found.insn,
            word: found.word,
            from: Some(from),
        });
    }
    let word = if t.contains("/*") {
        let words = words::parse_words(t);
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
            Ok(ReadInstruction {
                insn,
                word: w,
                from: None,
            })
        }
        None => {
            let insn = parse(t).map_err(|e| format!("`{t}`: {e}"))?;
            Ok(ReadInstruction {
                insn,
                word: insn.encode(),
                from: None,
            })
        }
    }
}

/// The instruction, the lane's path and the picture, for a loaded scenario.
/// Where a lane's scenario came from: its name in the text, and lines said before the lane's
/// path (empty, or a float layer's conversion).
struct LaneSource<'a> {
    name: &'a str,
    note: &'a str,
    /// A float layer's conversion, as the picture's legend says it.
    float_layer: Option<String>,
}

fn explain_loaded(
    insn: &Tld4,
    word: u128,
    s: &tld4_scenario::Scenario,
    precision: tld4_textures::Precision,
    lane_no: u32,
    source: &LaneSource<'_>,
    want_picture: bool,
) -> Explanation {
    let insn = *insn;
    let mut text = String::new();
    instruction::explain_instruction(
        &mut text,
        &insn,
        word,
        s.exec.static_fault(s.warp.regs_per_thread),
    );
    text.push('\n');
    text.push_str(source.note);
    let lane = lane::explain_lane(&mut text, s, precision, lane_no as usize, source.name);
    let picture = if want_picture {
        lane_picture(&lane, &insn, lane_no, source.float_layer.as_deref())
    } else {
        Err(NoPicture("none was asked for".into()))
    };
    Explanation {
        text,
        consistent: lane.consistent,
        picture,
    }
}

/// The picture of the lane's texture and footprint.
fn lane_picture(
    lane: &lane::LaneOutcome<'_>,
    insn: &Tld4,
    lane_no: u32,
    float_layer: Option<&str>,
) -> Result<Picture, NoPicture> {
    let Some((texture, sampler, header, _)) = &lane.texture else {
        let why = lane
            .no_texture
            .as_deref()
            .unwrap_or("the lane's handle names no texture of the scenario");
        return Err(NoPicture(why.to_string()));
    };
    let shape = texture.shape();
    if shape.width.max(shape.height) > MAX_DRAWN {
        return Err(NoPicture(format!(
            "the texture is {}x{}, and pictures are drawn for textures of at most {MAX_DRAWN} texels a side",
            shape.width,
            shape.height
        )));
    }
    Ok(Picture(picture::picture(
        texture,
        *header,
        &sampler.border,
        lane.trace.as_ref(),
        insn,
        lane_no as usize,
        float_layer,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_read_in_every_spelling() {
        let text = "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;";
        let ReadInstruction { insn, word, .. } = read_instruction(text).unwrap();
        assert_eq!(insn.to_string(), text);
        let hex = format!("{word:032x}");
        assert_eq!(read_instruction(&hex).unwrap().word, word);
        assert_eq!(read_instruction(&format!("0x{hex}")).unwrap().word, word);
        let halves = format!(
            "/* {:#018x} */ /* {:#018x} */",
            word as u64,
            (word >> 64) as u64
        );
        assert_eq!(read_instruction(&halves).unwrap().word, word);
        let e = read_instruction("TLD4.Q R1").unwrap_err();
        assert!(e.contains("column"), "{e}");
        let e = read_instruction("00000000000000000000000000000d64").unwrap_err();
        assert!(e.contains("bit 91"), "{e}");
    }
}
