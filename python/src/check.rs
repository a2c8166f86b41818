//! `check`: conformance verdicts on observed gathers (`tld4_conformance`; docs/sources.md,
//! Conformance verdicts), the queries given as `gather` takes them and the observed results
//! as an (n, 4) numpy array.

use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tld4_conformance::{Checker, CtsPrecision, Query, Verdict};
use tld4_textures::ValueKind;

use crate::errors::value_error;
use crate::queries::{coord_count, prepare, Args};
use crate::texture::{Sampler, Texture};

/// The verdicts on a set of observed gathers.
#[pyclass(module = "tld4._native", frozen)]
pub struct CheckReport {
    /// Queries bit for bit tld4's result.
    #[pyo3(get)]
    exact: usize,
    /// Queries inside the CTS's bounds but not tld4's.
    #[pyo3(get)]
    allowed: usize,
    /// Queries outside the CTS's bounds.
    #[pyo3(get)]
    wrong: usize,
    rows: Vec<Row>,
}

struct Row {
    verdict: &'static str,
    explanation: String,
    model: [u32; 4],
    observed: [u32; 4],
    details: String,
}

#[pymethods]
impl CheckReport {
    /// Queries checked.
    #[getter]
    fn queries(&self) -> usize {
        self.rows.len()
    }

    /// Per query: `verdict` ("exact", "allowed", "wrong"), `explanation`, `model` and
    /// `observed` (the four values' 32-bit patterns) and `details` (the verdict as JSON).
    #[getter]
    fn details<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.rows
            .iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("verdict", r.verdict)?;
                d.set_item("explanation", &r.explanation)?;
                d.set_item("model", r.model.to_vec())?;
                d.set_item("observed", r.observed.to_vec())?;
                d.set_item("details", &r.details)?;
                Ok(d)
            })
            .collect()
    }

    /// The indices of the wrong queries.
    #[getter]
    fn wrong_indices(&self) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|&k| self.rows[k].verdict == "wrong")
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "CheckReport(queries={}, exact={}, allowed={}, wrong={})",
            self.rows.len(),
            self.exact,
            self.allowed,
            self.wrong
        )
    }
}

/// The observed results as 32-bit patterns: floats as float32 bits, integers as their
/// 32-bit two's complement.
fn observed_bits(observed: &Bound<'_, PyAny>, n: usize, kind: ValueKind) -> PyResult<Vec<u32>> {
    let np = observed.py().import("numpy")?;
    let wrong_shape = || value_error(format!("observed: an array of shape ({n}, 4)"));
    let a = match kind {
        ValueKind::Float | ValueKind::Normalized => np
            .call_method1("ascontiguousarray", (observed, "float32"))?
            .call_method1("view", ("uint32",))?,
        ValueKind::Uint | ValueKind::Sint => {
            let wide = np.call_method1("ascontiguousarray", (observed, "int64"))?;
            let v: PyReadonlyArray2<'_, i64> = wide.extract().map_err(|_| wrong_shape())?;
            if v.shape() != [n, 4] {
                return Err(wrong_shape());
            }
            let mut out = Vec::with_capacity(n * 4);
            for (k, x) in v.as_array().iter().enumerate() {
                if !(i32::MIN as i64..=u32::MAX as i64).contains(x) {
                    return Err(value_error(format!(
                        "observed[{}, {}]: {x} is not a 32-bit integer",
                        k / 4,
                        k % 4
                    )));
                }
                out.push(*x as u32);
            }
            return Ok(out);
        }
    };
    let v: PyReadonlyArray2<'_, u32> = a.extract().map_err(|_| wrong_shape())?;
    if v.shape() != [n, 4] {
        return Err(wrong_shape());
    }
    Ok(v.as_array().iter().copied().collect())
}

/// Conformance verdicts on observed gathers: the queries as `gather` takes them, `observed`
/// an (n, 4) array of the results someone got (float32 values, or integers for UINT/SINT
/// formats). Each query is exact (tld4's result bit for bit), allowed (inside the Khronos
/// CTS's gather bounds) or wrong; returns a `CheckReport`. `component`, `offset_kind`,
/// `offset`, `offsets` and `dref` per query or shared, as `gather` takes them.
#[pyfunction]
#[pyo3(signature = (texture, sampler, coords, observed, component = None, offset = None, offsets = None, dref = None, precision = None, offset_kind = None))]
#[allow(clippy::too_many_arguments)]
pub fn check(
    py: Python<'_>,
    texture: &Texture,
    sampler: &Sampler,
    coords: &Bound<'_, PyAny>,
    observed: &Bound<'_, PyAny>,
    component: Option<&Bound<'_, PyAny>>,
    offset: Option<&Bound<'_, PyAny>>,
    offsets: Option<&Bound<'_, PyAny>>,
    dref: Option<&Bound<'_, PyAny>>,
    precision: Option<&Bound<'_, PyAny>>,
    offset_kind: Option<&Bound<'_, PyAny>>,
) -> PyResult<CheckReport> {
    let args = Args {
        coords,
        component,
        offset_kind,
        offset,
        offsets,
        dref,
        precision,
    };
    let p = prepare(texture, &args)?;
    let queries = p.queries()?;
    let bits = observed_bits(observed, queries.n, p.kind)?;
    let tex = texture.inner.clone();
    let smp = sampler.inner;
    let k = coord_count(p.dim);
    py.detach(|| {
        let mut checker = Checker::new(&tex, &smp, p.precision, CtsPrecision::for_kind(p.dim));
        let mut report = CheckReport {
            exact: 0,
            allowed: 0,
            wrong: 0,
            rows: Vec::with_capacity(queries.n),
        };
        for i in 0..queries.n {
            let mut c = [0f32; 4];
            c[..k].copy_from_slice(&queries.coords[i * k..(i + 1) * k]);
            let q = Query {
                coords: c,
                component: queries.component.get(i),
                offset_mode: queries.mode.get(i),
                offsets: queries.offsets_at(i),
                dref: p.compare.then(|| queries.dref_at(i)),
            };
            let observed: [u32; 4] = std::array::from_fn(|v| bits[i * 4 + v]);
            let v = checker
                .check(&q, observed)
                .map_err(|e| format!("query {i}: {e}"))?;
            let (verdict, explanation) = match &v.verdict {
                Verdict::Exact => {
                    report.exact += 1;
                    ("exact", String::new())
                }
                Verdict::Allowed(a) => {
                    report.allowed += 1;
                    ("allowed", a.to_string())
                }
                Verdict::Wrong(w) => {
                    report.wrong += 1;
                    ("wrong", w.to_string())
                }
            };
            let details = serde_json::to_string(&v).map_err(|e| e.to_string())?;
            report.rows.push(Row {
                verdict,
                explanation,
                model: v.model,
                observed,
                details,
            });
        }
        Ok::<_, String>(report)
    })
    .map_err(value_error)
}
