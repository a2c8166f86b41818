//! `tld4 disasm` and `tld4 asm`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tld4_decoder::{decode, parse, Tld4};

use crate::words::{hex32, parse_binary, parse_words};
use crate::CmdResult;

/// `tld4 disasm`: words to nvdisasm's text.
#[derive(clap::Args, Debug)]
pub struct DisasmArgs {
    /// A text file of words (one per line); standard input without it.
    pub file: Option<PathBuf>,
    /// Read FILE as raw little-endian 16-byte words, as `nvdisasm -b SM100` does.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub binary: Option<PathBuf>,
    /// After each instruction, a table of every field: name, bits, raw value, meaning.
    #[arg(long)]
    pub fields: bool,
}

/// `tld4 asm`: nvdisasm's text to words.
#[derive(clap::Args, Debug)]
pub struct AsmArgs {
    /// A text file of instructions (one per line); standard input without it.
    pub file: Option<PathBuf>,
}

/// Reads a file, or standard input for `None`.
pub fn read_input(file: &Option<PathBuf>) -> Result<String, Box<dyn std::error::Error>> {
    Ok(match file {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?,
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s)?;
            s
        }
    })
}

/// Writes the field table of one instruction.
pub fn write_fields(out: &mut impl Write, insn: &Tld4) -> std::io::Result<()> {
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

pub fn disasm(args: &DisasmArgs) -> CmdResult {
    if let Some(code) = crate::scan::disasm_compiled(args.file.as_deref(), args.fields)? {
        return Ok(code);
    }
    let words: Vec<Result<(usize, u128), String>> = match &args.binary {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            parse_binary(&bytes)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .into_iter()
                .map(|w| Ok((0, w)))
                .collect()
        }
        None => parse_words(&read_input(&args.file)?)
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect(),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut bad_input = false;
    let mut text = String::with_capacity(96);
    for w in words {
        match w {
            Err(e) => {
                bad_input = true;
                writeln!(out, "error: {e}")?;
            }
            Ok((_, word)) => match decode(word) {
                Ok(insn) => {
                    text.clear();
                    insn.write_text(&mut text)?;
                    writeln!(out, "{text}")?;
                    if args.fields {
                        write_fields(&mut out, &insn)?;
                    }
                }
                Err(e) => writeln!(out, "error: {}: {e}", hex32(word))?,
            },
        }
    }
    out.flush()?;
    Ok(if bad_input {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn asm(args: &AsmArgs) -> CmdResult {
    let input = read_input(&args.file)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = false;
    for (i, raw) in input.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            continue;
        }
        match parse(line) {
            Ok(insn) => writeln!(out, "{}", hex32(insn.encode()))?,
            Err(e) => {
                failed = true;
                out.flush()?;
                eprintln!("error: line {}, {e}", i + 1);
            }
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
