//! Any file that holds cubins: a cubin, a fat binary, or a host ELF file (executable, shared
//! library, object) with embedded device code.

use object::{Object, ObjectSection};

use crate::arch::SmArch;
use crate::cubin::{is_cuda_elf, Cubin};
use crate::error::CubinError;
use crate::fatbin::{entries, is_fatbin, EntryKind, FATBIN_SECTION};

/// Where a cubin came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The file is the cubin.
    File,
    /// Entry `index` of a fat binary (the file itself, or a host file's `.nv_fatbin`).
    FatbinEntry {
        /// The entry's place among all entries.
        index: usize,
    },
}

/// One cubin found in a file.
#[derive(Clone, Debug)]
pub struct Image<'data> {
    /// Where in the file.
    pub origin: Origin,
    /// The cubin.
    pub cubin: Cubin<'data>,
}

/// The ELF magic, `7f 45 4c 46` (System V gABI, e_ident).
pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// Whether a file's first bytes are the ELF magic.
pub fn is_elf(data: &[u8]) -> bool {
    data.starts_with(ELF_MAGIC)
}

/// Every cubin for one of `supported` in `data`: the file itself if it is a cubin (an error
/// if it was built for another architecture), else the ELF entries of its fat binaries for
/// these architectures (other entries are skipped; a compressed one is an error).
pub fn open<'data>(
    data: &'data [u8],
    supported: &[SmArch],
) -> Result<Vec<Image<'data>>, CubinError> {
    if is_cuda_elf(data) {
        return Ok(vec![Image {
            origin: Origin::File,
            cubin: Cubin::parse(data, supported)?,
        }]);
    }
    if is_fatbin(data) {
        return from_fatbin(data, false, supported);
    }
    if is_elf(data) {
        let file = object::File::parse(data).map_err(|source| CubinError::Elf {
            place: None,
            source,
        })?;
        let section =
            file.section_by_name(FATBIN_SECTION)
                .ok_or_else(|| CubinError::NoDeviceCode {
                    architecture: format!("{:?}", file.architecture()),
                })?;
        let bytes = section.data().map_err(|source| CubinError::Elf {
            place: Some(format!("section {FATBIN_SECTION}")),
            source,
        })?;
        return from_fatbin(bytes, true, supported);
    }
    Err(CubinError::NotRecognized {
        start: data
            .iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" "),
    })
}

fn from_fatbin<'data>(
    data: &'data [u8],
    in_section: bool,
    supported: &[SmArch],
) -> Result<Vec<Image<'data>>, CubinError> {
    let all = entries(data, in_section)?;
    let mut images = Vec::new();
    for e in &all {
        if e.kind != EntryKind::Elf || !supported.contains(&e.arch) {
            continue;
        }
        if let Some(method) = e.compression() {
            return Err(CubinError::Compressed {
                index: e.index,
                arch: e.arch,
                method,
                flags: e.flags,
            });
        }
        let cubin = Cubin::parse(e.payload, supported).map_err(|err| match err {
            CubinError::Elf { source, .. } => CubinError::Elf {
                place: Some(format!("fat-binary entry {}", e.index)),
                source,
            },
            other => other,
        })?;
        images.push(Image {
            origin: Origin::FatbinEntry { index: e.index },
            cubin,
        });
    }
    if images.is_empty() {
        return Err(CubinError::NoSupportedCubin {
            supported: supported.to_vec(),
            entries: all.iter().map(|e| e.describe()).collect(),
        });
    }
    Ok(images)
}
