//! `scan`: every TLD4 in compiled code, the rows `tld4 scan` prints.

use std::path::PathBuf;

use pyo3::prelude::*;

use tld4_cubin::{map_file, visit_file, CubinError, SUPPORTED};

use crate::errors::ScanError;

/// One row of `tld4 scan`: (file, target, kernel, offset, word, text), with `text`
/// nvdisasm's text or `error: <why>` for a word nvdisasm refuses.
type Row = (String, String, String, u64, u128, String);

/// The rows `tld4 scan PATH` prints (the `tld4.scan` wrapper makes them `ScanRow`s). Raises
/// `ScanError` with the CLI's message where the file, or an entry of it, cannot be read;
/// entries for other architectures are skipped, as the CLI does.
#[pyfunction]
pub fn scan(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Row>> {
    py.detach(|| {
        let bytes = map_file(&path).map_err(|e| format!("{e}"))?;
        let mut rows = Vec::new();
        let mut first_error: Option<String> = None;
        let visited = visit_file(&bytes, SUPPORTED, |image| match image {
            Ok(image) => {
                let file = format!("{}{}", path.display(), image.origin);
                for site in image.cubin.tld4s() {
                    let text = match &site.decoded {
                        Ok(insn) => insn.text(),
                        Err(e) => format!("error: {e}"),
                    };
                    rows.push((
                        file.clone(),
                        image.target.to_string(),
                        site.kernel.to_string(),
                        site.offset,
                        site.word,
                        text,
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
