//! Checks the field table against the seed encoding tables in `seeds/` (from nv_isa_solver,
//! which fuzzes nvdisasm). The seed's known glitches are named here, not skipped silently.

use std::collections::BTreeMap;

use tld4_decoder::*;

struct Variant {
    key: String,
    distilled: String,
    /// The label of each of the 128 bits ("0"/"1" for fixed bits).
    labels: Vec<String>,
    /// Modifier group number -> the values' names in raw order.
    groups: BTreeMap<u32, Vec<String>>,
}

/// Reads one 64-bit half: a header row of bit numbers and a row of labels, where a label
/// spanning k bits is followed by k-1 empty cells. Glitch: the non-UR tables have no column
/// for bit 40 (first half) and bit 104 (second half): `missing` names it, and it gets the
/// label "(no column)".
fn read_half(header: &str, row: &str, missing: Option<usize>) -> Vec<String> {
    let header: Vec<&str> = header.split('\t').collect();
    let mut cells: Vec<&str> = row.split('\t').collect();
    // The label rows drop their trailing empty cells: those belong to the last label.
    assert!(
        cells.len() <= header.len(),
        "the label row is longer than the header row"
    );
    cells.resize(header.len(), "");
    let expected_cols = if missing.is_some() { 63 } else { 64 };
    assert_eq!(header.len(), expected_cols, "unexpected column count");
    let mut labels = Vec::with_capacity(64);
    let mut current = String::new();
    for (i, cell) in cells.iter().enumerate() {
        if Some(labels.len()) == missing {
            labels.push("(no column)".to_string());
        }
        if !cell.is_empty() {
            current = cell.to_string();
        } else {
            assert!(i > 0, "a row cannot start with an empty cell");
        }
        labels.push(current.clone());
    }
    if labels.len() == 63 {
        labels.push("(no column)".to_string());
    }
    assert_eq!(labels.len(), 64);
    labels
}

fn variants() -> Vec<Variant> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../seeds/TLD4_SM100_encodings.txt"
    );
    let text = std::fs::read_to_string(path).expect("seeds/TLD4_SM100_encodings.txt");
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(d) = lines[i].strip_prefix("distilled: ") {
            let key = lines[i + 2]
                .strip_prefix("key: ")
                .expect("key line")
                .to_string();
            let uniform = key.contains("_UR_");
            let rows: Vec<&str> = lines[i + 3..]
                .iter()
                .copied()
                .filter(|l| !l.is_empty())
                .take(4)
                .collect();
            let (h1, r1, h2, r2) = (rows[0], rows[1], rows[2], rows[3]);
            let mut labels = read_half(h1, r1, (!uniform).then_some(40));
            labels.extend(read_half(h2, r2, (!uniform).then_some(104 - 64)));
            let mut groups = BTreeMap::new();
            let mut j = i + 3;
            while j < lines.len() && !lines[j].starts_with("distilled: ") && lines[j] != "TLD4" {
                if let Some(n) = lines[j].strip_prefix("Modifier Group ") {
                    let n: u32 = n.trim().parse().unwrap();
                    let mut vals = Vec::new();
                    let mut k = j + 3;
                    while k < lines.len() && lines[k].contains('\t') {
                        vals.push(lines[k].split('\t').nth(1).unwrap().to_string());
                        k += 1;
                    }
                    groups.insert(n, vals);
                    j = k;
                } else {
                    j += 1;
                }
            }
            out.push(Variant {
                key,
                distilled: d.to_string(),
                labels,
                groups,
            });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The field(s) each seed label stands for; glitches are spelled out where they occur.
fn field_of(label: &str, bit: u8, uniform: bool) -> &'static str {
    match label {
        "pred" if bit == 15 => "guard_negated",
        "pred" => "guard_pred",
        "operand 0" => "pred_dst",
        "operand 1" => "rd2",
        "operand 2" => "rd",
        "operand 3" => "ra",
        "operand 4" => "rb",
        "operand 5" if uniform => "ur",
        "operand 5" => "dimension",
        "operand 6" if uniform => "dimension",
        "operand 6" => "write_mask",
        "operand 7" => "write_mask",
        // Glitch: the seed calls both the offset field (76-77) and the F16 field (79-80) "modi 2".
        "modi 2" if bit <= 77 => "offset_mode",
        "modi 2" => "f16_mode",
        "modi 3" => "eviction",
        "modi 4" => "component",
        "DC" => "depth_compare",
        "SCR" => "scr",
        "NODEP" => "nodep",
        "stall" | "y" => "usched_info",
        // Glitch: the seed's r-bar (110-112) and w-bar (113-115) are swapped; nvdisasm's own
        // names are dst_wr_sb 112:110 (write barrier) and src_rel_sb 115:113 (read barrier).
        "r-bar" => "dst_wr_sb",
        "w-bar" => "src_rel_sb",
        "b-mask" => "req_bit_set",
        // Glitch: the seed's "reuse" spans 122-125; nvdisasm's batch_t is 124:122 and bit 125
        // changes nothing (measured).
        "reuse" if bit == 125 => "ignored_125_127",
        "reuse" => "batch_t",
        other => panic!("unknown seed label {other:?} at bit {bit}"),
    }
}

fn field_at(bit: u8) -> &'static FieldSpec {
    FIELDS
        .iter()
        .find(|f| f.lo <= bit && bit <= f.hi)
        .expect("every bit has a field")
}

#[test]
fn the_seed_has_six_variants() {
    let v = variants();
    let keys: Vec<&str> = v.iter().map(|v| v.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "TLD4_P_R_R_R_R_SNOWFLAKE_I",
            "TLD4_P_R_R_R_R_UR_SNOWFLAKE_I",
            "TLD4_P_R_R_R_R_D_I",
            "TLD4_P_R_R_R_R_UR_D_I",
            "TLD4_P_R_R_R_R_ARRAY_D_I",
            "TLD4_P_R_R_R_R_UR_ARRAY_D_I"
        ]
    );
}

#[test]
fn field_table_covers_every_bit_once() {
    let mut next = 0u8;
    for f in FIELDS {
        assert_eq!(
            f.lo, next,
            "field {} starts at {}, expected {next}",
            f.name, f.lo
        );
        assert!(f.hi >= f.lo);
        next = f.hi + 1;
    }
    assert_eq!(next, 128);
}

#[test]
fn field_table_agrees_with_every_seed_variant() {
    for v in variants() {
        let uniform = v.key.contains("_UR_");
        let form = if uniform {
            HandleForm::Uniform
        } else {
            HandleForm::Register
        };
        // The seed's fixed bits form the word of the distilled text (all operands 0).
        let mut fixed = 0u128;
        for bit in 0..128u8 {
            let label = v.labels[bit as usize].as_str();
            let ours = field_at(bit);
            match label {
                "1" => fixed |= 1 << bit,
                "0" => {}
                // Glitch: no column for bits 40 and 104 in the non-UR tables.
                "(no column)" => {
                    assert!(
                        !uniform && (bit == 40 || bit == 104),
                        "{}: bit {bit} has no column",
                        v.key
                    );
                    continue;
                }
                label => {
                    let expected = field_of(label, bit, uniform);
                    assert_eq!(
                        ours.name, expected,
                        "{}: bit {bit} ({label}) is {} in our table",
                        v.key, ours.name
                    );
                    continue;
                }
            }
            // A fixed bit lies in the opcode, the dimension of the restricted variants, bit 91,
            // or a field that changes nothing (the seed fixes those at 0); 0xd64 never reads URc.
            let allowed = ["form", "dimension", "bit_91", "ur"];
            assert!(
                allowed.contains(&ours.name)
                    || ours.name.starts_with("ignored_")
                    || ours.name == "pm_pred",
                "{}: fixed bit {bit} lies in our field {}",
                v.key,
                ours.name
            );
        }
        assert_eq!(
            field::form.get(fixed),
            form.opcode() as u32,
            "{}: opcode",
            v.key
        );
        assert_eq!(field::bit_91.get(fixed), 1, "{}: bit 91", v.key);
        let dim = Dimension::from_raw(field::dimension.get(fixed));
        match v.key.rsplit('_').nth(1).unwrap() {
            "SNOWFLAKE" => assert_eq!(dim, Dimension::Invalid0),
            "D" if v.key.contains("ARRAY") => {
                assert_eq!(dim, Dimension::Array2D);
                // The ARRAY_D operand is bit 62 alone: ARRAY_2D or ARRAY_CUBE.
                assert_eq!(field::dimension.lo + 1, 62);
                assert_eq!(
                    v.labels[62],
                    if uniform { "operand 6" } else { "operand 5" }
                );
            }
            "D" => assert_eq!(dim, Dimension::Tex2D),
            other => panic!("unexpected variant kind {other}"),
        }
        let insn = decode(fixed).unwrap_or_else(|e| panic!("{}: {e}", v.key));
        assert_eq!(insn.text(), v.distilled, "{}", v.key);
        // The modifier groups list the enums' values in raw order.
        let names = |all: &[&str]| {
            all.iter()
                .map(|n| {
                    if n.is_empty() {
                        "(default)".to_string()
                    } else {
                        n.to_string()
                    }
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            v.groups[&1],
            names(&OffsetMode::ALL.map(|x| x.name())),
            "{}: group 1",
            v.key
        );
        assert_eq!(
            v.groups[&2],
            names(&F16Mode::ALL.map(|x| x.name())),
            "{}: group 2",
            v.key
        );
        assert_eq!(
            v.groups[&3],
            names(&Eviction::ALL.map(|x| x.name())),
            "{}: group 3",
            v.key
        );
        assert_eq!(
            v.groups[&4],
            names(&Component::ALL.map(|x| x.name())),
            "{}: group 4",
            v.key
        );
    }
}
