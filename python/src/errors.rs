//! The package's exceptions: each names what the Rust error names (its message, and where it
//! has one the column, fault kind or lane), as attributes Python code can test.

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::{IntoPyObjectExt, PyErr};

pyo3::create_exception!(
    _native,
    DecodeError,
    PyValueError,
    "A word nvdisasm refuses: the message is the one `tld4 disasm` prints after `error: `."
);
pyo3::create_exception!(
    _native,
    AsmError,
    PyValueError,
    "Text that is no TLD4: `.column` is the 1-based column where parsing stopped."
);
pyo3::create_exception!(
    _native,
    WarpFault,
    PyException,
    "A warp exception raised by TLD4: `.kind` is the Rust `FaultKind` name (`unknown_sampler`, ...), `.lane` the lowest lane concerned or None."
);
pyo3::create_exception!(
    _native,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be loaded: the message is `tld4 run`'s, with its JSON path; `.path` is that path."
);
pyo3::create_exception!(
    _native,
    ExplainError,
    PyValueError,
    "An instruction, scenario or lane `tld4 explain` refuses (the message is the CLI's), or a picture asked of an explanation that has none."
);
pyo3::create_exception!(
    _native,
    ScanError,
    PyValueError,
    "A file `tld4 scan` cannot read (or an entry of it): the message is the CLI's."
);

/// An exception of type `T` with message `msg` and the attributes `attrs`.
pub fn with_attrs<T: pyo3::type_object::PyTypeInfo>(
    py: Python<'_>,
    msg: String,
    attrs: &[(&str, Py<PyAny>)],
) -> PyErr {
    let err = PyErr::new::<T, _>(msg);
    let value = err.value(py);
    for (name, v) in attrs {
        if let Err(e) = value.setattr(*name, v) {
            return e;
        }
    }
    err
}

/// `ValueError(msg)`.
pub fn value_error(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

/// The Python [`WarpFault`] of a kind name, lane and message.
pub fn warp_fault(py: Python<'_>, kind: &str, lane: Option<u8>, msg: String) -> PyErr {
    let kind_obj = kind.into_py_any(py);
    let lane_obj = lane.into_py_any(py);
    match (kind_obj, lane_obj) {
        (Ok(k), Ok(l)) => with_attrs::<WarpFault>(py, msg, &[("kind", k), ("lane", l)]),
        (Err(e), _) | (_, Err(e)) => e,
    }
}

/// The int argument `name` as a `T`, or an error naming it: `TypeError` for a non-int,
/// `ValueError` for an int outside `T` (a bare conversion's `OverflowError` names no
/// argument).
pub fn int_arg<T: TryFrom<i128>>(value: &Bound<'_, PyAny>, name: &str) -> PyResult<T> {
    let v: i128 = value.extract::<i128>().map_err(|e: PyErr| {
        if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(value.py()) {
            value_error(format!("{name}: {value} is out of range"))
        } else {
            pyo3::exceptions::PyTypeError::new_err(format!("{name}: expected an int"))
        }
    })?;
    T::try_from(v).map_err(|_| value_error(format!("{name}: {v} is out of range")))
}
