//! `tld4`: a bit-accurate model of NVIDIA's SM100 TLD4 texture gather.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod disasm;
mod words;

/// What a subcommand returns: its exit code, or an error to print.
pub type CmdResult = Result<ExitCode, Box<dyn std::error::Error>>;

#[derive(Parser, Debug)]
#[command(name = "tld4", version, about = "A bit-accurate model of NVIDIA's SM100 TLD4 texture gather")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Disassemble 128-bit words into nvdisasm's text.
    Disasm(disasm::DisasmArgs),
    /// Assemble nvdisasm's text into 128-bit words (32 hex digits, high half first).
    Asm(disasm::AsmArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Disasm(a) => disasm::disasm(a),
        Command::Asm(a) => disasm::asm(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
