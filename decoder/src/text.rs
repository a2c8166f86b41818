//! nvdisasm's text for TLD4: printing ([`core::fmt::Display`]) and parsing ([`parse`]).
//!
//! Every rule here was read off nvdisasm 13.5 (`nvdisasm -b SM100`, docs/sources.md) and is checked
//! by the differential harness in `oracles/nvdisasm`:
//! - the guard is left out for a plain PT; `@!PT` is printed;
//! - modifiers come in the order `TLD4[.SCR].<comp>[.B][.F16.RN|.F16.RZ|.INVALID3]`
//!   `[.AOFFI|.PTP|.INVALID3][.DC][.<eviction>][.NODEP]`, `.B` marking the register-handle form;
//! - operands: `[Pu,] Rd2, Rd, Ra, [Rb,] [URc,] dimension[, mask]`, with Pu left out when PT,
//!   Rb left out when RZ in the uniform form, and the mask left out when 0xf;
//! - register 255 prints RZ, except as Ra (and as Rb in the register form), where nvdisasm
//!   prints `???255`; the first `???255` of a line is preceded by one space more than the
//!   width of the guard text (`@P3 ` = 4, `@!P3 ` = 5), as nvdisasm prints a one-word file.
//!   In a listing of several words nvdisasm aligns that column across the listing instead,
//!   so comparisons against multi-word listings collapse runs of spaces.

use core::fmt::{self, Write};

use crate::error::ParseError;
use crate::fields::Tld4;
use crate::scheduling::SchedulingBits;
use crate::text_pieces::*;
use crate::values::*;

/// The values [`parse`] gives the fields that nvdisasm's text does not show.
///
/// Choice (documented): bits 48-55 take 0xff in the uniform-register form, as ptxas writes
/// them (docs/sources.md); everything else that the text does not show is zero (the scheduling
/// fields, `ignored_*`, and URc in the register form). Opex 0 is legal (nvdisasm).
pub const PARSE_DEFAULT_IGNORED_48_59_UNIFORM: u16 = 0x0ff;

/// What a family prints differently from the base table (built from the family rows of the
/// field table by `crate::arch_insn`; [`Dialect::BASE`] for SM100).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Dialect {
    /// The URc value printed `???<n>` instead of a register.
    pub ur_unknown: Option<u8>,
    /// An immediate printed after URc.
    pub imm_after_ur: Option<u8>,
    /// A second uniform register, printed after the handle operands unless URZ.
    pub second_ur: Option<UReg>,
    /// Whether `.UAI` follows the offset modifier.
    pub uai: bool,
    /// The spelling of offset value 3, where it is not `INVALID3`.
    pub offset3: Option<&'static str>,
    /// URc and the second uniform register printed whatever the form, URZ included.
    pub both_urs: bool,
    /// What the register form prints in place of `.B` (`???0`), where not `B`.
    pub b_name: Option<&'static str>,
    /// Immediates printed after Rb in place of URc (the first `imm_count` of them).
    pub imms: [u16; 3],
    /// How many of `imms` are printed (0: URc as the form says).
    pub imm_count: u8,
    /// As nvdisasm lists a cubin's code (` ;` always), not a raw word (where one
    /// scheduling closes with `;` alone: [`crate::scheduling::TIGHT_SEMICOLON`]).
    pub listing: bool,
}

impl Dialect {
    /// The base table's text: no differences.
    pub const BASE: Dialect = Dialect {
        ur_unknown: None,
        imm_after_ur: None,
        second_ur: None,
        uai: false,
        offset3: None,
        both_urs: false,
        b_name: None,
        imms: [0; 3],
        imm_count: 0,
        listing: false,
    };
}

/// A source register operand that nvdisasm may print other than `RZ` (Rd2 and Rd print
/// register 255 as `RZ` always).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GprOperand {
    /// Ra, the start of the coordinate vector.
    Ra,
    /// Rb, the start of the handle/offsets/depth-reference vector.
    Rb,
}

/// How register 255 prints in `operand` of the form `form`: the one rule the printer and the
/// parser share (docs/sources.md, Encoding: register 255 prints RZ except as Ra, and as Rb in
/// the register form, where nvdisasm prints `???255`; Rb = RZ in the uniform form is left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rz {
    /// `???255`.
    Unknown,
    /// Nothing: the operand is left out.
    Omitted,
}

/// See [`Rz`] (docs/sources.md, Encoding).
pub(crate) const fn rz_text(operand: GprOperand, form: HandleForm) -> Rz {
    match (operand, form) {
        (GprOperand::Ra, _) | (GprOperand::Rb, HandleForm::Register) => Rz::Unknown,
        (GprOperand::Rb, HandleForm::Uniform) => Rz::Omitted,
    }
}

/// The closings nvdisasm prints after the operands: ` ;`, and `;` alone for one combination
/// of the scheduling fields ([`crate::scheduling::TIGHT_SEMICOLON`]) in a raw word's text.
const CLOSE: [Piece; 2] = [Piece::new(" ;"), Piece::new(";")];

/// Whether `text` closes with `;` right after its operands, no space before it (the text of
/// a raw word with the scheduling values [`crate::scheduling::TIGHT_SEMICOLON`]).
pub(crate) fn closes_tight(text: &str) -> bool {
    text.trim_end()
        .strip_suffix(';')
        .is_some_and(|before| !before.ends_with(char::is_whitespace))
}

/// `text` without its closing (` ;` or `;`) and trailing whitespace: the instruction as it
/// stands in a sentence, a title or a scenario.
///
/// ```
/// use tld4_decoder::without_closing;
/// assert_eq!(without_closing("TLD4.R R10, R8, R20, UR4, 2D ;"), "TLD4.R R10, R8, R20, UR4, 2D");
/// assert_eq!(without_closing("TLD4.R R10, R8, R20, UR4, 2D;"), "TLD4.R R10, R8, R20, UR4, 2D");
/// assert_eq!(without_closing("TLD4.R R10, R8, R20, UR4, 2D"), "TLD4.R R10, R8, R20, UR4, 2D");
/// ```
pub fn without_closing(text: &str) -> &str {
    let t = text.trim_end();
    t.strip_suffix(';').unwrap_or(t).trim_end()
}

impl Tld4 {
    /// The guard's text with its trailing space (`@P3 `, `@!PT `), or nothing for a plain PT.
    fn guard_width(&self) -> usize {
        if self.guard_pred.is_pt() && !self.guard_negated {
            0
        } else {
            4 + self.guard_negated as usize
        }
    }

    /// Writes nvdisasm's text of the instruction (what nvdisasm prints for a file holding
    /// this word alone, without the address comment and leading spaces).
    #[inline]
    pub fn write_text(&self, out: &mut impl Write) -> fmt::Result {
        self.write_text_in(out, &Dialect::BASE)
    }

    /// [`Tld4::write_text`] with a family's differences ([`Dialect`], from the family rows of
    /// the field table). Pieces that depend on the word are put without branches where
    /// they may be absent (random words would mispredict them); the dialect's branches fold
    /// away for [`Dialect::BASE`].
    #[inline(always)]
    pub(crate) fn write_text_in(&self, out: &mut impl Write, d: &Dialect) -> fmt::Result {
        const SEP: Piece = Piece::new(", ");
        let mut t = TextBuf::new();
        let guard = self.guard_width();
        if guard != 0 {
            t.byte(b'@');
            t.put_if(self.guard_negated, &const { Piece::new("!") });
            t.put(&PRED_TEXT[self.guard_pred.0 as usize]);
            t.byte(b' ');
        }
        t.put(&const { Piece::new("TLD4") });
        t.put_if(self.scr, &const { Piece::new(".SCR") });
        t.put(&COMPONENT_TEXT[self.component as usize]);
        match d.b_name {
            None => t.put_if(
                self.form == HandleForm::Register,
                &const { Piece::dotted("B") },
            ),
            Some(name) if self.form == HandleForm::Register => {
                t.byte(b'.');
                t.push(name);
            }
            Some(_) => {}
        }
        t.put(&F16_TEXT[self.f16_mode as usize]);
        match d.offset3 {
            Some(name) if self.offset_mode == OffsetMode::Invalid3 => {
                t.byte(b'.');
                t.push(name);
            }
            _ => t.put(&OFFSET_TEXT[self.offset_mode as usize]),
        }
        if d.uai {
            t.put(&const { Piece::new(".UAI") });
        }
        t.put_if(self.depth_compare, &const { Piece::new(".DC") });
        t.put(&EVICTION_TEXT[self.eviction as usize]);
        t.put_if(self.nodep, &const { Piece::new(".NODEP") });
        // Operands: `[Pu,] Rd2, Rd, Ra, [Rb,] [URc,] dimension[, mask]`.
        t.byte(b' ');
        let pred_dst = !self.pred_dst.is_pt();
        t.put_if(pred_dst, &PRED_TEXT[self.pred_dst.0 as usize]);
        t.put_if(pred_dst, &SEP);
        t.put(&REG_TEXT[self.rd2.0 as usize]);
        t.put(&REG_OPERAND[self.rd.0 as usize]);
        let mut unknown_seen = false;
        let mut unknown = |t: &mut TextBuf, n: u8| {
            // nvdisasm pads the first ???255 of a one-word listing by the guard's width.
            if !unknown_seen {
                unknown_seen = true;
                for _ in 0..guard {
                    t.byte(b' ');
                }
            }
            t.put(&Piece::numbered("???", n));
        };
        match (self.ra.is_rz(), rz_text(GprOperand::Ra, self.form)) {
            (true, Rz::Unknown) => {
                t.put(&SEP);
                unknown(&mut t, 255);
            }
            _ => t.put(&REG_OPERAND[self.ra.0 as usize]),
        }
        // (`&`, not `&&`: one branch on the rare `???255`, none on the form)
        let (rb_rz, rb_rule) = (self.rb.is_rz(), rz_text(GprOperand::Rb, self.form));
        if rb_rz & (rb_rule == Rz::Unknown) {
            t.put(&SEP);
            unknown(&mut t, 255);
        } else {
            let shown = !(rb_rz & (rb_rule == Rz::Omitted));
            t.put_if(shown, &REG_OPERAND[self.rb.0 as usize]);
        }
        if d.imm_count > 0 {
            for &imm in d.imms.iter().take(d.imm_count as usize) {
                t.put(&SEP);
                t.hex(imm);
            }
        } else {
            let shown = self.form == HandleForm::Uniform || d.both_urs;
            if shown && d.ur_unknown == Some(self.ur.0) {
                t.put(&SEP);
                unknown(&mut t, self.ur.0);
            } else {
                t.put_if(shown, &UREG_OPERAND[self.ur.0 as usize]);
            }
            if let Some(imm) = d.imm_after_ur.filter(|_| shown) {
                t.put(&SEP);
                t.hex(imm.into());
            }
        }
        if let Some(ur2) = d.second_ur {
            if d.both_urs || !ur2.is_urz() {
                t.put(&UREG_OPERAND[ur2.0 as usize]);
            }
        }
        t.put(&DIMENSION_TEXT[self.dimension as usize]);
        t.put_if(
            self.write_mask != WriteMask::ALL,
            &MASK_TEXT[(self.write_mask.0 & 0xf) as usize],
        );
        t.put(&CLOSE[(self.tight_semicolon() && !d.listing) as usize]);
        out.write_str(t.as_str())
    }

    /// The text as nvdisasm lists it in a cubin's code (`nvdisasm` on an ELF file): as
    /// [`Tld4::write_text`], but the closing is ` ;` whatever the scheduling fields hold
    /// (nvdisasm 13.5.37, docs/sources.md, Encoding).
    pub fn write_listing_text(&self, out: &mut impl Write) -> fmt::Result {
        self.write_text_in(
            out,
            &Dialect {
                listing: true,
                ..Dialect::BASE
            },
        )
    }

    /// nvdisasm's text as a new string (see [`Tld4::write_text`]).
    pub fn text(&self) -> String {
        let mut s = String::with_capacity(64);
        let _ = self.write_text(&mut s);
        s
    }
}

impl fmt::Display for Tld4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

/// A cursor over one line of text, with 1-based character columns for errors.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }
    fn column(&self, pos: usize) -> usize {
        self.text[..pos].chars().count() + 1
    }
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    /// The next word: letters, digits, `_`, `?` (for `???255`).
    fn peek_word(&self) -> &'a str {
        let rest = self.rest();
        let end = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '?'))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..end]
    }
    fn error(&self, pos: usize, expected: impl Into<String>) -> ParseError {
        let rest = &self.text[pos..];
        let found = if rest.trim().is_empty() {
            "the end of the line".to_string()
        } else {
            let word: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ';')
                .collect();
            let word = if word.is_empty() {
                rest.chars().take(1).collect()
            } else {
                word
            };
            format!("`{word}`")
        };
        ParseError {
            column: self.column(pos),
            expected: expected.into(),
            found,
        }
    }
}

/// An operand token of the text.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Operand {
    Pred(Pred),
    Reg(Reg),
    /// `???255`: register 255 where nvdisasm does not call it RZ.
    Unknown255,
    UReg(UReg),
    Dim(Dimension),
    /// An immediate, at any size (range-checked against its field where it is used).
    Imm(u64),
}

fn parse_num(s: &str, max: u32) -> Option<u8> {
    if s.is_empty()
        || s.len() > 3
        || !s.bytes().all(|b| b.is_ascii_digit())
        || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    let v: u32 = s.parse().ok()?;
    (v <= max).then_some(v as u8)
}

fn operand(word: &str) -> Option<Operand> {
    if let Some(d) = Dimension::ALL.iter().find(|d| d.name() == word) {
        return Some(Operand::Dim(*d));
    }
    match word {
        "PT" => return Some(Operand::Pred(Pred::PT)),
        "RZ" => return Some(Operand::Reg(Reg::RZ)),
        "URZ" => return Some(Operand::UReg(UReg::URZ)),
        "???255" => return Some(Operand::Unknown255),
        _ => {}
    }
    if word.starts_with("0x") {
        return crate::immediates::parse_hex(word).map(Operand::Imm);
    }
    if let Some(n) = word.strip_prefix("UR") {
        return parse_num(n, 254).map(|n| Operand::UReg(UReg(n)));
    }
    if let Some(n) = word.strip_prefix('R') {
        return parse_num(n, 254).map(|n| Operand::Reg(Reg(n)));
    }
    if let Some(n) = word.strip_prefix('P') {
        return parse_num(n, 6).map(|n| Operand::Pred(Pred(n)));
    }
    None
}

/// Parses one TLD4 in nvdisasm's syntax into the typed value.
///
/// Accepts exactly what nvdisasm prints (with any amount of whitespace between tokens, and
/// with or without the final ` ;`), plus an explicit `RZ` as Rb of the uniform form (which
/// nvdisasm leaves out). `RZ` where nvdisasm prints `???255` (`rz_text`), and `???255`
/// where it prints `RZ` or nothing, are refused: nvdisasm never prints them. Fields the
/// text does not show take the values described at [`PARSE_DEFAULT_IGNORED_48_59_UNIFORM`].
/// A lone `.INVALID3` is read as the offset field (the F16 field's INVALID3 prints the same;
/// nvdisasm's text cannot tell them apart, and both encodings print back identically).
pub fn parse(text: &str) -> Result<Tld4, ParseError> {
    let mut c = Cursor { text, pos: 0 };
    c.skip_ws();

    // Guard.
    let mut guard_pred = Pred::PT;
    let mut guard_negated = false;
    if c.eat("@") {
        guard_negated = c.eat("!");
        let at = c.pos;
        match operand(c.peek_word()) {
            Some(Operand::Pred(p)) => {
                c.pos += c.peek_word().len();
                guard_pred = p;
            }
            _ => return Err(c.error(at, "a guard predicate (P0..P6 or PT)")),
        }
        c.skip_ws();
    }

    let at = c.pos;
    if c.peek_word() != "TLD4" {
        return Err(c.error(at, "the mnemonic `TLD4`"));
    }
    c.pos += 4;

    // Modifiers, in nvdisasm's order.
    let mut mods: Vec<(usize, &str)> = Vec::new();
    while c.eat(".") {
        let at = c.pos;
        let w = c.peek_word();
        if w.is_empty() {
            return Err(c.error(at, "a modifier after `.`"));
        }
        c.pos += w.len();
        mods.push((at, w));
    }
    let mut i = 0;
    let take = |i: &mut usize, names: &[&str]| -> Option<usize> {
        let (_, w) = *mods.get(*i)?;
        let k = names.iter().position(|n| *n == w)?;
        *i += 1;
        Some(k)
    };
    let scr = take(&mut i, &["SCR"]).is_some();
    let component = match take(&mut i, &["R", "G", "B", "A"]) {
        Some(k) => Component::ALL[k],
        None => {
            let at = mods.get(i).map_or(c.pos, |m| m.0);
            return Err(c.error(at, "the component `.R`, `.G`, `.B` or `.A`"));
        }
    };
    let form = if take(&mut i, &["B"]).is_some() {
        HandleForm::Register
    } else {
        HandleForm::Uniform
    };
    // F16.RN / F16.RZ are two dot-separated words.
    let mut f16_mode = F16Mode::None;
    if mods.get(i).map(|m| m.1) == Some("F16") {
        match mods.get(i + 1).map(|m| m.1) {
            Some("RN") => f16_mode = F16Mode::Rn,
            Some("RZ") => f16_mode = F16Mode::Rz,
            _ => {
                let at = mods.get(i + 1).map_or(c.pos, |m| m.0);
                return Err(c.error(at, "`RN` or `RZ` after `.F16`"));
            }
        }
        i += 2;
    }
    let mut offset_mode = match take(&mut i, &["AOFFI", "PTP", "INVALID3"]) {
        Some(k) => OffsetMode::ALL[k + 1],
        None => OffsetMode::None,
    };
    if f16_mode == F16Mode::None && offset_mode == OffsetMode::Invalid3 {
        // Two INVALID3 in a row: the first was the F16 field.
        if take(&mut i, &["AOFFI", "PTP", "INVALID3"])
            .map(|k| OffsetMode::ALL[k + 1])
            .map(|o| {
                offset_mode = o;
            })
            .is_some()
        {
            f16_mode = F16Mode::Invalid3;
        }
    }
    let depth_compare = take(&mut i, &["DC"]).is_some();
    let eviction_names = ["EF", "EL", "LU", "EU", "NA", "INVALID6", "INVALID7"];
    let eviction = match take(&mut i, &eviction_names) {
        Some(k) => Eviction::ALL[if k == 0 { 0 } else { k + 1 }],
        None => Eviction::Normal,
    };
    let nodep = take(&mut i, &["NODEP"]).is_some();
    if let Some(&(at, _)) = mods.get(i) {
        return Err(c.error(
            at,
            "a modifier in nvdisasm's order: [.SCR].<R|G|B|A>[.B][.F16.RN|.F16.RZ|.INVALID3]\
             [.AOFFI|.PTP|.INVALID3][.DC][.EF|.EL|.LU|.EU|.NA|.INVALID6|.INVALID7][.NODEP]",
        ));
    }

    // Operands.
    let mut ops: Vec<(usize, Operand)> = Vec::new();
    loop {
        c.skip_ws();
        let at = c.pos;
        if c.rest().is_empty() || c.rest().starts_with(';') {
            if !ops.is_empty() {
                return Err(c.error(at, "an operand after `,`"));
            }
            break;
        }
        let w = c.peek_word();
        match operand(w) {
            Some(op) => {
                c.pos += w.len();
                ops.push((at, op));
            }
            None => {
                return Err(c.error(
                    at,
                    "an operand (a predicate P0..P6, a register R0..R254/RZ, UR0..UR254/URZ, a dimension, or an immediate 0x...)",
                ))
            }
        }
        c.skip_ws();
        if !c.eat(",") {
            break;
        }
    }
    c.skip_ws();
    let at = c.pos;
    if !(c.eat(";") || c.rest().is_empty()) {
        return Err(c.error(at, "`,` or the closing ` ;`"));
    }
    c.skip_ws();
    if !c.rest().is_empty() {
        return Err(c.error(c.pos, "nothing after ` ;`"));
    }

    let end = c.pos;
    let scheduling = SchedulingBits::parsed(closes_tight(text));
    let mut k = 0;
    let next = |k: &mut usize| ops.get(*k).copied();
    let expect =
        |k: &mut usize, what: &str, ok: &dyn Fn(Operand) -> Option<u8>| -> Result<u8, ParseError> {
            match next(k) {
                Some((at, op)) => match ok(op) {
                    Some(v) => {
                        *k += 1;
                        Ok(v)
                    }
                    None => Err(c.error(at, what)),
                },
                None => Err(c.error(end, what)),
            }
        };
    let pred_dst = match ops.first() {
        Some((_, Operand::Pred(p))) => {
            k = 1;
            *p
        }
        _ => Pred::PT,
    };
    let gpr = |op: Operand| match op {
        Operand::Reg(r) => Some(r.0),
        _ => None,
    };
    // Register 255 as nvdisasm spells it in this operand ([`rz_text`]), and no other way.
    let gpr_of = |operand: GprOperand| {
        let rz = rz_text(operand, form);
        move |op: Operand| match op {
            Operand::Reg(r) if !r.is_rz() || rz != Rz::Unknown => Some(r.0),
            Operand::Unknown255 if rz == Rz::Unknown => Some(255),
            _ => None,
        }
    };
    let rd2 = Reg(expect(&mut k, "the register Rd2 (components 2-3)", &gpr)?);
    let rd = Reg(expect(&mut k, "the register Rd (components 0-1)", &gpr)?);
    let ra = Reg(expect(
        &mut k,
        "the coordinate register Ra (R0..R254; register 255 is printed `???255`)",
        &gpr_of(GprOperand::Ra),
    )?);
    let rb = match (form, ops.get(k).map(|o| o.1)) {
        (HandleForm::Uniform, Some(Operand::UReg(_))) => Reg::RZ,
        (HandleForm::Uniform, _) => Reg(expect(
            &mut k,
            "the register Rb (R0..R254, RZ) or the uniform handle register URc",
            &gpr_of(GprOperand::Rb),
        )?),
        (HandleForm::Register, _) => Reg(expect(
            &mut k,
            "the register Rb (handle, offsets, depth reference: R0..R254; register 255 is printed `???255`)",
            &gpr_of(GprOperand::Rb),
        )?),
    };
    let ur = match form {
        HandleForm::Uniform => UReg(expect(
            &mut k,
            "the uniform handle register URc (UR0..UR254, URZ)",
            &|op| match op {
                Operand::UReg(u) => Some(u.0),
                _ => None,
            },
        )?),
        HandleForm::Register => UReg(0),
    };
    let dimension = Dimension::ALL[expect(
        &mut k,
        "the dimension (2D, CUBE, ARRAY_2D, ARRAY_CUBE, INVALID0/2/4/6)",
        &|op| match op {
            Operand::Dim(d) => Some(d.raw() as u8),
            _ => None,
        },
    )? as usize];
    let write_mask = match ops.get(k) {
        Some(&(at, Operand::Imm(v))) => {
            k += 1;
            let mask = crate::immediates::Immediate {
                spec: crate::fields::field::write_mask,
                slot: crate::immediates::ImmediateSlot::WriteMask,
            };
            WriteMask(mask.check(v, c.column(at))? as u8)
        }
        _ => WriteMask::ALL,
    };
    if let Some(&(at, _)) = ops.get(k) {
        return Err(c.error(
            at,
            "the end of the operands (after the dimension only a mask 0x0..0xe may follow)",
        ));
    }

    Ok(Tld4 {
        form,
        guard_pred,
        guard_negated,
        rd,
        ra,
        rb,
        ur,
        ignored_48_59: if form == HandleForm::Uniform {
            PARSE_DEFAULT_IGNORED_48_59_UNIFORM
        } else {
            0
        },
        scr,
        dimension,
        rd2,
        write_mask,
        offset_mode,
        depth_compare,
        f16_mode,
        pred_dst,
        eviction,
        component,
        ignored_89: false,
        nodep,
        bit_91: crate::fields::AlwaysSet,
        ignored_92_101: 0,
        pm_pred: 0,
        ignored_104: false,
        usched_info: scheduling.usched_info,
        dst_wr_sb: scheduling.dst_wr_sb,
        src_rel_sb: scheduling.src_rel_sb,
        req_bit_set: scheduling.req_bit_set,
        batch_t: scheduling.batch_t,
        ignored_125_127: 0,
    })
}
