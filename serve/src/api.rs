//! The JSON API's questions and answers, without HTTP: parameters from a query string or a
//! JSON body, the texture bounds, and the answer as a status and a JSON text.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{json, Map, Value};
use tld4_explain::answer::{answer, answer_document, read_on};
use tld4_explain::question::{parse_size, Question};

use crate::limits::{MAX_LAYERS, MAX_SCENARIO_MEMORY, MAX_SIDE, MAX_TEXELS};

/// A request's parameters: the instruction, the architecture, the lane and the question (or
/// a whole scenario document in its place).
#[derive(Debug)]
pub struct Params {
    /// The instruction (`insn`; [`DEFAULT_INSN`] for a question, the document's own for a
    /// scenario, when not given).
    pub insn: Option<String>,
    /// The architecture the instruction is written for (`arch`, as nvdisasm -b or ptxas name
    /// it; SM100, unnamed, when not given).
    pub arch: Option<tld4_decoder::Arch>,
    /// A scenario document (`scenario`, JSON text) answered in place of a question.
    pub scenario: Option<String>,
    /// The lane (`lane`, default 0).
    pub lane: u32,
    /// The rest, named as `tld4 explain`'s flags.
    pub question: Question,
}

/// The default instruction of the page and the API.
pub const DEFAULT_INSN: &str = "TLD4.R R10, R8, R20, R24, UR4, 2D";

/// An answer: its HTTP status and its JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status (200, or 400/413/500 with `{"error": ...}`).
    pub status: u16,
    /// The JSON text.
    pub json: String,
}

impl Reply {
    /// `{"error": why}` with a status.
    pub fn error(status: u16, why: &str) -> Reply {
        Reply {
            status,
            json: json!({ "error": why }).to_string(),
        }
    }
}

/// Parameters from a JSON object of strings (numbers are taken as their text).
fn params_from_map(mut map: Map<String, Value>) -> Result<Params, String> {
    let text = |v: Value| -> Result<String, String> {
        match v {
            Value::String(s) => Ok(s),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(format!("expected text, got {other}")),
        }
    };
    let insn = match map.remove("insn") {
        Some(v) => Some(text(v).map_err(|e| format!("insn: {e}"))?),
        None => None,
    };
    let arch = match map.remove("arch") {
        Some(v) => {
            let t = text(v).map_err(|e| format!("arch: {e}"))?;
            Some(t.parse().map_err(|e| format!("arch: {e}"))?)
        }
        None => None,
    };
    let scenario = match map.remove("scenario") {
        // (a document given as JSON is taken as its text)
        Some(Value::String(t)) => Some(t),
        Some(v @ Value::Object(_)) => Some(v.to_string()),
        Some(_) => {
            return Err(
                "scenario: expected a scenario document (a JSON object, or its text)".into(),
            )
        }
        None => None,
    };
    let lane = match map.remove("lane") {
        Some(v) => {
            let t = text(v).map_err(|e| format!("lane: {e}"))?;
            t.parse()
                .map_err(|_| format!("lane: {t} is not a lane number"))?
        }
        None => 0,
    };
    // The question's fields are text; non_seamless is a switch.
    let mut fields = Map::new();
    for (k, v) in map {
        let v = if k == "non_seamless" {
            let t = text(v).map_err(|e| format!("{k}: {e}"))?;
            Value::Bool(matches!(t.as_str(), "true" | "1" | "on" | ""))
        } else {
            Value::String(text(v).map_err(|e| format!("{k}: {e}"))?)
        };
        fields.insert(k, v);
    }
    let question: Question =
        serde_json::from_value(Value::Object(fields)).map_err(|e| e.to_string())?;
    Ok(Params {
        insn,
        arch,
        scenario,
        lane,
        question,
    })
}

/// The message for a parameter named twice, in a query string or a JSON body alike
/// (docs/sources.md, Decisions: a parameter is given once).
fn given_twice(key: &str) -> String {
    format!("{key} is given twice")
}

/// Parameters from a query string (`insn=...&texture=4x4&...`).
pub fn params_from_query(query: &str) -> Result<Params, String> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| format!("the query string: {e}"))?;
    let mut map = Map::new();
    for (k, v) in pairs {
        if map.contains_key(&k) {
            return Err(given_twice(&k));
        }
        map.insert(k, Value::String(v));
    }
    params_from_map(map)
}

/// A JSON object whose keys are each given once (serde_json's own map keeps the last).
struct UniqueKeys(Map<String, Value>);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = UniqueKeys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object of parameters")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<UniqueKeys, A::Error> {
                let mut map = Map::new();
                while let Some(k) = a.next_key::<String>()? {
                    if map.contains_key(&k) {
                        return Err(serde::de::Error::custom(given_twice(&k)));
                    }
                    let v: Value = a.next_value()?;
                    map.insert(k, v);
                }
                Ok(UniqueKeys(map))
            }
        }
        d.deserialize_any(Keys)
    }
}

/// Parameters from a JSON object.
pub fn params_from_json(body: &str) -> Result<Params, String> {
    match serde_json::from_str::<UniqueKeys>(body) {
        Ok(UniqueKeys(m)) => params_from_map(m),
        // (a key given twice, or not an object: the text is JSON)
        Err(e) if e.is_data() => {
            if serde_json::from_str::<Value>(body).is_ok_and(|v| !v.is_object()) {
                Err("the body must be a JSON object of parameters".into())
            } else {
                Err(format!("the body: {e}"))
            }
        }
        Err(e) => Err(format!("the body is not JSON: {e}")),
    }
}

/// Why a texture is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundsError {
    /// The size is not `WxH` or `WxHxL` (answered 400).
    #[error("{0}")]
    Malformed(String),
    /// The texture is past the server's bounds (answered 413).
    #[error("texture {width}x{height}x{layers}: the server draws textures of at most {MAX_SIDE}x{MAX_SIDE} texels, {MAX_LAYERS} layers and {MAX_TEXELS} texels in all (cube faces counted; this one has {texels})")]
    TooLarge {
        /// Texels a row.
        width: u32,
        /// Rows.
        height: u32,
        /// Layers (or cubes).
        layers: u32,
        /// Texels in all, cube faces counted.
        texels: u64,
    },
}

/// Refuses textures past the server's bounds, before anything is built; `faces` is 6 for a
/// cube instruction, else 1.
pub fn check_bounds(q: &Question, faces: u64) -> Result<(), BoundsError> {
    let size = parse_size(q.texture.as_deref().unwrap_or("4x4")).map_err(BoundsError::Malformed)?;
    check_size(size.width, size.height, size.layers, faces)
}

/// Refuses a texture of `width` x `height` texels and `layers` layers (or cubes) of `faces`
/// faces each past the server's bounds.
fn check_size(width: u32, height: u32, layers: u32, faces: u64) -> Result<(), BoundsError> {
    let texels = width as u64 * height as u64 * layers as u64 * faces;
    if width > MAX_SIDE || height > MAX_SIDE || layers > MAX_LAYERS || texels > MAX_TEXELS {
        return Err(BoundsError::TooLarge {
            width,
            height,
            layers,
            texels,
        });
    }
    Ok(())
}

/// Refuses a scenario document's owned textures past the server's bounds, before anything is
/// built (the loader reports malformed sizes itself, with their JSON path).
fn check_document_bounds(doc: &Value) -> Result<(), BoundsError> {
    let textures = doc.get("textures").and_then(Value::as_array);
    for t in textures.into_iter().flatten() {
        let n = |k: &str, d: u64| t.get(k).and_then(Value::as_u64).unwrap_or(d);
        let cube = t
            .get("dim")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("cube"));
        let side = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        check_size(
            side(n("width", 1)),
            side(n("height", 1)),
            side(n("layers", 1)),
            if cube { 6 } else { 1 },
        )?;
    }
    Ok(())
}

/// Answers a scenario document (the page's "load a scenario"): its textures within the
/// bounds, its memory within [`MAX_SCENARIO_MEMORY`], no files read.
fn respond_document(p: &Params, text: &str) -> Reply {
    if p.question != Question::default() {
        return Reply::error(400, "scenario: a scenario document is answered alone; the question's parameters (texture, coord, ...) are not taken with it");
    }
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        if let Err(e) = check_document_bounds(&doc) {
            return Reply::error(413, &format!("the scenario: {e}"));
        }
    }
    let options = tld4_scenario::LoadOptions::default()
        .confine(true)
        .memory_limit(MAX_SCENARIO_MEMORY);
    let drawn =
        |[w, h, l]: [u32; 3]| check_size(w, h, l, 1).map_err(|e| format!("the scenario: {e}"));
    let a = answer_document(text, p.insn.as_deref(), p.arch, p.lane, &options, &drawn);
    match a {
        Ok(a) => match serde_json::to_string(&a) {
            Ok(json) => Reply { status: 200, json },
            Err(e) => Reply::error(500, &e.to_string()),
        },
        Err(e) => Reply::error(400, &e),
    }
}

/// Answers parsed parameters (400 with the reason for a bad question, 413 past the bounds).
pub fn respond(params: Result<Params, String>) -> Reply {
    let p = match params {
        Ok(p) => p,
        Err(e) => return Reply::error(400, &e),
    };
    if let Some(text) = &p.scenario {
        return respond_document(&p, text);
    }
    let insn = p.insn.as_deref().unwrap_or(DEFAULT_INSN);
    let mut q = p.question;
    if q.texture.is_none() {
        q.texture = Some("4x4".into());
    }
    // (a file reference is refused by `answer`, before anything is read)
    let cube = !insn.contains(':')
        && read_on(insn, p.arch.unwrap_or_default()).is_ok_and(|(r, _)| r.insn.dimension.is_cube());
    match check_bounds(&q, if cube { 6 } else { 1 }) {
        Ok(()) => {}
        Err(e @ BoundsError::Malformed(_)) => return Reply::error(400, &e.to_string()),
        Err(e @ BoundsError::TooLarge { .. }) => return Reply::error(413, &e.to_string()),
    }
    match answer(insn, p.arch, p.lane, &q) {
        Ok(a) => match serde_json::to_string(&a) {
            Ok(json) => Reply { status: 200, json },
            Err(e) => Reply::error(500, &e.to_string()),
        },
        Err(e) => Reply::error(400, &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_read_from_a_query_and_from_json_alike() {
        let a = params_from_query(
            "insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.5%2C0.5&offset=1,-1",
        )
        .unwrap();
        let b = params_from_json(
            r#"{"insn": "TLD4.R R10, R8, R20, R24, UR4, 2D", "texture": "4x4", "coord": "0.5,0.5", "offset": "1,-1"}"#,
        )
        .unwrap();
        assert_eq!(a.insn, b.insn);
        assert_eq!(a.question, b.question);
        assert_eq!(a.question.offset.as_deref(), Some("1,-1"));
        let e = params_from_query("texture=4x4&colour=red").unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = params_from_query("texture=4x4&texture=2x2").unwrap_err();
        assert!(e.contains("twice"), "{e}");
        assert!(params_from_json("[1]").is_err());
        assert!(params_from_json("{").is_err());
    }

    #[test]
    fn a_key_given_twice_is_refused_in_json_as_in_the_query() {
        let q = params_from_query("coord=0.5,0.5&texture=4x4&texture=2x2").unwrap_err();
        let j = params_from_json(r#"{"coord": "0.5,0.5", "texture": "4x4", "texture": "2x2"}"#)
            .unwrap_err();
        assert!(q.contains("texture is given twice"), "{q}");
        assert!(j.contains("texture is given twice"), "{j}");
        let r = respond(params_from_json(r#"{"lane": 1, "lane": 2}"#));
        assert_eq!(r.status, 400);
        assert!(r.json.contains("lane is given twice"), "{}", r.json);
        // (not an object, and not JSON: the messages as before)
        assert!(params_from_json("[1]").unwrap_err().contains("JSON object"));
        assert!(params_from_json("{\"a\": ")
            .unwrap_err()
            .contains("not JSON"));
    }

    #[test]
    fn textures_past_the_bounds_are_refused() {
        let q = Question {
            texture: Some("65x4".into()),
            ..Default::default()
        };
        assert!(check_bounds(&q, 1)
            .unwrap_err()
            .to_string()
            .contains("at most 64x64"));
        let q = Question {
            texture: Some("4x4x9".into()),
            ..Default::default()
        };
        assert!(matches!(
            check_bounds(&q, 1),
            Err(BoundsError::TooLarge { .. })
        ));
        let q = Question {
            texture: Some("64x64x4".into()),
            ..Default::default()
        };
        assert!(check_bounds(&q, 1).is_ok());
        assert!(check_bounds(&q, 6)
            .unwrap_err()
            .to_string()
            .contains("98304"));
    }

    #[test]
    fn a_malformed_texture_size_is_a_bad_request_not_too_large() {
        for t in ["4y4", "x", "", "4x", "99999999999x1", "4x4x4x4"] {
            let q = Question {
                texture: Some(t.into()),
                ..Default::default()
            };
            assert!(
                matches!(check_bounds(&q, 1), Err(BoundsError::Malformed(_))),
                "{t}"
            );
            let r = respond(params_from_query(&format!("texture={t}")));
            assert_eq!(r.status, 400, "{t}: {}", r.json);
        }
        let r = respond(params_from_query("texture=4096x4096"));
        assert_eq!(r.status, 413, "{}", r.json);
    }

    /// `arch` asks the question on an architecture (its spelling of the instruction, its GPU
    /// class), and `scenario` answers a pasted document: the copied scenario of an arch
    /// question gives the same answer back.
    #[test]
    fn arch_questions_and_pasted_scenarios_are_answered() {
        let r = respond(params_from_query("arch=sm_90&texture=4x4&coord=0.3,0.6"));
        assert_eq!(r.status, 200, "{}", r.json);
        let a: Value = serde_json::from_str(&r.json).unwrap();
        assert_eq!(a["arch"]["name"], "SM90");
        assert_eq!(a["scenario"]["arch"], "sm_90");
        assert!(a["arch"]["descriptor_class"]
            .as_str()
            .unwrap()
            .starts_with("HOPPER_A"));
        let body = json!({ "scenario": a["scenario"].to_string() }).to_string();
        let r2 = respond(params_from_json(&body));
        assert_eq!(r2.status, 200, "{}", r2.json);
        let b: Value = serde_json::from_str(&r2.json).unwrap();
        assert_eq!(b["lane"]["values"], a["lane"]["values"]);
        assert_eq!(b["arch"], a["arch"]);
        // (the document as a JSON object, not its text, reads alike)
        let r3 = respond(params_from_json(
            &json!({ "scenario": a["scenario"] }).to_string(),
        ));
        assert_eq!(r3.json, r2.json);
        let r = respond(params_from_query("arch=sm_42"));
        assert_eq!(r.status, 400);
        assert!(r.json.contains("unknown architecture"), "{}", r.json);
        let with_question =
            json!({ "scenario": a["scenario"].to_string(), "texture": "2x2" }).to_string();
        let r = respond(params_from_json(&with_question));
        assert_eq!(r.status, 400);
        assert!(r.json.contains("answered alone"), "{}", r.json);
        let mut big = a["scenario"].clone();
        big["textures"][0]["width"] = json!(65);
        let r = respond(params_from_json(
            &json!({ "scenario": big.to_string() }).to_string(),
        ));
        assert_eq!(r.status, 413, "{}", r.json);
        let r = respond(params_from_json(r#"{"scenario": "{\"instruction\": 1"}"#));
        assert_eq!(r.status, 400);
        assert!(r.json.contains("the scenario"), "{}", r.json);
    }
}
