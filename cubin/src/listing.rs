//! Reads nvdisasm's listing of a cubin (`nvdisasm -c`, optionally `-hex`), to compare it with
//! what this crate finds: the tests and `tests/cubins/` check the two agree.
//!
//! The listing's shape (nvdisasm 13.5, docs/sources.md, Encoding): a `.section .text.<kernel>`
//! line starts each kernel; an instruction line is `/*<offset>*/ <guard> <text> ;`, followed
//! with `-hex` by `/* 0x<low half> */` on the same line and `/* 0x<high half> */` on the next.

use thiserror::Error;

/// One instruction line of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedInsn {
    /// The kernel whose section the line is in.
    pub kernel: String,
    /// The offset nvdisasm printed.
    pub offset: u64,
    /// The text from the guard (or mnemonic) to the `;`, spaces at both ends removed.
    pub text: String,
    /// With `-hex`: the word, `hi << 64 | lo`.
    pub word: Option<u128>,
}

impl ListedInsn {
    /// Whether the instruction is a TLD4 (its mnemonic, after any guard, is `TLD4[.xxx]`).
    pub fn is_tld4(&self) -> bool {
        let t = self.text.trim_start();
        let t = match t.strip_prefix('@') {
            Some(rest) => rest.split_once(' ').map_or("", |(_, m)| m.trim_start()),
            None => t,
        };
        t == "TLD4" || t.starts_with("TLD4.") || t.starts_with("TLD4 ")
    }
}

/// A listing line that does not read as nvdisasm writes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("listing line {line}: {what}")]
pub struct ListingError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// `/* 0x0123 */` -> 0x0123.
fn hex_comment(s: &str) -> Option<u64> {
    let inner = s.trim().strip_prefix("/*")?.strip_suffix("*/")?.trim();
    u64::from_str_radix(inner.strip_prefix("0x")?, 16).ok()
}

/// Every instruction line of an nvdisasm listing, in order.
pub fn parse_listing(text: &str) -> Result<Vec<ListedInsn>, ListingError> {
    let mut out: Vec<ListedInsn> = Vec::new();
    let mut kernel: Option<String> = None;
    // The index in `out` of an instruction whose high half is due on the next line.
    let mut want_high: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let err = |what: String| ListingError { line: i + 1, what };
        if let Some(idx) = want_high.take() {
            let hi = hex_comment(line)
                .ok_or_else(|| err("expected the high half `/* 0x... */`".into()))?;
            if let Some(w) = out[idx].word.as_mut() {
                *w |= u128::from(hi) << 64;
            }
            continue;
        }
        // `.section` and whitespace: not `.sectioninfo` (sm_75 to sm_89 listings have both).
        if let Some(rest) = line
            .strip_prefix(".section")
            .filter(|r| r.starts_with([' ', '\t']))
        {
            let name = rest.trim_start().split(',').next().unwrap_or("");
            kernel = name.strip_prefix(".text.").map(str::to_string);
            continue;
        }
        let Some(rest) = line.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, body)) = rest.split_once("*/") else {
            continue;
        };
        let Ok(offset) = u64::from_str_radix(addr, 16) else {
            // A `/* 0x... */` comment line outside an instruction.
            continue;
        };
        let kernel = kernel
            .clone()
            .ok_or_else(|| err("an instruction outside any .text.<kernel> section".into()))?;
        let (insn, tail) = body
            .split_once(';')
            .ok_or_else(|| err("an instruction without its `;`".into()))?;
        let word = match tail.trim() {
            "" => None,
            t => {
                let lo = hex_comment(t)
                    .ok_or_else(|| err(format!("unexpected text after `;`: {t:?}")))?;
                want_high = Some(out.len());
                Some(u128::from(lo))
            }
        };
        out.push(ListedInsn {
            kernel,
            offset,
            text: format!("{} ;", insn.trim()),
            word,
        });
    }
    if want_high.is_some() {
        return Err(ListingError {
            line: text.lines().count(),
            what: "the listing ends before the last instruction's high half".into(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as nvdisasm 13.5 `-c -hex` prints them for a ptxas sm_100 cubin.
    const SAMPLE: &str = "\t.section\t.text.g2d_guarded,\"ax\",@progbits\n\
        .text.g2d_guarded:\n\
        \x20       /*00e0*/              @!P0 TLD4.R R6, R4, R8, UR4, 2D ;               /* 0x20ff04ff08048f63 */\n\
        \x20                                                                             /* 0x00116200081e0f06 */\n\
        \x20       /*00f0*/                   EXIT ;                                     /* 0x000000000000794d */\n\
        \x20                                                                             /* 0x000fea0003800000 */\n";

    #[test]
    fn reads_offsets_texts_and_both_halves() {
        let l = parse_listing(SAMPLE).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].kernel, "g2d_guarded");
        assert_eq!(l[0].offset, 0xe0);
        assert_eq!(l[0].text, "@!P0 TLD4.R R6, R4, R8, UR4, 2D ;");
        assert_eq!(l[0].word, Some(0x00116200081e0f06_20ff04ff08048f63_u128));
        assert!(l[0].is_tld4());
        assert!(!l[1].is_tld4());
        assert_eq!(l[1].text, "EXIT ;");
    }

    #[test]
    fn a_missing_high_half_names_its_line() {
        let cut: String = SAMPLE.lines().take(3).collect::<Vec<_>>().join("\n");
        let e = parse_listing(&cut).unwrap_err();
        assert_eq!(e.line, 3);
        let bad = SAMPLE.replace("/* 0x00116200081e0f06 */", "oops");
        assert_eq!(parse_listing(&bad).unwrap_err().line, 4);
    }
}
