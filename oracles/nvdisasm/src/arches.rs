//! The live differential on every architecture nvdisasm knows: random words, biased toward
//! each family's TLD4 forms, put to `nvdisasm -b <arch>` and to `tld4_decoder::decode_arch`.
//!
//! For each word: a modeled form decodes exactly when nvdisasm prints a TLD4, to nvdisasm's
//! text (runs of spaces collapsed), encodes back to the word, and nvdisasm's text parses to a
//! word that prints it; a form that is TLD4 but not modeled is counted (valid or not); every
//! other opcode is refused by both.

use tld4_decoder::{
    decode_arch, field, parse_arch, Arch, BClear, Change, DecodeError, FAMILY_ROWS, FORMS,
};

use crate::nvdisasm::{collapse, Nvdisasm, Verdict};
use crate::rng::Rng;
use crate::words;

/// What one architecture's run found.
#[derive(Debug, Default)]
pub struct ArchReport {
    /// Words checked.
    pub words: usize,
    /// Words both sides decode as TLD4 with the same text.
    pub agree_tld4: usize,
    /// Words both refuse (or nvdisasm prints another instruction).
    pub agree_refused: usize,
    /// Words of a form tld4 does not model: (nvdisasm printed TLD4, nvdisasm refused).
    pub not_modeled: (usize, usize),
    /// One line per disagreement.
    pub disagreements: Vec<String>,
}

/// `n` words for `arch`: 80% biased with one of the family's TLD4 opcodes, 10% biased with a
/// random opcode, 10% fully random.
fn words_for(arch: Arch, rng: &mut Rng, n: usize) -> Vec<u128> {
    let ops: Vec<u16> = FORMS
        .iter()
        .filter(|f| f.family == arch.family())
        .map(|f| f.opcode)
        .collect();
    (0..n)
        .map(|_| {
            let roll = rng.below(10);
            let w = words::biased(rng);
            if roll == 0 {
                rng.next_u128()
            } else if roll == 1 || ops.is_empty() {
                field::form.set(w, rng.bits(12))
            } else {
                let op = ops[rng.below(ops.len())];
                required_mostly(arch, op, field::form.set(w, op as u32), rng)
            }
        })
        .collect()
}

/// `w` with the required values of form `op`'s family rows (bit 91 clear in 0x364, 0xb63 and
/// 0xb65; bit 59 set where clear is refused) in 97% of the words, as `words::biased` sets
/// the base table's bit 91.
fn required_mostly(arch: Arch, op: u16, mut w: u128, rng: &mut Rng) -> u128 {
    let rows = FAMILY_ROWS
        .iter()
        .filter(|r| r.family == arch.family() && (r.forms.is_empty() || r.forms.contains(&op)));
    for r in rows {
        let value = match r.change {
            Change::Required { value } => value,
            Change::BFlag {
                clear: BClear::Refused,
            } => 1,
            _ => continue,
        };
        if rng.chance(0.97) {
            w = r.spec.set(w, value);
        }
    }
    w
}

/// Checks `n` random words on `arch`.
pub fn check_arch(
    nv: &Nvdisasm,
    arch: Arch,
    rng: &mut Rng,
    n: usize,
) -> Result<ArchReport, String> {
    let nv = nv
        .for_arch(arch.nvdisasm_name())
        .map_err(|e| format!("{arch}: {e}"))?;
    let words = words_for(arch, rng, n);
    let verdicts = nv.verdicts(&words)?;
    let mut r = ArchReport {
        words: words.len(),
        ..ArchReport::default()
    };
    for (&w, v) in words.iter().zip(&verdicts) {
        let mut disagree = |what: String| {
            r.disagreements.push(format!(
                "DISAGREE [{arch}] {w:032x}: {what}; nvdisasm: {}",
                v.describe()
            ))
        };
        match (decode_arch(arch, w), v) {
            (Ok(insn), Verdict::Tld4(t)) => {
                let text = insn.text();
                if collapse(&text) != collapse(t) {
                    disagree(format!("text `{text}`"));
                    continue;
                }
                if insn.encode() != w {
                    disagree(format!("encode gives {:032x}", insn.encode()));
                    continue;
                }
                let back = parse_arch(arch, t)
                    .map_err(|e| e.to_string())
                    .and_then(|p| p.try_encode().map_err(|e| e.to_string()))
                    .and_then(|b| decode_arch(arch, b).map_err(|e| e.to_string()));
                match back {
                    Ok(b) if collapse(&b.text()) == collapse(t) => r.agree_tld4 += 1,
                    Ok(b) => disagree(format!("text -> bits -> text gives `{b}`")),
                    Err(e) => disagree(format!("text -> bits fails: {e}")),
                }
            }
            (Ok(insn), _) => disagree(format!("decoded as `{insn}`")),
            (Err(DecodeError::FormNotModeled { .. }), Verdict::Tld4(_)) => r.not_modeled.0 += 1,
            (Err(DecodeError::FormNotModeled { .. }), _) => r.not_modeled.1 += 1,
            (Err(e), Verdict::Tld4(_)) => disagree(format!("refused: {e}")),
            (Err(_), _) => r.agree_refused += 1,
        }
    }
    Ok(r)
}
