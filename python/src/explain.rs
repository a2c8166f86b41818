//! `explain` and `Explanation`: `tld4 explain`'s text and picture, from the same engine
//! (the `tld4-explain` crate) the CLI prints them with.

use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use tld4_explain::Subject;
use tld4_scenario::LoadOptions;

use crate::decode::{arch_of, hex32, Instruction};
use crate::errors::ExplainError;
use crate::scenario::Scenario;

/// The instruction argument: text or a word (every spelling `tld4 explain` reads), or a
/// decoded `Instruction`.
#[derive(FromPyObject)]
pub enum InstructionArg<'py> {
    /// A decoded instruction (its word, read for its architecture).
    Decoded(PyRef<'py, Instruction>),
    /// A 128-bit word.
    Word(u128),
    /// Text: nvdisasm's text, 32 hex digits, nvdisasm -hex's halves or FILE:KERNEL:OFFSET.
    Text(String),
}

/// The scenario argument: a loaded `Scenario` or the path of a scenario file.
#[derive(FromPyObject)]
pub enum ScenarioArg<'py> {
    /// A loaded scenario (its document is loaded again with the instruction given).
    Loaded(PyRef<'py, Scenario>),
    /// A file, read as `tld4 explain --scenario` reads it.
    Path(PathBuf),
}

/// What `tld4 explain` prints for an instruction (on a scenario, following one lane), and the
/// picture its `--png` and `--svg` draw.
#[pyclass(module = "tld4", frozen)]
pub struct Explanation {
    inner: tld4_explain::Explanation,
}

#[pymethods]
impl Explanation {
    /// The text, exactly as `tld4 explain` prints it.
    #[getter]
    fn text(&self) -> &str {
        &self.inner.text
    }

    /// False when the lane's predicted writes differ from the emulator's (`tld4 explain`
    /// then exits 1): a bug of tld4, never of the input.
    #[getter]
    fn consistent(&self) -> bool {
        self.inner.consistent
    }

    /// What the picture leaves out and why (`tld4 explain --png` prints each after
    /// `picture: `); empty without a picture.
    #[getter]
    fn notes(&self) -> Vec<String> {
        match &self.inner.picture {
            Ok(p) => p.notes().to_vec(),
            Err(_) => Vec::new(),
        }
    }

    /// The picture as PNG bytes (`tld4 explain --png`'s file; in a notebook,
    /// `IPython.display.Image(e.png())`). Raises `ExplainError` when there is none (no
    /// scenario, the lane does not execute, the texture is too large to draw).
    fn png<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let pic = self.picture()?;
        let bytes = py
            .detach(|| pic.png())
            .map_err(|e| ExplainError::new_err(format!("the PNG: {e}")))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The picture as an SVG document (`tld4 explain --svg`'s file). Raises `ExplainError`
    /// when there is none.
    fn svg(&self) -> PyResult<String> {
        Ok(self.picture()?.svg())
    }

    fn __str__(&self) -> &str {
        &self.inner.text
    }

    fn __repr__(&self) -> String {
        let first = self.inner.text.lines().next().unwrap_or("");
        format!("tld4.Explanation({first:?}, ...)")
    }
}

impl Explanation {
    /// The picture, or the reason there is none as an `ExplainError`.
    fn picture(&self) -> PyResult<&tld4_explain::Picture> {
        self.inner
            .picture
            .as_ref()
            .map_err(|e| ExplainError::new_err(e.to_string()))
    }
}

/// A scenario file's document, read as `tld4 explain --scenario` reads it.
fn read_document(path: &Path) -> PyResult<String> {
    // The one whole-input reader: a regular file, at most MAX_TEXT_BYTES bytes.
    tld4_cubin::read_text_file(path)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
}

/// Explains one TLD4 as `tld4 explain` does and returns its text and picture: every field,
/// operand and destination, and on a scenario one lane's whole path through the texture
/// unit. `instruction`: text, a word or an `Instruction`; `scenario`: a `Scenario` or the path
/// of a scenario file (its instruction is replaced by this one). Raises `ExplainError` (a
/// `ValueError`) with the CLI's message for bad input.
#[pyfunction]
#[pyo3(signature = (instruction, scenario = None, lane = 0, arch = "sm_100"))]
pub fn explain(
    py: Python<'_>,
    instruction: InstructionArg<'_>,
    scenario: Option<ScenarioArg<'_>>,
    lane: u32,
    arch: &str,
) -> PyResult<Explanation> {
    let (text, arch) = match &instruction {
        InstructionArg::Decoded(i) => (hex32(i.word), i.insn.arch),
        InstructionArg::Word(w) => (hex32(*w), arch_of(arch)?),
        InstructionArg::Text(t) => (t.clone(), arch_of(arch)?),
    };
    let run = |subject: Subject<'_>| {
        py.detach(|| tld4_explain::explain(&text, arch, &subject, lane, true))
            .map(|inner| Explanation { inner })
            .map_err(|e| ExplainError::new_err(e.to_string()))
    };
    match &scenario {
        None => run(Subject::Alone),
        Some(ScenarioArg::Loaded(s)) => {
            let src = &s.source;
            run(Subject::Document {
                text: &src.text,
                dir: &src.base,
                name: &src.name,
                options: &src.options,
            })
        }
        Some(ScenarioArg::Path(path)) => {
            let document = read_document(path)?;
            let name = path.display().to_string();
            let options = LoadOptions::default();
            run(Subject::Document {
                text: &document,
                dir: path.parent().unwrap_or(Path::new("")),
                name: &name,
                options: &options,
            })
        }
    }
}
