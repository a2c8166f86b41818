//! `tld4`: a bit-accurate model of NVIDIA's SM100 TLD4 texture gather.
//!
//! Exit codes, for every command (docs/cli.md): 0 success, 1 a check failed,
//! 2 bad input or refused words; diagnostics go to standard error.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod output;
mod picture_file;
mod progress;

mod bench;
mod check;
mod demo;
mod disasm;
mod explain;
mod gather;
mod run;
mod scan;
mod serve;
mod words;

/// Exit code: a check failed.
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit code: bad input, or words refused.
pub const EXIT_BAD_INPUT: u8 = 2;

/// What a subcommand returns: its exit code, or an error to print.
pub type CmdResult = Result<ExitCode, Box<dyn std::error::Error>>;

#[derive(Parser, Debug)]
#[command(
    name = "tld4",
    version,
    about = "A bit-accurate model of NVIDIA's SM100 TLD4 texture gather",
    after_help = "Exit codes: 0 success, 1 a check failed, 2 bad input or refused words. A file argument of - reads standard input."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the six seed variants and every modifier on built-in textures, checking each lane
    /// against the Vulkan-formula reference.
    Demo,
    /// Disassemble 128-bit words into nvdisasm's text.
    Disasm(disasm::DisasmArgs),
    /// Assemble nvdisasm's text into 128-bit words (32 hex digits, high half first).
    Asm(disasm::AsmArgs),
    /// Query the texture unit directly with a JSON file of gather cases.
    Gather(gather::GatherArgs),
    /// Conformance verdicts on observed gather results (a cases file whose `result`s are
    /// someone's): exact (tld4's), allowed (inside the Khronos CTS's bounds) or wrong.
    Check(check::CheckArgs),
    /// Execute one TLD4 for a warp, as a scenario file describes it.
    Run(run::RunArgs),
    /// Print a scenario with owned textures in its memory form: descriptors and texels in
    /// GPU memory, as hex.
    ToMemory(run::ToMemoryArgs),
    /// Measure decoding, disassembly and execution throughput.
    Bench(bench::BenchArgs),
    /// Explain one TLD4: every field and operand, and with a scenario one lane's whole path
    /// through the texture unit, with numbers and an optional picture of the footprint.
    Explain(Box<explain::ExplainArgs>),
    /// List every TLD4 in cubins, fat binaries and host executables: file, kernel, offset, word, text.
    Scan(scan::ScanArgs),
    /// Serve the teaching page and its JSON API (gathers and explanations) over HTTP.
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Demo => demo::demo(),
        Command::Disasm(a) => disasm::disasm(a),
        Command::Asm(a) => disasm::asm(a),
        Command::Gather(a) => gather::run(a),
        Command::Check(a) => check::run(a),
        Command::Run(a) => run::run(a),
        Command::ToMemory(a) => run::to_memory(a),
        Command::Bench(a) => bench::bench(a),
        Command::Explain(a) => explain::explain(a),
        Command::Scan(a) => scan::scan(a),
        Command::Serve(a) => serve::serve(a),
    };
    match result {
        Ok(code) => code,
        // The reader closed standard output: stop quietly.
        Err(e) if output::is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::output::elog!("error: {e}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
