//! One kernel of a file, by name: the rule the C ABI and scenario cubin references share. The
//! kernel must be in exactly one cubin of the file (docs/sources.md, Decisions); a name two
//! cubins have (the same kernel built for sm_100 and sm_100a, or in two libraries' fat
//! binaries) is refused, naming where it is.

use std::collections::HashSet;

use thiserror::Error;

use crate::arch::SmArch;
use crate::error::{names, CubinError, LookupError};
use crate::open::{visit, Image, Origin};

/// Why no single kernel of the name was found.
#[derive(Debug, Error)]
pub enum FindError {
    /// The file, or one of its entries, cannot be opened.
    #[error(transparent)]
    Open(CubinError),
    /// No cubin has the kernel.
    #[error("no kernel {kernel}; kernels: {}", if available.is_empty() { "none".to_string() } else { names(available) })]
    NoKernel {
        /// The name asked for.
        kernel: String,
        /// Every kernel of every cubin opened, each name once.
        available: Vec<String>,
    },
    /// One cubin has several code sections of the name ([`LookupError::Ambiguous`]).
    #[error("{} code sections are named .text.{kernel}; name one as nvdisasm does: {}", candidates.len(), names(candidates))]
    AmbiguousName {
        /// The name asked for.
        kernel: String,
        /// The sections' unique names (`name`, `name__1`, ...).
        candidates: Vec<String>,
    },
    /// Several cubins of the file have the kernel.
    #[error("kernel {kernel} is in {} cubins of the file (entries {}); extract the one meant with `cuobjdump -xelf all FILE` and name that cubin", places.len(), places.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", "))]
    InSeveral {
        /// The kernel.
        kernel: String,
        /// Where each cubin holding it is.
        places: Vec<Origin>,
    },
}

/// Finds the one cubin of `data` (built for one of `supported`) that has `kernel` (as
/// nvdisasm names it), and returns its origin with what `f` makes of it.
pub fn find_kernel<T>(
    data: &[u8],
    supported: &[SmArch],
    kernel: &str,
    mut f: impl FnMut(&Image<'_>) -> T,
) -> Result<(Origin, T), FindError> {
    let mut found: Option<T> = None;
    let mut places: Vec<Origin> = Vec::new();
    let mut available: Vec<String> = Vec::new();
    let mut listed: HashSet<String> = HashSet::new();
    let mut failure: Option<FindError> = None;
    visit(data, supported, |image| {
        if failure.is_some() {
            return;
        }
        let image = match image {
            Ok(i) => i,
            Err(e) => {
                failure = Some(FindError::Open(e));
                return;
            }
        };
        match image.cubin.kernel(kernel) {
            Ok(_) => {
                if found.is_none() {
                    found = Some(f(&image));
                }
                places.push(image.origin.clone());
            }
            Err(LookupError::Ambiguous { kernel, candidates }) => {
                failure = Some(FindError::AmbiguousName { kernel, candidates })
            }
            Err(_) => {
                for name in image.cubin.kernel_names() {
                    if listed.insert(name.clone()) {
                        available.push(name);
                    }
                }
            }
        }
    })
    .map_err(FindError::Open)?;
    if let Some(e) = failure {
        return Err(e);
    }
    match (found, places.len()) {
        (Some(t), 1) => Ok((places.remove(0), t)),
        (Some(_), _) => Err(FindError::InSeveral {
            kernel: kernel.to_string(),
            places,
        }),
        (None, _) => Err(FindError::NoKernel {
            kernel: kernel.to_string(),
            available,
        }),
    }
}
