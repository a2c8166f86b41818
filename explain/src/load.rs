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
    let path = std::path::Path::new(name);
    let text = without_arch(text).map_err(|e| format!("{}: {e}", path.display()))?;
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

/// The scenario document's own instruction (its `instruction`, nvdisasm's text or 32 hex
/// digits) and the architecture it names (`arch`, when it names one): what `tld4 explain
/// --scenario FILE` explains when no instruction is given (the page's "copy as scenario"
/// documents hold both).
pub fn document_instruction(text: &str) -> Result<(String, Option<tld4_decoder::Arch>), String> {
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a JSON document: {e}"))?;
    let insn = match doc.get("instruction") {
        Some(serde_json::Value::String(t)) => t.clone(),
        Some(_) => return Err("instruction: expected nvdisasm's text or 32 hex digits (a JSON string); give the instruction on the command line".into()),
        None => return Err("the scenario has no `instruction`: give the instruction on the command line".into()),
    };
    let arch = match doc.get("arch") {
        Some(serde_json::Value::String(a)) => Some(a.parse().map_err(|e| format!("arch: {e}"))?),
        Some(_) => {
            return Err(
                "arch: expected an architecture name as nvdisasm -b takes it (\"sm_90\")".into(),
            )
        }
        None => None,
    };
    Ok((insn, arch))
}

/// The document without its `arch`: explain reads the instruction with its architecture itself
/// (`--arch`, or the scenario's when the instruction comes from it) and follows the lane
/// through the base table's reading of it, so the rest of a scenario naming `arch` reads as an
/// SM100 one. Refused with the reason: `constants` (the constant-bank TLD4 of SM75 to SM90a
/// reads its handle from constant memory, which explain does not model), and textures in
/// `memory` for an architecture whose GPU class lays its headers out other than BLACKWELL_A
/// (docs/sources.md, Descriptors per GPU class; `tld4 run` reads those).
fn without_arch(text: &str) -> Result<String, String> {
    let Ok(serde_json::Value::Object(mut doc)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        // (not a JSON object: the loader reports it with its line and column)
        return Ok(text.to_string());
    };
    if doc.contains_key("constants") {
        return Err("constants: explain follows a lane of a TLD4 whose handle is in a register; the constant-bank TLD4 of SM75 to SM90a reads its handle from constant memory, which explain does not model: run the scenario with `tld4 run`".into());
    }
    let Some(arch) = doc.remove("arch") else {
        return Ok(text.to_string());
    };
    let name = arch
        .as_str()
        .ok_or("arch: expected an architecture name as nvdisasm -b takes it (\"sm_90\")")?;
    if doc.contains_key("memory") {
        let base = tld4_gpu_memory::ClassDescriptors::default();
        match tld4_gpu_memory::GpuClass::for_arch(name) {
            Ok(c) if tld4_gpu_memory::ClassDescriptors::new(c).format == base.format => {}
            Ok(c) => return Err(format!("arch {name}: its GPU class {} lays texture headers in `memory` out in its own layout, which explain does not read yet; `tld4 run` does (or give owned `textures`)", c.name())),
            Err(e) => return Err(format!("arch {name}: {e}: its texture headers in `memory` cannot be read (owned textures can)")),
        }
    }
    Ok(serde_json::Value::Object(doc).to_string())
}
