//! Parsing nvdisasm `-b <arch>`'s text of a TLD4 ([`parse_arch`]): the family's operands
//! and modifiers are taken out by the family rows of the field table, the rest is read by
//! [`crate::parse`]. Every immediate is range-checked against its field
//! ([`crate::immediates`]) and every error carries the column of the original text.

use core::ops::Deref;

use crate::arch::{Arch, Family};
use crate::arch_insn::{decode_arch, ArchTld4};
use crate::error::ParseError;
use crate::fields::arch_rows::{self, BClear, Change};
use crate::immediates::{immediates, parse_hex, ImmediateSlot};
use crate::values::{F16Mode, HandleForm, OffsetMode, UReg};

/// One operand of the text and the 1-based column it starts at in the original line.
#[derive(Clone, Debug)]
struct Op {
    text: String,
    column: usize,
}

impl Deref for Op {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// Parses nvdisasm `-b <arch>`'s text of a TLD4: the family's operands and modifiers are
/// taken out (by the family rows), the rest is read by [`crate::parse`]. Every immediate is
/// checked against its field's width ([`crate::immediates`]), a register the family prints
/// `???<n>` is refused under any other name, and errors carry the original text's column.
pub fn parse_arch(arch: Arch, text: &str) -> Result<ArchTld4, ParseError> {
    let family = arch.family();
    if arch_rows::forms(family).all(|f| f.modeled_as.is_none()) {
        return Err(ParseError {
            column: 1,
            expected: format!("nothing: {arch} has no modeled TLD4 form"),
            found: format!("\"{}\"", text.trim()),
        });
    }
    let (mut imm8, mut ur2, mut uai) = (0u8, UReg::URZ, false);
    let (mut b_flag, mut imms) = (false, [0u16; 3]);
    let mut first_ur = None;
    let (head, head_column, mut ops) = split_operands(text);
    let mut head = head.to_string();
    let opcode = parse_form(family, &head, &ops).ok_or_else(|| ParseError {
        column: 1,
        expected: format!("the operands of one of {arch}'s TLD4 forms"),
        found: format!("\"{}\"", text.trim()),
    })?;
    let form_imms = immediates(family, opcode);
    let imm_field = |slot: ImmediateSlot| form_imms.iter().find(|i| i.slot == slot);
    let mut uaoffi = false;
    let mut imms_done = false;
    for r in arch_rows::form_rows(family, opcode) {
        match r.change {
            Change::BFlag { clear } => {
                if let Some(h) = replace_modifier(&head, "???0", "B") {
                    if clear != BClear::Unknown {
                        return Err(ParseError {
                            column: text.find("???0").map_or(1, |c| c + 1),
                            expected: format!("`.B` on {arch}"),
                            found: "`.???0`".into(),
                        });
                    }
                    head = h;
                } else {
                    b_flag = is_register_form(&head);
                }
            }
            Change::HandleImm { .. } if imms_done => {}
            Change::HandleImm { .. } => {
                imms_done = true;
                // The immediates stand after the registers, before the dimension; a form
                // read as the uniform form gets a placeholder URc (their bits are the rows').
                let n = arch_rows::imm_count(family, opcode);
                let at = ops
                    .iter()
                    .position(|o| o.starts_with("0x"))
                    .unwrap_or(ops.len());
                let found: Vec<Op> = ops.drain(at..(at + n).min(ops.len())).collect();
                for (slot, o) in found.iter().enumerate() {
                    let value = parse_hex(o).ok_or_else(|| ParseError {
                        column: o.column,
                        expected: "an immediate (0x followed by hex digits)".into(),
                        found: format!("`{}`", &**o),
                    })?;
                    if let Some(f) = imm_field(ImmediateSlot::Handle(slot as u8)) {
                        imms[slot] = f.check(value, o.column)? as u16;
                    }
                }
                if !is_register_form(&head) {
                    ops.insert(
                        at,
                        Op {
                            text: "URZ".into(),
                            column: ops.get(at).map_or(1, |o| o.column),
                        },
                    );
                }
            }
            Change::Uai => {
                if let Some(h) = remove_modifier(&head, "UAI") {
                    head = h;
                    uai = true;
                }
            }
            Change::Renamed { name, .. } => {
                if let Some(h) = replace_modifier(&head, name, "INVALID3") {
                    head = h;
                    uaoffi = true;
                }
            }
            Change::ImmAfterUr => {
                // The operand after the uniform register (`URn`, `URZ`, or the family's
                // `???<n>` spelling of its zero register).
                let unknown = arch_rows::form_rows(family, opcode).find_map(|r| match r.change {
                    Change::Narrowed {
                        unknown: Some(n), ..
                    } => Some(format!("???{n}")),
                    _ => None,
                });
                if let Some(i) = ops
                    .iter()
                    .position(|o| o.starts_with("UR") || Some(&**o) == unknown.as_deref())
                {
                    let end_column = text.trim_end().chars().count() + 1;
                    let (next, column) = ops
                        .get(i + 1)
                        .map_or(("the end of the operands", end_column), |o| {
                            (&**o, o.column)
                        });
                    let value = parse_hex(next).ok_or_else(|| ParseError {
                        column,
                        expected: format!("the immediate after URc (0x...) on {arch}"),
                        found: format!("`{next}`"),
                    })?;
                    if let Some(f) = imm_field(ImmediateSlot::AfterUr) {
                        imm8 = f.check(value, column)? as u8;
                    }
                    ops.remove(i + 1);
                }
            }
            Change::SecondUr => {
                let urs: Vec<usize> = ops
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.starts_with("UR"))
                    .map(|(i, _)| i)
                    .collect();
                let register_form = is_register_form(&head);
                let bad_ur = |o: &Op| ParseError {
                    column: o.column,
                    expected: "a uniform register (UR0..UR254, URZ)".into(),
                    found: format!("`{}`", &**o),
                };
                // Two uniform registers in the register form: the form that prints both
                // (read as the register form, URc set from the first).
                let both_urs = register_form && urs.len() == 2;
                if both_urs {
                    first_ur = Some(parse_ur(&ops[urs[0]]).ok_or_else(|| bad_ur(&ops[urs[0]]))?);
                }
                let second = if register_form && !both_urs {
                    urs.first()
                } else {
                    urs.get(1)
                };
                if let Some(&i) = second {
                    ur2 = parse_ur(&ops[i]).ok_or_else(|| bad_ur(&ops[i]))?;
                    ops.remove(i);
                }
                if both_urs {
                    ops.remove(urs[0]);
                }
            }
            Change::Narrowed {
                field: name,
                unknown,
            } => {
                // The field's bits are the row's: a wider value is no register of the
                // family, and the value printed `???<n>` is never printed as a register.
                let limit = 1u32 << r.spec.width();
                for o in ops
                    .iter_mut()
                    .filter(|o| o.starts_with("UR") || o.starts_with("???"))
                {
                    if name != "ur" {
                        continue;
                    }
                    if let Some(n) = unknown.filter(|n| o.text == format!("???{n}")) {
                        o.text = format!("UR{n}");
                        continue;
                    }
                    let Some(ur) = parse_ur(o).filter(|u| !u.is_urz()) else {
                        continue;
                    };
                    let refused = if ur.0 as u32 >= limit {
                        Some(format!("a uniform register below UR{limit} on {arch}"))
                    } else if unknown == Some(ur.0) {
                        Some(format!(
                            "`???{}` (nvdisasm prints uniform register {} so on {arch}, never `UR{}`)",
                            ur.0, ur.0, ur.0
                        ))
                    } else {
                        None
                    };
                    if let Some(expected) = refused {
                        return Err(ParseError {
                            column: o.column,
                            expected,
                            found: format!("`{}`", &**o),
                        });
                    }
                }
            }
            Change::Required { .. } => {}
        }
    }
    let rebuilt = rebuild(&head, head_column, &ops, crate::text::closes_tight(text));
    let mut insn = crate::parse(&rebuilt.text).map_err(|e| rebuilt.map_error(e))?;
    if family_renames_offset3(family)
        && !uaoffi
        && insn.offset_mode == OffsetMode::Invalid3
        && insn.f16_mode == F16Mode::None
    {
        // On this family offset 3 prints `UAOFFI`, so a lone `INVALID3` is the F16 field's.
        insn.offset_mode = OffsetMode::None;
        insn.f16_mode = F16Mode::Invalid3;
    }
    if let Some(ur) = first_ur {
        insn.ur = ur;
    }
    let raw = ArchTld4 {
        arch,
        opcode,
        insn,
        imm8,
        ur2,
        uai,
        b_flag,
        imms,
    }
    .encode();
    // The instruction as the word reads back: the base fields' bits that the family's rows
    // take hold the rows' values.
    decode_arch(arch, raw).map_err(|e| ParseError {
        column: 1,
        expected: format!("a TLD4 that nvdisasm -b {} accepts", arch.nvdisasm_name()),
        found: format!("\"{}\" ({e})", text.trim()),
    })
}

/// The text handed to the base parser, with where each of its operands came from.
struct Rebuilt {
    text: String,
    /// The head's length in characters, and its column in the original line.
    head: (usize, usize),
    /// Each operand's column in `text` and in the original line.
    columns: Vec<(usize, usize)>,
}

fn rebuild(head: &str, head_column: usize, ops: &[Op], tight: bool) -> Rebuilt {
    let mut text = format!("{head} ");
    let mut columns = Vec::with_capacity(ops.len());
    for (i, o) in ops.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        columns.push((text.chars().count() + 1, o.column));
        text.push_str(o);
    }
    // (the closing as the original has it: the base parser reads the scheduling from it)
    text.push_str(if tight { ";" } else { " ;" });
    Rebuilt {
        text,
        head: (head.chars().count(), head_column),
        columns,
    }
}

impl Rebuilt {
    /// The base parser's error with its column moved to the original line: inside an
    /// operand, the same place of that operand; inside the mnemonic, the same place of it
    /// (approximate where the family's modifiers were taken out).
    fn map_error(&self, mut e: ParseError) -> ParseError {
        let c = e.column;
        e.column = match self.columns.iter().rev().find(|(at, _)| *at <= c) {
            Some(&(at, orig)) => orig + (c - at),
            None if c <= self.head.0 + 1 => self.head.1 + c - 1,
            None => c,
        };
        e
    }
}

/// The opcode of the family's form that `head` and `ops` (from [`split_operands`]) are
/// written in: the form printing as many immediates after Rb as the text holds before the
/// dimension (where no uniform register is printed), else by `.B` (or `.???0`) and the
/// number of uniform registers.
fn parse_form(family: Family, head: &str, ops: &[Op]) -> Option<u16> {
    let unknown_ur = |o: &str| {
        o.strip_prefix("???")
            .is_some_and(|n| n != "255" && n.parse::<u8>().is_ok())
    };
    let urs = ops
        .iter()
        .filter(|o| o.starts_with("UR") || unknown_ur(o))
        .count();
    let dim = ops
        .iter()
        .position(|o| {
            crate::values::Dimension::ALL
                .iter()
                .any(|d| d.name() == &**o)
        })
        .unwrap_or(ops.len());
    let imms = if urs == 0 {
        ops[..dim].iter().filter(|o| o.starts_with("0x")).count()
    } else {
        0
    };
    let register = is_register_form(head) || edit_modifier(head, "???0", None).is_some();
    let modeled = || arch_rows::forms(family).filter(|f| f.modeled_as.is_some());
    if imms > 0 {
        return modeled()
            .find(|f| arch_rows::imm_count(family, f.opcode) == imms)
            .map(|f| f.opcode);
    }
    let want = if register {
        HandleForm::Register
    } else {
        HandleForm::Uniform
    };
    let plain = || {
        modeled()
            .filter(|f| arch_rows::imm_count(family, f.opcode) == 0 && f.modeled_as == Some(want))
    };
    plain()
        .find(|f| f.both_urs == (register && urs == 2))
        .or_else(|| plain().next())
        .map(|f| f.opcode)
}

fn family_renames_offset3(family: Family) -> bool {
    arch_rows::rows(family).any(|r| {
        matches!(
            r.change,
            Change::Renamed {
                field: "offset_mode",
                ..
            }
        )
    })
}

/// Splits `@P0 TLD4.R.B P0, R0, ... ;` into the guard and mnemonic (with its column), and
/// the trimmed operands with theirs.
fn split_operands(text: &str) -> (&str, usize, Vec<Op>) {
    let column_of = |s: &str| {
        text[..s.as_ptr() as usize - text.as_ptr() as usize]
            .chars()
            .count()
            + 1
    };
    let t = text.trim().trim_end_matches(';').trim_end();
    let start = if t.starts_with('@') {
        t.find(' ').map_or(t.len(), |i| i + 1)
    } else {
        0
    };
    let rest = &t[start..];
    let split = rest.find(' ').map_or(rest.len(), |i| i);
    let head = &t[..start + split];
    let ops = rest[split..]
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|o| Op {
            text: o.to_string(),
            column: column_of(o),
        })
        .collect();
    (head, column_of(t), ops)
}

/// Whether the mnemonic `TLD4[.SCR].<comp>[.B]...` marks the register-handle form (`.B`
/// right after the component; a `B` component alone is blue).
fn is_register_form(head: &str) -> bool {
    let mnemonic = head.rsplit(' ').next().unwrap_or("");
    let mods: Vec<&str> = mnemonic.split('.').collect();
    let comp = if mods.get(1) == Some(&"SCR") { 2 } else { 1 };
    mods.get(comp + 1) == Some(&"B")
}

/// `head` (`[guard ]TLD4.<mods>`) with the modifier `name` replaced by `with` (removed when
/// `None`), or `None` when the mnemonic has no such modifier.
fn edit_modifier(head: &str, name: &str, with: Option<&str>) -> Option<String> {
    let (guard, mnemonic) = head.rsplit_once(' ').unwrap_or(("", head));
    let mods: Vec<&str> = mnemonic.split('.').collect();
    let at = mods.iter().skip(1).position(|m| *m == name)? + 1;
    let mut out: Vec<&str> = mods[..at].to_vec();
    out.extend(with);
    out.extend(&mods[at + 1..]);
    let joined = out.join(".");
    Some(if guard.is_empty() {
        joined
    } else {
        format!("{guard} {joined}")
    })
}

fn remove_modifier(head: &str, name: &str) -> Option<String> {
    edit_modifier(head, name, None)
}

fn replace_modifier(head: &str, name: &str, with: &str) -> Option<String> {
    edit_modifier(head, name, Some(with))
}

fn parse_ur(s: &str) -> Option<UReg> {
    if s == "URZ" {
        return Some(UReg::URZ);
    }
    s.strip_prefix("UR")?
        .parse::<u8>()
        .ok()
        .filter(|&n| n != 255)
        .map(UReg)
}
