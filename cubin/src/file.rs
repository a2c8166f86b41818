//! Opening a file by its path: the one function every path goes through (`tld4 scan`,
//! `tld4 disasm FILE`, scenario cubin references, the C ABI's `tld4_cubin_find_file`). Regular
//! files only, at most [`MAX_FILE_BYTES`], mapped rather than read: only the pages of the
//! sections read become resident.

use std::fs::{File, FileType};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The largest file opened (4 GiB): more than any host library with embedded cubins seen, and
/// a bound on what a mistyped path (`/proc/kcore`) can make a reader map. A limit of this
/// crate, not of the file formats.
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// Why a path could not be opened.
#[derive(Debug, Error)]
pub enum FileError {
    /// The operating system's error (no such file, permission denied, ...).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A directory, device, FIFO or socket: it could be read forever (`/dev/zero`) or block
    /// (a FIFO without a writer).
    #[error("cannot read {}: it is {what}, not a regular file", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is (`a character device`).
        what: &'static str,
    },
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("cannot read {}: {size} bytes, more than the {MAX_FILE_BYTES} this reader opens", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size.
        size: u64,
    },
}

impl FileError {
    /// Whether the path does not exist (a caller may then read its argument otherwise).
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A file's bytes, mapped.
#[derive(Debug)]
pub struct FileBytes(Option<memmap2::Mmap>);

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.as_deref().unwrap_or(&[])
    }
}

/// The granularity `release` rounds to: pages of 4 KiB (x86-64 and most aarch64 kernels; a
/// larger page only makes a release drop less).
const PAGE: usize = 4096;

impl FileBytes {
    /// Tells the kernel that the whole pages inside `part` (a slice of these bytes) are not
    /// needed again: they stop counting as resident, and would be read again from the file if
    /// touched. Keeps a scan's memory to the entry at hand instead of every entry read.
    pub fn release(&self, part: &[u8]) {
        let Some(map) = &self.0 else {
            return;
        };
        let base = map.as_ptr() as usize;
        let start = part.as_ptr() as usize;
        let Some(offset) = start.checked_sub(base) else {
            return;
        };
        if offset + part.len() > map.len() {
            return;
        }
        let first = offset.div_ceil(PAGE) * PAGE;
        let end = (offset + part.len()) / PAGE * PAGE;
        if end > first {
            #[cfg(unix)]
            // SAFETY: the map is a read-only mapping of a file: dropping its pages discards no
            // writes, and a later read sees the file's bytes again (madvise(2), MADV_DONTNEED
            // on a file-backed private mapping). The range lies inside the map.
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, first, end - first)
            };
        }
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

/// Maps the regular file at `path` (symbolic links followed). The type is checked before the
/// file is opened (opening a FIFO blocks until a writer comes) and again on the opened file.
pub fn map_file(path: &Path) -> Result<FileBytes, FileError> {
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
        if meta.len() > MAX_FILE_BYTES {
            return Err(FileError::TooLarge {
                path: path.to_path_buf(),
                size: meta.len(),
            });
        }
        Ok(meta.len())
    };
    check(std::fs::metadata(path).map_err(io)?)?;
    let file = File::open(path).map_err(io)?;
    let len = check(file.metadata().map_err(io)?)?;
    if len == 0 {
        return Ok(FileBytes(None));
    }
    // SAFETY: the map is read only. Another process truncating or rewriting the file while it
    // is mapped would change (or, truncated, fault on) the bytes read; the readers of this
    // crate check every offset against the map's length, as for any untrusted bytes.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    // Readers jump from header to header: without read-ahead only the pages read become
    // resident (a 61 MB .nv_fatbin read for its 66 sm_100 entries: 50 MB resident with the
    // kernel's read-ahead; docs/sources.md, Fat binaries). Advice only: ignored where refused.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Random);
    Ok(FileBytes(Some(map)))
}
