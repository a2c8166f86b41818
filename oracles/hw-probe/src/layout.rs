//! Where things are in the committed cubin: each kernel's TLD4, and for `raw` the registers
//! that hold the A, B and C vectors of the query record at the TLD4.
//!
//! `analyze` derives this from nvdisasm's listing (here, at build time) and checks every
//! assumption the patching relies on; the result is committed as `kernels/layout.json` and
//! embedded in the runner, which re-checks the TLD4 words against the cubin before patching.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tld4_decoder::field;

use crate::elf;
use crate::nvdisasm::Line;

/// One kernel's TLD4.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLayout {
    /// The entry name.
    pub name: String,
    /// The file offset of the kernel's `.text` section.
    pub text_offset: usize,
    /// The instruction index of the TLD4 in that section.
    pub tld4_index: usize,
    /// The TLD4 word as ptxas wrote it (32 hex digits, `hi << 64 | lo`).
    pub tld4_word: String,
    /// nvdisasm's text of it (`-b SM90`, whitespace collapsed).
    pub tld4_sass: String,
}

/// What the `raw` kernel's patching needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawLayout {
    /// First register of the quad the load of A (record bytes 0..16) wrote.
    pub a_reg: u8,
    /// First register of the quad of B (bytes 16..32).
    pub b_reg: u8,
    /// First register of the quad of C (bytes 32..48).
    pub c_reg: u8,
    /// The write scoreboards of the three loads (dst_wr_sb), which the patched TLD4 waits on.
    pub load_scoreboards: Vec<u8>,
    /// The instruction that turns the TLD4's predicate into the stored word, e.g.
    /// `SEL R20, RZ, 0x1, P0`.
    pub pred_store: String,
    /// The stored word when the hardware predicate is set (the other value when clear).
    pub pred_stored_if_set: u32,
    /// The stored word when the hardware predicate is clear.
    pub pred_stored_if_clear: u32,
}

/// The whole layout file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The ptxas that built the cubin (its `--version` last line).
    pub ptxas: String,
    /// The cubin's size in bytes.
    pub cubin_bytes: usize,
    /// FNV-1a 64 of the cubin, to tie the layout to its cubin.
    pub cubin_fnv1a64: String,
    /// Every kernel, by name order.
    pub kernels: Vec<KernelLayout>,
    /// The `raw` kernel's registers.
    pub raw: RawLayout,
}

/// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3: the FNV reference).
pub fn fnv1a64(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
        (h ^ c as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Parses a word written as 32 hex digits.
pub fn parse_word(s: &str) -> Result<u128, String> {
    u128::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| format!("bad word {s}: {e}"))
}

/// A word as 32 hex digits.
pub fn word_hex(w: u128) -> String {
    format!("{w:032x}")
}

/// The mnemonic of a listing line, without its guard.
fn mnemonic(text: &str) -> &str {
    let body = if text.starts_with('@') {
        text.split_once(' ').map_or("", |x| x.1)
    } else {
        text
    };
    body.split(' ').next().unwrap_or("")
}

/// Operands of a line (after the mnemonic), split at ", ".
fn operands(text: &str) -> Vec<String> {
    let body = if text.starts_with('@') {
        text.split_once(' ').map_or("", |x| x.1)
    } else {
        text
    };
    match body.split_once(' ') {
        Some((_, ops)) => ops.split(", ").map(|s| s.trim().to_string()).collect(),
        None => Vec::new(),
    }
}

fn reg_num(op: &str) -> Option<u8> {
    op.strip_prefix('R').and_then(|n| n.parse().ok())
}

/// The byte offset in a `desc[URx][Ry.64+0x10]` address operand.
fn addr_offset(op: &str) -> Option<u32> {
    let inner = op.rsplit('[').next()?.strip_suffix(']')?;
    Some(match inner.split_once('+') {
        Some((_, off)) => u32::from_str_radix(off.trim_start_matches("0x"), 16).ok()?,
        None => 0,
    })
}

/// The general registers an instruction writes, conservatively: its first operand when that is
/// a register, widened by `.128` (4), `.64`/`.WIDE`/`CS2R` (2). Stores, branches and exits write none.
fn written_regs(text: &str) -> Vec<u8> {
    let m = mnemonic(text);
    let base = m.split('.').next().unwrap_or("");
    if matches!(
        base,
        "STG" | "ST" | "STS" | "STL" | "EXIT" | "BRA" | "NOP" | "BAR" | "RET"
    ) {
        return Vec::new();
    }
    let ops = operands(text);
    let Some(r) = ops.first().and_then(|o| reg_num(o)) else {
        return Vec::new();
    };
    let width = if m.contains(".128") {
        4
    } else if m.contains(".64") || m.contains(".WIDE") || base == "CS2R" {
        2
    } else {
        1
    };
    (r..r.saturating_add(width)).collect()
}

/// The control-bit fields (stall, scoreboards, wait mask) sit at the same bits in every SM70+
/// instruction (nvdisasm's names usched_info, dst_wr_sb, src_rel_sb, req_bit_set: docs/sources.md;
/// CuAssembler's control-code layout), so the TLD4 table's fields read them on any word.
fn wait_mask(word: u128) -> u32 {
    field::req_bit_set.get(word)
}

/// The operand-reuse flags of a non-TLD4 instruction, bits 122-125 (CuAssembler's control-code
/// layout; TLD4's own table names 122-124 batch_t).
fn reuse_flags(word: u128) -> u32 {
    ((word >> 122) & 0xf) as u32
}

/// Derives and checks the layout from a cubin and nvdisasm's listing of it.
pub fn analyze(
    cubin: &[u8],
    listing: &BTreeMap<String, Vec<Line>>,
    ptxas: &str,
) -> Result<Layout, String> {
    let mut kernels = Vec::new();
    let mut raw = None;
    for (name, lines) in listing {
        let sec = elf::kernel_text(cubin, name).map_err(|e| e.to_string())?;
        let words = elf::words(cubin, &sec);
        let tld4: Vec<&Line> = lines
            .iter()
            .filter(|l| mnemonic(&l.text).starts_with("TLD4"))
            .collect();
        if tld4.len() != 1 {
            return Err(format!("{name}: {} TLD4 instructions, want 1", tld4.len()));
        }
        let t = tld4[0];
        let idx = t.addr / 16;
        let word = words[idx];
        crate::patch::decode_sm90(word)
            .map_err(|e| format!("{name}: the TLD4 word does not decode for sm_90: {e}"))?;
        kernels.push(KernelLayout {
            name: name.clone(),
            text_offset: sec.offset,
            tld4_index: idx,
            tld4_word: word_hex(word),
            tld4_sass: t.text.clone(),
        });
        if name == "raw" {
            raw = Some(analyze_raw(lines, &words, idx)?);
        }
    }
    let raw = raw.ok_or("no kernel `raw` in the listing")?;
    Ok(Layout {
        ptxas: ptxas.to_string(),
        cubin_bytes: cubin.len(),
        cubin_fnv1a64: format!("{:016x}", fnv1a64(cubin)),
        kernels,
        raw,
    })
}

fn analyze_raw(lines: &[Line], words: &[u128], t: usize) -> Result<RawLayout, String> {
    let at = |l: &Line| l.addr / 16;
    let find = |mn: &str, off: u32| -> Result<(usize, u8), String> {
        let hits: Vec<(usize, u8)> = lines
            .iter()
            .filter(|l| mnemonic(&l.text).starts_with(mn))
            .filter_map(|l| {
                let ops = operands(&l.text);
                let (reg, addr) = if mn.starts_with("LDG") {
                    (&ops[0], &ops[1])
                } else {
                    (&ops[1], &ops[0])
                };
                (addr_offset(addr)? == off).then_some((at(l), reg_num(reg)?))
            })
            .collect();
        match hits.as_slice() {
            [one] => Ok(*one),
            _ => Err(format!("raw: {} `{mn}` at +{off:#x}, want 1", hits.len())),
        }
    };
    let (la, a) = find("LDG.E.128", 0x00)?;
    let (lb, b) = find("LDG.E.128", 0x10)?;
    let (lc, c) = find("LDG.E.128", 0x20)?;
    let (sd, _) = find("STG.E.128", 0x00)?;
    let (sp, p_reg) = find("STG.E.128", 0x10)?;
    let (sc, c2) = find("STG.E.128", 0x20)?;
    let (sa, a2) = find("STG.E.128", 0x30)?;
    let (sb, b2) = find("STG.E.128", 0x40)?;
    if (a, b, c) != (a2, b2, c2) {
        return Err(format!(
            "raw: loads to R{a}/R{b}/R{c} but stores from R{a2}/R{b2}/R{c2}"
        ));
    }
    for (name, r) in [("A", a), ("B", b), ("C", c)] {
        if r % 4 != 0 || r > 250 {
            return Err(format!("raw: quad {name} at R{r} is not 4-aligned"));
        }
    }
    if !(la < t && lb < t && lc < t) {
        return Err("raw: a load of A, B or C comes after the TLD4".into());
    }
    if !(t < sd && sd < sp && sp < sc && sc < sa && sa < sb) {
        return Err("raw: the stores are not D, P, C, A, B after the TLD4".into());
    }
    // No instruction other than the TLD4 writes a quad between its load and its store.
    for (name, r, from, to) in [("A", a, la, sa), ("B", b, lb, sb), ("C", c, lc, sc)] {
        for l in lines
            .iter()
            .filter(|l| at(l) > from && at(l) < to && at(l) != t)
        {
            if written_regs(&l.text).iter().any(|x| (r..r + 4).contains(x)) {
                return Err(format!(
                    "raw: `{}` writes quad {name} (R{r}..R{}) while it is live",
                    l.text,
                    r + 3
                ));
            }
        }
    }
    // The TLD4 as ptxas wrote it must not write A, B or C itself.
    let orig = crate::patch::decode_sm90(words[t])?.insn;
    for d in [orig.rd.0, orig.rd.0 + 1, orig.rd2.0, orig.rd2.0 + 1] {
        if [a, b, c].iter().any(|&q| (q..q + 4).contains(&d)) {
            return Err(format!(
                "raw: the original TLD4 writes R{d}, inside A, B or C"
            ));
        }
    }
    // Some instruction after the TLD4 and up to the store of C waits for the TLD4's results,
    // so that the store of C (in-order issue) sees what the patched TLD4 wrote there.
    let sb = orig.dst_wr_sb;
    if sb > 5 {
        return Err(format!(
            "raw: the TLD4 releases no scoreboard (dst_wr_sb = {sb})"
        ));
    }
    if !(t + 1..=sc).any(|i| wait_mask(words[i]) >> sb & 1 == 1) {
        return Err(format!(
            "raw: nothing between the TLD4 and the store of C waits on scoreboard {sb}"
        ));
    }
    // The instruction before the TLD4 caches no operand for it.
    if reuse_flags(words[t - 1]) != 0 {
        return Err("raw: the instruction before the TLD4 sets operand-reuse flags".into());
    }
    if orig.batch_t != 0 {
        return Err(format!(
            "raw: the TLD4 has batch_t = {} (reuse bits)",
            orig.batch_t
        ));
    }
    let load_scoreboards: Vec<u8> = [la, lb, lc]
        .iter()
        .map(|&i| field::dst_wr_sb.get(words[i]) as u8)
        .collect();
    if load_scoreboards.iter().any(|&s| s > 5) {
        return Err("raw: a load without a write scoreboard".into());
    }
    // The predicate's store: `SEL Rp, X, Y, Pn` (Rp = X if Pn else Y) writes the first word of P.
    let sel = lines
        .iter()
        .filter(|l| at(l) > t && at(l) < sp && mnemonic(&l.text) == "SEL")
        .find(|l| operands(&l.text).first().and_then(|o| reg_num(o)) == Some(p_reg))
        .ok_or("raw: no SEL writes the predicate word")?;
    let ops = operands(&sel.text);
    let pn = format!("P{}", orig.pred_dst.0);
    let imm = |s: &str| -> Result<u32, String> {
        if s == "RZ" {
            Ok(0)
        } else {
            u32::from_str_radix(s.trim_start_matches("0x"), 16)
                .map_err(|_| format!("raw: SEL operand {s}"))
        }
    };
    let (if_set, if_clear) = if ops[3] == pn {
        (imm(&ops[1])?, imm(&ops[2])?)
    } else if ops[3] == format!("!{pn}") {
        (imm(&ops[2])?, imm(&ops[1])?)
    } else {
        return Err(format!("raw: `{}` does not read the TLD4's {pn}", sel.text));
    };
    Ok(RawLayout {
        a_reg: a,
        b_reg: b,
        c_reg: c,
        load_scoreboards,
        pred_store: sel.text.clone(),
        pred_stored_if_set: if_set,
        pred_stored_if_clear: if_clear,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_parsing() {
        assert_eq!(mnemonic("@P0 EXIT"), "EXIT");
        assert_eq!(
            operands("LDG.E.128 R4, desc[UR6][R2.64+0x10]"),
            vec!["R4", "desc[UR6][R2.64+0x10]"]
        );
        assert_eq!(addr_offset("desc[UR6][R2.64+0x10]"), Some(0x10));
        assert_eq!(addr_offset("desc[UR6][R2.64]"), Some(0));
        assert_eq!(
            written_regs("LDG.E.128 R4, desc[UR6][R2.64+0x10]"),
            vec![4, 5, 6, 7]
        );
        assert_eq!(written_regs("IMAD.WIDE.U32 R2, R25, 0x50, R22"), vec![2, 3]);
        assert_eq!(written_regs("CS2R R22, SRZ"), vec![22, 23]);
        assert_eq!(
            written_regs("STG.E.128.STRONG.SYS desc[UR6][R2.64+0x20], R12"),
            Vec::<u8>::new()
        );
        assert_eq!(
            written_regs("ISETP.GE.U32.AND P0, PT, R25, UR4, PT"),
            Vec::<u8>::new()
        );
        assert_eq!(written_regs("SEL R20, RZ, 0x1, P0"), vec![20]);
    }

    #[test]
    fn fnv_reference_value() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the FNV reference test vectors).
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
