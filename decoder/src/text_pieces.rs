//! The pieces nvdisasm's text is built from (`crate::text` says what is printed; this module
//! only how fast): padded pieces of at most 16 bytes from per-value tables built at compile
//! time from the value tables' names, and the stack buffer they are stored into (docs/sources.md,
//! Decisions: nvdisasm's text by padded pieces).

use core::mem::MaybeUninit;

use crate::values::*;

/// A piece of text of at most 16 bytes, padded: [`TextBuf::put`] stores all 16 bytes and
/// advances by `len`, so a piece costs one store whatever its length, and a piece that may be
/// absent costs no branch ([`TextBuf::put_if`]).
#[derive(Clone, Copy)]
pub(crate) struct Piece {
    bytes: [u8; 16],
    len: u8,
}

impl Piece {
    /// No text.
    pub(crate) const EMPTY: Piece = Piece {
        bytes: [0; 16],
        len: 0,
    };

    /// `a` then `b` (together at most 16 bytes of ASCII; checked when the tables are built).
    pub(crate) const fn cat(a: &str, b: &str) -> Piece {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        assert!(a.len() + b.len() <= 16 && a.is_ascii() && b.is_ascii());
        let mut p = Piece::EMPTY;
        let mut i = 0;
        while i < a.len() {
            p.bytes[i] = a[i];
            i += 1;
        }
        while i < a.len() + b.len() {
            p.bytes[i] = b[i - a.len()];
            i += 1;
        }
        p.len = i as u8;
        p
    }

    /// `s`.
    pub(crate) const fn new(s: &str) -> Piece {
        Piece::cat(s, "")
    }

    /// The text (ASCII: [`Piece::cat`] checks it).
    pub(crate) const fn as_str(&self) -> &str {
        let (bytes, _) = self.bytes.split_at(self.len as usize);
        match core::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => panic!("a piece is ASCII"),
        }
    }

    /// `.` and `name`, or nothing for an empty name (a modifier nvdisasm leaves out).
    pub(crate) const fn dotted(name: &str) -> Piece {
        if name.is_empty() {
            Piece::EMPTY
        } else {
            Piece::cat(".", name)
        }
    }

    /// `prefix` and the decimal digits of `n`.
    pub(crate) const fn numbered(prefix: &str, n: u8) -> Piece {
        let mut p = Piece::new(prefix);
        let mut digits = [0u8; 3];
        let mut k = 0;
        let mut v = n;
        loop {
            digits[k] = b'0' + v % 10;
            k += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        while k > 0 {
            k -= 1;
            p.bytes[p.len as usize] = digits[k];
            p.len += 1;
        }
        p
    }
}

/// One [`Piece`] for each value of a `u8`-numbered register kind: `<sep><letters><n>`, and
/// `<sep><zero>` for the number that reads zero (docs/sources.md, Encoding: 255 is RZ/URZ,
/// predicate 7 PT).
const fn register_pieces(sep: &str, letters: &str, zero_number: u8, zero: &str) -> [Piece; 256] {
    let mut t = [Piece::EMPTY; 256];
    let mut n = 0;
    while n < 256 {
        let p = if n == zero_number as usize {
            Piece::new(zero)
        } else {
            Piece::numbered(letters, n as u8)
        };
        t[n] = Piece::cat(sep, p.as_str());
        n += 1;
    }
    t
}

/// The text of every general-purpose register number ([`Reg`]: 255 is `RZ`).
pub(crate) static REG_TEXT: [Piece; 256] = register_pieces("", "R", Reg::RZ.0, "RZ");
/// [`REG_TEXT`] after the `, ` that separates it from the operand before.
pub(crate) static REG_OPERAND: [Piece; 256] = register_pieces(", ", "R", Reg::RZ.0, "RZ");
/// The text of every uniform register number ([`UReg`]: 255 is `URZ`), after its `, `.
pub(crate) static UREG_OPERAND: [Piece; 256] = register_pieces(", ", "UR", UReg::URZ.0, "URZ");
/// The text of every predicate number ([`Pred`]: 7 is `PT`; a hand-built `Pred(8..)` prints
/// its number).
pub(crate) static PRED_TEXT: [Piece; 256] = register_pieces("", "P", Pred::PT.0, "PT");

/// Builds a table of `.`-prefixed modifier names (nothing for an empty name) from an
/// enumeration's [`name`](Component::name)s in raw-value order.
macro_rules! dotted_names {
    ($ty:ty) => {{
        let mut t = [Piece::EMPTY; <$ty>::ALL.len()];
        let mut i = 0;
        while i < t.len() {
            t[i] = Piece::dotted(<$ty>::ALL[i].name());
            i += 1;
        }
        t
    }};
}

/// `.R`, `.G`, `.B`, `.A` by [`Component`] raw value.
pub(crate) const COMPONENT_TEXT: [Piece; 4] = dotted_names!(Component);
/// `.F16.RN`, ... by [`F16Mode`] raw value (nothing for `None`).
pub(crate) const F16_TEXT: [Piece; 4] = dotted_names!(F16Mode);
/// `.AOFFI`, ... by [`OffsetMode`] raw value (nothing for `None`).
pub(crate) const OFFSET_TEXT: [Piece; 4] = dotted_names!(OffsetMode);
/// `.EF`, ... by [`Eviction`] raw value (nothing for `Normal`).
pub(crate) const EVICTION_TEXT: [Piece; 8] = dotted_names!(Eviction);
/// `, 2D`, ... by [`Dimension`] raw value (the dimension is the operand after the registers).
pub(crate) const DIMENSION_TEXT: [Piece; 8] = {
    let mut t = [Piece::EMPTY; 8];
    let mut i = 0;
    while i < t.len() {
        t[i] = Piece::cat(", ", Dimension::ALL[i].name());
        i += 1;
    }
    t
};
/// `, 0x0` .. `, 0xf`: the write mask operand by its low four bits.
pub(crate) const MASK_TEXT: [Piece; 16] = {
    let mut t = [Piece::EMPTY; 16];
    let mut i = 0;
    while i < t.len() {
        t[i] = Piece::cat(", 0x", HEX_DIGITS[i]);
        i += 1;
    }
    t
};
/// One hexadecimal digit's text, lower case.
pub(crate) const HEX_DIGITS: [&str; 16] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f",
];

/// A stack buffer the text is built in (no allocation, no formatting machinery: the hot
/// path of `tld4 disasm` and of the disassembly benchmark), by whole [`Piece`]s: the
/// 16 bytes past the 256 a `u8` length can reach take a piece's padding, so no store needs
/// a bounds check; the longest TLD4 text is under 150 bytes. Left uninitialised (zeroing
/// its 272 bytes was a tenth of the time): every byte below `len` has been written, since
/// `len` only grows past bytes just stored (and a wrapped `len` falls below them).
pub(crate) struct TextBuf {
    buf: [MaybeUninit<u8>; 256 + 16],
    pub(crate) len: u8,
}

impl TextBuf {
    /// The text. Every byte came from a `&str` of ASCII names, an ASCII literal or a decimal
    /// digit, so the buffer is ASCII; a debug build checks it.
    #[inline(always)]
    pub(crate) fn as_str(&self) -> &str {
        let bytes = &self.buf[..self.len as usize];
        // SAFETY: every byte below `len` has been written (see above), and
        // `MaybeUninit<u8>` has the layout of `u8`.
        let bytes = unsafe { &*(bytes as *const [MaybeUninit<u8>] as *const [u8]) };
        debug_assert!(bytes.is_ascii());
        // SAFETY: ASCII is valid UTF-8 (see above); checking it again on every
        // instruction would cost half of the disassembly time.
        unsafe { core::str::from_utf8_unchecked(bytes) }
    }

    /// An empty buffer.
    #[inline(always)]
    pub(crate) fn new() -> TextBuf {
        TextBuf {
            buf: [const { MaybeUninit::uninit() }; 256 + 16],
            len: 0,
        }
    }

    /// Appends `p` (one 16-byte store).
    #[inline(always)]
    pub(crate) fn put(&mut self, p: &Piece) {
        self.store(p);
        self.len = self.len.wrapping_add(p.len);
    }
    /// Stores `p`'s 16 bytes at `len` (one 16-byte store), leaving `len`.
    #[inline(always)]
    fn store(&mut self, p: &Piece) {
        let at = self.len as usize;
        for (to, &b) in self.buf[at..at + 16].iter_mut().zip(&p.bytes) {
            *to = MaybeUninit::new(b);
        }
    }
    /// Appends `p` when `cond` holds, with no branch (the store is made either way).
    #[inline(always)]
    pub(crate) fn put_if(&mut self, cond: bool, p: &Piece) {
        self.store(p);
        self.len = self.len.wrapping_add(p.len & (cond as u8).wrapping_neg());
    }
    #[inline(always)]
    pub(crate) fn byte(&mut self, c: u8) {
        self.buf[self.len as usize] = MaybeUninit::new(c);
        self.len = self.len.wrapping_add(1);
    }
    #[inline(always)]
    pub(crate) fn push(&mut self, s: &str) {
        for &c in s.as_bytes() {
            self.byte(c);
        }
    }
    /// `0x` and `n` in lower-case hex digits, no leading zeros.
    pub(crate) fn hex(&mut self, n: u16) {
        self.push("0x");
        let digits = (16 - n.leading_zeros()).div_ceil(4).max(1);
        for k in (0..digits).rev() {
            self.push(HEX_DIGITS[((n >> (4 * k)) & 0xf) as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The register tables spell each number as the register's text rule says (docs/sources.md,
    /// Encoding), the separator first where there is one.
    #[test]
    fn register_tables_spell_every_number() {
        for n in 0..=255u8 {
            let reg = if n == 255 {
                "RZ".into()
            } else {
                format!("R{n}")
            };
            let ureg = if n == 255 {
                "URZ".into()
            } else {
                format!("UR{n}")
            };
            let pred = if n == 7 { "PT".into() } else { format!("P{n}") };
            assert_eq!(REG_TEXT[n as usize].as_str(), reg);
            assert_eq!(REG_OPERAND[n as usize].as_str(), format!(", {reg}"));
            assert_eq!(UREG_OPERAND[n as usize].as_str(), format!(", {ureg}"));
            assert_eq!(PRED_TEXT[n as usize].as_str(), pred);
            assert_eq!(Piece::numbered("???", n).as_str(), format!("???{n}"));
        }
    }

    /// The modifier tables are the value tables' names, dotted, nothing for an empty name.
    #[test]
    fn modifier_tables_are_the_names() {
        fn dotted(name: &str) -> String {
            if name.is_empty() {
                String::new()
            } else {
                format!(".{name}")
            }
        }
        for c in Component::ALL {
            assert_eq!(COMPONENT_TEXT[c as usize].as_str(), dotted(c.name()));
        }
        for m in F16Mode::ALL {
            assert_eq!(F16_TEXT[m as usize].as_str(), dotted(m.name()));
        }
        for m in OffsetMode::ALL {
            assert_eq!(OFFSET_TEXT[m as usize].as_str(), dotted(m.name()));
        }
        for e in Eviction::ALL {
            assert_eq!(EVICTION_TEXT[e as usize].as_str(), dotted(e.name()));
        }
        for d in Dimension::ALL {
            assert_eq!(
                DIMENSION_TEXT[d as usize].as_str(),
                format!(", {}", d.name())
            );
        }
        for (m, piece) in MASK_TEXT.iter().enumerate() {
            assert_eq!(piece.as_str(), format!(", 0x{m:x}"));
        }
    }

    /// Pieces put with and without their condition, bytes and hex digits, in order; a piece's
    /// padding stored past the length is overwritten by what follows.
    #[test]
    fn the_buffer_keeps_exactly_what_was_put() {
        let mut t = TextBuf::new();
        t.put(&Piece::new("TLD4"));
        t.put_if(false, &Piece::new(".SCR"));
        t.put_if(true, &Piece::new(".DC"));
        t.byte(b' ');
        t.push("R1");
        t.put(&Piece::EMPTY);
        t.push(", ");
        t.hex(0);
        t.push(", ");
        t.hex(0xab5);
        assert_eq!(t.as_str(), "TLD4.DC R1, 0x0, 0xab5");
    }
}
