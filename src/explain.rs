//! `tld4 explain`: its arguments, and the files it writes. The text and the pictures are
//! made by the `tld4-explain` crate (the same engine as `tld4 serve` and Python's
//! `tld4.explain`); this file reads the flags, prints the text (through an
//! [`std::io::Write`], so an io error is returned, not a panic) and writes the pictures.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_emu::WARP_SIZE;
use tld4_explain::{read_arch_instruction, Explanation, Question, ReadInstruction, Subject};

use crate::CmdResult;

/// Arguments of `tld4 explain`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The instruction: 32 hex digits (high half first, with or without 0x), nvdisasm -hex's
    /// two `/* 0x... */` halves, nvdisasm's text (quoted, or as several words), or the TLD4 at
    /// an offset of a kernel in a cubin, fat binary or host object: FILE:KERNEL:0x0070.
    /// Left out with --scenario: the scenario's own `instruction` (and its `arch`).
    #[arg(num_args = 0.., allow_hyphen_values = false)]
    pub instruction: Vec<String>,
    /// A scenario file (as for `tld4 run`) whose warp, textures and samplers the instruction
    /// runs on; an instruction given here replaces the scenario's. A scenario naming `arch`
    /// is read as its architecture's; one with `constants` is refused (docs/scenarios.md).
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
    pub question: QuestionArgs,
    /// Print the scenario document the flags make (for `--scenario`, or to edit) and stop.
    #[arg(long, requires = "texture")]
    pub print_scenario: bool,
    /// Read only files inside the scenario's directory, as `tld4 run --confine` does.
    #[arg(long, requires = "scenario")]
    pub confine: bool,
    /// The architecture the word or text is for, as `nvdisasm -b` (`sm_75` ... `sm_121f`):
    /// another family's instruction is explained as the base table reads it. Default: sm_100,
    /// or the scenario's `arch` when the instruction is the scenario's own.
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<tld4_decoder::Arch>,
}

/// The flags of a gather question ([`Question`]: the texture, sampler and one lane's
/// operands). Every field is text, as typed; the engine reads it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct QuestionArgs {
    /// A texture WxH (2D, cube: the face size) or WxHxL (L layers, or L cubes for a cube
    /// array) of the instruction's dimension, instead of a scenario file.
    #[arg(long, value_name = "WxH[xL]", conflicts_with = "scenario")]
    pub texture: Option<String>,
    /// The texture's format (`tld4 gather`'s names: rgba8_unorm, r32_float, ...; default
    /// rgba32_float, whose values print as the indices themselves).
    #[arg(long, requires = "texture")]
    pub format: Option<String>,
    /// The texels: `index` (default: R = x, G = y, B = storage layer, A = the texel's number
    /// layer*W*H + y*W + x), `checker`, `checker:CELL`, `gradient` or `random:SEED`.
    #[arg(long, requires = "texture")]
    pub pattern: Option<String>,
    /// The coordinate: u,v (normalized) for 2D forms, x,y,z (a direction) for cubes.
    #[arg(long, requires = "texture", allow_hyphen_values = true)]
    pub coord: Option<String>,
    /// The address mode of both axes, or u,v: repeat, mirrored_repeat, clamp_to_edge
    /// (default), clamp_to_border, mirror_clamp_to_edge.
    #[arg(long, requires = "texture")]
    pub address: Option<String>,
    /// The border colour: a name (float_transparent_black, float_opaque_white, ...), four
    /// floats r,g,b,a, or four raw words 0x..,0x..,0x..,0x...
    #[arg(long, requires = "texture")]
    pub border: Option<String>,
    /// The AOFFI offset dx,dy (-32..31 each; the instruction must be .AOFFI).
    #[arg(long, requires = "texture", allow_hyphen_values = true)]
    pub offset: Option<String>,
    /// The four PTP offsets x0,y0,x1,y1,x2,y2,x3,y3 in gather order x, y, z, w (-32..31
    /// each; the instruction must be .PTP).
    #[arg(long, requires = "texture", allow_hyphen_values = true)]
    pub offsets: Option<String>,
    /// The depth reference (the instruction must be .DC; default 0.5).
    #[arg(long, requires = "texture", allow_hyphen_values = true)]
    pub dref: Option<String>,
    /// The sampler's compare function for .DC (default less_or_equal): never, less, equal,
    /// less_or_equal, greater, not_equal, greater_or_equal, always.
    #[arg(long, requires = "texture")]
    pub compare: Option<String>,
    /// The layer (array forms; for a cube array, the cube): an integer (default 0), or a float
    /// (GLSL's layer, as 1.6 or -0.5) converted as the compiler converts it.
    #[arg(long, requires = "texture", allow_hyphen_values = true)]
    pub layer: Option<String>,
    /// The texture unit's precision: `default` (8 fractional bits, round to nearest even) or
    /// `exact`.
    #[arg(long, requires = "texture")]
    pub precision: Option<String>,
    /// Cube faces addressed one by one (the sampler's seamless_cube off).
    #[arg(long, requires = "texture")]
    pub non_seamless: bool,
    /// Unnormalized coordinates: --coord's u,v in texels (the sampler's normalized_coords off;
    /// CUDA's `normalizedCoords = 0`).
    #[arg(long, requires = "texture")]
    pub unnormalized: bool,
}

/// The flags, as the engine's question (the same names and text).
impl From<&QuestionArgs> for Question {
    fn from(a: &QuestionArgs) -> Self {
        Question {
            texture: a.texture.clone(),
            format: a.format.clone(),
            pattern: a.pattern.clone(),
            coord: a.coord.clone(),
            address: a.address.clone(),
            border: a.border.clone(),
            offset: a.offset.clone(),
            offsets: a.offsets.clone(),
            dref: a.dref.clone(),
            compare: a.compare.clone(),
            layer: a.layer.clone(),
            precision: a.precision.clone(),
            non_seamless: a.non_seamless,
            unnormalized: a.unnormalized,
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
    let document = match &args.scenario {
        Some(path) => Some(crate::output::read_text(path)?),
        None => None,
    };
    let (text, arch) = if args.instruction.is_empty() {
        // The scenario's own instruction, read for the architecture it names.
        let (Some(path), Some(doc)) = (&args.scenario, &document) else {
            return Err("give the instruction to explain, or --scenario FILE whose `instruction` is the one to explain".into());
        };
        let (text, named) = tld4_explain::document_instruction(doc)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if let (Some(a), Some(n)) = (args.arch, named) {
            if a != n {
                return Err(
                    format!("--arch {a}: the scenario {} names arch {n}", path.display()).into(),
                );
            }
        }
        (text, args.arch.or(named))
    } else {
        (args.instruction.join(" "), args.arch)
    };
    let arch = arch.unwrap_or_default();
    let ReadInstruction { insn, word, from } =
        read_arch_instruction(&text, arch, args.scenario.is_some())?;
    if let Some(from) = &from {
        out.write_all(from.as_bytes())?;
    }
    if args.lane >= WARP_SIZE as u32 {
        return Err(format!("--lane {}: a warp has lanes 0..31", args.lane).into());
    }
    let want_picture = args.png.is_some() || args.svg.is_some();
    if args.question.texture.is_some() {
        let question = Question::from(&args.question);
        if args.print_scenario {
            let text = insn.to_string();
            let doc = tld4_explain::question::scenario_json(
                &insn,
                tld4_decoder::without_closing(&text),
                &question,
            )?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
            return Ok(ExitCode::SUCCESS);
        }
        if let (Some(a), Some(b)) = (&args.png, &args.svg) {
            if resolved(a) == resolved(b) {
                return Err(format!("--png {} and --svg {}: the same file; refusing to write one picture over the other", a.display(), b.display()).into());
            }
        }
        let subject = Subject::Question(&question);
        let e = tld4_explain::explain_on(&insn, word, &subject, args.lane, want_picture)?;
        return finish(args, &e, out);
    }
    let Some(path) = &args.scenario else {
        if args.lane != 0 || want_picture {
            return Err("--lane, --png and --svg need a lane to follow: give --scenario FILE or --texture WxH".into());
        }
        let e = tld4_explain::explain_on(&insn, word, &Subject::Alone, 0, false)?;
        out.write_all(e.text.as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    };
    refuse_clobbering(path, args.png.as_deref(), args.svg.as_deref())?;
    let options = tld4_scenario::LoadOptions::default().confine(args.confine);
    let document = document.unwrap_or_default();
    let name = path.display().to_string();
    let subject = Subject::Document {
        text: &document,
        dir: crate::output::base_dir(path),
        name: &name,
        options: &options,
    };
    let e = tld4_explain::explain_on(&insn, word, &subject, args.lane, want_picture)?;
    finish(args, &e, out)
}

/// Prints the explanation's text, then writes its pictures (the text first: a picture that
/// cannot be drawn or written loses none of it). Exit 1 when the explanation is not
/// consistent with the emulator.
fn finish(args: &ExplainArgs, e: &Explanation, out: &mut dyn Write) -> CmdResult {
    out.write_all(e.text.as_bytes())?;
    out.flush()?;
    let code = if e.consistent {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    if args.png.is_none() && args.svg.is_none() {
        return Ok(code);
    }
    let pic = e.picture.as_ref().map_err(|e| e.to_string())?;
    for note in pic.notes() {
        writeln!(out, "picture: {note}")?;
    }
    if let Some(p) = &args.png {
        crate::picture_file::write_picture(
            p,
            &pic.png().map_err(|e| format!("{}: {e}", p.display()))?,
        )?;
        writeln!(out, "picture: {}", p.display())?;
    }
    if let Some(p) = &args.svg {
        crate::picture_file::write_picture(p, pic.svg().as_bytes())?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
