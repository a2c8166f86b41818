//! A minimal ELF64 little-endian section reader: enough to find a cubin's `.text.<kernel>`
//! sections (the layout is the System V gABI's; cubins are ELF64 LSB, ELFCLASS64 = 2,
//! ELFDATA2LSB = 1, as `nvdisasm` and `readelf` show for ptxas output).

use std::fmt;

/// One section of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The name, from the section-name string table.
    pub name: String,
    /// Where the section's bytes start in the file.
    pub offset: usize,
    /// How many bytes it has.
    pub size: usize,
}

/// Why a file could not be read as ELF64 LSB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfError(pub String);

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a readable ELF64 LSB file: {}", self.0)
    }
}

impl std::error::Error for ElfError {}

fn rd<const N: usize>(b: &[u8], at: usize) -> Result<[u8; N], ElfError> {
    b.get(at..at + N)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| ElfError(format!("truncated at byte {at}")))
}
fn u16_at(b: &[u8], at: usize) -> Result<u16, ElfError> {
    Ok(u16::from_le_bytes(rd(b, at)?))
}
fn u32_at(b: &[u8], at: usize) -> Result<u32, ElfError> {
    Ok(u32::from_le_bytes(rd(b, at)?))
}
fn u64_at(b: &[u8], at: usize) -> Result<u64, ElfError> {
    Ok(u64::from_le_bytes(rd(b, at)?))
}

/// Every section of an ELF64 LSB file, in header order.
pub fn sections(b: &[u8]) -> Result<Vec<Section>, ElfError> {
    // e_ident: magic, EI_CLASS (4) = 2 for 64-bit, EI_DATA (5) = 1 for little-endian (gABI).
    if b.get(0..4) != Some(b"\x7fELF") {
        return Err(ElfError("no ELF magic".into()));
    }
    if b[4] != 2 || b[5] != 1 {
        return Err(ElfError(format!(
            "class {} data {} (want 2, 1)",
            b[4], b[5]
        )));
    }
    // ELF64 header: e_shoff at 0x28 (8 bytes), e_shentsize at 0x3a, e_shnum at 0x3c,
    // e_shstrndx at 0x3e (gABI, "ELF Header").
    let shoff = u64_at(b, 0x28)? as usize;
    let shentsize = u16_at(b, 0x3a)? as usize;
    let shnum = u16_at(b, 0x3c)? as usize;
    let shstrndx = u16_at(b, 0x3e)? as usize;
    if shentsize != 64 {
        return Err(ElfError(format!(
            "section header size {shentsize} (want 64)"
        )));
    }
    // Elf64_Shdr: sh_name (4) at 0, sh_offset (8) at 0x18, sh_size (8) at 0x20.
    let raw: Vec<(u32, usize, usize)> = (0..shnum)
        .map(|i| {
            let h = shoff + i * shentsize;
            Ok((
                u32_at(b, h)?,
                u64_at(b, h + 0x18)? as usize,
                u64_at(b, h + 0x20)? as usize,
            ))
        })
        .collect::<Result<_, ElfError>>()?;
    let &(_, stroff, strsize) = raw
        .get(shstrndx)
        .ok_or_else(|| ElfError("no string table".into()))?;
    let strtab = b
        .get(stroff..stroff + strsize)
        .ok_or_else(|| ElfError("string table out of the file".into()))?;
    raw.into_iter()
        .map(|(name, offset, size)| {
            let s = strtab
                .get(name as usize..)
                .ok_or_else(|| ElfError("name out of the string table".into()))?;
            let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
            Ok(Section {
                name: String::from_utf8_lossy(&s[..end]).into_owned(),
                offset,
                size,
            })
        })
        .collect()
}

/// The `.text.<kernel>` section of a cubin.
pub fn kernel_text(b: &[u8], kernel: &str) -> Result<Section, ElfError> {
    let want = format!(".text.{kernel}");
    sections(b)?
        .into_iter()
        .find(|s| s.name == want)
        .ok_or_else(|| ElfError(format!("no section {want}")))
}

/// The 128-bit instruction words of a text section (each 16 bytes, little-endian, low 64 bits
/// first: FACTS.md, "The oracles").
pub fn words(b: &[u8], s: &Section) -> Vec<u128> {
    b[s.offset..s.offset + s.size]
        .chunks_exact(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `b` with the instruction at `index` of section `s` replaced by `word`.
pub fn with_word(b: &[u8], s: &Section, index: usize, word: u128) -> Vec<u8> {
    let mut out = b.to_vec();
    let at = s.offset + index * 16;
    out[at..at + 16].copy_from_slice(&word.to_le_bytes());
    out
}
