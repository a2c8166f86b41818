//! `tld4 run` (one TLD4 for a warp, as a scenario file describes it; with `--addresses`, each
//! executed lane's texel addresses) and `tld4 to-memory` (a scenario with owned textures
//! rewritten in its memory form).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use tld4_scenario::{ArchScenario, LayoutChoice, Scenario};

use crate::{output, CmdResult, EXIT_CHECK_FAILED};

/// How owned textures are laid out in memory: `--layout` and `--base`.
#[derive(clap::Args, Debug, Clone)]
pub struct LayoutArgs {
    /// The texel layout of owned textures in their memory form: `block-linear` (16 GOBs a
    /// block, clamped by the hardware) or `pitch` (rows padded to 32 bytes; 2-D textures only).
    #[arg(
        long,
        value_name = "pitch|block-linear",
        default_value = "block-linear"
    )]
    pub layout: String,
    /// The address of texture header 0 in the memory form ("0x..."); the sampler pool and
    /// the texels follow.
    #[arg(long, value_name = "0x...", default_value = "0x10000")]
    pub base: String,
}

impl LayoutArgs {
    /// The layout and base address, or an error naming the option.
    pub fn read(&self) -> Result<(LayoutChoice, u64), String> {
        let layout = tld4_scenario::layout_by_name(&self.layout)
            .map_err(|e| format!("--layout: {}", e.message))?;
        let base = tld4_scenario::memory::parse_address(&self.base, "--base")
            .map_err(|e| format!("--base: {}", e.message))?;
        Ok((layout, base))
    }
}

/// Arguments of `tld4 run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The scenario file (JSON), or - for standard input.
    pub scenario: PathBuf,
    /// After the lane lines, each executed lane's texel addresses (`addr lane ...` lines).
    /// Owned textures are first laid out in memory as `tld4 to-memory` does (`--layout`,
    /// `--base`).
    #[arg(long)]
    pub addresses: bool,
    /// Read only files inside the scenario's directory: memory region files and cubin
    /// references must be relative names without `..` that stay in it (symbolic links
    /// followed). For scenarios from others: without it a scenario may name any file, and a
    /// region file's bytes appear in the output.
    #[arg(long)]
    pub confine: bool,
    /// With --addresses: how owned textures are laid out.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// `tld4 run`. A scenario naming `arch` (or `constants`) is read by `load_arch` and run for
/// its architecture.
pub fn run(args: &RunArgs) -> CmdResult {
    let name = output::name(&args.scenario);
    let text = output::read_text(&args.scenario)?;
    let options = tld4_scenario::LoadOptions::default().confine(args.confine);
    // A document that does not parse is reported by the plain reader below.
    if tld4_scenario::names_arch(&text).unwrap_or(false) {
        return run_arch(args, &name, &text, &options);
    }
    let s = tld4_scenario::load_with(&text, output::base_dir(&args.scenario), &options)
        .map_err(|e| format!("{name}: {e}"))?;
    for w in tld4_scenario::warnings(&s) {
        crate::output::elog!("{name}: {w}");
    }
    let outcome = tld4_scenario::run(&s);
    let addresses = || address_lines(&s, &args.layout);
    print_outcome(&outcome, args.addresses.then_some(&addresses))
}

/// `tld4 run` of a scenario for an architecture (`arch`, `constants`).
fn run_arch(
    args: &RunArgs,
    name: &str,
    text: &str,
    options: &tld4_scenario::LoadOptions,
) -> CmdResult {
    let a = tld4_scenario::load_arch(text, output::base_dir(&args.scenario), options)
        .map_err(|e| format!("{name}: {e}"))?;
    for w in tld4_scenario::warnings(&a.scenario) {
        crate::output::elog!("{name}: {w}");
    }
    let addresses = || arch_address_lines(&a, &args.layout);
    print_outcome(
        &tld4_scenario::run_arch(&a),
        args.addresses.then_some(&addresses),
    )
}

/// The lines listing address lines come from, and the lines themselves.
type AddressLines<'a> = &'a dyn Fn() -> Result<Vec<String>, String>;

/// Prints the outcome's lines (then, given them, the address lines) and returns the exit
/// code: [`EXIT_CHECK_FAILED`] when a check failed.
fn print_outcome(
    outcome: &tld4_scenario::Outcome,
    addresses: Option<AddressLines<'_>>,
) -> CmdResult {
    let mut out = output::out();
    for line in &outcome.lines {
        writeln!(out, "{line}")?;
    }
    if let Some(lines) = addresses {
        for line in lines()? {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(if outcome.failed > 0 {
        ExitCode::from(EXIT_CHECK_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The address lines of `s`: of its memory form, laid out by `layout`, for owned textures.
fn address_lines(s: &Scenario, layout: &LayoutArgs) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    let converted;
    let m = if s.memory().is_some() {
        s
    } else {
        let (choice, base) = layout.read()?;
        converted = s
            .to_memory_form(choice, base)
            .map_err(|e| no_memory_form(layout, &e))?;
        lines.push(memory_form_line(layout, base, ""));
        &converted
    };
    lines.extend(tld4_scenario::address_lines(m).map_err(|e| e.to_string())?);
    Ok(lines)
}

/// Why owned textures have no memory form in `layout`.
fn no_memory_form(layout: &LayoutArgs, e: &tld4_scenario::ScenarioError) -> String {
    format!("--addresses: the owned textures have no memory form in the {} layout: {e} (pitch takes 2-D textures of every format; block-linear takes every kind, with 4-, 8- and 16-byte texels)", layout.layout)
}

/// The line saying the addresses are of owned textures' memory form (`note` after it).
fn memory_form_line(layout: &LayoutArgs, base: u64, note: &str) -> String {
    format!(
        "addresses of the memory form: owned textures laid out {} from {base:#x}, as tld4 to-memory --layout {} --base {base:#x} writes them{note}",
        layout.layout, layout.layout
    )
}

/// The address lines of an architecture's scenario `a`, read by its executor: of its memory
/// form, laid out by `layout`, for owned textures (whose headers the converter writes, and
/// the executor then reads, in BLACKWELL_A's layout: [`ArchScenario::to_memory_form`]).
fn arch_address_lines(a: &ArchScenario, layout: &LayoutArgs) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    let converted;
    let m = if a.scenario.memory().is_some() {
        a
    } else {
        let (choice, base) = layout.read()?;
        converted = a
            .to_memory_form(choice, base)
            .map_err(|e| no_memory_form(layout, &e))?;
        lines.push(memory_form_line(
            layout,
            base,
            " (headers in BLACKWELL_A's layout, read so)",
        ));
        &converted
    };
    lines.extend(tld4_scenario::arch_address_lines(m).map_err(|e| e.to_string())?);
    Ok(lines)
}

/// Arguments of `tld4 to-memory`.
#[derive(clap::Args, Debug)]
pub struct ToMemoryArgs {
    /// The scenario file (JSON) with owned textures, or - for standard input.
    pub scenario: PathBuf,
    /// The layout and the base address.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// `tld4 to-memory`: prints the scenario in its memory form.
pub fn to_memory(args: &ToMemoryArgs) -> CmdResult {
    let name = output::name(&args.scenario);
    let (layout, base) = args.layout.read()?;
    let text = output::read_text(&args.scenario)?;
    let doc = tld4_scenario::memory_json(&text, output::base_dir(&args.scenario), layout, base)
        .map_err(|e| format!("{name}: {e}"))?;
    drop(text);
    // streamed: nothing the size of the output is built in memory
    let mut out = output::out();
    doc.write_to(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
