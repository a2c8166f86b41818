//! The decode fast path's plan: how the raw bits of every field move from the word to their
//! members' bytes in the decoded [`crate::Tld4`], worked out at compile time from the field
//! table (`decoder/src/fields.rs`) and the struct's own layout (`offset_of!`, `size_of`),
//! never written by hand.
//!
//! [`crate::Tld4`] is `#[repr(C)]` with its members in bit order, so the struct's bytes can be
//! built as [`CHUNKS`] 64-bit integers: each planned member's raw bits are shifted from their
//! place in one half of the word to their member's place in one chunk and masked (members
//! that need the same shift share it once the compiler merges them), and the chunks become
//! the struct in one move. That is sound only for member types whose bytes *are* their raw
//! value ([`RawLayout`]; [`crate::HandleForm`] narrows: its two accepted opcodes differ in
//! bit 0, which is its discriminant); any other member would be read from the word through
//! `FieldValue::from_accepted` (none is today).
//! Nothing here decides what a field means: [`RawLayout`] promises the same value as
//! `from_accepted`, and the tests compare the fast and the detailed decode on random words.
//!
//! On x86-64 with AVX2 (detected at run time) `crate::fast_avx2` builds the same bytes with
//! vector shuffles from the same plan ([`byte_sources`]). Why this shape, and what was tried
//! and measured before it: decoder/README.md, Speed.

use crate::fields::FieldValue;

/// A field type whose in-memory bytes are exactly its raw field value.
///
/// # Safety
///
/// For every `raw < 2^BITS`, `Self::from_accepted(raw)` must be the value whose bytes are
/// `raw` as a little-endian integer of `size_of::<Self>()` bytes, and the all-zero bytes must
/// be a valid value of `Self` (the fast path leaves an unplanned member's bytes zero before
/// it writes the member). `BITS = 0` plans nothing for the type. With `NARROW`, the promise
/// is for the raw values that [`FieldValue::accepts`] only, and for their low `BITS` bits:
/// `from_accepted(raw)`'s bytes are `raw & (2^BITS - 1)`.
pub(crate) unsafe trait RawLayout: FieldValue {
    /// The widest raw field whose bytes are a valid value.
    const BITS: u32;
    /// The field may be wider than `BITS`: its accepted values differ in the low bits only.
    const NARROW: bool = false;
}

/// How many 64-bit chunks the fast path builds: the decoded struct's whole size (the move
/// into the struct checks at compile time that the sizes agree).
pub(crate) const CHUNKS: usize = core::mem::size_of::<crate::Tld4>().div_ceil(8);

/// Where one member's bits come from and go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FieldPlan {
    /// False when the member is read from the word directly (not planned).
    pub planned: bool,
    /// The half of the word holding the field: 0 = bits 63:0, 1 = bits 127:64.
    pub half: usize,
    /// The chunk holding the member's bytes.
    pub chunk: usize,
    /// Right shift from the half to the chunk (negative: a left shift).
    pub shift: i32,
    /// The field's bits in place in the chunk.
    pub mask: u64,
    /// The field's lowest bit in the word.
    pub lo: u32,
    /// The field's width in bits.
    pub width: u32,
    /// The member's byte offset in the struct.
    pub offset: usize,
}

/// The plan of a field `[hi:lo]` whose member lies at byte `offset`, has `size` bytes and
/// whose type's bytes are its raw value up to `raw_bits` bits ([`RawLayout::BITS`], and
/// `narrow` = [`RawLayout::NARROW`]).
///
/// Unplanned (read directly) when the raw field is wider than `raw_bits`, or when the field or
/// the member would cross a 64-bit boundary (none does today; the plan copes either way).
pub(crate) const fn plan(
    lo: u8,
    hi: u8,
    offset: usize,
    size: usize,
    raw_bits: u32,
    narrow: bool,
) -> FieldPlan {
    let field_width = (hi - lo) as u32 + 1;
    // A narrowing type (see `RawLayout::NARROW`) takes only the low `raw_bits` of the field.
    let width = if narrow && raw_bits < field_width {
        raw_bits
    } else {
        field_width
    };
    let half = (lo / 64) as usize;
    let chunk = offset / 8;
    // The chunks are u64s in the target's byte order; the bytes-are-the-value promise of
    // `RawLayout` is little-endian.
    let planned = cfg!(target_endian = "little")
        && size > 0
        && raw_bits > 0
        && width <= raw_bits
        && width <= 8 * size as u32
        && (hi / 64) as usize == half
        && (offset + size - 1) / 8 == chunk;
    let at = (offset % 8) as u32 * 8;
    FieldPlan {
        planned,
        half,
        chunk: if planned { chunk } else { 0 },
        shift: (lo % 64) as i32 - at as i32,
        mask: if planned {
            ((1u64 << width) - 1) << at
        } else {
            0
        },
        lo: lo as u32,
        width,
        offset,
    }
}

impl FieldPlan {
    /// The field's bits of `half`, moved into place in the chunk.
    #[inline(always)]
    pub(crate) const fn place(self, half: u64) -> u64 {
        let moved = if self.shift >= 0 {
            half >> self.shift
        } else {
            half << -self.shift
        };
        moved & self.mask
    }
}

/// Where each byte of the decoded struct comes from: `(first bit in the word, bits)`, with
/// 0 bits for a byte no planned member fills (padding, unplanned members, a member's bytes
/// above its field's width). The byte-wise form of the plan, for the AVX2 path.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const fn byte_sources(fields: &[FieldPlan]) -> [(u32, u32); CHUNKS * 8] {
    let mut bytes = [(0u32, 0u32); CHUNKS * 8];
    let mut i = 0;
    while i < fields.len() {
        let f = fields[i];
        if f.planned {
            let mut m = 0;
            while 8 * m < f.width {
                let bits = if f.width - 8 * m < 8 {
                    f.width - 8 * m
                } else {
                    8
                };
                bytes[f.offset + m as usize] = (f.lo + 8 * m, bits);
                m += 1;
            }
        }
        i += 1;
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_aligned_register_moves_by_its_offset() {
        // Bits 23:16 into the member at byte 3: a left shift by 8.
        let p = plan(16, 23, 3, 1, 8, false);
        assert!(p.planned);
        assert_eq!((p.half, p.chunk, p.shift, p.mask), (0, 0, -8, 0xff << 24));
        assert_eq!(p.place(0xab_0000 | 0xff), 0xab00_0000);
    }

    #[test]
    fn a_field_of_the_high_half_moves_right() {
        // Bits 124:122 (high half bits 60:58) into byte 30 (chunk 3, bit 48): right by 10.
        let p = plan(122, 124, 30, 1, 3, false);
        assert_eq!((p.half, p.chunk, p.shift), (1, 3, 10));
        assert_eq!(p.place(0b101 << 58 | 1 << 57 | 1 << 61), 0b101 << 48);
    }

    #[test]
    fn unplannable_members_are_left_to_the_word() {
        // A 12-bit field in a 1-byte member; a type with no raw layout; a field across bit 64;
        // a member across a chunk boundary.
        assert!(!plan(0, 11, 0, 1, 8, false).planned);
        // ... unless the type narrows it: then its low bits are taken.
        let n = plan(0, 11, 0, 1, 1, true);
        assert!(n.planned && n.width == 1 && n.mask == 1);
        assert!(!plan(0, 0, 0, 1, 0, false).planned);
        assert!(!plan(60, 67, 9, 1, 8, false).planned);
        assert!(!plan(0, 9, 7, 2, 16, false).planned);
    }
}
