//! What the command-line tests share: running the `tld4` binary as a user runs it.

// Each test crate uses the part it needs.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `tld4 ARGS...` in `dir` (the test's own directory when `None`) with `stdin` as its
/// standard input; standard output and error are captured.
pub fn tld4_in(args: &[&str], dir: Option<&Path>, stdin: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tld4"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().expect("run tld4");
    // The command may stop reading early (a bad argument): a failed write is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Runs `tld4 ARGS...` with `stdin` as its standard input.
pub fn tld4_stdin(args: &[&str], stdin: &str) -> Output {
    tld4_in(args, None, stdin)
}

/// Runs `tld4 ARGS...` with an empty standard input.
pub fn tld4(args: &[&str]) -> Output {
    tld4_in(args, None, "")
}

/// Output bytes as text (invalid UTF-8 shown as U+FFFD).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A file in the temp directory holding `text` (named after the process and `name`, so the
/// test modules' files must take distinct names), removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(name: &str, text: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("tld4-test-{}-{name}.json", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
