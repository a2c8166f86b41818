//! Writing the golden corpus (`tests/golden/nvdisasm_sm100.tsv`) that `cargo test` checks
//! the decoder against offline.
//!
//! Format, one word a line after `#` comment lines:
//! `<32 hex digits, hi<<64|lo>\t<nvdisasm's text>`, `...\terror: <nvdisasm's message>`, or
//! `...\tother: <another instruction's text>` (`other: (nothing printed)` when nvdisasm
//! accepted the word but printed no line). The main corpus stores listing text with runs of
//! spaces collapsed to one; the `_single` corpus stores one-word-file text exactly.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use crate::nvdisasm::Verdict;

/// Counts of what a corpus file holds.
#[derive(Clone, Copy, Debug, Default)]
pub struct CorpusStats {
    /// Word lines.
    pub lines: usize,
    /// TLD4 lines.
    pub tld4: usize,
    /// `error:` lines.
    pub errors: usize,
    /// `other:` lines.
    pub other: usize,
}

/// The corpus line of a verdict; `collapse` joins runs of spaces in printed text.
pub fn line(word: u128, verdict: &Verdict, collapse: bool) -> String {
    let v = if collapse {
        verdict.collapsed()
    } else {
        verdict.clone()
    };
    format!("{word:032x}\t{}", v.describe())
}

/// Writes a corpus: `header` lines (each gets `# `), then groups of (comment, entries).
pub fn write(
    path: &Path,
    header: &[String],
    groups: &[(String, Vec<(u128, Verdict)>)],
    collapse: bool,
) -> io::Result<CorpusStats> {
    let mut stats = CorpusStats::default();
    for (_, entries) in groups {
        for (_, v) in entries {
            stats.lines += 1;
            match v {
                Verdict::Tld4(_) => stats.tld4 += 1,
                Verdict::Refused(_) => stats.errors += 1,
                Verdict::Other(_) | Verdict::Silent => stats.other += 1,
            }
        }
    }
    let mut s = String::new();
    for h in header {
        let _ = writeln!(s, "# {h}");
    }
    let _ = writeln!(
        s,
        "# lines: {} ({} TLD4, {} refused: {} error, {} other)",
        stats.lines,
        stats.tld4,
        stats.errors + stats.other,
        stats.errors,
        stats.other
    );
    for (comment, entries) in groups {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(s, "# group: {comment} ({} words)", entries.len());
        for (w, v) in entries {
            s.push_str(&line(*w, v, collapse));
            s.push('\n');
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, s)?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_the_documented_shape() {
        let t = Verdict::Tld4("@P3 TLD4.G R10, R8,     ???255, R24, UR4, 2D ;".into());
        assert_eq!(
            line(5, &t, true),
            "00000000000000000000000000000005\t@P3 TLD4.G R10, R8, ???255, R24, UR4, 2D ;"
        );
        assert_eq!(
            line(5, &t, false),
            "00000000000000000000000000000005\t@P3 TLD4.G R10, R8,     ???255, R24, UR4, 2D ;"
        );
        assert_eq!(
            line(
                1 << 127,
                &Verdict::Refused("Illegal instruction found".into()),
                true
            ),
            "80000000000000000000000000000000\terror: Illegal instruction found"
        );
        assert_eq!(
            line(0, &Verdict::Silent, true),
            "00000000000000000000000000000000\tother: (nothing printed)"
        );
        assert_eq!(
            line(0, &Verdict::Other("USEL UR8,  UR28;".into()), true),
            "00000000000000000000000000000000\tother: USEL UR8, UR28;"
        );
    }
}
