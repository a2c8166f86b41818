//! Sparse residency from Python: a texture's map (the JSON files' `residency` key, or a numpy
//! `bool` array of tiles), and the map read back.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tld4_gather_cases::{finish_texture, ResidencySpec};
use tld4_textures::{Residency, Texture as RustTexture};

use crate::errors::value_error;
use crate::names::from_py;

/// `texture` with the map `spec`: a dict of `tile_width`, `tile_height` and either
/// `non_resident` (the JSON files' list of [storage layer, tile x, tile y]) or `resident` (a
/// `bool` array of shape (storage layers, tiles down, tiles across)). Errors name
/// `residency` and the key or tile at fault.
pub fn with_residency(texture: RustTexture, spec: &Bound<'_, PyAny>) -> PyResult<RustTexture> {
    let dict = spec.cast::<PyDict>().map_err(|_| {
        value_error("residency: a dict of tile_width, tile_height and non_resident or resident")
    })?;
    let Some(resident) = dict.get_item("resident")? else {
        let spec: ResidencySpec = from_py(spec, "residency")?;
        return finish_texture(texture, None, Some(&spec), "residency")
            .map_err(|e| value_error(e.to_string()));
    };
    if dict.contains("non_resident")? {
        return Err(value_error(
            "residency: give non_resident (a list of tiles) or resident (an array), not both",
        ));
    }
    let size = |key: &str| -> PyResult<u32> {
        let v = dict
            .get_item(key)?
            .ok_or_else(|| value_error(format!("residency: missing key `{key}`")))?;
        crate::errors::int_arg(&v, &format!("residency.{key}"))
    };
    let (tw, th) = (size("tile_width")?, size("tile_height")?);
    let mut map = Residency::all_resident(texture.desc(), tw, th)
        .map_err(|e| value_error(format!("residency: {e}")))?;
    let want = map.map().shape().to_vec();
    let np = spec.py().import("numpy")?;
    let arr = np.call_method1("asarray", (resident,))?;
    let arr: PyReadonlyArray3<'_, bool> = arr.extract().map_err(|_| {
        value_error(format!(
            "residency.resident: a bool array of shape {:?} (storage layers, tiles down, tiles across)",
            want
        ))
    })?;
    if arr.shape() != want.as_slice() {
        return Err(value_error(format!(
            "residency.resident: shape {:?}, not {:?} (storage layers, tiles down, tiles across)",
            arr.shape(),
            want
        )));
    }
    for ((layer, ty, tx), &r) in arr.as_array().indexed_iter() {
        if !r {
            // (inside the map: its shape was checked)
            map.set(layer, tx, ty, false)
                .map_err(|e| value_error(format!("residency.resident: {e}")))?;
        }
    }
    texture
        .with_residency(map)
        .map_err(|e| value_error(format!("residency: {e}")))
}

/// The map as a dict: `tile_width`, `tile_height`, `resident` (a `bool` array).
pub fn residency_dict<'py>(py: Python<'py>, r: &Residency) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item("tile_width", r.tile_width())?;
    d.set_item("tile_height", r.tile_height())?;
    let map = r.map();
    let (l, h, w) = map.dim();
    let flat: Vec<bool> = map.iter().copied().collect();
    d.set_item("resident", PyArray1::from_vec(py, flat).reshape([l, h, w])?)?;
    Ok(d.into_any())
}
