//! What is measured and what is assumed: one table of the rules `explain` and the page show,
//! each with its standing and the docs/sources.md section that holds its evidence. The test
//! below reads docs/sources.md and checks every row against it (the section exists, holds the
//! row's phrase, and the section's kind agrees with the row's standing), and checks that the
//! section "Provenance in explain and the page" lists exactly the table's keys.

use serde::Serialize;

/// How a rule is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// The project chose where no source speaks (docs/sources.md, Decisions).
    ModelDecision,
    /// No measurement settles it (docs/sources.md, Open questions).
    Unmeasured,
    /// Measured with this tool (a compiler, disassembler or software renderer: not a GPU).
    Measured(&'static str),
    /// Measured on NVIDIA hardware by a third party, in this published test.
    MeasuredOnHardware(&'static str),
}

impl Standing {
    /// The tag as printed: "model decision", "unmeasured", "measured on TOOL, not on a GPU",
    /// "measured on NVIDIA hardware by a third party (TEST)"
    /// (no GPU has been measured yet: docs/sources.md, Provenance in explain and the page).
    pub fn tag(self) -> String {
        match self {
            Standing::ModelDecision => "model decision".into(),
            Standing::Unmeasured => "unmeasured".into(),
            Standing::Measured(tool) => format!("measured on {tool}, not on a GPU"),
            Standing::MeasuredOnHardware(test) => {
                format!("measured on NVIDIA hardware by a third party ({test})")
            }
        }
    }
}

/// One rule and where its evidence is.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Provenance {
    /// The rule's key (used by the text, the pictures and the page).
    pub key: &'static str,
    /// What the rule says, in a few words.
    pub rule: &'static str,
    /// The rule in at most 30 characters, for a picture's legend.
    pub short: &'static str,
    /// How it is known.
    pub standing: Standing,
    /// The docs/sources.md section (its heading, without the `#`s).
    pub section: &'static str,
    /// A phrase of that section that states the rule (checked by the test).
    pub phrase: &'static str,
}

/// The table.
pub const PROVENANCE: &[Provenance] = &[
    Provenance {
        key: "operands",
        short: "operand layout",
        rule: "operand layout: Ra = {layer, coordinates}, Rb = {handle, offsets, depth reference}",
        standing: Standing::Measured("ptxas 13.5 and nvdisasm"),
        section: "What ptxas emits",
        phrase: "Rb = {offset, depth reference}, in that order",
    },
    Provenance {
        key: "gather_order",
        short: "gather order, address modes",
        rule: "gather order x, y, z, w = (i0,j1), (i1,j1), (i1,j0), (i0,j0); address modes",
        standing: Standing::Measured("lavapipe (Vulkan's formulas)"),
        section: "lavapipe",
        phrase: "Gathers follow the Vulkan formulas exactly",
    },
    Provenance {
        key: "sub_texel",
        short: "8-bit sub-texel rounding",
        rule: "sub-texel precision: 8 fractional bits, rounded to nearest (ties to even: unmeasured)",
        standing: Standing::MeasuredOnHardware("vkd3d-proton's test_sampler_rounding"),
        section: "Sub-texel model",
        phrase: "**Measured on NVIDIA hardware by a third party**: vkd3d-proton's `test_sampler_rounding`",
    },
    Provenance {
        key: "f16_packing",
        short: "F16 half packing",
        rule: "F16 results: two halves a register, lower component low, Rd then Rd2",
        standing: Standing::Unmeasured,
        section: "Open questions",
        phrase: "**F16.RN / F16.RZ output**: how the halves are packed",
    },
    Provenance {
        key: "f16_rounding",
        short: "F16 rounds the f32 result",
        rule: "F16.RN / F16.RZ round the f32 value the unit delivers",
        standing: Standing::ModelDecision,
        section: "Decisions",
        phrase: "F16.RN / F16.RZ round the f32 value the texture unit delivers",
    },
    Provenance {
        key: "dc_component",
        short: ".DC compares component R",
        rule: ".DC compares the texel's first (depth) component, whatever the component field says",
        standing: Standing::ModelDecision,
        section: "Decisions",
        phrase: "With `.DC` the comparison uses the texel's first (depth) component",
    },
    Provenance {
        key: "cube_corner",
        short: "cube corner averaging",
        rule: "a cube corner texel averages the other three (integer formats copy one)",
        standing: Standing::Unmeasured,
        section: "Open questions",
        phrase: "**Cube-map gathers at corners**",
    },
    Provenance {
        key: "border",
        short: "border words, unswizzled",
        rule: "border colours are the raw words read by the format, unswizzled",
        standing: Standing::ModelDecision,
        section: "Decisions",
        phrase: "Border colours are the raw words read by the format, unswizzled",
    },
    Provenance {
        key: "layer_clamp",
        short: "layer clamped to the last",
        rule: "a layer past the last is clamped to layers - 1",
        standing: Standing::ModelDecision,
        section: "Decisions",
        phrase: "the texture unit then clamps the layer to layers - 1",
    },
    Provenance {
        key: "float_layer",
        short: "float layer: floor(l + 0.5)",
        rule: "a float layer converts as NAK does: floor(layer + 0.5) in f32, clamped to 0..65535, NaN to 0",
        standing: Standing::ModelDecision,
        section: "Decisions",
        phrase: "converts as NAK does, floor(layer + 0.5) in f32 clamped to 0..65535",
    },
    Provenance {
        key: "scr",
        short: ".SCR has no effect",
        rule: ".SCR: set by ptxas 13.5 in some kernels, clear in others; its effect is unknown",
        standing: Standing::Unmeasured,
        section: "Open questions",
        phrase: "**`.SCR`**: what it does and when ptxas sets it",
    },
    Provenance {
        key: "unorm",
        short: "UNORM -> float rounding",
        rule: "UNORM -> float correctly rounded",
        standing: Standing::Unmeasured,
        section: "Open questions",
        phrase: "**UNORM -> float on NVIDIA**",
    },
    Provenance {
        key: "register_handle",
        short: "0xd64 handle in Rb",
        rule: "register-handle form (0xd64): the handle is Rb's first register",
        standing: Standing::Unmeasured,
        section: "Open questions",
        phrase: "**The register-handle form (0xd64)**",
    },
    Provenance {
        key: "unnormalized",
        short: "unnormalized: u = s texels",
        rule: "unnormalized coordinates: u = s in texels (no scaling by the size), then the sub-texel model and floor(u - 0.5)",
        standing: Standing::Unmeasured,
        section: "Open questions",
        phrase: "**Unnormalized coordinates**",
    },
];

/// The file the sections are in.
const SOURCES_MD: &str = "docs/sources.md";

/// The row of `key` (a key the code names; a missing one is a bug caught by the tests).
pub fn find(key: &str) -> Option<&'static Provenance> {
    PROVENANCE.iter().find(|p| p.key == key)
}

/// The tag line for `key`, e.g. `[unmeasured: sub-texel precision ...;
/// docs/sources.md, Open questions]`.
pub fn tag(key: &str) -> String {
    match find(key) {
        Some(p) => format!(
            "[{}: {}; {SOURCES_MD}, {}]",
            p.standing.tag(),
            p.rule,
            p.section
        ),
        None => format!("[no provenance row {key}]"),
    }
}

/// The legend line for `key` in a picture: `unmeasured: 8-bit sub-texel rounding (Open
/// questions)`, at most 60 characters (the narrowest picture's legend width).
pub fn legend(key: &str) -> String {
    match find(key) {
        Some(p) => {
            let standing = match p.standing {
                Standing::Measured(_) | Standing::MeasuredOnHardware(_) => "measured",
                Standing::ModelDecision => "model decision",
                Standing::Unmeasured => "unmeasured",
            };
            format!("{standing}: {} ({})", p.short, p.section)
        }
        None => format!("no provenance row {key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCES: &str = include_str!("../../docs/sources.md");

    /// The text of the section headed `name` (## or ###), up to the next heading of its level
    /// or above.
    fn section(name: &str) -> Option<&'static str> {
        let lines: Vec<&str> = SOURCES.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.trim_start_matches('#').trim() == name && l.starts_with("##"))?;
        let level = lines[start].chars().take_while(|&c| c == '#').count();
        let at = SOURCES.find(lines[start]).unwrap();
        let rest = &SOURCES[at + lines[start].len()..];
        let mut end = rest.len();
        let mut off = 0;
        for l in rest.split_inclusive('\n') {
            let h = l.chars().take_while(|&c| c == '#').count();
            if h > 0 && h <= level && l.starts_with('#') {
                end = off;
                break;
            }
            off += l.len();
        }
        Some(&rest[..end])
    }

    #[test]
    fn every_row_is_backed_by_its_section() {
        for p in PROVENANCE {
            let s = section(p.section).unwrap_or_else(|| {
                panic!("{}: no section {} in docs/sources.md", p.key, p.section)
            });
            assert!(
                s.contains(p.phrase),
                "{}: section {} does not say {:?}",
                p.key,
                p.section,
                p.phrase
            );
            match p.standing {
                Standing::ModelDecision => assert_eq!(p.section, "Decisions", "{}", p.key),
                Standing::Unmeasured => assert_eq!(p.section, "Open questions", "{}", p.key),
                Standing::Measured(tool) | Standing::MeasuredOnHardware(tool) => {
                    assert!(
                        !["Decisions", "Open questions"].contains(&p.section),
                        "{}",
                        p.key
                    );
                    let first = tool.split_whitespace().next().unwrap();
                    assert!(
                        s.contains(first),
                        "{}: section {} never names {first}",
                        p.key,
                        p.section
                    );
                }
            }
        }
    }

    #[test]
    fn the_provenance_section_lists_exactly_the_keys() {
        let s = section("Provenance in explain and the page").expect("the provenance section");
        let listed: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        let keys: Vec<&str> = PROVENANCE.iter().map(|p| p.key).collect();
        assert_eq!(listed, keys);
        for p in PROVENANCE {
            assert_eq!(find(p.key).unwrap().key, p.key);
            assert!(tag(p.key).contains(p.section));
        }
        for p in PROVENANCE {
            assert!(legend(p.key).len() <= 60, "{}", legend(p.key));
        }
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len(), "keys are unique");
    }
}
