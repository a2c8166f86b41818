//! One answer per open question of docs/sources.md (Open questions 1-9): what was asked, which
//! kernels and phases of the probe ask it, what the GPU did, and whether tld4 agrees, from a
//! run's results and their lane-by-lane comparison with tld4 ([`crate::compare`]).
//!
//! `tld4_agrees` is `Some(false)` whenever a single compared lane differs: the report then
//! flags the question as a disagreement. `None` means the run could not settle it (the phase
//! did not run on this GPU, or nothing public makes it observable), and `why_not` says so.

use serde::Serialize;
use serde_json::Value;

use crate::compare::Comparison;
use crate::probe::SENTINELS;
use crate::report::arithmetic::{f32_to_f16, HalfRound};

/// One open question as the probe asks it.
pub struct Question {
    /// Its number in docs/sources.md, Open questions.
    pub number: u32,
    /// The provenance key (explain/src/provenance.rs) or a short name.
    pub key: &'static str,
    /// What is asked.
    pub asked: &'static str,
    /// The phases and kernels that ask it.
    pub probed_by: &'static str,
}

/// Every open question (docs/sources.md, Open questions), in its order (one table: the answers follow it).
pub const QUESTIONS: [Question; 9] = [
    Question { number: 1, key: "f16_packing", asked: "F16.RN / F16.RZ output: how the halves are packed, and into which registers (tld4: two halves a register, lower component low, Rd then Rd2)", probed_by: "phase f16: raw-patched F16.RN/RZ variants against the 32-bit gather of the same texels (sm_90 cubin only: PTX has no f16 tld4)" },
    Question { number: 2, key: "scr", asked: ".SCR: what it does and when the compiler sets it (tld4: changes no value)", probed_by: "phase scr: raw TLD4 with .SCR set against clear (sm_90 cubin only); forms: .SCR in every TLD4 the compiler emitted for this GPU" },
    Question { number: 3, key: "sub_texel", asked: "sub-texel precision and rounding (tld4: 8 fractional bits, round to nearest even)", probed_by: "phase subtexel: nat_2d_r 1-ulp sweeps across texel boundaries (any GPU); both ends of every run compared with tld4" },
    Question { number: 4, key: "cube_corner", asked: "cube-map gathers at corners (and edges, ties, cube arrays)", probed_by: "phase cube: nat_cube_r/g and nat_acube_r on every face, edge and corner direction (any GPU), lane by lane with tld4" },
    Question { number: 5, key: "unorm", asked: "UNORM/SNORM -> float on NVIDIA: correctly rounded or not (tld4: correctly rounded)", probed_by: "phase unorm: every code of UNORM/SNORM 8 and 16, HALF and 8/16-bit integers through nat_2d_r (any GPU), code by code with tld4" },
    Question { number: 6, key: "block_linear_small", asked: "block-linear 1- and 2-byte texels (GOB byte layout) and depth GOBs", probed_by: "phases unorm and components gather 1- and 2-byte CUDA arrays (block-linear; any GPU); phase pitch checks a pitch-linear texture against the memory model" },
    Question { number: 7, key: "register_handle", asked: "the register-handle form 0xd64: the order of the handle in Rb", probed_by: "forms: which TLD4 forms the compiler emits for this GPU" },
    Question { number: 8, key: "arch_forms", asked: "each architecture's TLD4 forms (0xf63, 0xb63, 0xb65, 0x364, 0xd64, 0xf64) and what their extra fields hold", probed_by: "forms: every TLD4 word of the cubin the driver's JIT compiler (and ptxas, when used) made for this GPU, decoded by tld4-decoder" },
    Question { number: 9, key: "unnormalized", asked: "unnormalized coordinates: u = s in texels, then the sub-texel model and floor(u - 0.5) (tld4: as for normalized coordinates, no division by the size; clamp and border only)", probed_by: "phase address: nat_2d_r on the 4x4 idx4_unnorm_clamp and idx4_unnorm_border textures (any GPU), lane by lane with tld4" },
];

/// The answer a run gives to one question.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// The question's number.
    pub number: u32,
    /// Its key.
    pub key: &'static str,
    /// What was asked.
    pub asked: &'static str,
    /// The phases and kernels that ask it.
    pub probed_by: &'static str,
    /// What the GPU did, in words.
    pub gpu_did: String,
    /// Lanes (or words, or codes) compared with tld4, and how many were equal.
    pub compared: usize,
    /// Of those, equal bit for bit.
    pub equal: usize,
    /// Whether tld4 agrees: `None` when this run could not tell.
    pub tld4_agrees: Option<bool>,
    /// Why the run could not tell, when it could not.
    pub why_not: Option<String>,
}

fn outcome(results: &Value, phase: &str) -> Option<String> {
    results["children"]
        .as_array()?
        .iter()
        .find(|c| c["phase"] == phase)
        .and_then(|c| c["outcome"].as_str())
        .map(str::to_string)
}

fn phase_ok<'a>(results: &'a Value, phase: &str) -> Result<&'a Value, String> {
    let ph = &results["phases"][phase];
    if ph["ok"] == true {
        return Ok(ph);
    }
    Err(match (outcome(results, phase), ph["error"].as_str()) {
        (_, Some(e)) => format!("phase {phase} failed: {e}"),
        (Some(o), None) => format!("phase {phase}: {o}"),
        (None, None) => format!("phase {phase} did not run"),
    })
}

fn from_comparison(cmp: &Comparison, phase: &str, what: &str) -> (String, usize, usize) {
    let (lanes, equal) = cmp.totals(phase);
    let runs = cmp.runs.iter().filter(|r| r.phase == phase).count();
    (
        format!(
            "{equal} of {lanes} {what} in {runs} runs equal tld4's bit for bit; {} differ",
            lanes - equal
        ),
        lanes,
        equal,
    )
}

fn verdict(compared: usize, equal: usize) -> Option<bool> {
    (compared > 0).then_some(compared == equal)
}

/// Question 1: the F16 runs against tld4's packing of the 32-bit gather of the same queries
/// (binary16 RN of each slot, two a register, lower component low; the model's decision,
/// docs/sources.md, Open questions: 1; docs/sources.md, Decisions).
fn f16_answer(results: &Value) -> Result<(String, usize, usize), String> {
    let ph = phase_ok(results, "f16")?;
    let runs = ph["data"]["runs"]
        .as_array()
        .ok_or("phase f16 has no runs")?;
    let rows = |k: &str| -> Option<Vec<Vec<u32>>> {
        let r = runs.iter().find(|r| r["kernel"] == k)?;
        r["results"].as_array().map(|a| {
            a.iter()
                .map(|x| {
                    x.as_array()
                        .map(|v| v.iter().map(|n| n.as_u64().unwrap_or(0) as u32).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
    };
    let base = rows("raw:2d").ok_or("no raw:2d run (the 32-bit gather)")?;
    let packed = rows("raw:f16rn_mf").ok_or("no raw:f16rn_mf run")?;
    let (mut n, mut eq) = (0, 0);
    for (b, p) in base.iter().zip(&packed) {
        if b.len() < 5 || p.len() < 5 {
            continue;
        }
        let h = |i: usize| f32_to_f16(f32::from_bits(b[1 + i]), HalfRound::Rn) as u32;
        let want = [
            p[0],
            h(0) | h(1) << 16,
            h(2) | h(3) << 16,
            SENTINELS[2],
            SENTINELS[3],
        ];
        n += 1;
        eq += (p[..5] == want) as usize;
    }
    Ok((
        format!("F16.RN with the full mask: {eq} of {n} lanes hold tld4's packing (C0 = s0 | s1 << 16, C1 = s2 | s3 << 16, C2 and C3 untouched)"),
        n,
        eq,
    ))
}

fn scr_answer(results: &Value, forms: &str) -> Result<(String, usize, usize), String> {
    let ph = phase_ok(results, "scr")?;
    let d = &ph["data"];
    let q = d["queries"].as_u64().unwrap_or(0) as usize;
    let diff = d["differing"].as_u64().unwrap_or(0) as usize;
    Ok((
        format!(
            "`{}` against `{}`: {diff} of {q} gathers differ. {forms}",
            d["sass_set"].as_str().unwrap_or(""),
            d["sass_clear"].as_str().unwrap_or("")
        ),
        q,
        q - diff.min(q),
    ))
}

/// The TLD4 words the compiler(s) emitted: counts by form and `.SCR`, and how many tld4 decodes.
fn forms_summary(results: &Value) -> (String, usize, usize) {
    let mut parts = Vec::new();
    let (mut n, mut decoded) = (0, 0);
    let mut add = |parts: &mut Vec<String>, label: &str, f: &Value, error: &Value| {
        let Some(words) = f["tld4"].as_array() else {
            parts.push(format!(
                "{label}: TLD4 words not read ({})",
                error.as_str().unwrap_or("no record")
            ));
            return;
        };
        let mut by_form = std::collections::BTreeMap::<String, (usize, usize)>::new();
        for w in words {
            let e = by_form
                .entry(w["form"].as_str().unwrap_or("?").to_string())
                .or_default();
            e.0 += 1;
            e.1 += (w["scr"] == true) as usize;
            n += 1;
            decoded += (w["decoded"] == true) as usize;
        }
        let forms: Vec<String> = by_form
            .iter()
            .map(|(k, (c, s))| format!("{k} x{c} (.SCR on {s})"))
            .collect();
        parts.push(format!(
            "{label} ({}): {} TLD4 words, {}",
            f["arch"].as_str().unwrap_or("?"),
            words.len(),
            forms.join(", ")
        ));
    };
    let forms = &results["forms"];
    if forms["jit"]["ok"] == true {
        add(
            &mut parts,
            "the driver's JIT",
            &forms["jit"]["forms"],
            &forms["jit"]["forms_error"],
        );
    } else if !forms["jit"].is_null() {
        parts.push(format!(
            "the driver's JIT failed: {}",
            forms["jit"]["error"].as_str().unwrap_or("?")
        ));
    }
    let src = results["probe"]["source"].as_str().unwrap_or("");
    if src != "jit" && !forms["loaded"].is_null() {
        add(
            &mut parts,
            &format!("the kernels run ({src})"),
            &forms["loaded"],
            &forms["loaded"]["error"],
        );
    }
    if parts.is_empty() {
        parts.push("no TLD4 words recorded (a run older than the forms record)".into());
    }
    (parts.join("; "), n, decoded)
}

/// Every question's answer from a run.
pub fn answers(results: &Value, cmp: &Comparison) -> Vec<Answer> {
    let (forms_text, forms_n, forms_dec) = forms_summary(results);
    QUESTIONS
        .iter()
        .map(|q| {
            let r: Result<(String, usize, usize), String> = match q.number {
                1 => f16_answer(results),
                2 => scr_answer(results, &forms_text),
                3 => phase_ok(results, "subtexel")
                    .map(|_| from_comparison(cmp, "subtexel", "lanes at run ends")),
                4 => phase_ok(results, "cube").map(|_| from_comparison(cmp, "cube", "lanes")),
                5 => phase_ok(results, "unorm").map(|_| from_comparison(cmp, "unorm", "codes")),
                6 => Err("the byte layout of a CUDA array is opaque through CUDA's public API (no device address, no block height), so no run settles it; the 1- and 2-byte gathers of questions 5 and phase components show only that the texel choice agrees".into()),
                7 => Err(format!("the form 0xd64 needs a patched cubin for an SM100+ GPU, which the probe does not build; what the compiler emitted: {forms_text}")),
                8 => Ok((forms_text.clone(), forms_n, forms_dec)),
                9 => phase_ok(results, "address").map(|_| unnormalized_answer(cmp)),
                _ => Err("no probe for this question".into()),
            };
            match r {
                Ok((gpu_did, compared, equal)) => Answer {
                    number: q.number,
                    key: q.key,
                    asked: q.asked,
                    probed_by: q.probed_by,
                    gpu_did,
                    compared,
                    equal,
                    tld4_agrees: verdict(compared, equal),
                    why_not: (compared == 0).then(|| "nothing was compared".to_string()),
                },
                Err(why) => Answer {
                    number: q.number,
                    key: q.key,
                    asked: q.asked,
                    probed_by: q.probed_by,
                    gpu_did: "not measured by this run".into(),
                    compared: 0,
                    equal: 0,
                    tld4_agrees: None,
                    why_not: Some(why),
                },
            }
        })
        .collect()
}

/// Question 9: the address phase's runs on the unnormalized textures (`idx4_unnorm_*`).
fn unnormalized_answer(cmp: &Comparison) -> (String, usize, usize) {
    let runs: Vec<_> = cmp
        .runs
        .iter()
        .filter(|r| r.phase == "address" && r.texture.contains("unnorm"))
        .collect();
    let (lanes, equal) = runs
        .iter()
        .fold((0, 0), |(l, e), r| (l + r.lanes, e + r.equal));
    (
        format!(
            "{equal} of {lanes} lanes with unnormalized coordinates in {} runs equal tld4's bit for bit; {} differ",
            runs.len(),
            lanes - equal
        ),
        lanes,
        equal,
    )
}

/// The answers as the report's first section.
pub fn markdown(answers: &[Answer]) -> String {
    let mut md = String::from("## Open questions (docs/sources.md): asked, measured, tld4\n\n");
    let disagree: Vec<String> = answers
        .iter()
        .filter(|a| a.tld4_agrees == Some(false))
        .map(|a| a.number.to_string())
        .collect();
    if disagree.is_empty() {
        md.push_str("tld4 disagrees with this GPU on no question it measured.\n\n");
    } else {
        md.push_str(&format!(
            "**DISAGREEMENT: tld4 differs from this GPU on question(s) {}.** The lanes are listed below and under \"Lane-by-lane comparison with tld4\".\n\n",
            disagree.join(", ")
        ));
    }
    md.push_str("| # | question | tld4 agrees | compared | equal |\n|---|---|---|---|---|\n");
    for a in answers {
        let v = match a.tld4_agrees {
            Some(true) => "yes",
            Some(false) => "**NO**",
            None => "not measured",
        };
        md.push_str(&format!(
            "| {} | {} | {v} | {} | {} |\n",
            a.number, a.key, a.compared, a.equal
        ));
    }
    md.push('\n');
    for a in answers {
        md.push_str(&format!(
            "### {}. {}\n\n- Asked: {}\n- Probed by: {}\n- GPU did: {}\n",
            a.number, a.key, a.asked, a.probed_by, a.gpu_did
        ));
        match (a.tld4_agrees, &a.why_not) {
            (Some(true), _) => md.push_str("- tld4 agrees: yes\n"),
            (Some(false), _) => md.push_str(&format!(
                "- tld4 agrees: **NO, DISAGREES** ({} of {} differ)\n",
                a.compared - a.equal,
                a.compared
            )),
            (None, Some(w)) => md.push_str(&format!("- tld4 agrees: not measured ({w})\n")),
            (None, None) => md.push_str("- tld4 agrees: not measured\n"),
        }
        md.push('\n');
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table asks exactly the questions docs/sources.md lists, numbered as there.
    #[test]
    fn the_table_follows_docs_sources_open_questions() {
        let doc = include_str!("../../../docs/sources.md");
        let section = doc
            .split("\n## Open questions\n")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("docs/sources.md has an Open questions section");
        let numbered: Vec<u32> = section
            .lines()
            .filter_map(|l| l.split_once(". **").and_then(|(n, _)| n.parse().ok()))
            .collect();
        let ours: Vec<u32> = QUESTIONS.iter().map(|q| q.number).collect();
        assert_eq!(numbered, ours);
    }

    #[test]
    fn a_run_with_no_phases_answers_every_question_with_a_reason() {
        let a = answers(&serde_json::json!({}), &Comparison::default());
        assert_eq!(a.len(), QUESTIONS.len());
        for x in &a[..7] {
            assert_eq!(x.tld4_agrees, None, "{}", x.key);
            assert!(x.why_not.is_some(), "{}", x.key);
        }
        // 8 reads the forms record, absent here: nothing compared, said so.
        assert_eq!(a[7].compared, 0);
        assert!(a[7].gpu_did.contains("no TLD4 words recorded"));
        assert!(markdown(&a).contains("| 3 | sub_texel | not measured | 0 | 0 |"));
    }
}
