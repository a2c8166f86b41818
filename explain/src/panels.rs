//! The picture's panels under the key: for a depth-compare gather, each footprint texel's
//! depth against the reference, pass or fail; for an F16 gather, each result's binary16 half
//! as F16.RN and F16.RZ round it, side by side. Both from the lane's trace and the emulator's
//! own rounding functions, so they show what `tld4 run` computes.

use tld4_decoder::Tld4;
use tld4_emu::pack::{f16_rn, f16_rz};
use tld4_emu::OutputMode;
use tld4_textures::trace::{GatherTrace, TexelValue};
use tld4_textures::ValueKind;

use super::instruction::output_mode;
use super::show::{compare_symbol, short};
use super::GATHER_ORDER;

/// A depth that passed the comparison.
pub const PASS_RGB: [u8; 3] = [140, 215, 140];
/// A depth that failed it.
pub const FAIL_RGB: [u8; 3] = [235, 140, 140];
/// A result whose value no texel's comparison gave (a cube corner's fill).
pub const OTHER_RGB: [u8; 3] = [215, 215, 215];
/// An F16 half that RN and RZ round alike.
pub const SAME_RGB: [u8; 3] = [215, 215, 215];
/// An F16 half that RN and RZ round differently.
pub const DIFFERENT_RGB: [u8; 3] = [255, 200, 110];

/// One cell of a panel row: its text and background colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The text (drawn at scale 1).
    pub text: String,
    /// The background.
    pub rgb: [u8; 3],
}

/// A row of a panel.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// A line of text, as the legend's.
    Line(String),
    /// Four cells in gather order.
    Cells(Vec<Cell>),
}

/// The depth-compare panel of a `.DC` gather: the reference and function, then per result
/// the depth it was compared with and whether it passed.
pub fn depth_rows(tr: &GatherTrace) -> Vec<Row> {
    let Some(c) = &tr.compare else {
        return Vec::new();
    };
    let clamped = if c.used != c.dref {
        format!(" (given {}, clamped to [0, 1])", short(c.dref as f64))
    } else {
        String::new()
    };
    let mut rows = vec![Row::Line(format!(
        "depth compare: passes when {} {} depth{clamped}",
        short(c.used as f64),
        compare_symbol(c.op)
    ))];
    let cells = tr
        .texels
        .iter()
        .enumerate()
        .map(|(k, x)| {
            let name = GATHER_ORDER[k].0;
            let result = f32::from_bits(tr.values[k]);
            match x.how {
                TexelValue::Compared { depth } => {
                    let pass = result != 0.0;
                    Cell {
                        text: format!(
                            "{name} depth {} {}",
                            short(depth as f64),
                            if pass { "pass" } else { "fail" }
                        ),
                        rgb: if pass { PASS_RGB } else { FAIL_RGB },
                    }
                }
                _ => Cell {
                    text: format!("{name} = {}", short(result as f64)),
                    rgb: OTHER_RGB,
                },
            }
        })
        .collect();
    rows.push(Row::Cells(cells));
    rows
}

/// The F16 panel of a `.F16.RN`/`.F16.RZ` gather of float values: per result its binary16
/// bits under RN and under RZ (marked where they differ), and which the instruction writes.
pub fn f16_rows(tr: &GatherTrace, insn: &Tld4) -> Vec<Row> {
    let mode = output_mode(insn);
    let float = tr.compare.is_some()
        || matches!(
            tr.format.value_kind(),
            ValueKind::Float | ValueKind::Normalized
        );
    if mode == OutputMode::F32 || !float {
        return Vec::new();
    }
    let written = if mode == OutputMode::F16Rn {
        "RN"
    } else {
        "RZ"
    };
    let mut rows = vec![Row::Line(format!(
        "F16 halves (x | y, z | w), {written} written: RN and RZ of each result"
    ))];
    let cells = (0..4)
        .map(|k| {
            let v = f32::from_bits(tr.values[k]);
            let (rn, rz) = (f16_rn(v), f16_rz(v));
            Cell {
                text: format!("{} RN {rn:04x} RZ {rz:04x}", GATHER_ORDER[k].0),
                rgb: if rn == rz { SAME_RGB } else { DIFFERENT_RGB },
            }
        })
        .collect();
    rows.push(Row::Cells(cells));
    rows
}
