//! `scan`: every TLD4 in compiled code, the rows `tld4 scan` prints.

use std::path::PathBuf;

use pyo3::prelude::*;

use tld4_cubin::{read_file, supported, visit, CubinError};
use tld4_decoder::DecodeError;

use crate::errors::ScanError;

/// One row of `tld4 scan`: (file, kernel, offset, word, text, architecture), with `text`
/// the architecture's nvdisasm text, `error: <why>` for a word nvdisasm refuses or
/// `not modeled: <why>` for a form tld4 does not model yet (the CLI's columns).
type Row = (String, String, u64, u128, String, String);

/// The rows `tld4 scan PATH` prints (the `tld4.scan` wrapper makes them `ScanRow`s). Raises
/// `ScanError` with the CLI's message where the file, or an entry of it, cannot be read;
/// cubins of every architecture the decoder knows are read, as the CLI reads them.
#[pyfunction]
pub fn scan(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Row>> {
    py.detach(|| {
        let bytes = read_file(&path).map_err(|e| format!("{e}"))?;
        let mut rows = Vec::new();
        let mut first_error: Option<String> = None;
        let visited = visit(&bytes, supported(), |image| match image {
            Ok(image) => {
                let file = format!("{}{}", path.display(), image.origin);
                for site in image.cubin.tld4s() {
                    let text = match &site.decoded {
                        // (as nvdisasm lists a cubin's code)
                        Ok(insn) => insn.listing_text(),
                        Err(e @ DecodeError::FormNotModeled { .. }) => format!("not modeled: {e}"),
                        Err(e) => format!("error: {e}"),
                    };
                    rows.push((
                        file.clone(),
                        site.kernel.to_string(),
                        site.offset,
                        site.word,
                        text,
                        image.target.to_string(),
                    ));
                }
            }
            Err(e) => {
                first_error.get_or_insert_with(|| format!("{}: {e}", path.display()));
            }
        });
        if let Some(e) = first_error {
            return Err(e);
        }
        match visited {
            Ok(_) | Err(CubinError::NoSupportedCubin { .. }) => Ok(rows),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    })
    .map_err(ScanError::new_err)
}
