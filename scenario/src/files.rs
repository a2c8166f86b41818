//! Files a scenario names (memory region files; cubin references use the same confinement
//! rule): how they are found, which may be read, and the bounds on what is read.
//!
//! A region file may be any path (absolute, or with `..`), and its bytes appear in `tld4
//! run`'s output (the texels gathered, `--addresses`), so a scenario from someone else can
//! read any file the reader may. [`LoadOptions::confine`] (`tld4 run --confine`) refuses
//! every file outside the scenario's directory (docs/sources.md, Decisions).

use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::error::{err, ScenarioError};

/// How a scenario is loaded ([`crate::load_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// The most bytes the scenario's memory regions may hold together, checked before each
    /// region is read or allocated ([`MAX_SCENARIO_MEMORY_BYTES`] by default; a server may
    /// give less).
    pub memory_limit: u64,
    /// Files the scenario names (memory region files, cubin references) must be relative
    /// paths without `..` that stay inside the scenario's directory after symbolic links are
    /// followed: a scenario from an untrusted source (a teaching server) then reads nothing
    /// else. Off by default (`tld4 run` reads what the scenario names, as a compiler reads
    /// its `#include`s).
    pub confine: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            memory_limit: MAX_SCENARIO_MEMORY_BYTES,
            confine: false,
        }
    }
}

impl LoadOptions {
    /// The same options with files confined to the scenario's directory
    /// ([`LoadOptions::confine`]).
    pub fn confine(self, on: bool) -> Self {
        LoadOptions {
            confine: on,
            ..self
        }
    }

    /// The same options with another bound on the scenario's memory
    /// ([`LoadOptions::memory_limit`]).
    pub fn memory_limit(self, bytes: u64) -> Self {
        LoadOptions {
            memory_limit: bytes,
            ..self
        }
    }
}

/// The most bytes a `file` region may hold: 1 GiB, the texture unit's bound on one texture
/// (`MAX_TEXTURE_BYTES`), so a mistaken file name cannot exhaust memory.
pub const MAX_REGION_FILE_BYTES: u64 = tld4_textures::MAX_TEXTURE_BYTES;

/// The most bytes all of a scenario's memory regions may hold together: 2 GiB, a choice
/// (docs/sources.md, Decisions): two textures of the largest size, and a bound on what one
/// scenario can make the process allocate.
pub const MAX_SCENARIO_MEMORY_BYTES: u64 = 2 * tld4_textures::MAX_TEXTURE_BYTES;

/// Where the file `name` (as written in the scenario) is: relative to `dir`. With
/// `options.confine`, a name that is absolute, has a `..` or resolves (symbolic links
/// followed) outside `dir` is an error at `path`.
pub(crate) fn locate(
    dir: &Path,
    name: &Path,
    options: &LoadOptions,
    path: &str,
) -> Result<PathBuf, ScenarioError> {
    let at = dir.join(name);
    if !options.confine {
        return Ok(at);
    }
    let outside = |why: &dyn fmt::Display| {
        err(
            path,
            format!(
                "`{}` is outside the scenario's directory ({why}); with --confine a scenario reads only files in its own directory, named relative to it without `..`",
                name.display()
            ),
        )
    };
    if name
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(outside(&"an absolute path or `..`"));
    }
    let cannot = |e: std::io::Error| err(path, format!("cannot read `{}`: {e}", name.display()));
    let root = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let root = root.canonicalize().map_err(cannot)?;
    let real = at.canonicalize().map_err(cannot)?;
    if !real.starts_with(&root) {
        return Err(outside(&"a symbolic link leads out of it"));
    }
    Ok(real)
}

/// The bytes of a `file` region (`name` as written, found at `at`): a regular file (not a
/// device or pipe, which could block or never end) of at most [`MAX_REGION_FILE_BYTES`],
/// and at most `room` bytes (what the scenario's total bound `limit` leaves), checked before
/// any allocation, which is fallible. Errors are at `path` (`memory[N].file`).
pub(crate) fn read_region_file(
    at: &Path,
    name: &str,
    (room, limit): (u64, u64),
    path: &str,
) -> Result<Vec<u8>, ScenarioError> {
    let cannot = |e: &dyn fmt::Display| {
        err(
            path,
            format!("cannot read `{name}` (at {}): {e}", at.display()),
        )
    };
    // The one whole-input reader: a regular file (checked before opening and again once
    // open, opened non-blocking), read within the limit with fallible allocation.
    let (file, len) = tld4_cubin::open_regular(at).map_err(|e| cannot(&e))?;
    if len > MAX_REGION_FILE_BYTES {
        return Err(cannot(&format!(
            "{len} bytes, more than a region file may hold ({MAX_REGION_FILE_BYTES})"
        )));
    }
    if len > room {
        return Err(too_much(path, len, room, limit));
    }
    tld4_cubin::read_limited(file, len, MAX_REGION_FILE_BYTES.min(room), at).map_err(|e| cannot(&e))
}

/// The error of a region crossing the scenario's total bound (`limit` bytes, `room` left).
pub(crate) fn too_much(path: &str, len: u64, room: u64, limit: u64) -> ScenarioError {
    err(
        path,
        format!(
            "{len} bytes, more than the {room} the scenario's memory has left: all regions together hold at most {limit} bytes"
        ),
    )
}
