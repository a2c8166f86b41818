//! Reading an instruction word, or one 64-bit half of it, from hex text: the one word syntax
//! of every command and file format (docs/sources.md, Decisions).
//!
//! A word is exactly 32 hex digits, high half first (`hi << 64 | lo`, as nvdisasm's two 64-bit
//! halves), with or without a `0x`/`0X` prefix. A half (as `nvdisasm -hex` prints it in a
//! `/* 0x... */` comment) is exactly 16 hex digits. Digits may be upper or lower case; signs,
//! underscores, spaces inside and other lengths are refused, never zero-extended.
//!
//! ```
//! use tld4_decoder::{parse_word, WordError};
//! assert_eq!(parse_word("0x000000000ce5ffc930ff04ff1cc83d64"), Ok(0x000000000ce5ffc930ff04ff1cc83d64));
//! assert_eq!(parse_word("0x1"), Err(WordError::WrongLength { text: "0x1".into(), digits: 1, expected: 32 }));
//! ```

use thiserror::Error;

/// Hex digits of a whole word.
pub const WORD_DIGITS: usize = 32;
/// Hex digits of one half, as `nvdisasm -hex` prints it.
pub const HALF_DIGITS: usize = 16;

/// Why text is not a word (or half).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WordError {
    /// No digits at all.
    #[error("`{text}` has no hex digits; expected {expected} hex digits (with or without 0x)")]
    Empty {
        /// The text as given.
        text: String,
        /// Digits expected.
        expected: usize,
    },
    /// Hex digits, but not as many as a word (or half) has.
    #[error("`{text}` has {digits} hex digits, the wrong length: a word is exactly 32 hex digits (high half first), a half 16")]
    WrongLength {
        /// The text as given.
        text: String,
        /// Digits found.
        digits: usize,
        /// Digits expected.
        expected: usize,
    },
    /// A character that is not a hex digit.
    #[error("`{text}`: `{found}` at column {column} is not a hex digit; expected {expected} hex digits (with or without 0x)")]
    NotHex {
        /// The text as given.
        text: String,
        /// The offending character.
        found: char,
        /// Its 1-based column in `text`.
        column: usize,
        /// Digits expected.
        expected: usize,
    },
}

fn parse_digits(text: &str, expected: usize) -> Result<u128, WordError> {
    let (prefix, digits) = match text.get(..2) {
        Some("0x" | "0X") => (2, &text[2..]),
        _ => (0, text),
    };
    if let Some((i, c)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(WordError::NotHex {
            text: text.into(),
            found: c,
            column: prefix + text[prefix..prefix + i].chars().count() + 1,
            expected,
        });
    }
    if digits.is_empty() {
        return Err(WordError::Empty {
            text: text.into(),
            expected,
        });
    }
    if digits.len() != expected {
        return Err(WordError::WrongLength {
            text: text.into(),
            digits: digits.len(),
            expected,
        });
    }
    // Only hex digits, at most 32 of them: this cannot fail.
    u128::from_str_radix(digits, 16).map_err(|_| WordError::Empty {
        text: text.into(),
        expected,
    })
}

/// A whole word: exactly 32 hex digits, high half first, optional `0x` (surrounding
/// whitespace is trimmed).
pub fn parse_word(text: &str) -> Result<u128, WordError> {
    parse_digits(text.trim(), WORD_DIGITS)
}

/// One 64-bit half: exactly 16 hex digits, optional `0x` (surrounding whitespace trimmed).
pub fn parse_half(text: &str) -> Result<u64, WordError> {
    parse_digits(text.trim(), HALF_DIGITS).map(|h| h as u64)
}

/// Whether `text` is meant as a word rather than instruction text: it starts with `0x`/`0X`
/// or is nothing but hex digits (instruction text starts with `TLD4` or a guard `@`, never
/// with a hex digit string alone). Such text must then parse as a word, whatever its length.
pub fn looks_like_word(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("0x")
        || t.starts_with("0X")
        || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_32_digits_either_case_with_or_without_prefix() {
        let w = 0x000000000ce5ffc930ff04ff1cc83d64u128;
        for t in [
            "000000000ce5ffc930ff04ff1cc83d64",
            "0x000000000ce5ffc930ff04ff1cc83d64",
            "0X000000000CE5FFC930FF04FF1CC83D64",
            "  0x000000000ce5ffc930ff04ff1cc83d64\n",
        ] {
            assert_eq!(parse_word(t), Ok(w), "{t}");
        }
    }

    #[test]
    fn other_lengths_and_characters_are_refused() {
        for (t, digits) in [
            ("0x1", 1),
            ("0x0ce5ffc930ff04ff1cc83d64", 24),
            (&"f".repeat(33)[..], 33),
        ] {
            assert!(
                matches!(parse_word(t), Err(WordError::WrongLength { digits: d, expected: 32, .. }) if d == digits),
                "{t}"
            );
        }
        assert!(matches!(parse_word("0x"), Err(WordError::Empty { .. })));
        assert!(matches!(parse_word(""), Err(WordError::Empty { .. })));
        let e = parse_word("0x+00000000ce5ffc930ff04ff1cc83d64").unwrap_err();
        assert!(
            matches!(
                e,
                WordError::NotHex {
                    found: '+',
                    column: 3,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse_word("0000_0000").unwrap_err();
        assert!(
            matches!(
                e,
                WordError::NotHex {
                    found: '_',
                    column: 5,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("column 5"), "{e}");
    }

    #[test]
    fn halves_are_16_digits() {
        assert_eq!(parse_half("0x30ff04ff1cc83d64"), Ok(0x30ff04ff1cc83d64));
        assert!(matches!(
            parse_half("0x30ff04ff1cc83d6"),
            Err(WordError::WrongLength {
                digits: 15,
                expected: 16,
                ..
            })
        ));
    }

    #[test]
    fn word_attempts_are_told_from_text() {
        assert!(looks_like_word("0x1"));
        assert!(looks_like_word("0x+ff"));
        assert!(looks_like_word("000000000ce5ffc930ff04ff1cc83d64"));
        assert!(looks_like_word("0ce5ffc930ff04ff1cc83d6"));
        assert!(!looks_like_word("TLD4.R R10, R8, R4, UR4, 2D ;"));
        assert!(!looks_like_word("TLD4"));
        assert!(!looks_like_word(""));
    }
}
