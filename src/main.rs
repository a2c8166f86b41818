//! `tld4`: a bit-accurate model of NVIDIA's SM100 TLD4 texture gather.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod demo;
mod disasm;
mod explain;
mod gather;
mod scan;
mod scenario;
mod words;

/// What a subcommand returns: its exit code, or an error to print.
pub type CmdResult = Result<ExitCode, Box<dyn std::error::Error>>;

#[derive(Parser, Debug)]
#[command(
    name = "tld4",
    version,
    about = "A bit-accurate model of NVIDIA's SM100 TLD4 texture gather"
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
    /// Execute one TLD4 for a warp, as a scenario file describes it.
    Run(RunArgs),
    /// Measure decoding, disassembly and execution throughput.
    Bench(bench::BenchArgs),
    /// Explain one TLD4: every field and operand, and with a scenario one lane's whole path
    /// through the texture unit, with numbers and an optional picture of the footprint.
    Explain(explain::ExplainArgs),
    /// List every TLD4 in cubins, fat binaries and host executables: file, kernel, offset, word, text.
    Scan(scan::ScanArgs),
}

/// Arguments of `tld4 run`.
#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The scenario file (JSON).
    scenario: PathBuf,
}

fn run(args: &RunArgs) -> CmdResult {
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| format!("{}: {e}", args.scenario.display()))?;
    let s = scenario::load(&text).map_err(|e| format!("{}: {e}", args.scenario.display()))?;
    let outcome = scenario::run(s);
    for line in &outcome.lines {
        println!("{line}");
    }
    Ok(if outcome.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Demo => demo::demo(),
        Command::Disasm(a) => disasm::disasm(a),
        Command::Asm(a) => disasm::asm(a),
        Command::Gather(a) => gather::run(a),
        Command::Run(a) => run(a),
        Command::Bench(a) => bench::bench(a),
        Command::Explain(a) => explain::explain(a),
        Command::Scan(a) => scan::scan(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
