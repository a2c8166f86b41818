//! `Scenario`: the JSON scenarios of `tld4 run`, loaded, run and reported as the CLI does.

use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use tld4_emu::WARP_SIZE;
use tld4_scenario::{LoadOptions, Scenario as RustScenario};

use crate::decode::Instruction;
use crate::errors::{with_attrs, ScenarioError};

/// The Python error of a scenario that does not load: `tld4 run`'s message.
fn load_error(py: Python<'_>, name: &str, e: tld4_scenario::ScenarioError) -> PyErr {
    let path = e.path.clone().into_py_any(py);
    match path {
        Ok(p) => with_attrs::<ScenarioError>(py, format!("{name}: {e}"), &[("path", p)]),
        Err(err) => err,
    }
}

/// A scenario: a warp, its textures and samplers, one TLD4, what is expected of each lane.
/// `Scenario.load(path)` or `Scenario.from_json(text)`, then `.run()`.
#[pyclass(module = "tld4", frozen)]
pub struct Scenario {
    inner: RustScenario,
    /// The document as read, where relative file names are read from, its name and how it
    /// was loaded: what `tld4.explain` loads again with its own instruction.
    pub(crate) source: Source,
}

/// A scenario's document, as `tld4.explain` needs it.
pub(crate) struct Source {
    /// The JSON text.
    pub(crate) text: String,
    /// Where its relative file names are read from.
    pub(crate) base: PathBuf,
    /// Its name in messages (the path given, or `scenario`).
    pub(crate) name: String,
    /// How it was loaded.
    pub(crate) options: LoadOptions,
}

/// What running a scenario gave, as `tld4 run` computes it.
#[pyclass(module = "tld4", frozen, get_all)]
pub struct ScenarioResult {
    /// Passed checks (lanes, or the fault expectation).
    pub passed: usize,
    /// Failed checks.
    pub failed: usize,
    /// Per lane (32), the registers and predicate the instruction wrote: a dict such as
    /// `{"R8": bits, "R9": bits, "P0": False}`, or None where the lane did not execute (and
    /// every entry None when the instruction faulted).
    pub lanes: Vec<Option<Py<PyDict>>>,
    /// The fault's kind name (`"unknown_sampler"`...), or None.
    pub fault: Option<String>,
    /// The fault's message, or None.
    pub fault_message: Option<String>,
    /// The lines `tld4 run` prints.
    pub lines: Vec<String>,
}

#[pymethods]
impl ScenarioResult {
    fn __repr__(&self) -> String {
        format!(
            "tld4.ScenarioResult(passed={}, failed={}, fault={:?})",
            self.passed, self.failed, self.fault
        )
    }
}

#[pymethods]
impl Scenario {
    /// Reads a scenario file (relative region files and cubins from its directory). Raises
    /// `ScenarioError` with `tld4 run`'s message.
    #[staticmethod]
    #[pyo3(signature = (path, confine = false))]
    fn load(py: Python<'_>, path: PathBuf, confine: bool) -> PyResult<Self> {
        let name = path.display().to_string();
        // The one whole-input reader: a regular file, at most MAX_TEXT_BYTES bytes.
        let text = tld4_cubin::read_text_file(&path)
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let options = LoadOptions::default().confine(confine);
        let inner = tld4_scenario::load_with(&text, base, &options)
            .map_err(|e| load_error(py, &name, e))?;
        let source = Source {
            text,
            base: base.to_path_buf(),
            name,
            options,
        };
        Ok(Scenario { inner, source })
    }

    /// A scenario from its JSON text (`base_dir`: where relative file names are read).
    #[staticmethod]
    #[pyo3(signature = (text, base_dir = None))]
    fn from_json(py: Python<'_>, text: &str, base_dir: Option<PathBuf>) -> PyResult<Self> {
        let base = base_dir.unwrap_or_default();
        let options = LoadOptions::default();
        let inner = tld4_scenario::load_with(text, &base, &options)
            .map_err(|e| load_error(py, "scenario", e))?;
        let source = Source {
            text: text.to_string(),
            base,
            name: "scenario".into(),
            options,
        };
        Ok(Scenario { inner, source })
    }

    /// The instruction.
    #[getter]
    fn instruction(&self) -> Instruction {
        Instruction {
            insn: tld4_decoder::ArchTld4::base(tld4_decoder::Arch::Sm100, self.inner.insn),
            word: self.inner.word,
        }
    }

    /// Warnings about inputs that are valid but probably not what was meant (`tld4 run`
    /// prints them on standard error).
    fn warnings(&self) -> Vec<String> {
        tld4_scenario::warnings(&self.inner)
    }

    /// Runs the instruction on a copy of the scenario's warp (without the GIL) and reports
    /// lane by lane, exactly as `tld4 run` does.
    fn run(&self, py: Python<'_>) -> PyResult<ScenarioResult> {
        let s = &self.inner;
        let (result, outcome) = py.detach(|| {
            let result = s.execute();
            let outcome = tld4_scenario::describe(s, &result);
            (result, outcome)
        });
        let mut lanes = Vec::with_capacity(WARP_SIZE);
        let (mut fault, mut fault_message) = (None, None);
        match &result {
            Err(e) => {
                fault = Some(tld4_scenario::fault_kind(e).to_string());
                fault_message = Some(e.to_string());
                lanes.resize_with(WARP_SIZE, || None);
            }
            Ok(run) => {
                let dests = s.exec.destinations();
                let pdst = s.insn.pred_dst;
                for lane in 0..WARP_SIZE {
                    if !run.executed(lane) {
                        lanes.push(None);
                        continue;
                    }
                    let d = PyDict::new(py);
                    for &r in &dests {
                        d.set_item(format!("R{r}"), run.reg(lane, r))?;
                    }
                    if !pdst.is_pt() {
                        d.set_item(format!("P{}", pdst.0), run.pred(lane, pdst.0))?;
                    }
                    lanes.push(Some(d.unbind()));
                }
            }
        }
        Ok(ScenarioResult {
            passed: outcome.passed,
            failed: outcome.failed,
            lanes,
            fault,
            fault_message,
            lines: outcome.lines,
        })
    }

    fn __repr__(&self) -> String {
        format!("tld4.Scenario({:?})", self.inner.insn.text())
    }
}
