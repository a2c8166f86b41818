//! `tld4 gather CASES.json`: query the texture unit directly, without an instruction.
//!
//! The JSON model (schema, number formats, optional keys) is `tld4_gather_cases`. Without
//! `--check` the file is printed back with a `result` added to every query; with `--check`
//! each query's existing `result` is compared (exactly for float and integer formats, within
//! 1 ulp for normalized ones), mismatches are listed, and the exit code is 1 if there is any.
//! Bad input is an error naming its JSON path (`cases[3].queries[7].offset`), never a panic.

use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use tld4_gather_cases as cases;

/// Arguments of `tld4 gather`.
#[derive(clap::Args, Debug, Clone)]
pub struct GatherArgs {
    /// The cases file (JSON), or - for standard input.
    pub cases: PathBuf,
    /// Compare with the `result`s already in the file instead of printing them; list the
    /// mismatches and exit with 1 if there is any.
    #[arg(long)]
    pub check: bool,
}

/// Run `tld4 gather`, printing to standard output.
pub fn run(args: &GatherArgs) -> Result<ExitCode, Box<dyn Error>> {
    let mut out = crate::output::out();
    let code = run_to(args, &mut out)?;
    out.flush()?;
    Ok(code)
}

/// Run `tld4 gather`, printing to `out`.
pub fn run_to(args: &GatherArgs, out: &mut dyn Write) -> Result<ExitCode, Box<dyn Error>> {
    let text = crate::output::read_text(&args.cases)?;
    if args.check {
        let report = cases::check(&text)?;
        for m in &report.mismatches {
            writeln!(out, "mismatch {m}")?;
        }
        writeln!(
            out,
            "checked {} queries: {} mismatch{}",
            report.checked,
            report.mismatches.len(),
            if report.mismatches.len() == 1 {
                ""
            } else {
                "es"
            }
        )?;
        Ok(if report.mismatches.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(crate::EXIT_CHECK_FAILED)
        })
    } else {
        out.write_all(cases::run(&text)?.as_bytes())?;
        Ok(ExitCode::SUCCESS)
    }
}
