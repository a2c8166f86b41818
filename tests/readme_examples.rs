//! The README's commands work as it says: every `cargo run --release -- ...` line of its shell
//! blocks runs the `tld4` binary with those arguments (piped input included) and exits 0, and
//! where the line's comment shows the output (text ending in `...`), the output begins with
//! it. `tld4 serve`, which does not exit, is only checked to be a command `--help` knows.
//! (The Python example's output is checked by `python/tests/test_readme.py`.)

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// One README command: its arguments, the text piped into it, the output it shows.
#[derive(Debug)]
struct Example {
    line: String,
    args: Vec<String>,
    stdin: Option<String>,
    shown: Option<String>,
}

/// Splits a command line on spaces, keeping double-quoted parts whole.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The `cargo run --release -- ...` lines of the README's `sh` blocks.
fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (cmd, comment) = match line.split_once(" # ") {
            Some((c, k)) => (c.trim(), Some(k.trim())),
            None => (line.trim(), None),
        };
        let (stdin, cmd) = match cmd.split_once(" | ") {
            Some((pipe, rest)) => (
                Some(format!("{}\n", pipe.trim_start_matches("echo ").trim())),
                rest.trim(),
            ),
            None => (None, cmd),
        };
        let Some(rest) = cmd.strip_prefix("cargo run --release -- ") else {
            continue;
        };
        out.push(Example {
            line: line.to_string(),
            args: words(rest),
            stdin,
            shown: comment
                .and_then(|c| c.strip_suffix("..."))
                .map(|c| c.trim().to_string()),
        });
    }
    out
}

#[test]
fn every_readme_command_runs_and_prints_what_it_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let all = examples(&readme);
    assert!(all.len() >= 6, "too few README commands found: {all:#?}");
    assert!(
        all.iter().any(|e| e.shown.is_some()),
        "no shown output: {all:#?}"
    );
    let dir = std::env::temp_dir().join(format!("tld4-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut ran = 0;
    for e in &all {
        if e.args.first().map(String::as_str) == Some("serve") {
            let help = Command::new(env!("CARGO_BIN_EXE_tld4"))
                .args(["serve", "--help"])
                .output()
                .unwrap();
            assert!(help.status.success(), "{}: serve --help fails", e.line);
            continue;
        }
        // files the command writes go to a temporary directory
        let mut args = e.args.clone();
        for k in 1..args.len() {
            if matches!(args[k - 1].as_str(), "--png" | "--svg") {
                args[k] = dir.join(&args[k]).display().to_string();
            }
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_tld4"))
            .args(&args)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input
            .write_all(e.stdin.as_deref().unwrap_or("").as_bytes())
            .unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: exit {:?}\n{}{}",
            e.line,
            out.status.code(),
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(shown) = &e.shown {
            assert!(
                stdout.starts_with(shown.as_str()),
                "{}: prints {stdout:?}, the README shows {shown:?}",
                e.line
            );
        }
        ran += 1;
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(ran >= 5, "{ran} commands ran");
}

/// One `$ tld4 ...` example of a document: the command (continued over lines ending in `\`),
/// the lines shown after it (`...` stands for any lines), and the exit status an
/// `$ echo $?` after it shows.
#[derive(Debug)]
struct Session {
    file: String,
    command: String,
    shown: Vec<String>,
    status: Option<i32>,
}

/// The `$ tld4 ...` examples of a markdown text's fenced blocks.
fn sessions(file: &str, text: &str) -> Vec<Session> {
    let mut out: Vec<Session> = Vec::new();
    let mut fenced = false;
    let mut current: Option<Session> = None;
    let mut continued = false;
    let mut after_echo = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            out.extend(current.take());
            continue;
        }
        if !fenced {
            continue;
        }
        if continued {
            let s = current.as_mut().expect("a continued command");
            s.command.push(' ');
            s.command
                .push_str(line.trim().trim_end_matches('\\').trim());
            continued = line.trim_end().ends_with('\\');
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ tld4 ") {
            out.extend(current.take());
            let cmd = cmd.split(" # ").next().unwrap_or(cmd);
            continued = cmd.trim_end().ends_with('\\');
            current = Some(Session {
                file: file.to_string(),
                command: cmd.trim().trim_end_matches('\\').trim().to_string(),
                shown: Vec::new(),
                status: None,
            });
            after_echo = false;
        } else if line.trim() == "$ echo $?" {
            after_echo = true;
        } else if line.starts_with("$ ") {
            out.extend(current.take());
        } else if let Some(s) = current.as_mut() {
            if after_echo {
                s.status = line.trim().parse().ok();
                after_echo = false;
            } else {
                s.shown.push(line.to_string());
            }
        }
    }
    out.extend(current);
    out
}

/// Whether `actual` shows the lines of `shown` in order, `...` lines standing for any number
/// of lines (a shown line ending in `...` matches a line that begins with the rest).
fn shows(shown: &[String], actual: &[&str]) -> Result<(), String> {
    let mut at = 0;
    let mut skipping = false;
    for want in shown {
        if want.trim() == "..." {
            skipping = true;
            continue;
        }
        let matches = |got: &str| match want.strip_suffix("...") {
            Some(prefix) => got.starts_with(prefix),
            None => got == want,
        };
        loop {
            let Some(got) = actual.get(at) else {
                return Err(format!("no line {want:?}"));
            };
            at += 1;
            if matches(got) {
                break;
            }
            if !skipping {
                return Err(format!("line {at} is {got:?}, the document shows {want:?}"));
            }
        }
        skipping = false;
    }
    Ok(())
}

#[test]
fn every_documented_tld4_session_prints_what_the_document_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("tld4-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut docs = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push(p);
        }
    }
    let (mut checked, mut skipped) = (0, 0);
    for path in &docs {
        let text = std::fs::read_to_string(path).unwrap();
        for s in sessions(&path.display().to_string(), &text) {
            let mut args = words(&s.command);
            // a file the example names that the repository does not hold (a library from
            // PyPI): the example cannot be run here
            if args
                .iter()
                .any(|a| a.contains(".so") && !root.join(a).exists())
            {
                skipped += 1;
                continue;
            }
            for k in 1..args.len() {
                if matches!(args[k - 1].as_str(), "--png" | "--svg") {
                    args[k] = dir.join(k.to_string()).display().to_string();
                }
            }
            let out = Command::new(env!("CARGO_BIN_EXE_tld4"))
                .args(&args)
                .current_dir(root)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let lines: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
            if let Err(why) = shows(&s.shown, &lines) {
                panic!("{}: `tld4 {}`: {why}\n{stdout}{stderr}", s.file, s.command);
            }
            let want = s.status.unwrap_or(0);
            assert_eq!(
                out.status.code(),
                Some(want),
                "{}: `tld4 {}` exits {:?}, the document says {want}\n{stderr}",
                s.file,
                s.command,
                out.status.code()
            );
            checked += 1;
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        checked >= 4,
        "{checked} sessions checked, {skipped} skipped"
    );
}
