//! The scenario key `instruction`: nvdisasm's text or 32 hex digits (a JSON string), or a
//! TLD4 in compiled code, `{"cubin": "k.cubin", "kernel": "name", "offset": "0x0070"}` (an
//! object with exactly these keys; the offset as `0x` hex like nvdisasm prints it, or a
//! non-negative JSON integer counting bytes). Errors name the key: `instruction.offset`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::builder::ScenarioBuilder;
use crate::cubin_ref::{parse_offset, CubinRef};
use crate::error::{err, ScenarioError};
use crate::files::{locate, LoadOptions};

/// The object form, as read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CubinRefDoc {
    cubin: PathBuf,
    kernel: String,
    offset: Box<RawValue>,
}

const FORMS: &str = "expected nvdisasm's text or 32 hex digits (a string), or {\"cubin\": FILE, \"kernel\": NAME, \"offset\": \"0x0070\"} (an object)";

/// What a JSON value's text is, for errors.
fn what(text: &str) -> &'static str {
    match text.trim_start().as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        _ => "a number",
    }
}

/// A reader's error without its line and column, which count from the start of the
/// `instruction` value, not of the file.
fn message(e: &serde_json::Error) -> String {
    let m = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    m.strip_suffix(&position).unwrap_or(&m).to_string()
}

/// Reads the instruction key into the builder; relative cubin paths are relative to `dir`
/// (with `options.confine`, inside it: [`LoadOptions::confine`]).
pub(crate) fn set_instruction(
    b: &mut ScenarioBuilder,
    raw: &RawValue,
    dir: &Path,
    options: &LoadOptions,
) -> Result<(), ScenarioError> {
    let text = raw.get();
    match text.trim_start().as_bytes().first() {
        Some(b'"') => {
            let s: String =
                serde_json::from_str(text).map_err(|e| err("instruction", message(&e)))?;
            b.instruction(&s).map_err(|e| e.at("instruction"))?;
        }
        Some(b'{') => {
            let de = &mut serde_json::Deserializer::from_str(text);
            let doc: CubinRefDoc = serde_path_to_error::deserialize(de).map_err(|e| {
                let p = e.path().to_string();
                let path = if p == "." {
                    "instruction".to_string()
                } else {
                    format!("instruction.{p}")
                };
                err(path, message(e.inner()))
            })?;
            let file = if options.confine {
                locate(dir, &doc.cubin, options, "instruction.cubin")?
            } else {
                doc.cubin
            };
            let r = CubinRef {
                file,
                kernel: doc.kernel,
                offset: offset(&doc.offset)?,
            };
            let found = r
                .resolve(dir)
                .map_err(|e| err(format!("instruction.{}", e.key()), e))?;
            b.word(found.word).map_err(|e| e.at("instruction"))?;
        }
        _ => return Err(err("instruction", format!("{FORMS}; found {}", what(text)))),
    }
    Ok(())
}

/// The offset: a `0x` hex string, or a non-negative JSON integer (bytes, decimal).
fn offset(raw: &RawValue) -> Result<u64, ScenarioError> {
    const AT: &str = "instruction.offset";
    let text = raw.get();
    if text.starts_with('"') {
        let s: String = serde_json::from_str(text).map_err(|e| err(AT, message(&e)))?;
        return parse_offset(&s).map_err(|e| err(AT, e));
    }
    serde_json::from_str::<u64>(text).map_err(|_| {
        err(AT, format!("{text}: expected \"0x...\" (hex, as nvdisasm and tld4 scan print offsets: \"0x0070\") or a non-negative integer (bytes)"))
    })
}
