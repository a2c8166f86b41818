//! `tld4 explain`: what one TLD4 does, field by field, and (with a scenario) one lane's whole
//! path through the texture unit, with numbers, plus a picture of the footprint.
//!
//! Nothing here decides a rule. The fields, their meanings and their effects come from the
//! decoder's field table ([`tld4_decoder::FIELDS`], `FieldSpec::effect`,
//! `Tld4::field_values`), the operand layouts from `Tld4::ra_layout`/`rb_layout`, faults from
//! `tld4_emu::illegal_encoding` and `Tld4Exec::static_fault`, packing from
//! `tld4_emu::write_plan`/`planned_value`/`f16_rn`/`f16_rz`, and the lane's path from
//! `tld4_textures::trace::trace`, which is built from the fast path's own functions and tested
//! against it. The lane's result is then checked against `Tld4Exec::execute` on a copy of the
//! scenario's warp, so the explanation cannot drift from
//! what `tld4 run` writes.
//!
//! The module's files, one reason to change each: `instruction` (fields, operands,
//! destinations, modifiers), `load` (the scenario with the command line's instruction),
//! `lane` (whether the lane runs, what it reads and writes, the check against the emulator),
//! `memory` (for textures in GPU memory: the descriptors a lane reads and its texel addresses),
//! `path` (the gather path of its trace), `show` (how values and names are written),
//! `geometry` (the picture's layout and marks), `picture` (what the picture shows), `png` and
//! `svg` (drawing it). This file reads the arguments, prints the text (through an
//! [`std::io::Write`], so an io error is returned, not a panic) and writes the pictures.

pub mod answer;
mod bridge;
mod geometry;
mod instruction;
mod lane;
mod load;
mod memory;
mod path;
mod picture;
mod png;
pub mod provenance;
pub mod question;
mod show;
mod source;
mod svg;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_decoder::{decode, parse, Tld4};
use tld4_emu::WARP_SIZE;
use tld4_scenario::cubin_ref::{CubinRef, CubinRefError};
use tld4_textures::TexelSource;

use crate::CmdResult;

use geometry::MAX_DRAWN;

/// Arguments of `tld4 explain`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The instruction: 32 hex digits (high half first, with or without 0x), nvdisasm -hex's
    /// two `/* 0x... */` halves, nvdisasm's text (quoted, or as several words), or the TLD4 at
    /// an offset of a kernel in a cubin, fat binary or host object: FILE:KERNEL:0x0070.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = false)]
    pub instruction: Vec<String>,
    /// A scenario file (as for `tld4 run`) whose warp, textures and samplers the instruction
    /// runs on; the instruction given here replaces the scenario's.
    #[arg(long, value_name = "S.json")]
    pub scenario: Option<PathBuf>,
    /// The lane to follow through the texture unit (0..31; with --scenario or --texture).
    #[arg(long, default_value_t = 0)]
    pub lane: u32,
    /// Write a PNG picture of the texture, the sample point and the footprint (with
    /// --scenario or --texture).
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Write the same picture as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// A question without a scenario file: the texture, sampler and operands as flags.
    #[command(flatten)]
    pub question: question::Question,
    /// Print the scenario document the flags make (for `--scenario`, or to edit) and stop.
    #[arg(long, requires = "texture")]
    pub print_scenario: bool,
    /// Read only files inside the scenario's directory, as `tld4 run --confine` does.
    #[arg(long, requires = "scenario")]
    pub confine: bool,
    /// The architecture the word or text is for, as `nvdisasm -b` (`sm_75` ... `sm_121f`):
    /// another family's instruction is explained as the base table reads it.
    #[arg(long, value_name = "ARCH", default_value = "sm_100")]
    pub arch: tld4_decoder::Arch,
}

/// [`read_instruction`] for `arch`: the SM100 family as there; another architecture's word
/// or text through `decode_arch`/`parse_arch`, giving the base table's instruction and word
/// and a line naming the architecture and form. A form whose handle is not in a register
/// (the constant-bank form) cannot run on a scenario here.
pub fn read_arch_instruction(
    text: &str,
    arch: tld4_decoder::Arch,
    with_scenario: bool,
) -> Result<(Tld4, u128, Option<String>), String> {
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
    Ok((insn.insn, insn.insn.encode(), Some(line)))
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
pub fn read_instruction(text: &str) -> Result<(Tld4, u128, Option<String>), String> {
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
        return Ok((found.insn, found.word, Some(from)));
    }
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
            Ok((insn, w, None))
        }
        None => {
            let insn = parse(t).map_err(|e| format!("`{t}`: {e}"))?;
            Ok((insn, insn.encode(), None))
        }
    }
}

/// `tld4 explain`, printing to standard output.
pub fn explain(args: &ExplainArgs) -> CmdResult {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    explain_to(args, &mut lock)
}

/// `tld4 explain`, writing its text to `out`. An io error writing the text (a closed pipe,
/// say) is returned as that `std::io::Error`, so the caller can tell it apart.
pub fn explain_to(args: &ExplainArgs, out: &mut dyn Write) -> CmdResult {
    let text = args.instruction.join(" ");
    let (insn, word, from) = read_arch_instruction(&text, args.arch, args.scenario.is_some())?;
    if let Some(from) = &from {
        out.write_all(from.as_bytes())?;
    }
    if args.lane >= WARP_SIZE as u32 {
        return Err(format!("--lane {}: a warp has lanes 0..31", args.lane).into());
    }
    if args.question.texture.is_some() {
        return explain_question(args, &insn, word, out);
    }
    let Some(path) = &args.scenario else {
        if args.lane != 0 || args.png.is_some() || args.svg.is_some() {
            return Err("--lane, --png and --svg need a lane to follow: give --scenario FILE or --texture WxH".into());
        }
        let mut text = String::new();
        let exec = tld4_emu::Tld4Exec::new(&insn, Default::default());
        instruction::explain_instruction(&mut text, &insn, word, exec.static_fault(255));
        out.write_all(text.as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    };
    refuse_clobbering(path, args.png.as_deref(), args.svg.as_deref())?;
    let options = tld4_scenario::LoadOptions::default().confine(args.confine);
    let (s, precision) = load::load_scenario(path, word, &options)?;
    explain_loaded(
        args,
        &insn,
        word,
        &s,
        precision,
        &path.display().to_string(),
        out,
    )
}

/// `tld4 explain INSN --texture ...`: the flags' scenario, explained as a file's would be.
fn explain_question(args: &ExplainArgs, insn: &Tld4, word: u128, out: &mut dyn Write) -> CmdResult {
    let text = insn.to_string();
    let doc = question::scenario_json(insn, text.trim_end_matches(" ;"), &args.question)?;
    if args.print_scenario {
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let (Some(a), Some(b)) = (&args.png, &args.svg) {
        if resolved(a) == resolved(b) {
            return Err(format!("--png {} and --svg {}: the same file; refusing to write one picture over the other", a.display(), b.display()).into());
        }
    }
    let options = tld4_scenario::LoadOptions::default();
    let (s, precision) = load::load_text(
        &doc.to_string(),
        Path::new(""),
        word,
        &options,
        "the command line's texture",
    )?;
    explain_loaded(
        args,
        insn,
        word,
        &s,
        precision,
        "the command line's texture",
        out,
    )
}

/// The instruction, the lane's path and the pictures, for a loaded scenario.
fn explain_loaded(
    args: &ExplainArgs,
    insn: &Tld4,
    word: u128,
    s: &tld4_scenario::Scenario,
    precision: tld4_textures::Precision,
    source: &str,
    out: &mut dyn Write,
) -> CmdResult {
    let insn = *insn;
    let mut text = String::new();
    instruction::explain_instruction(
        &mut text,
        &insn,
        word,
        s.exec.static_fault(s.warp.regs_per_thread),
    );
    text.push('\n');
    let lane = lane::explain_lane(&mut text, s, precision, args.lane as usize, source);
    // The text first: a picture that cannot be drawn or written loses none of it.
    out.write_all(text.as_bytes())?;
    out.flush()?;
    let code = if lane.consistent {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    if args.png.is_none() && args.svg.is_none() {
        return Ok(code);
    }
    let Some((texture, _, header, _)) = &lane.texture else {
        let why = lane
            .no_texture
            .as_deref()
            .unwrap_or("the lane's handle names no texture of the scenario");
        return Err(format!("no picture: {why}").into());
    };
    let shape = texture.shape();
    if shape.width.max(shape.height) > MAX_DRAWN {
        return Err(format!(
            "no picture: the texture is {}x{}, and pictures are drawn for textures of at most {MAX_DRAWN} texels a side",
            shape.width,
            shape.height
        )
        .into());
    }
    let pic = picture::picture(
        texture,
        *header,
        lane.trace.as_ref(),
        &insn,
        args.lane as usize,
    );
    for note in &pic.notes {
        writeln!(out, "picture: {note}")?;
    }
    if let Some(p) = &args.png {
        write_atomically(
            p,
            &png::png_bytes(&pic).map_err(|e| format!("{}: {e}", p.display()))?,
        )?;
        writeln!(out, "picture: {}", p.display())?;
    }
    if let Some(p) = &args.svg {
        write_atomically(p, svg::svg(&pic).as_bytes())?;
        writeln!(out, "picture: {}", p.display())?;
    }
    out.flush()?;
    Ok(code)
}

/// Where `p` points once written: the file itself when it exists (links resolved), else its
/// directory's canonical path joined with its name, so that two spellings of one file compare
/// equal.
fn resolved(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (dir.canonicalize(), p.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => p.to_path_buf(),
    }
}

/// Refuses (an error, exit 2) a picture path that is the scenario file or the other
/// picture's path: writing it would silently destroy the scenario or the other picture.
fn refuse_clobbering(
    scenario: &Path,
    png: Option<&Path>,
    svg: Option<&Path>,
) -> Result<(), String> {
    let s = resolved(scenario);
    for (flag, p) in [("--png", png), ("--svg", svg)] {
        if let Some(p) = p {
            if resolved(p) == s {
                return Err(format!(
                    "{flag} {}: that is the scenario file; refusing to overwrite it",
                    p.display()
                ));
            }
        }
    }
    if let (Some(a), Some(b)) = (png, svg) {
        if resolved(a) == resolved(b) {
            return Err(format!(
                "--png {} and --svg {}: the same file; refusing to write one picture over the other",
                a.display(),
                b.display()
            ));
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: into a temporary file in the same directory, then
/// renamed over `path`, so a failed write leaves any earlier file whole.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| at(&e))?;
    tmp.write_all(bytes).map_err(|e| at(&e))?;
    tmp.as_file().sync_all().map_err(|e| at(&e))?;
    tmp.persist(path).map_err(|e| at(&e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_read_in_every_spelling() {
        let text = "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;";
        let (insn, word, _) = read_instruction(text).unwrap();
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
    fn paths_that_name_one_file_compare_equal() {
        let d = std::env::temp_dir().join(format!("tld4-explain-unit-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let a = d.join("x.png");
        let b = d.join(".").join("x.png");
        assert_eq!(resolved(&a), resolved(&b));
        assert!(refuse_clobbering(&d.join("s.json"), Some(&a), Some(&b)).is_err());
        assert!(refuse_clobbering(&a, Some(&b), None).is_err());
        assert!(refuse_clobbering(&d.join("s.json"), Some(&a), Some(&d.join("x.svg"))).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }
}
