//! The seed corpus: `fuzz/corpus/<target>/<file>`, and `fuzz/corpus/manifest.tsv`, which
//! lists every seed with the verdict it must get (`accept` or `refuse`) and what it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::targets::Target;

/// The manifest's file name inside the corpus folder.
pub const MANIFEST: &str = "manifest.tsv";

/// The committed corpus folder of this crate.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// A corpus that cannot be used: unreadable, or not matching its manifest.
#[derive(Debug, Error)]
pub enum CorpusError {
    /// A file or folder could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A manifest line that is not `target/file<TAB>accept|refuse<TAB>what`.
    #[error("{path}:{line}: {message}")]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A seed file that the manifest does not list.
    #[error("{0}: a seed that {MANIFEST} does not list")]
    Unlisted(String),
    /// A manifest entry without its file.
    #[error("{0}: listed in {MANIFEST}, but there is no such file")]
    Missing(String),
}

/// What a seed must get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Accepted.
    Accept,
    /// Refused with an error.
    Refuse,
}

/// One seed.
#[derive(Clone, Debug)]
pub struct Seed {
    /// `target/file`, as the manifest names it.
    pub name: String,
    /// Its target.
    pub target: Target,
    /// Its bytes.
    pub data: Vec<u8>,
    /// The verdict it must get.
    pub expect: Expect,
}

/// Every seed of the corpus in `dir`, checked against its manifest both ways (no unlisted
/// file, no listed file missing), in manifest order.
pub fn load(dir: &Path) -> Result<Vec<Seed>, CorpusError> {
    let manifest_path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest_path).map_err(|source| CorpusError::Io {
        path: manifest_path.clone(),
        source,
    })?;
    let bad = |line: usize, message: String| CorpusError::Manifest {
        path: manifest_path.clone(),
        line,
        message,
    };
    let mut listed: BTreeMap<String, (Target, Expect)> = BTreeMap::new();
    let mut order = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, verdict, _what] = cols[..] else {
            return Err(bad(i + 1, format!("{} columns, expected 3", cols.len())));
        };
        let target = name
            .split_once('/')
            .and_then(|(t, _)| Target::from_name(t))
            .ok_or_else(|| bad(i + 1, format!("{name:?}: not <target>/<file>")))?;
        let expect = match verdict {
            "accept" => Expect::Accept,
            "refuse" => Expect::Refuse,
            other => return Err(bad(i + 1, format!("{other:?}: expected accept or refuse"))),
        };
        if listed.insert(name.to_string(), (target, expect)).is_some() {
            return Err(bad(i + 1, format!("{name} is listed twice")));
        }
        order.push(name.to_string());
    }
    for target in Target::ALL {
        let folder = dir.join(target.name());
        let entries = std::fs::read_dir(&folder).map_err(|source| CorpusError::Io {
            path: folder.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| CorpusError::Io {
                path: folder.clone(),
                source,
            })?;
            let name = format!("{}/{}", target.name(), entry.file_name().to_string_lossy());
            if !listed.contains_key(&name) {
                return Err(CorpusError::Unlisted(name));
            }
        }
    }
    order
        .into_iter()
        .map(|name| {
            let (target, expect) = listed[&name];
            let path = dir.join(&name);
            let data = std::fs::read(&path).map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => CorpusError::Missing(name.clone()),
                _ => CorpusError::Io { path, source },
            })?;
            Ok(Seed {
                name,
                target,
                data,
                expect,
            })
        })
        .collect()
}
