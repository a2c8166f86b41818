//! Texture headers (TIC entries) and samplers (TSC entries) as NVIDIA's SM100 texture unit
//! reads them from GPU memory: 32 bytes each, eight little-endian 32-bit words.
//!
//! The bit layouts are NVIDIA's, published in NVIDIA/open-gpu-doc, classes/3d/clcd97tex.h
//! (BLACKWELL_A, MIT): `TEXHEAD_V2_BL`, `TEXHEAD_V2_PITCH` and `TEXSAMP0..7`
//! (docs/sources.md, Descriptors). Each descriptor is restated once, as a table of
//! [`DescField`] rows (name as in clcd97tex.h, bit range over the 256-bit entry, meaning),
//! in [`tic`] and [`tsc`]; decoding, encoding and the tests read the bits from there.
//! [`class`] says which layout each GPU class reads ([`tic_v1`]: TURING_A to HOPPER_A's).

/// A texture header's field table from rows `"NAME" hi:lo "meaning";` over the 256-bit entry
/// (the one way the V1 and V2 header tables are written; TEXSAMP states its rows per word).
macro_rules! desc_fields {
    ($($name:literal $hi:literal : $lo:literal $meaning:literal;)*) => {
        &[$(DescField { name: $name, lo: $lo, hi: $hi, meaning: $meaning }),*]
    };
}

pub mod class;
pub mod tic;
mod tic_decode;
pub mod tic_v1;
pub mod tsc;

use thiserror::Error;

/// One field of a 256-bit descriptor: clcd97tex.h's `MW(hi:lo)` over the whole entry (word
/// `lo / 32`, bit `lo % 32`; TEXSAMP's per-word ranges are restated over the entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescField {
    /// The field's name in clcd97tex.h, without the `NVCD97_TEXHEAD_V2_BL_` style prefix.
    pub name: &'static str,
    /// Lowest bit over the 256-bit entry.
    pub lo: u16,
    /// Highest bit (inclusive).
    pub hi: u16,
    /// What the field means.
    pub meaning: &'static str,
}

impl DescField {
    /// Width in bits (1..=32 for every field in the tables).
    pub const fn width(&self) -> u32 {
        (self.hi - self.lo) as u32 + 1
    }

    /// The largest raw value the field holds.
    pub const fn max(&self) -> u64 {
        (1u64 << self.width()) - 1
    }

    /// The field's raw value in `words` (a field of at most 32 bits lies in a 64-bit window
    /// of two adjacent words).
    #[inline]
    pub fn get(&self, words: &[u32; 8]) -> u64 {
        let (w, b) = ((self.lo / 32) as usize, self.lo % 32);
        (window(words, w) >> b) & self.max()
    }

    /// Set the field to `value`; a value wider than the field is an error naming the field.
    pub fn set(&self, words: &mut [u32; 8], value: u64) -> Result<(), DescriptorError> {
        if value > self.max() {
            return Err(DescriptorError::Invalid {
                descriptor: "descriptor",
                field: self.name,
                value,
                why: "does not fit in the field",
            });
        }
        let (w, b) = ((self.lo / 32) as usize, self.lo % 32);
        let v = (window(words, w) & !(self.max() << b)) | value << b;
        words[w] = v as u32;
        if w + 1 < 8 {
            words[w + 1] = (v >> 32) as u32;
        }
        Ok(())
    }

    /// The bit range as clcd97tex.h writes it: `hi:lo`.
    pub fn bits(&self) -> String {
        format!("{}:{}", self.hi, self.lo)
    }
}

/// Words `w` and `w + 1` as one little-endian u64 (the word past the end reads 0).
fn window(words: &[u32; 8], w: usize) -> u64 {
    words[w] as u64 | (words.get(w + 1).copied().unwrap_or(0) as u64) << 32
}

/// A descriptor that cannot be used: an illegal value, or a legal one the texture unit does
/// not model. Both name the descriptor, the field (clcd97tex.h's name) and the raw value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DescriptorError {
    /// No hardware accepts this value (a value clcd97tex.h does not define, a size that does
    /// not add up, a misaligned address).
    #[error("invalid {descriptor}: {field} = {value:#x}: {why}")]
    Invalid {
        /// "texture header" or "sampler".
        descriptor: &'static str,
        /// The field's name in clcd97tex.h.
        field: &'static str,
        /// Its raw value.
        value: u64,
        /// What is wrong.
        why: &'static str,
    },
    /// A legal value whose behaviour the texture unit does not model.
    #[error("not modeled: {descriptor} {field} = {value:#x}: {why}")]
    NotModeled {
        /// "texture header" or "sampler".
        descriptor: &'static str,
        /// The field's name in clcd97tex.h.
        field: &'static str,
        /// Its raw value.
        value: u64,
        /// What is not modeled.
        why: &'static str,
    },
}

impl DescriptorError {
    /// True for [`DescriptorError::NotModeled`].
    pub fn is_not_modeled(&self) -> bool {
        matches!(self, DescriptorError::NotModeled { .. })
    }
}

/// Reads the fields of one table from a descriptor's words, by name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub(crate) table: &'a [DescField],
    pub(crate) words: &'a [u32; 8],
}

impl Reader<'_> {
    /// The raw value of the field named `name` (a name not in the table is a bug in this crate,
    /// caught by the tests that decode every table's fields).
    pub(crate) fn get(&self, name: &str) -> u64 {
        field(self.table, name).map_or(0, |f| f.get(self.words))
    }
}

/// The row named `name` of `table`, for a decoder's constants: evaluated where the constant
/// is, at compile time, so a decoder finds each field it reads once, by name, and a name
/// missing from the table fails the build (the tables stay the one place the bits are
/// written; `field` is the lookup at run time, for names a caller gives).
pub(crate) const fn row(table: &[DescField], name: &str) -> DescField {
    let mut i = 0;
    while i < table.len() {
        if same_name(table[i].name, name) {
            return table[i];
        }
        i += 1;
    }
    panic!("a decoder reads a field its table does not have")
}

/// `a == b`, in a constant.
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The row named `name` of `table`.
pub fn field<'t>(table: &'t [DescField], name: &str) -> Option<&'t DescField> {
    table.iter().find(|f| f.name == name)
}

/// The positions in `table` of the rows whose raw values differ between the descriptors `a`
/// and `b` (what a driver's and a simulator's words disagree on, named by the table).
pub fn differing<'t>(
    table: &'t [DescField],
    a: &'t [u32; 8],
    b: &'t [u32; 8],
) -> impl Iterator<Item = usize> + 't {
    table
        .iter()
        .enumerate()
        .filter(move |(_, f)| f.get(a) != f.get(b))
        .map(|(i, _)| i)
}

/// Writes the fields of one table into a descriptor's words, by name.
pub(crate) struct Writer<'a> {
    pub(crate) table: &'a [DescField],
    pub(crate) words: [u32; 8],
    pub(crate) descriptor: &'static str,
}

impl Writer<'_> {
    pub(crate) fn set(&mut self, name: &'static str, value: u64) -> Result<(), DescriptorError> {
        let f = field(self.table, name).ok_or(DescriptorError::Invalid {
            descriptor: self.descriptor,
            field: name,
            value,
            why: "no such field in this header version",
        })?;
        f.set(&mut self.words, value)
            .map_err(|_| DescriptorError::Invalid {
                descriptor: self.descriptor,
                field: name,
                value,
                why: "does not fit in the field",
            })
    }
}
