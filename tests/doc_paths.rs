//! The repository stands on its own: every `docs/...`, `examples/...` and `tests/...` path that
//! a markdown file or a doc comment names exists, every `docs/sources.md, <Section>` citation
//! names a section of docs/sources.md, and (once the old citations are rewritten) nothing
//! cites notes outside the repository or issue numbers a reader cannot see.
//!
//! Files: those git tracks plus untracked ones it does not ignore (`git ls-files --cached
//! --others --exclude-standard`), so a new file counts before its first commit; without git,
//! the directory tree less `target/` and `.git/`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files, as `/`-separated paths relative to the root.
fn files() -> Vec<String> {
    let git = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output();
    if let Ok(o) = git {
        if o.status.success() {
            let mut v: Vec<String> = String::from_utf8(o.stdout)
                .expect("git ls-files prints UTF-8 paths")
                .split('\0')
                .filter(|p| !p.is_empty())
                // A tracked file deleted in the working tree is not there to name.
                .filter(|p| root().join(p).is_file())
                .map(str::to_string)
                .collect();
            v.sort();
            v.dedup();
            return v;
        }
    }
    let mut v = Vec::new();
    walk(root(), &mut v);
    v.sort();
    v
}

fn walk(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        let rel = rel(&p);
        if rel == "target" || rel == ".git" || rel.ends_with("/target") {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(rel);
        }
    }
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap()
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Paths the docs name on purpose although they are not in the repository: what a command
/// writes. Each with the reason.
const NOT_COMMITTED: &[(&str, &str)] = &[
    (
        "tests/golden/hw_h200.json",
        "written by the hardware probe's device run, copied in once it has run on a GPU",
    ),
    (
        "tests/golden/hw_h200_report.md",
        "written by the hardware probe's device run, copied in once it has run on a GPU",
    ),
];

/// The text of `file` where paths count: all of a markdown file, the `//!` and `///` lines
/// of a Rust file.
fn documentation(file: &str, text: &str) -> Vec<(usize, String)> {
    let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    if file.ends_with(".md") {
        lines.map(|(n, l)| (n, l.to_string())).collect()
    } else if file.ends_with(".rs") {
        lines
            .filter_map(|(n, l)| {
                let t = l.trim_start();
                (t.starts_with("//!") || t.starts_with("///")).then(|| (n, t[3..].to_string()))
            })
            .collect()
    } else {
        Vec::new()
    }
}

fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '*')
}

/// The repository paths a line names: `docs/`, `examples/` or `tests/` at the start of a
/// path-like word (not inside another path such as `emu/tests/x.rs` or `$OUT/tests`), up to
/// the first character that cannot be in a path, less trailing punctuation.
fn named_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let starts = ["docs/", "examples/", "tests/"].iter().find(|p| {
            let p: Vec<char> = p.chars().collect();
            b[i..].starts_with(&p)
        });
        let boundary = i == 0 || !(path_char(b[i - 1]) || b[i - 1] == '$');
        if let (Some(_), true) = (starts, boundary) {
            let mut j = i;
            while j < b.len() && path_char(b[j]) {
                j += 1;
            }
            let word: String = b[i..j].iter().collect();
            let word = word.trim_end_matches(['.', ',', ':', ';']).to_string();
            out.push(word);
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `pattern`, with `*` matching any run of characters other than `/`, matches `path`.
fn glob_match(pattern: &str, path: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len())
                .take_while(|&k| k == 0 || s[k - 1] != b'/')
                .any(|k| go(rest, &s[k..])),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(pattern.as_bytes(), path.as_bytes())
}

/// Whether a named path exists: a file, a folder holding files (with or without the final
/// `/`), or a pattern with `*` that matches a file (or a folder's prefix).
fn exists(named: &str, files: &[String], dirs: &BTreeSet<String>) -> bool {
    let plain = named.trim_end_matches('/');
    if named.contains('*') {
        return files.iter().any(|f| glob_match(named, f))
            || dirs.iter().any(|d| glob_match(plain, d));
    }
    files.iter().any(|f| f == plain) || dirs.contains(plain)
}

fn folders(files: &[String]) -> BTreeSet<String> {
    let mut dirs = BTreeSet::new();
    for f in files {
        let mut p = f.as_str();
        while let Some((d, _)) = p.rsplit_once('/') {
            dirs.insert(d.to_string());
            p = d;
        }
    }
    dirs
}

fn read(file: &str) -> Option<String> {
    std::fs::read_to_string(root().join(file)).ok()
}

#[test]
fn every_path_the_docs_name_exists() {
    let files = files();
    assert!(
        files.iter().any(|f| f == "README.md") && files.iter().any(|f| f == "tests/doc_paths.rs"),
        "the file list misses the repository's own files: {:?}",
        &files[..files.len().min(10)]
    );
    let dirs = folders(&files);
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Some(text) = read(file) else { continue };
        for (line, doc) in documentation(file, &text) {
            for named in named_paths(&doc) {
                checked += 1;
                if NOT_COMMITTED.iter().any(|(p, _)| *p == named) {
                    continue;
                }
                if !exists(&named, &files, &dirs) {
                    missing.push(format!("{file}:{line}: {named}"));
                }
            }
        }
    }
    // The README alone names dozens of paths: a scanner that finds none is broken.
    assert!(checked > 50, "only {checked} paths found in the docs");
    assert!(
        missing.is_empty(),
        "{} named paths do not exist:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_not_committed_list_holds_only_files_that_are_really_absent() {
    let files = files();
    for (p, why) in NOT_COMMITTED {
        assert!(
            !files.iter().any(|f| f == p),
            "{p} is in the repository now: take it off NOT_COMMITTED ({why})"
        );
    }
}

/// The section headings (`## ...`) of docs/sources.md.
fn source_sections() -> BTreeSet<String> {
    read("docs/sources.md")
        .expect("docs/sources.md exists")
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|h| h.trim().to_string())
        .collect()
}

#[test]
fn every_citation_of_docs_sources_names_a_section() {
    let sections = source_sections();
    for s in [
        "The oracles",
        "Encoding",
        "Agreement rules",
        "Open questions",
        "Decisions",
    ] {
        assert!(
            sections.contains(s),
            "docs/sources.md has no section {s}: {sections:?}"
        );
    }
    let files = files();
    let mut wrong = Vec::new();
    let mut cited = 0;
    // This file spells the citation form out to describe it, so it is not scanned.
    let scanned = files
        .iter()
        .filter(|f| f.ends_with(".rs") || f.ends_with(".md") || f.ends_with(".sh"))
        .filter(|f| f.as_str() != "tests/doc_paths.rs");
    for file in scanned {
        let Some(text) = read(file) else { continue };
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("docs/sources.md, ") {
                rest = &rest[at + "docs/sources.md, ".len()..];
                // The section runs to a closing bracket, quote or punctuation, or the line's end.
                let end = rest
                    .find([')', ']', '`', '"', ';', ':', ','])
                    .unwrap_or(rest.len());
                let section = rest[..end].trim().trim_end_matches('.');
                cited += 1;
                if !sections.contains(section) {
                    wrong.push(format!("{file}:{}: `{section}`", n + 1));
                }
            }
        }
    }
    assert!(cited > 0, "no citation of docs/sources.md found");
    assert!(
        wrong.is_empty(),
        "citations naming no section of docs/sources.md (sections: {sections:?}):\n{}",
        wrong.join("\n")
    );
}

/// What the repository must not cite: notes outside it, and issue numbers (`issue` then an
/// optional space, `-` or `_`, then a digit). Built at run time so that this file does not
/// cite them itself.
fn outside_citations(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for needle in [format!("{}.md", "FACTS"), format!("../{}", "shared")] {
        if line.contains(&needle) {
            found.push(needle);
        }
    }
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("issue") {
        let after = &lower.as_bytes()[from + at + 5..];
        let digit = match after {
            [c, ..] if c.is_ascii_digit() => true,
            [b' ' | b'-' | b'_', c, ..] if c.is_ascii_digit() => true,
            _ => false,
        };
        if digit {
            let end = (from + at + 8).min(line.len());
            found.push(line[from + at..end].to_string());
        }
        from += at + 5;
    }
    found
}

#[test]
fn citation_scanner_finds_what_it_must() {
    assert_eq!(
        outside_citations(&format!("see {}.md, Decisions", "FACTS")).len(),
        1
    );
    assert_eq!(outside_citations(&format!("(Issue{}3)", ' ')).len(), 1);
    assert_eq!(
        outside_citations(&format!("the issue{}5 rules", '-')).len(),
        1
    );
    assert_eq!(
        outside_citations(&format!("fn covers_issue{}5()", '_')).len(),
        1
    );
    assert!(outside_citations("a known issue: 3 of them; PR 10030").is_empty());
    assert!(outside_citations("docs/sources.md, Agreement rules").is_empty());
}

#[test]
fn nothing_cites_notes_outside_the_repository_or_issue_numbers() {
    let mut found = Vec::new();
    for file in files() {
        // Golden data is what the tools printed; it is not prose of the project's.
        if file.ends_with(".json") || file.ends_with(".tsv") {
            continue;
        }
        let Some(text) = read(&file) else { continue };
        for (n, line) in text.lines().enumerate() {
            for c in outside_citations(line) {
                found.push(format!("{file}:{}: {c}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} citations a reader of the repository cannot follow (cite docs/sources.md, <Section> instead):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_path_scanner_reads_paths_as_a_reader_would() {
    assert_eq!(
        named_paths("see `tests/golden/nvdisasm_sm100.tsv`, and docs/sources.md."),
        ["tests/golden/nvdisasm_sm100.tsv", "docs/sources.md"]
    );
    assert_eq!(
        named_paths("emu/tests/execute.rs and $OUT/tests/x"),
        Vec::<String>::new()
    );
    assert_eq!(named_paths("[fields](docs/fields.md)"), ["docs/fields.md"]);
    assert!(glob_match(
        "tests/golden/lavapipe_*",
        "tests/golden/lavapipe_gather.json"
    ));
    assert!(!glob_match("tests/*.rs", "oracles/hw-probe/tests/tools.rs"));
    let files: Vec<String> = vec!["tests/a/b.rs".into()];
    let dirs = folders(&files);
    assert!(exists("tests/a/", &files, &dirs));
    assert!(exists("tests/a/*.rs", &files, &dirs));
    assert!(!exists("tests/a/c.rs", &files, &dirs));
}
