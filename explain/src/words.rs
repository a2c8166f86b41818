//! Reading 128-bit instruction words from text: 32 hex digits or nvdisasm -hex's halves
//! (`tld4 explain`'s instruction argument and `tld4 disasm`'s input).

use std::fmt;

use tld4_decoder::{parse_half, parse_word};

/// A line of input that is not a word, with its 1-based line number.
#[derive(Debug)]
pub struct BadLine {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// The `/* 0x... */` halves of a line (as `nvdisasm -hex` prints them, low half first).
fn hex_comments(line: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("/*") {
        let after = &rest[start + 2..];
        let end = after
            .find("*/")
            .ok_or_else(|| "a `/*` comment is not closed".to_string())?;
        let inner = after[..end].trim();
        // nvdisasm also writes the address as a comment (`/*0010*/`); a 0x comment is a half
        // and must be one (16 hex digits), never skipped.
        if inner.starts_with("0x") || inner.starts_with("0X") {
            out.push(parse_half(inner).map_err(|e| e.to_string())?);
        }
        rest = &after[end + 2..];
    }
    Ok(out)
}

/// Reads words from text: one per line, as 32 hex digits (high half first, `hi << 64 | lo`,
/// with or without `0x`) or as the two `/* 0x... */` halves of `nvdisasm -hex` (low half
/// first; the halves may sit on two consecutive lines, as nvdisasm prints them, and the
/// instruction text before them is ignored). Blank lines and `#` comments are skipped.
pub fn parse_words(text: &str) -> Vec<Result<(usize, u128), BadLine>> {
    let mut out = Vec::new();
    let mut pending_low: Option<(usize, u64)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.contains("/*") {
            match hex_comments(line) {
                Err(reason) => out.push(Err(BadLine { line: n, reason })),
                Ok(halves) if halves.is_empty() && pending_low.is_none() => out.push(Err(BadLine {
                    line: n,
                    reason: format!("`{line}` holds no `/* 0x... */` half: expected 32 hex digits (high half first) or nvdisasm -hex's two `/* 0x... */` halves (an nvdisasm listing needs -hex)"),
                })),
                Ok(halves) => {
                    for half in halves {
                        match pending_low.take() {
                            None => pending_low = Some((n, half)),
                            Some((first, lo)) => {
                                out.push(Ok((first, (half as u128) << 64 | lo as u128)))
                            }
                        }
                    }
                }
            }
            continue;
        }
        if let Some((first, _)) = pending_low.take() {
            out.push(Err(BadLine {
                line: first,
                reason: "a `/* 0x... */` low half without its high half".into(),
            }));
        }
        match parse_word(line) {
            Ok(w) => out.push(Ok((n, w))),
            Err(e) => out.push(Err(BadLine {
                line: n,
                reason: format!("{e}; or nvdisasm -hex's two `/* 0x... */` halves"),
            })),
        }
    }
    if let Some((first, _)) = pending_low {
        out.push(Err(BadLine {
            line: first,
            reason: "a `/* 0x... */` low half without its high half".into(),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_accepted_spelling() {
        let text = "# a comment\n\n0x000000000ce5ffc930ff04ff1cc83d64\n000000000ce5ffc930ff04ff1cc83d64 # trailing\n\
                    /* 0x30ff04ff1cc83d64 */ /* 0x000000000ce5ffc9 */\n\
                    /*0000*/ TLD4... ; /* 0x30ff04ff1cc83d64 */\n      /* 0x000000000ce5ffc9 */\n";
        let words: Vec<_> = parse_words(text).into_iter().map(|r| r.unwrap()).collect();
        let w = 0x000000000ce5ffc930ff04ff1cc83d64u128;
        assert_eq!(words, vec![(3, w), (4, w), (5, w), (6, w)]);
    }

    #[test]
    fn names_the_line_of_bad_input() {
        let res = parse_words("0x1\nnot hex\n/* 0x30ff04ff1cc83d64 */\n");
        let e = res[0].as_ref().unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("wrong length"), "{}", e.reason);
        let e = res[1].as_ref().unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("`not hex`"), "{}", e.reason);
        assert_eq!(res[2].as_ref().unwrap_err().line, 3);
        assert!(parse_words("1234567890123456789012345678901234")
            .pop()
            .unwrap()
            .is_err());
    }

    #[test]
    fn a_listing_without_hex_is_an_error_not_nothing() {
        let res = parse_words("/*0000*/ TLD4.R R10, R8, R4, UR4, 2D ;\n");
        assert_eq!(res.len(), 1);
        let e = res[0].as_ref().unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("-hex"), "{}", e.reason);
    }

    #[test]
    fn a_malformed_half_is_blamed_on_its_own_line() {
        let res = parse_words("/* 0x30ff04ff1cc83d6 */\n/* 0x000000000ce5ffc9 */\n");
        let e = res[0].as_ref().unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("15 hex digits"), "{}", e.reason);
        // The next line's half is then a lone low half, reported on its own line.
        assert_eq!(res[1].as_ref().unwrap_err().line, 2);
    }
}
