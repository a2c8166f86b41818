//! Standard input and output for every command, in one place: `-` reads standard input, and a
//! closed standard output (`tld4 demo | head -1`) ends the command quietly with exit code 0,
//! the reader having stopped reading (docs/sources.md, Decisions).
//!
//! Commands write through [`out`] and return its `io::Error`s; `main` recognises a broken
//! pipe anywhere in an error's chain ([`is_broken_pipe`]). No command prints with `print!`
//! (which panics on a closed pipe).

use std::error::Error;
use std::io::{self, Write};
use std::path::Path;

/// Standard output, buffered; flush it (or drop it) before returning.
pub fn out() -> impl Write {
    io::BufWriter::new(io::stdout().lock())
}

/// Whether `e`, or an error in its `source()` chain, is a broken pipe.
pub fn is_broken_pipe(e: &(dyn Error + 'static)) -> bool {
    let mut cur: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<io::Error>() {
            if io.kind() == io::ErrorKind::BrokenPipe {
                return true;
            }
        }
        cur = err.source();
    }
    false
}

/// The text of file `path`, or standard input for `-`; errors name the file. A regular file
/// only (a device or FIFO is refused), at most `tld4_cubin::MAX_TEXT_BYTES` (the one
/// whole-input reader, `tld4_cubin::read_text`).
pub fn read_text(path: &Path) -> Result<String, String> {
    tld4_cubin::read_text(path).map_err(|e| e.to_string())
}

/// The directory relative file names inside file `path` are read from: its own directory,
/// or the current directory for standard input.
pub fn base_dir(path: &Path) -> &Path {
    if path.as_os_str() == "-" {
        Path::new("")
    } else {
        path.parent().unwrap_or(Path::new(""))
    }
}

/// The bytes of file `path`, or standard input for `-`; errors name the file. A regular file
/// only, at most `tld4_cubin::MAX_FILE_BYTES` (`tld4_cubin::read_input`).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    tld4_cubin::read_input(path, tld4_cubin::MAX_FILE_BYTES).map_err(|e| e.to_string())
}

/// The name of an input for messages: `standard input` for `-`.
pub fn name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// `s` with its control characters escaped (`\u{1b}`, `\0`, `\n`, ...): a kernel name or a file
/// name may hold any byte, and such bytes must not reach the user's terminal raw.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `eprintln!` with the line's control characters escaped ([`escape_controls`]): every line
/// the CLI writes to standard error goes through it.
macro_rules! elog {
    ($($t:tt)*) => {
        eprintln!("{}", $crate::output::escape_controls(&format!($($t)*)))
    };
}
pub(crate) use elog;

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            escape_controls("ker\u{1b}[2Jnel\0\n\t: é ok"),
            "ker\\u{1b}[2Jnel\\u{0}\\n\\t: é ok"
        );
    }
}
