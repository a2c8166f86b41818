//! Names as the JSON files write them (`2d`, `rgba8_unorm`, `clamp_to_edge`, `less`...),
//! read through the texture crate's own serde model, so the package keeps no list of its own.

use pyo3::prelude::*;
use pyo3::types::PyAnyMethods;
use serde::de::DeserializeOwned;

use crate::errors::value_error;

/// Reads `value` (a Python object that `json.dumps` writes) as the JSON key `what` reads it.
pub fn from_py<T: DeserializeOwned>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let json = value.py().import("json")?;
    let text: String = json.call_method1("dumps", (value,))?.extract()?;
    serde_json::from_str(&text).map_err(|e| value_error(format!("{what}: {e}")))
}

/// Reads a name (`"2d"`, `"rgba8_unorm"`...) as the JSON key `what` reads it.
pub fn from_name<T: DeserializeOwned>(name: &str, what: &str) -> PyResult<T> {
    serde_json::from_value(serde_json::Value::String(name.to_string()))
        .map_err(|e| value_error(format!("{what}: {e}")))
}

/// The JSON name of a value (`TextureKind::Tex2D` -> `2d`).
pub fn name_of<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        other => format!("{other:?}"),
    }
}
