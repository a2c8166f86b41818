//! `tld4 check OBSERVED.json`: conformance verdicts on someone's gather results.
//!
//! The input is a `tld4 gather` cases file whose queries' `result`s are the observed results
//! (a GPU's, a software sampler's). Each query is exact (tld4's result bit for bit), allowed
//! (inside the Khronos CTS's gather bounds: the footprint or rounding that explains it is
//! printed) or wrong (outside them: by how much, at which value); the rules are
//! `tld4_conformance`'s (docs/sources.md, Conformance verdicts). Exit code 1 when any query is
//! wrong; bad input is an error naming its JSON path.

use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use tld4_conformance::{check_text, Verdict};

/// Arguments of `tld4 check`.
#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// The cases file (JSON) with the observed results, or - for standard input.
    pub observed: PathBuf,
    /// Print the whole report as JSON (summary, then every query's verdict) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also list the allowed queries (by default only the wrong ones are listed).
    #[arg(long)]
    pub allowed: bool,
}

/// Run `tld4 check`, printing to standard output.
pub fn run(args: &CheckArgs) -> Result<ExitCode, Box<dyn Error>> {
    let mut out = crate::output::out();
    let code = run_to(args, &mut out)?;
    out.flush()?;
    Ok(code)
}

/// Run `tld4 check`, printing to `out`.
pub fn run_to(args: &CheckArgs, out: &mut dyn Write) -> Result<ExitCode, Box<dyn Error>> {
    let text = crate::output::read_text(&args.observed)?;
    let report = check_text(&text)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        for q in report.not_exact() {
            match &q.verdict.verdict {
                Verdict::Wrong(_) => writeln!(out, "wrong {}: {}", q.path, q.explanation)?,
                Verdict::Allowed(_) if args.allowed => {
                    writeln!(out, "allowed {}: {}", q.path, q.explanation)?
                }
                _ => {}
            }
        }
        let s = report.summary;
        writeln!(
            out,
            "checked {} queries: {} exact, {} allowed, {} wrong",
            s.queries, s.exact, s.allowed, s.wrong
        )?;
    }
    Ok(if report.summary.wrong == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_CHECK_FAILED)
    })
}
