//! Reading a scenario document with the given instruction in place of its own.

use std::path::Path;

use tld4_gather_cases::PrecisionSpec;
use tld4_textures::Precision;

use tld4_scenario as scenario;

/// The scenario document `text` (named `name` in errors; files relative to `dir`) with the
/// instruction `word` in place of its own. The document may leave its `instruction` out:
/// explain is given one.
pub(super) fn load_text(
    text: &str,
    dir: &Path,
    word: u128,
    options: &scenario::LoadOptions,
    name: &str,
) -> Result<(scenario::Scenario, Precision), String> {
    let text = text.to_string();
    let path = std::path::Path::new(name);
    // Errors in the file as written (with its own lines and columns), except in the
    // instruction, which the command line replaces.
    if let Err(e) = scenario::load_with(&text, dir, options) {
        let about_instruction = e.path == "instruction"
            || e.path.starts_with("instruction.")
            || e.to_string().contains("`instruction`");
        if !about_instruction {
            return Err(format!("{}: {e}", path.display()));
        }
    }
    let mut doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        // The loader reports the syntax error with its line and column.
        Err(_) => {
            return Err(match scenario::load_with(&text, dir, options) {
                Err(e) => format!("{}: {e}", path.display()),
                Ok(_) => format!("{}: not a JSON document", path.display()),
            })
        }
    };
    let precision = match doc.get("config").and_then(|c| c.get("precision")) {
        Some(p) => {
            let spec: PrecisionSpec = serde_json::from_value(p.clone())
                .map_err(|e| format!("{}: config.precision: {e}", path.display()))?;
            spec.precision()
        }
        None => Precision::default(),
    };
    if let Some(obj) = doc.as_object_mut() {
        obj.insert(
            "instruction".into(),
            serde_json::Value::String(format!("{word:032x}")),
        );
    }
    let s = scenario::load_with(&doc.to_string(), dir, options)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((s, precision))
}
