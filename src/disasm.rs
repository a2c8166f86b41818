//! `tld4 disasm` and `tld4 asm`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_decoder::{
    decode, decode_arch, parse, parse_arch, Arch, ArchTld4, DecodeError, Family, Tld4,
};

use crate::words::{hex32, parse_binary, parse_words};
use crate::CmdResult;

/// `tld4 disasm`: words to nvdisasm's text.
#[derive(clap::Args, Debug)]
pub struct DisasmArgs {
    /// A text file of words (one per line), or - for standard input (the default).
    pub file: Option<PathBuf>,
    /// Read FILE (or - for standard input) as raw little-endian 16-byte words, as
    /// `nvdisasm -b SMxx` does.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub binary: Option<PathBuf>,
    /// After each instruction, a table of every field: name, bits, raw value, meaning.
    #[arg(long)]
    pub fields: bool,
    /// The architecture, as nvdisasm `-b` names it or as ptxas does: sm_75 ... sm_121f.
    #[arg(long, default_value = "sm_100")]
    pub arch: Arch,
}

/// `tld4 asm`: nvdisasm's text to words.
#[derive(clap::Args, Debug)]
pub struct AsmArgs {
    /// A text file of instructions (one per line), or - for standard input (the default).
    pub file: Option<PathBuf>,
    /// The architecture whose nvdisasm text the input is: sm_75 ... sm_121f.
    #[arg(long, default_value = "sm_100")]
    pub arch: Arch,
}

/// Reads a file, or standard input for `None` and `-`.
pub fn read_input(file: &Option<PathBuf>) -> Result<String, Box<dyn std::error::Error>> {
    Ok(crate::output::read_text(
        file.as_deref().unwrap_or(Path::new("-")),
    )?)
}

/// Writes the field table of one instruction.
pub fn write_fields(out: &mut (impl Write + ?Sized), insn: &Tld4) -> std::io::Result<()> {
    writeln!(
        out,
        "    {:<16} {:>7}  {:>6}  meaning",
        "field", "bits", "raw"
    )?;
    for (spec, raw, meaning) in insn.field_values() {
        writeln!(
            out,
            "    {:<16} {:>7}  {:>#6x}  {meaning}",
            spec.name,
            spec.bits(),
            raw
        )?;
    }
    Ok(())
}

/// Writes the field table of one instruction of any family: the base table's fields, then
/// the family's rows (decoder/src/fields/arch_rows.rs) with their raw values (none for the
/// SM100 family).
pub fn write_arch_fields(
    out: &mut (impl Write + ?Sized),
    insn: &ArchTld4,
    word: u128,
) -> std::io::Result<()> {
    write_fields(out, &insn.insn)?;
    for r in insn.rows() {
        writeln!(
            out,
            "    {:<16} {:>7}  {:>#6x}  {} ({} row)",
            r.spec.name,
            r.spec.bits(),
            r.spec.get(word),
            r.spec.doc,
            insn.arch.family()
        )?;
    }
    Ok(())
}

/// Decodes and prints one word for `arch` (the SM100 family through the base decoder, the
/// same result as [`decode_arch`]): `Ok(Err(_))` when nvdisasm would refuse it, `Err` when
/// the output cannot be written. The line is written from `text` as it is (no formatting
/// machinery a word).
fn disasm_word(
    arch: Arch,
    word: u128,
    text: &mut String,
    fields: bool,
    out: &mut impl Write,
) -> std::io::Result<Result<(), DecodeError>> {
    text.clear();
    if arch.family() == Family::Sm100 {
        let insn = match decode(word) {
            Ok(i) => i,
            Err(e) => return Ok(Err(e)),
        };
        let _ = insn.write_text(text);
        text.push('\n');
        out.write_all(text.as_bytes())?;
        if fields {
            write_fields(out, &insn)?;
        }
    } else {
        let insn = match decode_arch(arch, word) {
            Ok(i) => i,
            Err(e) => return Ok(Err(e)),
        };
        let _ = insn.write_text(text);
        text.push('\n');
        out.write_all(text.as_bytes())?;
        if fields {
            write_arch_fields(out, &insn, word)?;
        }
    }
    Ok(Ok(()))
}

pub fn disasm(args: &DisasmArgs) -> CmdResult {
    if let Some(code) = crate::scan::disasm_compiled(args.file.as_deref(), args.fields)? {
        return Ok(code);
    }
    let words: Vec<Result<(usize, u128), String>> = match &args.binary {
        Some(p) => {
            let bytes = crate::output::read_bytes(p)?;
            parse_binary(&bytes)
                .map_err(|e| format!("{}: {e}", crate::output::name(p)))?
                .into_iter()
                .map(|w| Ok((0, w)))
                .collect()
        }
        None => parse_words(&read_input(&args.file)?)
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect(),
    };
    let mut out = crate::output::out();
    let (mut bad_lines, mut refused) = (0usize, 0usize);
    let mut text = String::with_capacity(96);
    // One output line per input word, so listings stay aligned; what went wrong is also
    // counted and told on standard error.
    for w in words {
        match w {
            Err(e) => {
                bad_lines += 1;
                writeln!(out, "error: {e}")?;
            }
            Ok((_, word)) => {
                match disasm_word(args.arch, word, &mut text, args.fields, &mut out)? {
                    Ok(()) => {}
                    Err(e) => {
                        refused += 1;
                        writeln!(out, "error: {}: {e}", hex32(word))?
                    }
                }
            }
        }
    }
    out.flush()?;
    if bad_lines + refused > 0 {
        crate::output::elog!(
            "error: {bad_lines} line(s) of input are not words and nvdisasm refuses {refused} word(s) (their `error:` lines are in the listing)"
        );
        return Ok(ExitCode::from(crate::EXIT_BAD_INPUT));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn asm(args: &AsmArgs) -> CmdResult {
    let input = read_input(&args.file)?;
    let mut out = crate::output::out();
    let mut failed = false;
    for (i, raw) in input.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            continue;
        }
        let word = if args.arch.family() == Family::Sm100 {
            parse(line).map(|insn| insn.encode())
        } else {
            parse_arch(args.arch, line).map(|insn| insn.encode())
        };
        match word {
            Ok(word) => writeln!(out, "{}", hex32(word))?,
            Err(e) => {
                failed = true;
                out.flush()?;
                crate::output::elog!("error: line {}, {e}", i + 1);
            }
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(crate::EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}
