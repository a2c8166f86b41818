//! Running nvdisasm on raw SM100 instruction words and reading its verdict on each word.
//!
//! What nvdisasm does (13.5, measured): `nvdisasm -b SM100 FILE` reads 16-byte words (each
//! little-endian, low 64 bits first) and prints one line per instruction, `/*addr*/`, a
//! guard column and the text. If ANY word is illegal it prints no instruction at all and
//! names on stderr every refused word it can place, one line each ending `at address 0x..`
//! (an `Unrecognized operation ...` line is followed by `Illegal instruction found`). A few
//! words (e.g. all zeros) are refused with a bare `Illegal instruction found` and no
//! address. Some legal words of other instructions print no line at all.
//!
//! So [`Nvdisasm::verdicts`] runs the batch, records every addressed refusal, reruns the
//! rest, and bisects only when refusals without an address remain; a batch of mostly legal
//! words costs two runs.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// nvdisasm's verdict on one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A TLD4: the text after the `/*addr*/` comment, trimmed (spacing as nvdisasm printed it).
    Tld4(String),
    /// Another instruction's text.
    Other(String),
    /// nvdisasm accepted the word but printed no line for it.
    Silent,
    /// nvdisasm refused the word: its message, without the `nvdisasm error :` prefix and
    /// without ` at address 0x..` (which depends on the word's place in the file).
    Refused(String),
}

impl Verdict {
    /// A one-line description for reports.
    pub fn describe(&self) -> String {
        match self {
            Verdict::Tld4(t) => t.clone(),
            Verdict::Other(t) => format!("other: {t}"),
            Verdict::Silent => "other: (nothing printed)".into(),
            Verdict::Refused(m) => format!("error: {m}"),
        }
    }

    /// The verdict with runs of whitespace in printed text collapsed to one space.
    pub fn collapsed(&self) -> Verdict {
        match self {
            Verdict::Tld4(t) => Verdict::Tld4(collapse(t)),
            Verdict::Other(t) => Verdict::Other(collapse(t)),
            v => v.clone(),
        }
    }
}

/// `text` with every run of whitespace replaced by one space (nvdisasm aligns the column of
/// a `???` operand across a listing, so only collapsed text compares across listings).
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a listing line's text is a TLD4 (mnemonic `TLD4` after an optional guard).
fn classify(text: &str) -> Verdict {
    let body = match text.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map_or("", |(_, b)| b).trim_start(),
        None => text,
    };
    let mnemonic = body.split(['.', ' ', ';']).next().unwrap_or("");
    if mnemonic == "TLD4" {
        Verdict::Tld4(text.to_string())
    } else {
        Verdict::Other(text.to_string())
    }
}

/// What one nvdisasm run said.
struct RunOutput {
    success: bool,
    /// (word index in the file, text) for every listing line.
    lines: Vec<(usize, String)>,
    /// (word index if nvdisasm named an address, message) for every error line.
    errors: Vec<(Option<usize>, String)>,
    stderr: String,
}

/// A handle on the nvdisasm binary, with a private folder for its input files.
pub struct Nvdisasm {
    path: PathBuf,
    /// The architecture given to `-b` (`SM100` unless [`Nvdisasm::for_arch`] says otherwise).
    arch: String,
    dir: PathBuf,
    seq: AtomicU64,
    runs: AtomicU64,
}

impl Nvdisasm {
    /// Checks that `path` runs, and makes a temporary folder for the input files.
    pub fn new(path: &Path) -> io::Result<Self> {
        let dir = std::env::temp_dir().join(format!("tld4-nvdisasm-oracle-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let n = Nvdisasm {
            path: path.to_path_buf(),
            arch: "SM100".into(),
            dir,
            seq: AtomicU64::new(0),
            runs: AtomicU64::new(0),
        };
        n.version()?;
        Ok(n)
    }

    /// nvdisasm's `--version` release line, e.g. `Cuda compilation tools, release 13.5, V13.5.37`.
    pub fn version(&self) -> io::Result<String> {
        let out = Command::new(&self.path)
            .arg("--version")
            .output()
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot run nvdisasm at {}: {e}", self.path.display()),
                )
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .find(|l| l.contains("release"))
            .map(|l| l.trim().to_string())
            .ok_or_else(|| {
                io::Error::other(format!("unexpected `nvdisasm --version` output: {text}"))
            })
    }

    /// The same nvdisasm, run with `-b <arch>` (nvdisasm's spelling, `SM90a`), with a
    /// folder of its own for the input files.
    pub fn for_arch(&self, arch: &str) -> io::Result<Self> {
        let dir = self.dir.with_file_name(format!(
            "tld4-nvdisasm-oracle-{}-{arch}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(Nvdisasm {
            path: self.path.clone(),
            arch: arch.to_string(),
            dir,
            seq: AtomicU64::new(0),
            runs: AtomicU64::new(0),
        })
    }

    /// How many times nvdisasm has been run so far.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    fn run(&self, words: &[u128]) -> Result<RunOutput, String> {
        let n = self.seq.fetch_add(1, Ordering::Relaxed);
        let file = self.dir.join(format!("words-{n}.bin"));
        let mut bytes = Vec::with_capacity(words.len() * 16);
        for &w in words {
            bytes.extend_from_slice(&(w as u64).to_le_bytes());
            bytes.extend_from_slice(&((w >> 64) as u64).to_le_bytes());
        }
        std::fs::write(&file, &bytes).map_err(|e| format!("writing {}: {e}", file.display()))?;
        let out = Command::new(&self.path)
            .arg("-b")
            .arg(&self.arch)
            .arg(&file)
            .output()
            .map_err(|e| format!("running {}: {e}", self.path.display()))?;
        self.runs.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(&file);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let mut lines = Vec::new();
        for line in stdout.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix("/*") else {
                continue;
            };
            let Some((addr, text)) = rest.split_once("*/") else {
                continue;
            };
            let addr =
                u64::from_str_radix(addr, 16).map_err(|_| format!("odd listing line: {line}"))?;
            if addr % 16 != 0 || addr / 16 >= words.len() as u64 {
                return Err(format!(
                    "listing line at an address outside the file: {line}"
                ));
            }
            lines.push(((addr / 16) as usize, text.trim().to_string()));
        }
        let mut errors = Vec::new();
        for line in stderr.lines() {
            let Some(msg) = line.strip_prefix("nvdisasm error") else {
                continue;
            };
            let msg = msg.trim_start().trim_start_matches(':').trim();
            match msg.rsplit_once(" at address 0x") {
                Some((m, addr)) => {
                    let addr = u64::from_str_radix(addr.trim(), 16)
                        .map_err(|_| format!("odd error line: {line}"))?;
                    if addr % 16 != 0 || addr / 16 >= words.len() as u64 {
                        return Err(format!("error at an address outside the file: {line}"));
                    }
                    errors.push((Some((addr / 16) as usize), m.trim().to_string()));
                }
                None => errors.push((None, msg.to_string())),
            }
        }
        Ok(RunOutput {
            success: out.status.success(),
            lines,
            errors,
            stderr,
        })
    }

    /// nvdisasm's verdict on every word, found with as few runs as the refusals allow.
    pub fn verdicts(&self, words: &[u128]) -> Result<Vec<Verdict>, String> {
        let mut out: Vec<Option<Verdict>> = vec![None; words.len()];
        let mut todo: Vec<Vec<usize>> = vec![(0..words.len()).collect()];
        while let Some(idx) = todo.pop() {
            if idx.is_empty() {
                continue;
            }
            let batch: Vec<u128> = idx.iter().map(|&i| words[i]).collect();
            let run = self.run(&batch)?;
            if run.success {
                for (pos, text) in run.lines {
                    let slot = &mut out[idx[pos]];
                    if slot.is_some() {
                        return Err(format!(
                            "nvdisasm printed two lines for the word {:032x}",
                            words[idx[pos]]
                        ));
                    }
                    *slot = Some(classify(&text));
                }
                for &i in &idx {
                    out[i].get_or_insert(Verdict::Silent);
                }
                continue;
            }
            let mut bad = vec![false; idx.len()];
            let mut any = false;
            for (pos, msg) in run.errors.iter().filter_map(|(p, m)| p.map(|p| (p, m))) {
                if !bad[pos] {
                    bad[pos] = true;
                    any = true;
                    out[idx[pos]] = Some(Verdict::Refused(msg.clone()));
                }
            }
            if any {
                // Rerun the rest; a refusal without an address lies between the addressed
                // ones printed around it, so such stretches go in runs of their own (a hint
                // only: a wrong one costs runs, never a wrong verdict).
                let mut group = vec![0usize; idx.len()];
                for (k, (lo, hi)) in unaddressed_stretches(&run.errors, idx.len())
                    .into_iter()
                    .enumerate()
                {
                    group[lo..hi].iter_mut().for_each(|g| *g = k + 1);
                }
                let groups = group.iter().max().copied().unwrap_or(0);
                for g in 0..=groups {
                    todo.push(
                        (0..idx.len())
                            .filter(|&pos| !bad[pos] && group[pos] == g)
                            .map(|pos| idx[pos])
                            .collect(),
                    );
                }
            } else if idx.len() == 1 {
                let msgs: Vec<&str> = run.errors.iter().map(|(_, m)| m.as_str()).collect();
                let msg = if msgs.is_empty() {
                    format!(
                        "nvdisasm failed without a message: {}",
                        collapse(&run.stderr)
                    )
                } else {
                    msgs.join("; ")
                };
                out[idx[0]] = Some(Verdict::Refused(msg));
            } else {
                // Refusals without an address: bisect.
                let (a, b) = idx.split_at(idx.len() / 2);
                todo.push(a.to_vec());
                todo.push(b.to_vec());
            }
        }
        Ok(out
            .into_iter()
            .map(|v| v.expect("every word gets a verdict"))
            .collect())
    }
}

/// The stretches `[lo, hi)` of a file that hold the refusals printed without an address:
/// stderr lists refusals in address order, and `Unrecognized operation ...` is followed by
/// one `Illegal instruction found` of its own. Empty when the addresses are out of order.
fn unaddressed_stretches(errors: &[(Option<usize>, String)], len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut prev: Option<usize> = None;
    let mut follower_expected = false;
    let mut pending = false;
    for (pos, msg) in errors {
        match pos {
            Some(p) => {
                if prev.is_some_and(|q| q >= *p) {
                    return Vec::new();
                }
                if pending {
                    out.push((prev.map_or(0, |q| q + 1), *p));
                    pending = false;
                }
                prev = Some(*p);
                follower_expected = msg.starts_with("Unrecognized operation");
            }
            None if follower_expected && msg == "Illegal instruction found" => {
                follower_expected = false
            }
            None => {
                follower_expected = false;
                pending = true;
            }
        }
    }
    if pending {
        out.push((prev.map_or(0, |q| q + 1), len));
    }
    out
}

impl Drop for Nvdisasm {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_separates_tld4_from_other_mnemonics() {
        assert_eq!(
            classify("@P3 TLD4.G.B.AOFFI R10, R8, R28, R24, 2D ;"),
            Verdict::Tld4("@P3 TLD4.G.B.AOFFI R10, R8, R28, R24, 2D ;".into())
        );
        assert_eq!(
            classify("TLD4.R R22, R20, R20, UR4, ARRAY_2D ;"),
            Verdict::Tld4("TLD4.R R22, R20, R20, UR4, ARRAY_2D ;".into())
        );
        assert_eq!(
            classify("@P3 OUT.???0 R8, R28, UR24 ;"),
            Verdict::Other("@P3 OUT.???0 R8, R28, UR24 ;".into())
        );
        assert_eq!(
            classify("TLD4S R1, R2 ;"),
            Verdict::Other("TLD4S R1, R2 ;".into())
        );
    }

    #[test]
    fn stretches_of_unaddressed_refusals() {
        // What nvdisasm printed for [ok, opex, 0, uC, 0, 0, ok, opex, ok, 0, uC, uC].
        let e = |p: Option<usize>, m: &str| (p, m.to_string());
        let opex = "Opclass 'tld4_urc_', undefined value 0x10 for table 'TABLES_opex_0'";
        let uc = "Unrecognized operation for functional unit 'uC'";
        let ill = "Illegal instruction found";
        let errors = [
            e(Some(1), opex),
            e(None, ill),
            e(Some(3), uc),
            e(None, ill),
            e(None, ill),
            e(None, ill),
            e(Some(7), opex),
            e(None, ill),
            e(Some(10), uc),
            e(None, ill),
            e(Some(11), uc),
            e(None, ill),
        ];
        assert_eq!(
            unaddressed_stretches(&errors, 12),
            [(2, 3), (4, 7), (8, 10)]
        );
        assert_eq!(
            unaddressed_stretches(&[e(Some(3), uc), e(None, ill), e(None, ill)], 9),
            [(4, 9)]
        );
        assert_eq!(unaddressed_stretches(&[e(None, ill)], 9), [(0, 9)]);
        assert!(unaddressed_stretches(&[e(Some(3), uc), e(Some(2), uc)], 9).is_empty());
    }

    #[test]
    fn collapse_joins_runs_of_spaces() {
        assert_eq!(
            collapse("@P3 TLD4.G R10, R8,     ???255, R24, UR4, 2D ;"),
            "@P3 TLD4.G R10, R8, ???255, R24, UR4, 2D ;"
        );
    }
}
