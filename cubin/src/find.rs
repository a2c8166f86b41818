//! One kernel of a file, by name: the rule the C ABI and scenario cubin references share. The
//! kernel must be in exactly one cubin of the file, or, where several cubins have it, in
//! exactly one cubin of the default architecture (sm_100 and its variants: the decoder's
//! default, as `tld4 disasm --arch`'s) (docs/sources.md, Decisions); otherwise it is refused,
//! naming where it is (the same kernel built for sm_100 and sm_100a, or in two libraries' fat
//! binaries).

use std::collections::HashSet;
use std::fmt;

use thiserror::Error;

use crate::arch::{arch_number, SmArch, Target};
use crate::error::{names, CubinError, LookupError};
use crate::open::{visit, Image, Origin};

/// Where one cubin holding a kernel is: its place in the file and its architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Where in the file.
    pub origin: Origin,
    /// The cubin's architecture.
    pub target: Target,
}

impl fmt::Display for Place {
    /// `#4 (sm_100a)`, `(bar.o)#1 (sm_90)`, or `(sm_90)` for the file itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = self.origin.to_string();
        if origin.is_empty() {
            write!(f, "({})", self.target)
        } else {
            write!(f, "{origin} ({})", self.target)
        }
    }
}

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
    /// Several cubins of the file have the kernel (several of the default architecture, or
    /// several of others and none of it).
    #[error("kernel {kernel} is in {} cubins of the file (entries {}); extract the one meant with `cuobjdump -xelf all FILE` and name that cubin", places.len(), places.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", "))]
    InSeveral {
        /// The kernel.
        kernel: String,
        /// Where each cubin holding it is.
        places: Vec<Place>,
    },
}

/// Finds the one cubin of `data` (built for one of `supported`) that has `kernel` (as
/// nvdisasm names it), and returns where it is with what `f` makes of it. Where several
/// cubins have it, the one of the default architecture (sm_100, any variant) is taken if
/// there is exactly one such.
pub fn find_kernel<T>(
    data: &[u8],
    supported: &[SmArch],
    kernel: &str,
    mut f: impl FnMut(&Image<'_>) -> T,
) -> Result<(Place, T), FindError> {
    let mut hits: Vec<(Place, T)> = Vec::new();
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
                let place = Place {
                    origin: image.origin.clone(),
                    target: image.target,
                };
                hits.push((place, f(&image)));
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
    if hits.len() > 1 {
        let default = arch_number(tld4_decoder::Arch::default());
        let (of_default, others): (Vec<_>, Vec<_>) = hits
            .into_iter()
            .partition(|(p, _)| Some(p.target.sm) == default);
        hits = if of_default.is_empty() {
            others
        } else {
            of_default
        };
    }
    match hits.len() {
        0 => Err(FindError::NoKernel {
            kernel: kernel.to_string(),
            available,
        }),
        1 => Ok(hits.remove(0)),
        _ => Err(FindError::InSeveral {
            kernel: kernel.to_string(),
            places: hits.into_iter().map(|(p, _)| p).collect(),
        }),
    }
}
