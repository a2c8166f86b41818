//! Standard input and output for every command, in one place: `-` reads standard input, and a
//! closed standard output (`tld4 demo | head -1`) ends the command quietly with exit code 0,
//! the reader having stopped reading (docs/sources.md, Decisions).
//!
//! Commands write through [`out`] and return its `io::Error`s; `main` recognises a broken
//! pipe anywhere in an error's chain ([`is_broken_pipe`]). No command prints with `print!`
//! (which panics on a closed pipe).

use std::error::Error;
use std::io::{self, Read, Write};
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

/// The text of file `path`, or standard input for `-`; errors name the file.
pub fn read_text(path: &Path) -> Result<String, String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("reading standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))
    }
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

/// The bytes of file `path`, or standard input for `-`; errors name the file.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut b = Vec::new();
        io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| format!("reading standard input: {e}"))?;
        Ok(b)
    } else {
        std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))
    }
}

/// The name of an input for messages: `standard input` for `-`.
pub fn name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}
