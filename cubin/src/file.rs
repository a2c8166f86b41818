//! Reading a whole input by its path: the one helper every whole-file read goes through
//! (`tld4 scan`, `tld4 disasm FILE`, scenarios, gather cases and assembler input, scenario
//! cubin references and memory regions, the C ABI's `tld4_cubin_find_file`, the Python
//! package). Regular files only (a device, FIFO or socket is refused before it is opened, and
//! again once open), `-` for standard input where a command allows it, each read bounded by a
//! limit checked before and while reading, with fallible allocation.
//!
//! Files are read, not mapped: a mapped file truncated by another process while it is read
//! faults (SIGBUS) on the next access past its new end, and no reader can turn that into an
//! error. A read sees the bytes the file had when it was read (docs/sources.md, Decisions).

use std::fs::{File, FileType};
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The largest file read as compiled code (4 GiB): more than any host library with embedded
/// cubins seen, and a bound on what a mistyped path (`/proc/kcore`) can make a reader
/// allocate. A limit of this crate, not of the file formats.
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// The largest text input read whole (256 MiB): a scenario, a gather cases file, assembler
/// input. Far above any committed example (the largest is under 1 MiB), far below what would
/// exhaust a machine's memory (`/dev/zero` through standard input stops here). A choice of the
/// project (docs/sources.md, Decisions).
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// Why an input could not be read.
#[derive(Debug, Error)]
pub enum FileError {
    /// The operating system's error (no such file, permission denied, ...).
    #[error("cannot read {}: {source}", shown(path))]
    Io {
        /// The path (`-`: standard input).
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A directory, device, FIFO or socket: it could be read forever (`/dev/zero`) or block
    /// (a FIFO without a writer).
    #[error("cannot read {}: it is {what}, not a regular file", shown(path))]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is (`a character device`).
        what: &'static str,
    },
    /// Larger than the reader's limit (or grew past it while read).
    #[error(
        "cannot read {}: {size} bytes or more, more than the {limit} this reader takes",
        shown(path)
    )]
    TooLarge {
        /// The path (`-`: standard input).
        path: PathBuf,
        /// Its size (for standard input or a growing file: the bytes read before stopping).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The memory for the file's bytes could not be had.
    #[error("cannot read {}: no memory for its {size} bytes", shown(path))]
    OutOfMemory {
        /// The path.
        path: PathBuf,
        /// The bytes asked for.
        size: u64,
    },
    /// Not UTF-8 text where text was expected.
    #[error("cannot read {}: not UTF-8 text ({source})", shown(path))]
    NotText {
        /// The path.
        path: PathBuf,
        /// Where the first bad byte is.
        source: std::string::FromUtf8Error,
    },
}

/// `standard input` for `-`, else the path.
fn shown(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

impl FileError {
    /// Whether the path does not exist (a caller may then read its argument otherwise).
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A file's bytes, read whole.
#[derive(Debug, Default)]
pub struct FileBytes(Vec<u8>);

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl FileBytes {
    /// The bytes, owned.
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }
}

fn kind(t: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The regular file at `path` (symbolic links followed), opened, and its size. The type is
/// checked before the file is opened and again on the opened file; it is opened non-blocking
/// (opening a FIFO blocks until a writer comes, should the path be swapped in between).
pub fn open_regular(path: &Path) -> Result<(File, u64), FileError> {
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let check = |meta: std::fs::Metadata| {
        if !meta.is_file() {
            return Err(FileError::NotRegular {
                path: path.to_path_buf(),
                what: kind(meta.file_type()),
            });
        }
        Ok(meta.len())
    };
    check(std::fs::metadata(path).map_err(io)?)?;
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let file = o.open(path).map_err(io)?;
    let len = check(file.metadata().map_err(io)?)?;
    Ok((file, len))
}

/// Reads `reader` to its end, at most `limit` bytes (`expected`: the size to reserve first,
/// checked against `limit` before any allocation, which is fallible). `path` names the input
/// in errors.
pub fn read_limited(
    reader: impl Read,
    expected: u64,
    limit: u64,
    path: &Path,
) -> Result<Vec<u8>, FileError> {
    let too_large = |size| FileError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if expected > limit {
        return Err(too_large(expected));
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(expected as usize)
        .map_err(|_| FileError::OutOfMemory {
            path: path.to_path_buf(),
            size: expected,
        })?;
    // Grown in fallible steps, never past the limit plus one byte (which tells "more").
    let mut reader = reader.take(limit.saturating_add(1));
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(FileError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        bytes.try_reserve(n).map_err(|_| FileError::OutOfMemory {
            path: path.to_path_buf(),
            size: bytes.len() as u64 + n as u64,
        })?;
        bytes.extend_from_slice(&chunk[..n]);
    }
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `limit` of them ([`open_regular`],
/// [`read_limited`]).
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_regular(path)?;
    read_limited(file, len, limit, path)
}

/// The bytes of `path`, or of standard input for `-`, at most `limit` of them.
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    if path.as_os_str() == "-" {
        read_limited(std::io::stdin().lock(), 0, limit, path)
    } else {
        read_regular(path, limit)
    }
}

fn utf8(bytes: Vec<u8>, path: &Path) -> Result<String, FileError> {
    String::from_utf8(bytes).map_err(|source| FileError::NotText {
        path: path.to_path_buf(),
        source,
    })
}

/// The UTF-8 text of `path`, or of standard input for `-`, at most [`MAX_TEXT_BYTES`].
pub fn read_text(path: &Path) -> Result<String, FileError> {
    utf8(read_input(path, MAX_TEXT_BYTES)?, path)
}

/// The UTF-8 text of the regular file `path` (`-` is a file name here), at most
/// [`MAX_TEXT_BYTES`].
pub fn read_text_file(path: &Path) -> Result<String, FileError> {
    utf8(read_regular(path, MAX_TEXT_BYTES)?, path)
}

/// Reads the regular file at `path` (symbolic links followed), at most [`MAX_FILE_BYTES`]:
/// the bytes of compiled code. (`-` is a file name here; a command that takes standard
/// input calls [`read_input`].)
pub fn read_file(path: &Path) -> Result<FileBytes, FileError> {
    read_regular(path, MAX_FILE_BYTES).map(FileBytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tld4-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn an_endless_input_stops_at_the_limit_with_an_error() {
        // Standard input fed from /dev/zero, say: an endless reader.
        let e = read_limited(std::io::repeat(0), 0, 1 << 20, Path::new("-")).unwrap_err();
        assert!(
            matches!(e, FileError::TooLarge { limit, .. } if limit == 1 << 20),
            "{e}"
        );
        assert!(e.to_string().contains("standard input"), "{e}");
        // A stated size past the limit is refused before any allocation.
        let e = read_limited(std::io::empty(), u64::MAX, 10, Path::new("x")).unwrap_err();
        assert!(matches!(e, FileError::TooLarge { .. }), "{e}");
        assert_eq!(
            read_limited(&b"abc"[..], 3, 3, Path::new("x")).unwrap(),
            b"abc"
        );
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_before_they_are_read() {
        let d = temp_dir("special");
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path inside the test's own directory.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for e in [
            read_regular(&fifo, 10).unwrap_err(),
            read_text(&fifo).unwrap_err(),
            read_file(&fifo).unwrap_err(),
        ] {
            assert!(
                matches!(e, FileError::NotRegular { what: "a FIFO", .. }),
                "{e}"
            );
        }
        assert!(matches!(
            read_text(&d).unwrap_err(),
            FileError::NotRegular {
                what: "a directory",
                ..
            }
        ));
        // A character device like /dev/zero, made in the test's directory (root only).
        let dev = d.join("zero");
        let c = std::ffi::CString::new(dev.as_os_str().to_str().unwrap()).unwrap();
        // SAFETY: as above; makedev(1, 5) is the zero device's number.
        let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 5)) };
        if made == 0 {
            let e = read_text(&dev).unwrap_err();
            assert!(
                matches!(
                    e,
                    FileError::NotRegular {
                        what: "a character device",
                        ..
                    }
                ),
                "{e}"
            );
        } else {
            println!("skipped the character-device case: mknod needs root");
        }
        // A regular file over the limit, and text that is not UTF-8.
        let big = d.join("big");
        std::fs::write(&big, [0xffu8; 32]).unwrap();
        assert!(matches!(
            read_regular(&big, 16).unwrap_err(),
            FileError::TooLarge { size: 32, .. }
        ));
        assert!(matches!(
            read_text(&big).unwrap_err(),
            FileError::NotText { .. }
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
