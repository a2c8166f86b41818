//! `tld4 check`: a `tld4 gather` cases file whose queries' `result`s are someone's observed
//! results, each given a verdict (docs/cli.md, `tld4 check`).

use serde::Serialize;
use tld4_gather_cases::{self as cases, result_kind, CaseError, CasesFile, Num};
use tld4_textures::ValueKind;

use crate::precision::CtsPrecision;
use crate::query::Query;
use crate::verdict::{Checker, QueryVerdict, Verdict};

/// An error in the input, with the JSON path it concerns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct CheckError {
    /// JSON path, e.g. `cases[3].queries[7].result` (empty for the whole document).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl From<CaseError> for CheckError {
    fn from(e: CaseError) -> Self {
        CheckError {
            path: e.path,
            message: e.message,
        }
    }
}

/// How many queries got each verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Summary {
    /// Queries checked.
    pub queries: usize,
    /// Bit for bit tld4's result.
    pub exact: usize,
    /// Inside the CTS's bounds.
    pub allowed: usize,
    /// Outside them.
    pub wrong: usize,
}

impl Summary {
    /// Counts one verdict.
    pub fn add(&mut self, v: &Verdict) {
        self.queries += 1;
        match v {
            Verdict::Exact => self.exact += 1,
            Verdict::Allowed(_) => self.allowed += 1,
            Verdict::Wrong(_) => self.wrong += 1,
        }
    }
}

/// One query's verdict in a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryReport {
    /// `cases[i].queries[j]`.
    pub path: String,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: QueryVerdict,
    /// The verdict in words (empty for exact).
    pub explanation: String,
}

/// One case's verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseReport {
    /// The bounds used.
    pub precision: CtsPrecision,
    /// Its queries' verdicts.
    pub queries: Vec<QueryReport>,
}

/// A whole file's verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The counts.
    pub summary: Summary,
    /// Per case.
    pub cases: Vec<CaseReport>,
}

impl Report {
    /// The queries with a verdict other than exact.
    pub fn not_exact(&self) -> impl Iterator<Item = &QueryReport> {
        self.cases
            .iter()
            .flat_map(|c| &c.queries)
            .filter(|q| q.verdict.verdict != Verdict::Exact)
    }
}

/// An observed result as bits: f32 bits for float results, the integer for UINT/SINT.
fn observed_bits(kind: ValueKind, nums: &[Num], path: &str) -> Result<[u32; 4], CheckError> {
    if nums.len() != 4 {
        return Err(CheckError {
            path: path.to_string(),
            message: format!("a result has 4 values, got {}", nums.len()),
        });
    }
    let mut out = [0u32; 4];
    for (k, n) in nums.iter().enumerate() {
        out[k] = match kind {
            ValueKind::Float | ValueKind::Normalized => n.as_f32().to_bits(),
            ValueKind::Uint | ValueKind::Sint => match n.as_int() {
                Some(v) if (i32::MIN as i64..=u32::MAX as i64).contains(&v) => v as u32,
                _ => {
                    return Err(CheckError {
                        path: format!("{path}[{k}]"),
                        message: format!("{n} is not a 32-bit integer"),
                    })
                }
            },
        };
    }
    Ok(out)
}

/// Verdicts on every query of a cases file, the observed result being each query's `result`
/// (required). The exact results are tld4's with the case's `precision` (default: 8 bits,
/// nearest even); the bounds are the CTS's for the case's texture kind.
pub fn check_file(file: &CasesFile) -> Result<Report, CheckError> {
    let mut summary = Summary::default();
    let mut out = Vec::with_capacity(file.cases.len());
    for (ci, case) in file.cases.iter().enumerate() {
        let prepared = cases::prepare(case, ci)?;
        let cts = CtsPrecision::for_kind(case.texture.dim);
        let mut checker = Checker::new(
            &prepared.texture,
            &prepared.sampler,
            prepared.precision,
            cts,
        );
        let mut queries = Vec::with_capacity(case.queries.len());
        for (qi, spec) in case.queries.iter().enumerate() {
            let path = format!("cases[{ci}].queries[{qi}]");
            let q = Query::from_spec(case, spec, &path)?;
            let kind = result_kind(prepared.texture.format(), q.dref.is_some());
            let Some(result) = &spec.result else {
                return Err(CheckError {
                    path: format!("{path}.result"),
                    message: "missing: give the observed result (four numbers)".into(),
                });
            };
            let observed = observed_bits(kind, result, &format!("{path}.result"))?;
            let verdict = checker.check(&q, observed).map_err(|e| CheckError {
                path: path.clone(),
                message: e.to_string(),
            })?;
            summary.add(&verdict.verdict);
            let explanation = match &verdict.verdict {
                Verdict::Exact => String::new(),
                Verdict::Allowed(a) => a.to_string(),
                Verdict::Wrong(w) => w.to_string(),
            };
            queries.push(QueryReport {
                path,
                verdict,
                explanation,
            });
        }
        out.push(CaseReport {
            precision: cts,
            queries,
        });
    }
    Ok(Report {
        summary,
        cases: out,
    })
}

/// [`check_file`] of a file's text; structural errors name their JSON path.
pub fn check_text(text: &str) -> Result<Report, CheckError> {
    check_file(&cases::parse(text)?)
}
