//! Checks, with nvdisasm `-b SM90`, that tld4-decoder's SM90 tables (the field table with the
//! sm_80 family's rows: docs/sources.md, TLD4 on every architecture) read the probe's words
//! as SM90 does; and records where they do not.
//!
//! Rule compared: for a word `w`, nvdisasm SM90's text (spaces collapsed) must equal the text
//! of `decode_arch(sm_90, w)`; a word is refused by both or by neither. Words: each base word (the TLD4s ptxas wrote), every single-bit flip of it, every
//! value of every field up to 4 bits wide, all 256 opex values, then random words.

use std::path::Path;

use tld4_decoder::{field, FIELDS, LEGAL_OPEX_VALUES};

use crate::nvdisasm::{collapse, raw_words};

/// SM90's immediate: bits 46-53 (nvdisasm 13.5, one bit flipped at a time on ptxas's word:
/// bit 46 prints `0x1` after `UR4`, bit 53 `0x80`, while bits 40-45 change the UR number).
pub const SM90_IMM_LO: u32 = 46;
/// The immediate's width.
pub const SM90_IMM_BITS: u32 = 8;

/// SM90's text without the immediate it prints after the uniform register (the operand just
/// before the dimension), and that immediate; whitespace collapsed.
pub fn strip_sm90_immediate(text: &str) -> (String, Option<u32>) {
    let text = collapse(text);
    let text = tld4_decoder::without_closing(&text).to_string();
    let parts: Vec<&str> = text.split(", ").collect();
    let is_dim = |p: &str| tld4_decoder::Dimension::ALL.iter().any(|d| d.name() == p);
    for i in 0..parts.len().saturating_sub(1) {
        if let (Some(hex), true) = (parts[i].strip_prefix("0x"), is_dim(parts[i + 1])) {
            if let Ok(imm) = u32::from_str_radix(hex, 16) {
                let mut kept: Vec<&str> = parts.clone();
                kept.remove(i);
                return (kept.join(", "), Some(imm));
            }
        }
    }
    (text, None)
}

/// nvdisasm's verdict on each word (refusals isolated: a failed batch names the address of
/// the first bad word, which is recorded and the rest rerun; without an address, bisect).
pub fn verdicts(nvdisasm: &Path, words: &[u128]) -> std::io::Result<Vec<Result<String, String>>> {
    let mut out: Vec<Option<Result<String, String>>> = vec![None; words.len()];
    let mut todo: Vec<Vec<usize>> = vec![(0..words.len()).collect()];
    while let Some(idx) = todo.pop() {
        if idx.is_empty() {
            continue;
        }
        let ws: Vec<u128> = idx.iter().map(|&i| words[i]).collect();
        match raw_words(nvdisasm, "SM90", &ws)? {
            Ok(texts) => {
                for (i, t) in idx.iter().zip(texts) {
                    out[*i] = Some(Ok(t));
                }
            }
            Err(msg) => {
                let addr = msg
                    .lines()
                    .find_map(|l| l.split("at address 0x").nth(1))
                    .and_then(|h| usize::from_str_radix(h.trim(), 16).ok());
                match addr {
                    Some(a) if a / 16 < idx.len() => {
                        let bad = a / 16;
                        let line = msg.lines().find(|l| l.contains("at address")).unwrap_or("");
                        let m = line.split(" at address").next().unwrap_or(line);
                        out[idx[bad]] = Some(Err(m
                            .trim_start_matches("nvdisasm error")
                            .trim_start_matches([' ', ':'])
                            .trim()
                            .to_string()));
                        let mut rest = idx.clone();
                        rest.remove(bad);
                        todo.push(rest);
                    }
                    _ if idx.len() == 1 => out[idx[0]] = Some(Err(collapse(&msg))),
                    _ => {
                        let (a, b) = idx.split_at(idx.len() / 2);
                        todo.push(a.to_vec());
                        todo.push(b.to_vec());
                    }
                }
            }
        }
    }
    Ok(out
        .into_iter()
        .map(|v| v.expect("every word judged"))
        .collect())
}

/// One disagreement between the rule and nvdisasm SM90.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// How the word was made.
    pub origin: String,
    /// The word.
    pub word: u128,
    /// The rule's expectation.
    pub expected: String,
    /// What nvdisasm SM90 said.
    pub sm90: String,
}

/// The result of a verification run.
#[derive(Clone, Debug, Default)]
pub struct Sm90Report {
    /// Words checked, by origin.
    pub checked: Vec<(String, usize)>,
    /// Every disagreement.
    pub disagreements: Vec<Disagreement>,
}

/// What the SM90 tables say of `word`: its text (spaces collapsed, no `;`) and its immediate.
fn expected(word: u128) -> Result<(String, u32), String> {
    crate::patch::decode_sm90(word).map(|d| {
        let t = collapse(&d.text());
        (tld4_decoder::without_closing(&t).to_string(), d.imm8 as u32)
    })
}

/// splitmix64 (Vigna's constants), for reproducible random words.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The words to check: structured ones around each base, then `random` random words.
pub fn words(bases: &[u128], random: usize, seed: u64) -> Vec<(String, u128)> {
    let mut v = Vec::new();
    for (bi, &b) in bases.iter().enumerate() {
        v.push((format!("base {bi}"), b));
        v.push(("form 0xd64".into(), field::form.set(b, 0xd64)));
        for bit in 0..128 {
            v.push(("bit flip".into(), b ^ (1u128 << bit)));
        }
        for f in FIELDS.iter().filter(|f| f.width() <= 4) {
            for raw in 0..(1u32 << f.width()) {
                v.push((format!("field {}", f.name), f.set(b, raw)));
            }
        }
        for opex in 0..=255u32 {
            // Opex values outside nvdisasm's SM100 table are asked about on the first base only
            // (each refused word costs an nvdisasm run of its own).
            if bi > 0 && !LEGAL_OPEX_VALUES.contains(&(opex as u8)) {
                continue;
            }
            let w = field::usched_info.set(b, opex & 0x1f);
            v.push(("opex".into(), field::batch_t.set(w, opex >> 5)));
        }
    }
    let mut r = SplitMix(seed);
    for _ in 0..random {
        let mut w = bases[(r.next() as usize) % bases.len()];
        for f in FIELDS {
            let x = r.next() as u32;
            let raw = match f.name {
                "form" | "bit_91" | "usched_info" | "batch_t" => continue,
                // URs below 64, so that bits 46-47 (SM90's immediate) stay as the base has them.
                "ur" => x % 64,
                "ignored_48_59" => continue,
                _ => x,
            };
            w = f.set(w, raw);
        }
        let opex = LEGAL_OPEX_VALUES[(r.next() as usize) % LEGAL_OPEX_VALUES.len()] as u32;
        w = field::usched_info.set(w, opex & 0x1f);
        w = field::batch_t.set(w, opex >> 5);
        v.push(("random".into(), w));
    }
    v
}

/// Runs the comparison. Words the rule expects to be legal go to nvdisasm in batches; each word
/// it expects to be refused gets a run of its own (nvdisasm prints nothing for a batch with a
/// refused word), two at a time.
pub fn verify(nvdisasm: &Path, words: &[(String, u128)]) -> std::io::Result<Sm90Report> {
    let ws: Vec<u128> = words.iter().map(|w| w.1).collect();
    let legal: Vec<usize> = (0..ws.len()).filter(|&i| expected(ws[i]).is_ok()).collect();
    let illegal: Vec<usize> = (0..ws.len())
        .filter(|&i| expected(ws[i]).is_err())
        .collect();
    let mut got: Vec<Result<String, String>> = vec![Err(String::new()); ws.len()];
    for chunk in legal.chunks(2000) {
        let batch: Vec<u128> = chunk.iter().map(|&i| ws[i]).collect();
        for (&i, v) in chunk.iter().zip(verdicts(nvdisasm, &batch)?) {
            got[i] = v;
        }
    }
    let wsr = &ws;
    let singles: Vec<std::io::Result<Result<String, String>>> = std::thread::scope(|sc| {
        let halves: Vec<&[usize]> = illegal.chunks(illegal.len().div_ceil(2).max(1)).collect();
        let hs: Vec<_> = halves
            .into_iter()
            .map(|part| {
                sc.spawn(move || {
                    part.iter()
                        .map(|&i| crate::nvdisasm::raw_word(nvdisasm, "SM90", wsr[i]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().expect("nvdisasm thread"))
            .collect()
    });
    for (&i, v) in illegal.iter().zip(singles) {
        got[i] = v?;
    }
    let mut rep = Sm90Report::default();
    for ((origin, w), g) in words.iter().zip(got) {
        match rep.checked.iter_mut().find(|c| &c.0 == origin) {
            Some(c) => c.1 += 1,
            None => rep.checked.push((origin.clone(), 1)),
        }
        let e = expected(*w);
        let ok = match (&e, &g) {
            (Ok((t, imm)), Ok(s)) => {
                let c = collapse(s);
                tld4_decoder::without_closing(&c) == t && strip_sm90_immediate(s).1 == Some(*imm)
            }
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !ok {
            rep.disagreements.push(Disagreement {
                origin: origin.clone(),
                word: *w,
                expected: match e {
                    Ok((t, imm)) => format!("{t} (immediate {imm:#x})"),
                    Err(m) => format!("refused: {m}"),
                },
                sm90: match g {
                    Ok(s) => s,
                    Err(m) => format!("refused: {m}"),
                },
            });
        }
    }
    Ok(rep)
}

/// True for the one kind of disagreement found: the 0xd64 (register-handle) opcode, which
/// nvdisasm SM90 refuses ("Unrecognized operation"): SM90 has no TLD4 of that form.
pub fn is_d64_form(d: &Disagreement) -> bool {
    field::form.get(d.word) == 0xd64 && d.sm90.starts_with("refused")
}

/// The report as Markdown.
pub fn markdown(rep: &Sm90Report, nvdisasm_version: &str) -> String {
    let total: usize = rep.checked.iter().map(|c| c.1).sum();
    let mut s = format!(
        "# SM90 TLD4 encoding, checked with nvdisasm -b SM90\n\n\
         Generated by `tld4-hw-probe verify-sm90` ({nvdisasm_version}). Rule: nvdisasm SM90's text equals\n\
         the text of tld4-decoder's `decode_arch(sm_90, word)` (the field table with the sm_80 family's rows),\n\
         and its immediate is bits 46-53; refused by both or neither.\n\n\
         Words checked: {total}; disagreements: {}.\n\n| words | count |\n|---|---|\n",
        rep.disagreements.len()
    );
    for (o, n) in &rep.checked {
        s.push_str(&format!("| {o} | {n} |\n"));
    }
    s.push_str(
        "\n## Findings\n\n\
         - Every field of the table reads the same bits on SM90, except:\n\
         - Bits 46-53 are an 8-bit immediate that SM90 prints after the uniform register (`UR4, 0x0, 2D`);\n\
           on SM90 the uniform register is bits 40-45 only (SM100: `ur` = 40-47, 48-59 no effect), so UR63 is\n\
           SM90's URZ, printed `???63` as the handle.\n\
         - Opcode 0xd64 (SM100's register-handle form) is not a TLD4 on SM90: refused by nvdisasm and by the SM90 tables.\n\
         - ptxas 11.8 for sm_90 leaves `.SCR` (bit 60) clear and writes 0 in bits 48-55 (ptxas 13.5 for sm_100 sets\n\
           `.SCR` and writes 0xff in 48-55: docs/sources.md).\n\n",
    );
    let other: Vec<&Disagreement> = rep
        .disagreements
        .iter()
        .filter(|d| !is_d64_form(d))
        .collect();
    s.push_str(&format!("## Other disagreements: {}\n\n", other.len()));
    for d in other.iter().take(50) {
        s.push_str(&format!(
            "- {} `{:032x}`: expected `{}`, SM90 `{}`\n",
            d.origin, d.word, d.expected, d.sm90
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_immediate() {
        assert_eq!(
            strip_sm90_immediate("TLD4.G.AOFFI.DC P0, R10, R8, R6, R8, UR4, 0x80, 2D ;"),
            (
                "TLD4.G.AOFFI.DC P0, R10, R8, R6, R8, UR4, 2D".to_string(),
                Some(0x80)
            )
        );
        assert_eq!(
            strip_sm90_immediate("TLD4.R R6, R4, R4, UR4, 0x0, 2D, 0x7"),
            ("TLD4.R R6, R4, R4, UR4, 2D, 0x7".to_string(), Some(0))
        );
    }

    #[test]
    fn rule_on_ptxas_word() {
        // ptxas 11.8 sm_90: `TLD4.G.AOFFI.DC P0, R10, R8, R6, R8, UR4, 0x0, 2D` (nvdisasm -b SM90).
        let w: u128 = 0x000f620008905f0a_2000040806087f63;
        let (t, imm) = expected(w).unwrap();
        assert_eq!(imm, 0);
        assert_eq!(t, "TLD4.G.AOFFI.DC P0, R10, R8, R6, R8, UR4, 0x0, 2D");
        // Bit 47 is the immediate's bit 1 on SM90, the UR's bit 7 on SM100.
        let (t, imm) = expected(w | 1 << 47).unwrap();
        assert_eq!(
            (t.as_str(), imm),
            ("TLD4.G.AOFFI.DC P0, R10, R8, R6, R8, UR4, 0x2, 2D", 2)
        );
        // SM90 has no register-handle form.
        assert!(expected(field::form.set(w, 0xd64)).is_err());
    }
}
