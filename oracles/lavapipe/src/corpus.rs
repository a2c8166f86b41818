//! Corpus files: the `tld4 gather` cases JSON (`tld4_gather_cases`; compact, one case per line) and its `.meta.json`
//! sidecar, and the comparisons of a filled corpus with the texture unit or another file.
//!
//! The metadata (generator seed, driver, skipped cases) lives in a sidecar because
//! `tld4_gather_cases` rejects unknown keys, and the corpus itself must stay readable by
//! `tld4 gather --check`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tld4_gather_cases::{self as cases, CaseError, CasesFile};

use crate::classify::{self, Ambiguity, Report};
use crate::generate::GeneratorInfo;
use tld4_gather_cases::{PrecisionName, PrecisionSpec};

/// The driver that filled a corpus, as Vulkan reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverInfo {
    /// VkPhysicalDeviceProperties::deviceName.
    pub device_name: String,
    /// VkPhysicalDeviceDriverProperties::driverName.
    pub driver_name: String,
    /// VkPhysicalDeviceDriverProperties::driverInfo (Mesa's version for lavapipe).
    pub driver_info: String,
    /// VkDriverId, as ash prints it.
    pub driver_id: String,
    /// VkPhysicalDeviceDriverProperties::conformanceVersion.
    pub conformance_version: String,
    /// apiVersion, major.minor.patch.
    pub api_version: String,
    /// driverVersion, raw.
    pub driver_version: u32,
    /// When the corpus was filled (UTC, ISO 8601).
    pub date: String,
}

/// A case the driver could not run, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// Index in the input file.
    pub case: usize,
    /// Format name.
    pub format: String,
    /// Why.
    pub reason: String,
    /// Queries dropped with it.
    pub queries: usize,
}

/// The sidecar of a corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Meta {
    /// What generated the queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<GeneratorInfo>,
    /// What filled the results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filled_by: Option<DriverInfo>,
    /// Cases dropped because the driver cannot run them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// Cases and queries in the corpus.
    #[serde(default)]
    pub cases: usize,
    /// Queries in the corpus.
    #[serde(default)]
    pub queries: usize,
}

/// `x.json` -> `x.meta.json` (any other name gets `.meta.json` appended).
pub fn meta_path(corpus: &Path) -> PathBuf {
    let s = corpus.to_string_lossy();
    match s.strip_suffix(".json") {
        Some(stem) => PathBuf::from(format!("{stem}.meta.json")),
        None => PathBuf::from(format!("{s}.meta.json")),
    }
}

/// Read a sidecar if there is one.
pub fn read_meta(corpus: &Path) -> Result<Option<Meta>, String> {
    let p = meta_path(corpus);
    if !p.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", p.display()))
}

/// The sidecar as pretty JSON.
pub fn meta_json(meta: &Meta) -> String {
    let mut s = serde_json::to_string_pretty(meta).unwrap_or_default();
    s.push('\n');
    s
}

/// Compact JSON, one case per line: small, and diffs stay readable.
pub fn to_compact_json(file: &CasesFile) -> Result<String, serde_json::Error> {
    let mut out = String::from("{\"cases\": [\n");
    for (i, c) in file.cases.iter().enumerate() {
        out.push_str(&serde_json::to_string(c)?);
        if i + 1 < file.cases.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("]}\n");
    Ok(out)
}

/// Queries in a file.
pub fn query_count(file: &CasesFile) -> usize {
    file.cases.iter().map(|c| c.queries.len()).sum()
}

/// The queries that `tld4 gather --check` (exact, normalized within 1 ulp) must pass as they
/// are: those away from every ambiguous spot, and not sRGB-decoded colour channels (compared
/// as codes, see [`classify::Outcome::SrgbCode`]). Cases left without queries are dropped.
pub fn strict_subset(file: &CasesFile) -> CasesFile {
    let cases = file
        .cases
        .iter()
        .filter_map(|c| {
            let mut c = c.clone();
            let all = std::mem::take(&mut c.queries);
            c.queries = all
                .into_iter()
                .filter(|q| {
                    classify::ambiguities(&c, q).is_empty() && !classify::gathers_srgb(&c, q)
                })
                .collect();
            (!c.queries.is_empty()).then_some(c)
        })
        .collect();
    CasesFile { cases }
}

/// Compare the results a corpus holds (the reference) with the texture unit's.
pub fn compare_with_texture_unit(file: &CasesFile) -> Result<Report, CaseError> {
    let mut report = Report::default();
    for (ci, case) in file.cases.iter().enumerate() {
        let prepared = cases::prepare(case, ci)?;
        for (qi, q) in case.queries.iter().enumerate() {
            let path = format!("cases[{ci}].queries[{qi}]");
            let Some(reference) = &q.result else {
                return Err(CaseError {
                    path: format!("{path}.result"),
                    message: "the reference corpus has no result here".into(),
                });
            };
            let r = cases::evaluate(case, &prepared, q, &path)?;
            let kind = cases::result_kind(case.texture.format, q.dref.is_some());
            let ours = cases::result_nums(kind, &r);
            let before = report.ambiguous.len();
            report.add(path.clone(), case, q, reference, &ours);
            if report.ambiguous.len() > before
                && report.ambiguous[before]
                    .ambiguities
                    .contains(Ambiguity::Boundary)
            {
                // Would the exact precision model (no fixed point) have agreed?
                let mut exact = case.clone();
                exact.precision = Some(PrecisionSpec::Named(PrecisionName::Exact));
                let p = cases::prepare(&exact, ci)?;
                let r = cases::evaluate(&exact, &p, q, &path)?;
                let alt = cases::result_nums(kind, &r);
                let same =
                    classify::outcome(kind, classify::gathers_srgb(case, q), reference, &alt);
                let agrees = same != classify::Outcome::Differs;
                report.ambiguous[before].exact_precision_agrees = Some(agrees);
                if agrees {
                    report.boundary_explained += 1;
                }
            }
        }
    }
    Ok(report)
}

/// Compare two filled files of the same queries: `reference` (e.g. lavapipe's) and `ours`.
pub fn compare_files(reference: &CasesFile, ours: &CasesFile) -> Result<Report, CaseError> {
    let bad = |path: String, message: &str| CaseError {
        path,
        message: message.into(),
    };
    if reference.cases.len() != ours.cases.len() {
        return Err(bad(
            "cases".into(),
            &format!(
                "the files hold {} and {} cases",
                reference.cases.len(),
                ours.cases.len()
            ),
        ));
    }
    let mut report = Report::default();
    for (ci, (a, b)) in reference.cases.iter().zip(&ours.cases).enumerate() {
        if !same_json(&a.texture, &b.texture)
            || !same_json(&a.sampler, &b.sampler)
            || a.queries.len() != b.queries.len()
        {
            return Err(bad(
                format!("cases[{ci}]"),
                "the two files differ in this case's texture, sampler or query count",
            ));
        }
        for (qi, (qa, qb)) in a.queries.iter().zip(&b.queries).enumerate() {
            let path = format!("cases[{ci}].queries[{qi}]");
            let (Some(ra), Some(rb)) = (&qa.result, &qb.result) else {
                return Err(bad(
                    format!("{path}.result"),
                    "a result is missing in one of the files",
                ));
            };
            let query =
                |q: &cases::QuerySpec| (q.coord.clone(), q.offset, q.offsets, q.dref, q.component);
            if !same_json(&query(qa), &query(qb)) {
                return Err(bad(path, "the two files differ in this query"));
            }
            report.add(path, a, qa, ra, rb);
        }
    }
    Ok(report)
}

/// Whether `a` and `b` are written as the same JSON (a NaN texel equals itself there, as in
/// the file, where `==` would call it different).
fn same_json<T: serde::Serialize>(a: &T, b: &T) -> bool {
    let a = serde_json::to_value(a);
    a.is_ok() && a.ok() == serde_json::to_value(b).ok()
}

/// Whether two files hold the same cases and queries (results aside, floats compared as the
/// f32 both sides read, NaN equal to NaN); Err names the first case that differs.
pub fn same_queries(a: &CasesFile, b: &CasesFile) -> Result<(), String> {
    let (a, b) = (f32_canonical(a), f32_canonical(b));
    if a.cases.len() != b.cases.len() {
        return Err(format!("{} cases against {}", a.cases.len(), b.cases.len()));
    }
    for (i, (x, y)) in a.cases.iter().zip(&b.cases).enumerate() {
        let (x, y) = (serde_json::to_string(x), serde_json::to_string(y));
        if x.is_err() || x.ok() != y.ok() {
            return Err(format!("cases[{i}] differs"));
        }
    }
    Ok(())
}

/// The file with every float number replaced by its f32 value (JSON parsing may land 1 f64
/// ulp off a long decimal; what both sides read is the f32), and without results: for
/// comparing the queries of two files.
pub fn f32_canonical(file: &CasesFile) -> CasesFile {
    let f = |n: &mut cases::Num| {
        if let cases::Num::Float(x) = n {
            *x = *x as f32 as f64;
        }
    };
    let mut out = file.clone();
    for c in &mut out.cases {
        c.texture.texels.iter_mut().for_each(f);
        for q in &mut c.queries {
            q.coord.iter_mut().for_each(f);
            q.dref.iter_mut().for_each(f);
            q.result = None;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_with_nan_texels_compares_with_itself() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/golden/lavapipe_gather.json"
        );
        let text = std::fs::read_to_string(path).expect("the golden lavapipe corpus");
        let file: CasesFile = serde_json::from_str(&text).expect("it parses");
        let nan = file.cases.iter().any(|c| {
            c.texture
                .texels
                .iter()
                .any(|n| matches!(n, cases::Num::Float(x) if x.is_nan()))
        });
        assert!(nan, "the golden corpus holds NaN texels");
        let report = compare_files(&file, &file).expect("a file is the same as itself");
        assert_eq!(report.total, report.exact);
        assert!(report.total > 20_000);
    }

    #[test]
    fn the_strict_subset_has_no_ambiguous_or_srgb_queries() {
        let (file, _) = crate::generate::generate(11, 2000);
        let sub = strict_subset(&file);
        let n = query_count(&sub);
        assert!(n > 1000 && n < 2000, "{n} of 2000 kept");
        for c in &sub.cases {
            for q in &c.queries {
                assert!(classify::ambiguities(c, q).is_empty());
                assert!(!classify::gathers_srgb(c, q));
            }
        }
    }

    #[test]
    fn sidecar_names_and_compact_json_round_trip() {
        assert_eq!(
            meta_path(Path::new("a/b.json")),
            PathBuf::from("a/b.meta.json")
        );
        assert_eq!(meta_path(Path::new("a/b")), PathBuf::from("a/b.meta.json"));
        let (file, _) = crate::generate::generate(3, 200);
        let text = to_compact_json(&file).unwrap();
        assert_eq!(text.lines().count(), file.cases.len() + 2);
        assert_eq!(same_queries(&cases::parse(&text).unwrap(), &file), Ok(()));
        let (other, _) = crate::generate::generate(4, 200);
        assert!(same_queries(&other, &file).is_err());
    }

    /// Found by the generator (seed 9): PTP gathers that land on clamp-to-border texels far
    /// outside the texture must evaluate (the texture unit once overflowed computing a row
    /// index for a border texel, a panic in debug builds).
    #[test]
    fn ptp_on_border_texels_far_outside_evaluates() {
        let text = r#"{"cases": [{"texture": {"dim": "2d_array", "format": "d24_unorm_s8_uint",
            "width": 7, "height": 5, "layers": 1, "texels": [TEXELS]},
            "sampler": {"address_u": "clamp_to_border", "address_v": "clamp_to_border",
                        "border": "float_transparent_black", "compare": "never"},
            "queries": [{"coord": [-30.627556, -0.24088366, -1.0], "component": 1,
                         "offsets": [[-31, 16], [-27, 1], [-32, -2], [2, -28]], "dref": 0.07790069}]}]}"#
            .replace("TEXELS", &vec!["7, 0"; 35].join(", "));
        let mut file = cases::parse(&text).unwrap();
        cases::annotate(&mut file).unwrap();
        let r = file.cases[0].queries[0].result.clone().unwrap();
        assert_eq!(
            r,
            vec![cases::Num::Float(0.0); 4],
            "compare NEVER gives 0 everywhere"
        );
    }

    #[test]
    fn the_texture_unit_agrees_with_itself_and_a_changed_result_is_a_disagreement() {
        let (mut file, _) = crate::generate::generate(9, 300);
        cases::annotate(&mut file).unwrap();
        let report = compare_with_texture_unit(&file).unwrap();
        assert_eq!(report.total, query_count(&file));
        assert_eq!(report.agreeing(), report.total);
        let same = compare_files(&file, &file).unwrap();
        assert_eq!(same.exact, same.total);
        // Break one integer or float result.
        let mut broken = file.clone();
        let q = &mut broken.cases[0].queries[0];
        let r = q.result.as_mut().unwrap();
        r[0] = match r[0] {
            cases::Num::Int(i) => cases::Num::Int(i ^ 1),
            cases::Num::Float(f) => cases::Num::Float(f + 0.5),
            cases::Num::Bits(b) => cases::Num::Bits(b ^ 1),
        };
        let rep = compare_files(&broken, &file).unwrap();
        assert_eq!(rep.real.len() + rep.ambiguous.len(), 1);
    }
}
