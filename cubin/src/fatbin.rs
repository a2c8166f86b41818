//! NVIDIA fat binaries: the containers nvcc embeds in host executables (section
//! `.nv_fatbin`) and `nvcc -fatbin` / `fatbinary --create` write, each holding PTX and ELF
//! (cubin) entries for several architectures.
//!
//! The container header is NVIDIA's `fatBinaryHeader` (fatbinary.h, shipped with CUDA up to
//! 10.x; the section names are in CUDA 13's include/fatbinary_section.h). The entry header has
//! no public NVIDIA definition: its fields below are those community readers use (ZLUDA's fat
//! binary reader), each checked against `fatbinary` 13.5's output
//! (docs/sources.md, Fat binaries); the other bytes of the entry header are not read.

use crate::arch::{SmArch, Target, Variant};
use crate::error::CubinError;

/// `fatBinaryHeader.magic` (FATBIN_MAGIC), little-endian at byte 0 of a container.
pub const FATBIN_MAGIC: u32 = 0xba55_ed50;
/// The section of a host ELF file that holds the containers (FATBIN_DATA_SECTION_NAME).
pub const FATBIN_SECTION: &str = ".nv_fatbin";
/// The section of a relocatable object (`nvcc -rdc=true -c`) that holds them
/// (FATBIN_RELOCATABLE_SECTION_NAME in fatbinary_section.h). A device-linked executable keeps
/// its objects' `__nv_relfatbin` beside the linked `.nv_fatbin`; cuobjdump 13.5 lists only the
/// latter then (docs/sources.md, Fat binaries), and so does this crate.
pub const RELFATBIN_SECTION: &str = "__nv_relfatbin";
/// The sections searched for device code, in order: the first present is read.
pub const DEVICE_CODE_SECTIONS: &[&str] = &[FATBIN_SECTION, RELFATBIN_SECTION];
/// Size of `fatBinaryHeader`: magic u32, version u16, headerSize u16, fatSize u64.
const CONTAINER_HEADER: usize = 16;
/// The smallest entry header: every field read below lies in its first 64 bytes
/// (measured with nvcc 13.5: sm_90 ELF 0x40, PTX 0x50 or 0x60, sm_100 ELF 0x60, 0x70 or 0x78,
/// `-G` builds 0x80; docs/sources.md, Fat binaries).
const ENTRY_HEADER_MIN: usize = 64;

/// An entry header field: (name, byte offset, width in bytes).
type Field = (&'static str, usize, usize);
/// `kind`: 1 PTX, 2 ELF.
const KIND: Field = ("kind", 0x00, 2);
/// The entry header's version (0x0101 in every entry measured).
const VERSION: Field = ("version", 0x02, 2);
/// The entry header's own size; the payload follows it.
const HEADER_SIZE: Field = ("header size", 0x04, 4);
/// The payload's size, padded to 8 bytes: the next entry starts after it.
const PADDED_SIZE: Field = ("padded payload size", 0x08, 8);
/// A compressed payload's size (0 in uncompressed entries).
const COMPRESSED_SIZE: Field = ("compressed size", 0x10, 4);
/// The architecture number (100 for sm_100).
const ARCH: Field = ("arch", 0x1c, 4);
/// Flags; see [`COMPRESSION`] and [`VARIANT_FLAGS`].
const FLAGS: Field = ("flags", 0x28, 8);
/// A compressed payload's size once decompressed (0 in uncompressed entries).
const UNCOMPRESSED_SIZE: Field = ("uncompressed size", 0x38, 8);

/// How a payload is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// An LZ4 block (no frame header: measured, the payload starts with a block's token).
    Lz4,
    /// A zstd frame (magic 28 b5 2f fd).
    Zstd,
}

impl Compression {
    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Flag bits that mark a compressed payload: `--compress-mode=speed` sets 0x2000 (LZ4), every
/// other mode and `-G` 0x8000 (zstd) (measured with nvcc and fatbinary 13.5: docs/sources.md,
/// Fat binaries; the names agree with ZLUDA's reader).
pub const COMPRESSION: &[(u64, Compression)] =
    &[(0x2000, Compression::Lz4), (0x8000, Compression::Zstd)];

/// Flag bits that name the variant of an ELF entry's architecture: 0x100000 for `sm_100a`,
/// 0x200000 for `sm_100f` (measured with nvcc 13.5, `-gencode code=sm_100a` and
/// `code=sm_100f`: docs/sources.md, Fat binaries).
pub const VARIANT_FLAGS: &[(u64, Variant)] =
    &[(0x10_0000, Variant::Specific), (0x20_0000, Variant::Family)];

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// PTX text (often compressed by nvcc).
    Ptx,
    /// An ELF cubin.
    Elf,
    /// A kind this crate does not know.
    Other(u16),
}

impl EntryKind {
    fn from_raw(raw: u16) -> Self {
        match raw {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            k => EntryKind::Other(k),
        }
    }
}

/// One entry of a fat binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FatbinEntry<'data> {
    /// Its place among all entries of all containers in the data, from 0.
    pub index: usize,
    /// For an ELF entry, its number as cuobjdump counts them: ELF entries only, from 1, over
    /// every container of the data (`cuobjdump -xelf all` writes `FILE.<number>.sm_100.cubin`).
    pub elf_number: Option<u32>,
    /// Where its header starts, from the start of the data.
    pub offset: usize,
    /// What it holds.
    pub kind: EntryKind,
    /// The entry header's version.
    pub version: u16,
    /// The architecture it was built for.
    pub arch: SmArch,
    /// The flags word.
    pub flags: u64,
    /// A compressed payload's size once decompressed, as the header states it.
    pub uncompressed_size: u64,
    /// The payload as stored (compressed where [`FatbinEntry::compression`] says so).
    pub payload: &'data [u8],
}

impl FatbinEntry<'_> {
    /// The compression the flags name, if any.
    pub fn compression(&self) -> Option<Compression> {
        COMPRESSION
            .iter()
            .find(|(bit, _)| self.flags & bit != 0)
            .map(|&(_, c)| c)
    }

    /// The architecture with the variant the flags name.
    pub fn target(&self) -> Target {
        let variant = VARIANT_FLAGS
            .iter()
            .find(|(bit, _)| self.flags & bit != 0)
            .map_or(Variant::Generic, |&(_, v)| v);
        Target {
            sm: self.arch,
            variant,
        }
    }

    /// `entry #2 (sm_100a, zstd)` for an ELF entry, `entry 3 (sm_90 PTX)` for another: where
    /// an error is.
    pub fn place(&self) -> String {
        let what = match (self.elf_number, self.compression()) {
            (Some(n), Some(c)) => format!("#{n} ({}, {})", self.target(), c.name()),
            (Some(n), None) => format!("#{n} ({})", self.target()),
            (None, _) => format!("{} ({})", self.index, self.describe()),
        };
        format!("fat-binary entry {what}")
    }

    /// `sm_100 ELF`, `sm_90 PTX (zstd)`: for messages.
    pub fn describe(&self) -> String {
        let kind = match self.kind {
            EntryKind::Ptx => "PTX".to_string(),
            EntryKind::Elf => "ELF".to_string(),
            EntryKind::Other(k) => format!("kind {k}"),
        };
        match self.compression() {
            Some(c) => format!("{} {kind} ({})", self.target(), c.name()),
            None => format!("{} {kind}", self.target()),
        }
    }
}

/// Whether `data` starts with a fat-binary container.
pub fn is_fatbin(data: &[u8]) -> bool {
    data.get(0..4) == Some(&FATBIN_MAGIC.to_le_bytes()[..])
}

/// Every entry of the containers in `data`, which holds one or more containers back to back
/// (each starting at an 8-byte boundary, zero bytes between them). `in_section` only changes
/// error messages (the data is a host file's `.nv_fatbin` section).
pub fn entries(data: &[u8], in_section: bool) -> Result<Vec<FatbinEntry<'_>>, CubinError> {
    let err = |offset: usize, what: String| CubinError::Fatbin {
        offset,
        in_section,
        what,
    };
    let mut out = Vec::new();
    let mut elf_count = 0u32;
    let mut at = 0usize;
    loop {
        // Zero padding between and after containers.
        while at < data.len() && data[at] == 0 {
            at += 1;
        }
        if at >= data.len() {
            break;
        }
        if !at.is_multiple_of(8) || !is_fatbin(&data[at..]) {
            return Err(err(
                at,
                "expected a fat-binary container (magic 0xba55ed50 at an 8-byte boundary)".into(),
            ));
        }
        let header = data
            .get(at..at + CONTAINER_HEADER)
            .ok_or_else(|| err(at, "the container header is cut short".into()))?;
        let header_size = u16::from_le_bytes([header[6], header[7]]) as usize;
        let fat_size = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
        if header_size < CONTAINER_HEADER {
            return Err(err(
                at,
                format!("container header size {header_size} is below 16"),
            ));
        }
        let start = at + header_size;
        let end = usize::try_from(fat_size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                err(
                    at,
                    format!(
                        "the container claims {fat_size} bytes after its header, past the end of the data ({} bytes)",
                        data.len()
                    ),
                )
            })?;
        let mut q = start;
        while q < end {
            let (mut entry, next) =
                read_entry(&data[..end], q, out.len()).map_err(|what| err(q, what))?;
            if entry.kind == EntryKind::Elf {
                elf_count += 1;
                entry.elf_number = Some(elf_count);
            }
            q = next;
            out.push(entry);
        }
        at = end;
    }
    Ok(out)
}

fn field(data: &[u8], at: usize, f: Field) -> Result<u64, String> {
    let (name, off, width) = f;
    let b = data
        .get(at + off..at + off + width)
        .ok_or_else(|| format!("the entry header is cut short before its {name}"))?;
    let mut le = [0u8; 8];
    le[..width].copy_from_slice(b);
    Ok(u64::from_le_bytes(le))
}

/// The entry whose header is at `at`, and where the next one starts.
fn read_entry(data: &[u8], at: usize, index: usize) -> Result<(FatbinEntry<'_>, usize), String> {
    let header_size = field(data, at, HEADER_SIZE)? as usize;
    if header_size < ENTRY_HEADER_MIN {
        return Err(format!(
            "entry {index}: header size {header_size} is below {ENTRY_HEADER_MIN}"
        ));
    }
    let padded = field(data, at, PADDED_SIZE)?;
    let flags = field(data, at, FLAGS)?;
    let payload_start = at
        .checked_add(header_size)
        .filter(|&s| s <= data.len())
        .ok_or_else(|| format!("entry {index}: its header runs past the container"))?;
    let next = usize::try_from(padded)
        .ok()
        .and_then(|p| payload_start.checked_add(p))
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            format!("entry {index}: its payload ({padded} bytes) runs past the container")
        })?;
    let mut entry = FatbinEntry {
        index,
        elf_number: None,
        offset: at,
        kind: EntryKind::from_raw(field(data, at, KIND)? as u16),
        version: field(data, at, VERSION)? as u16,
        arch: SmArch(field(data, at, ARCH)? as u32),
        flags,
        uncompressed_size: field(data, at, UNCOMPRESSED_SIZE)?,
        payload: &data[payload_start..next],
    };
    if entry.compression().is_some() {
        let size = field(data, at, COMPRESSED_SIZE)? as usize;
        entry.payload = entry.payload.get(..size).ok_or_else(|| {
            format!(
                "entry {index}: compressed size {size} exceeds its padded payload ({padded} bytes)"
            )
        })?;
    }
    Ok((entry, next))
}
