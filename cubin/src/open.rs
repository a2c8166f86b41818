//! Any file that holds cubins: a cubin, a fat binary, a host ELF file (executable, shared
//! library, object, relocatable object) with embedded device code, or a static archive of such
//! objects. Cubins are visited one at a time, so that at most one decompressed entry is in
//! memory at once.

use std::collections::BTreeMap;
use std::fmt;

use object::read::archive::ArchiveFile;
use object::{Object, ObjectSection};

use crate::arch::{SmArch, Target};
use crate::cubin::{is_cuda_elf, Cubin};
use crate::decompress::Decompressor;
use crate::error::CubinError;
use crate::fatbin::{entries, is_fatbin, FatbinEntry, DEVICE_CODE_SECTIONS};

/// Where a cubin came from: `libfoo.a(bar.o)#3` is ELF entry 3 of member `bar.o`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Origin {
    /// The archive member holding it, if the file is an archive.
    pub member: Option<String>,
    /// Its ELF entry number as cuobjdump counts them (from 1, over the whole file), if it is
    /// a fat-binary entry; `None` where the file (or member) is the cubin itself.
    pub entry: Option<u32>,
}

impl fmt::Display for Origin {
    /// What follows the file's name: `(bar.o)#3`, `#3`, or nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = &self.member {
            write!(f, "({m})")?;
        }
        if let Some(n) = self.entry {
            write!(f, "#{n}")?;
        }
        Ok(())
    }
}

/// One cubin found in a file.
#[derive(Clone, Debug)]
pub struct Image<'data> {
    /// Where in the file.
    pub origin: Origin,
    /// Its architecture: from the fat-binary entry's flags (with the `a`/`f` variant), or for
    /// a bare cubin from its ELF header.
    pub target: Target,
    /// The cubin.
    pub cubin: Cubin<'data>,
}

/// The ELF entries not opened, counted by architecture.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped(BTreeMap<Target, usize>);

impl Skipped {
    /// Whether none was skipped.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many were skipped.
    pub fn count(&self) -> usize {
        self.0.values().sum()
    }

    /// Each architecture skipped and how many of its entries.
    pub fn by_target(&self) -> impl Iterator<Item = (Target, usize)> + '_ {
        self.0.iter().map(|(&t, &n)| (t, n))
    }

    fn add(&mut self, t: Target) {
        *self.0.entry(t).or_insert(0) += 1;
    }
}

impl fmt::Display for Skipped {
    /// `3 entries for sm_90, sm_120 skipped`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.count();
        let archs: Vec<String> = self.0.keys().map(|t| t.to_string()).collect();
        let noun = if n == 1 { "entry" } else { "entries" };
        write!(f, "{n} {noun} for {} skipped", archs.join(", "))
    }
}

/// What [`visit`] found besides the cubins it passed on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visited {
    /// Cubins passed on (opened).
    pub images: usize,
    /// Entries or members passed on as errors.
    pub errors: usize,
    /// ELF entries of architectures not asked for.
    pub skipped: Skipped,
}

/// The ELF magic, `7f 45 4c 46` (System V gABI, e_ident).
pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// The magic of a System V / GNU `ar` archive (what `ar` and `nvcc -lib` write).
pub const ARCHIVE_MAGIC: &[u8; 8] = b"!<arch>\n";

/// Whether a file's first bytes are the ELF magic.
pub fn is_elf(data: &[u8]) -> bool {
    data.starts_with(ELF_MAGIC)
}

/// Whether a file's first bytes are an archive's magic.
pub fn is_archive(data: &[u8]) -> bool {
    data.starts_with(ARCHIVE_MAGIC)
}

/// Whether `data` is a kind of file [`visit`] reads (by its first bytes).
pub fn is_compiled(data: &[u8]) -> bool {
    is_elf(data) || is_fatbin(data) || is_archive(data)
}

/// Passes every cubin of `data` built for one of `supported` to `f`, one at a time (a
/// decompressed entry is dropped once `f` returns): the file itself if it is a cubin (an
/// error if it was built for another architecture), else the ELF entries of its fat binaries
/// (of each archive member's), other architectures' entries counted as skipped. An entry or
/// member that cannot be read is passed to `f` as an error naming it, and the others are still
/// read; an error returned is one that leaves nothing to read (or no cubin at all).
pub fn visit(
    data: &[u8],
    supported: &[SmArch],
    mut f: impl FnMut(Result<Image<'_>, CubinError>),
) -> Result<Visited, CubinError> {
    let mut v = Visitor {
        supported,
        decompressor: Decompressor::default(),
        f: &mut f,
        done: Visited::default(),
        elf_entries: 0,
    };
    if is_cuda_elf(data) {
        let cubin = Cubin::parse(data, supported)?;
        v.pass(Ok(Image {
            origin: Origin::default(),
            target: Target::generic(cubin.arch()),
            cubin,
        }));
    } else if is_archive(data) {
        v.archive(data)?;
    } else if is_fatbin(data) {
        v.fatbin(data, false, None)?;
    } else if is_elf(data) {
        v.host(data, None)?;
    } else {
        return Err(CubinError::NotRecognized {
            start: data
                .iter()
                .take(4)
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" "),
        });
    }
    if v.done.images == 0 && v.done.errors == 0 {
        return Err(CubinError::NoSupportedCubin {
            supported: supported.to_vec(),
            skipped: v.done.skipped,
        });
    }
    Ok(v.done)
}

struct Visitor<'s, F> {
    supported: &'s [SmArch],
    /// One buffer and decoder for every compressed entry.
    decompressor: Decompressor,
    f: &'s mut F,
    done: Visited,
    /// ELF entries seen so far in the file: cuobjdump numbers them over the whole file.
    elf_entries: u32,
}

impl<F: FnMut(Result<Image<'_>, CubinError>)> Visitor<'_, F> {
    fn pass(&mut self, r: Result<Image<'_>, CubinError>) {
        match &r {
            Ok(_) => self.done.images += 1,
            Err(_) => self.done.errors += 1,
        }
        (self.f)(r);
    }

    /// Every member that is a host ELF file with device code, or a cubin.
    fn archive(&mut self, data: &[u8]) -> Result<(), CubinError> {
        let archive = ArchiveFile::parse(data).map_err(|source| CubinError::Elf {
            place: Some("archive".into()),
            source,
        })?;
        let mut with_code = 0usize;
        for member in archive.members() {
            let member = member.map_err(|source| CubinError::Elf {
                place: Some("archive member table".into()),
                source,
            })?;
            let name = String::from_utf8_lossy(member.name()).into_owned();
            let in_member = |e: CubinError| CubinError::InEntry {
                place: format!("member {name}"),
                source: Box::new(e),
            };
            let bytes = match member.data(data) {
                Ok(b) => b,
                Err(source) => {
                    self.pass(Err(in_member(CubinError::Elf {
                        place: None,
                        source,
                    })));
                    continue;
                }
            };
            if is_cuda_elf(bytes) {
                with_code += 1;
                let r = Cubin::parse(bytes, self.supported).map(|cubin| Image {
                    origin: Origin {
                        member: Some(name.clone()),
                        entry: None,
                    },
                    target: Target::generic(cubin.arch()),
                    cubin,
                });
                match r {
                    Err(CubinError::UnsupportedArch { found, .. }) => {
                        self.done.skipped.add(Target::generic(found))
                    }
                    r => self.pass(r.map_err(in_member)),
                }
            } else if is_elf(bytes) {
                match self.host(bytes, Some(&name)) {
                    Ok(()) => with_code += 1,
                    // A host object without device code: not this reader's.
                    Err(CubinError::NoDeviceCode { .. }) => {}
                    Err(e) => {
                        with_code += 1;
                        self.pass(Err(in_member(e)));
                    }
                }
            }
        }
        if with_code == 0 {
            return Err(CubinError::NoDeviceCodeInArchive);
        }
        Ok(())
    }

    /// A host ELF file: its `.nv_fatbin`, else its `__nv_relfatbin`.
    fn host(&mut self, data: &[u8], member: Option<&str>) -> Result<(), CubinError> {
        let file = object::File::parse(data).map_err(|source| CubinError::Elf {
            place: None,
            source,
        })?;
        let section = DEVICE_CODE_SECTIONS
            .iter()
            .find_map(|name| file.section_by_name(name))
            .ok_or_else(|| CubinError::NoDeviceCode {
                architecture: format!("{:?}", file.architecture()),
            })?;
        let bytes = section.data().map_err(|source| CubinError::Elf {
            place: Some(format!(
                "section {}",
                section.name().unwrap_or(DEVICE_CODE_SECTIONS[0])
            )),
            source,
        })?;
        self.fatbin(bytes, true, member)
    }

    fn fatbin(
        &mut self,
        data: &[u8],
        in_section: bool,
        member: Option<&str>,
    ) -> Result<(), CubinError> {
        let all = entries(data, in_section)?;
        let base = self.elf_entries;
        for e in &all {
            self.fatbin_entry(e, base, member);
        }
        Ok(())
    }

    /// One entry of a fat binary: an ELF entry of a supported architecture is passed on,
    /// another counted as skipped; a PTX entry is not read.
    fn fatbin_entry(&mut self, e: &FatbinEntry<'_>, base: u32, member: Option<&str>) {
        {
            let Some(local) = e.elf_number else {
                return;
            };
            let number = base + local;
            self.elf_entries = number;
            let target = e.target();
            if !self.supported.contains(&e.arch) {
                self.done.skipped.add(target);
                return;
            }
            let place = match member {
                Some(m) => format!("member {m}, fat-binary entry #{number} ({target})"),
                None => format!("fat-binary entry #{number} ({target})"),
            };
            let in_entry = |err: CubinError| CubinError::InEntry {
                place: place.clone(),
                source: Box::new(err),
            };
            // Taken out while its output is borrowed, put back after.
            let mut decompressor = std::mem::take(&mut self.decompressor);
            let bytes = match decompressor.payload(e, &place) {
                Ok(b) => b,
                Err(err) => {
                    self.decompressor = decompressor;
                    self.pass(Err(err));
                    return;
                }
            };
            let origin = Origin {
                member: member.map(str::to_string),
                entry: Some(number),
            };
            let r = Cubin::parse(bytes, self.supported)
                .map(|cubin| Image {
                    origin,
                    target,
                    cubin,
                })
                .map_err(in_entry);
            self.pass(r);
            self.decompressor = decompressor;
        }
    }
}

/// One cubin of a file, its bytes copied out (decompressed where the entry was compressed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted {
    /// Where in the file.
    pub origin: Origin,
    /// Its architecture.
    pub target: Target,
    /// The cubin's bytes: parse them with [`Cubin::parse`].
    pub bytes: Vec<u8>,
}

/// Every cubin of `data` built for one of `supported`, copied out (as `cuobjdump -xelf all`
/// extracts them): for small files and tests, since every cubin is then in memory at once
/// ([`visit`] holds one at a time). The first entry that cannot be read is the error.
pub fn extract(data: &[u8], supported: &[SmArch]) -> Result<Vec<Extracted>, CubinError> {
    let mut out = Vec::new();
    let mut first_err = None;
    visit(data, supported, |image| match image {
        Ok(i) => out.push(Extracted {
            origin: i.origin,
            target: i.target,
            bytes: i.cubin.data().to_vec(),
        }),
        Err(e) => {
            first_err.get_or_insert(e);
        }
    })?;
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
