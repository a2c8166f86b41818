//! The lane-by-lane comparison with tld4 as a section of the report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::compare::Comparison;

/// The lane-by-lane comparison as a report section: every compared run, its differing lanes,
/// and what was left out with the reason (counted by reason).
pub(crate) fn comparison_markdown(cmp: &Comparison) -> String {
    let mut md = String::from("## Lane-by-lane comparison with tld4\n\n");
    let (lanes, equal) = cmp
        .runs
        .iter()
        .fold((0, 0), |(l, e), r| (l + r.lanes, e + r.equal));
    let _ = writeln!(
        md,
        "{equal} of {lanes} lanes equal tld4's bit for bit ({} differ) in {} runs; {} runs not compared.\n",
        lanes - equal,
        cmp.runs.len(),
        cmp.skipped.len()
    );
    md.push_str(
        "| phase | kernel | texture | lanes | equal | differ |\n|---|---|---|---|---|---|\n",
    );
    for r in &cmp.runs {
        let flag = if r.equal == r.lanes {
            "0".to_string()
        } else {
            format!("**{}**", r.lanes - r.equal)
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {flag} |",
            r.phase, r.kernel, r.texture, r.lanes, r.equal
        );
    }
    md.push('\n');
    for r in cmp.runs.iter().filter(|r| r.equal != r.lanes) {
        let _ = writeln!(
            md,
            "Differences in {} {} {} (first {}):\n",
            r.phase,
            r.kernel,
            r.texture,
            r.first_differences.len()
        );
        for d in &r.first_differences {
            let _ = writeln!(
                md,
                "- lane {}: query {:08x?}: GPU {:08x?}, tld4 {:08x?}",
                d.lane, d.query, d.gpu, d.tld4
            );
        }
        md.push('\n');
    }
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &cmp.skipped {
        *why.entry(s.why.as_str()).or_default() += 1;
    }
    if !why.is_empty() {
        md.push_str("Not compared:\n\n");
        for (w, n) in why {
            let _ = writeln!(md, "- {n} runs: {w}");
        }
        md.push('\n');
    }
    md
}
