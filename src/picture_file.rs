//! Writing a picture (`tld4 explain --png/--svg`) into what its path is
//! (docs/sources.md, Decisions):
//! - a symbolic link is followed (the link stays; its target receives the picture);
//! - a regular file, or a path where nothing is, is replaced atomically: the picture goes to a
//!   temporary file in the same directory, renamed over the path, so a failed write leaves any
//!   earlier file whole; a new file gets the mode the umask leaves of 0666 (as `>` in a shell
//!   gives), an existing one keeps its mode;
//! - a FIFO or a character device is written directly, never replaced (a FIFO without a
//!   reader is refused at once rather than waited on);
//! - a directory, a block device or a socket is refused.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The most symbolic links followed in a row (Linux's own limit, `ELOOP`).
const MAX_LINKS: usize = 40;

/// Writes `bytes` into what `path` is (the module's rules); errors name the path.
pub fn write_picture(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let target = follow_links(path).map_err(|e| at(&e))?;
    match std::fs::metadata(&target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            replace_atomically(&target, None, bytes).map_err(|e| at(&e))
        }
        Err(e) => Err(at(&e)),
        Ok(m) if m.is_file() => replace_atomically(&target, Some(&m), bytes).map_err(|e| at(&e)),
        Ok(m) if is_stream(&m) => write_directly(&target, bytes).map_err(|e| at(&e)),
        Ok(m) => Err(at(&format!(
            "it is {}; a picture is written to a regular file, a FIFO or a character device",
            what(&m)
        ))),
    }
}

/// `path` with its symbolic links followed, the last one's target whether it exists or not.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links in a row"
    )))
}

/// A FIFO or a character device: written to, never replaced.
fn is_stream(m: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_fifo() || m.file_type().is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        false
    }
}

fn what(m: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if m.file_type().is_block_device() {
            return "a block device";
        }
        if m.file_type().is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The temporary-file-and-rename write over the regular file (or nothing) at `target`.
fn replace_atomically(
    target: &Path,
    existing: Option<&Metadata>,
    bytes: &[u8],
) -> std::io::Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tld4-picture-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Created with 0666: the kernel applies the umask, as for any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    if let Some(m) = existing {
        tmp.as_file().set_permissions(m.permissions())?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// Writes into the FIFO or character device at `target`, in place.
fn write_directly(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let file = open_for_writing(target)?;
    (&file).write_all(bytes)?;
    Ok(())
}

/// Opens without blocking (a FIFO without a reader fails with ENXIO instead of waiting for
/// one), then blocking again for the write.
#[cfg(unix)]
fn open_for_writing(target: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let file = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(target)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ENXIO) {
                std::io::Error::other(
                    "it is a FIFO that no process reads; refusing to wait for a reader",
                )
            } else {
                e
            }
        })?;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns, with integer arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

#[cfg(not(unix))]
fn open_for_writing(target: &Path) -> std::io::Result<File> {
    OpenOptions::new().write(true).open(target)
}
