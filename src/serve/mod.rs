//! `tld4 serve`: a self-contained teaching page and its JSON API, on the project's own texture
//! unit. The page's files are built into the binary (`include_str!`; no CDN, works offline);
//! the API answers one gather question at a time with `tld4 explain`'s text and numbers
//! (`tld4_explain::answer`), its parameters named as `explain`'s flags.
//!
//! Served to a classroom it must stay up, so every request is bounded: the URL and the body
//! (at most [`MAX_URL`] and [`MAX_BODY`] bytes), the texture ([`MAX_SIDE`] texels a side,
//! [`MAX_LAYERS`] layers), no file is ever opened for a request (an instruction naming a file
//! is refused), a panic in a handler is caught and answered as a 500, and a small pool of
//! threads ([`ServeArgs::threads`]) serves requests concurrently. It binds to 127.0.0.1 unless
//! `--bind` says otherwise.

use std::io::Read;
use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Map, Value};
use tiny_http::{Header, Method, Request, Response, Server};

use crate::CmdResult;
use tld4_explain::answer::answer;
use tld4_explain::question::{parse_size, Question};

/// The longest request URL accepted, in bytes.
pub const MAX_URL: usize = 8 * 1024;
/// The largest request body accepted, in bytes.
pub const MAX_BODY: usize = 16 * 1024;
/// The largest texture side a request may ask for.
pub const MAX_SIDE: u32 = 64;
/// The most layers (or cubes) a request may ask for.
pub const MAX_LAYERS: u32 = 8;
/// The most texels (all layers and cube faces) a request may ask for: the texture is written
/// into the answer's scenario document, so this bounds each answer's work and size (a guess at
/// what a lesson needs: a 64x64 texture of 4 layers, or two 32x32 cubes).
pub const MAX_TEXELS: u64 = 16 * 1024;

/// Arguments of `tld4 serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The TCP port.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on (loopback by default; 0.0.0.0 serves a classroom).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Requests served at once (1..64).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: u16,
}

/// The page's files: path, content type, text.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("page/app.js"),
    ),
    (
        "/view.js",
        "text/javascript; charset=utf-8",
        include_str!("page/view.js"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("page/style.css"),
    ),
    (
        "/api",
        "text/plain; charset=utf-8",
        include_str!("page/api.txt"),
    ),
];

/// `tld4 serve`: listens until killed.
pub fn serve(args: &ServeArgs) -> CmdResult {
    let server = Server::http((args.bind, args.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", args.bind, args.port))?;
    let server = Arc::new(server);
    crate::output::elog!(
        "tld4 serve: http://{}:{}/ ({} threads)",
        args.bind,
        server.server_addr().to_ip().map_or(args.port, |a| a.port()),
        args.threads
    );
    let mut workers = Vec::new();
    for _ in 0..args.threads {
        let server = Arc::clone(&server);
        workers.push(std::thread::spawn(move || {
            for request in server.incoming_requests() {
                handle(request);
            }
        }));
    }
    for w in workers {
        let _ = w.join();
    }
    Ok(ExitCode::SUCCESS)
}

/// A response with a content type.
fn reply(status: u16, kind: &str, body: String) -> Response<std::io::Cursor<Vec<u8>>> {
    let mut r = Response::from_string(body).with_status_code(status);
    if let Ok(h) = Header::from_bytes(&b"Content-Type"[..], kind.as_bytes()) {
        r = r.with_header(h);
    }
    if let Ok(h) = Header::from_bytes(&b"Cache-Control"[..], &b"no-store"[..]) {
        r = r.with_header(h);
    }
    r
}

/// A JSON error: `{"error": why}`.
fn error(status: u16, why: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    reply(
        status,
        "application/json",
        json!({ "error": why }).to_string(),
    )
}

/// Serves one request; a panic is answered as a 500 (the thread goes on).
fn handle(mut request: Request) {
    let response = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(&mut request)))
        .unwrap_or_else(|_| error(500, "internal error"));
    // A client that went away is no error of ours.
    let _ = request.respond(response);
}

/// Routes a request.
fn route(request: &mut Request) -> Response<std::io::Cursor<Vec<u8>>> {
    let url = request.url().to_string();
    if url.len() > MAX_URL {
        return error(414, &format!("the URL is longer than {MAX_URL} bytes"));
    }
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    match (request.method(), path) {
        (Method::Get, "/api/explain") => respond_json(params_from_query(query)),
        (Method::Post, "/api/explain") => {
            let body = match read_body(request) {
                Ok(b) => b,
                Err(r) => return r,
            };
            respond_json(params_from_json(&body))
        }
        (Method::Get, p) => match ASSETS.iter().find(|a| a.0 == p) {
            Some((_, kind, text)) => reply(200, kind, text.to_string()),
            None => error(
                404,
                &format!("no page {p}; the page is /, the API /api/explain (see /api)"),
            ),
        },
        (m, p) => error(405, &format!("{m} {p}: only GET, and POST to /api/explain")),
    }
}

/// The body, at most [`MAX_BODY`] bytes, as UTF-8.
fn read_body(request: &mut Request) -> Result<String, Response<std::io::Cursor<Vec<u8>>>> {
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(error(
            413,
            &format!("the body is larger than {MAX_BODY} bytes"),
        ));
    }
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body);
    if read.is_err() {
        return Err(error(400, "the body could not be read"));
    }
    if body.len() > MAX_BODY {
        return Err(error(
            413,
            &format!("the body is larger than {MAX_BODY} bytes"),
        ));
    }
    String::from_utf8(body).map_err(|_| error(400, "the body is not UTF-8"))
}

/// A request's parameters: the instruction, the lane and the question.
#[derive(Debug)]
pub struct Params {
    /// The instruction (`insn`).
    pub insn: String,
    /// The lane (`lane`, default 0).
    pub lane: u32,
    /// The rest, named as `tld4 explain`'s flags.
    pub question: Question,
}

/// The default instruction of the page and the API.
pub const DEFAULT_INSN: &str = "TLD4.R R10, R8, R20, R24, UR4, 2D";

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
        Some(v) => text(v).map_err(|e| format!("insn: {e}"))?,
        None => DEFAULT_INSN.to_string(),
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
        lane,
        question,
    })
}

/// Parameters from a query string (`insn=...&texture=4x4&...`).
pub fn params_from_query(query: &str) -> Result<Params, String> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| format!("the query string: {e}"))?;
    let mut map = Map::new();
    for (k, v) in pairs {
        if map.insert(k.clone(), Value::String(v)).is_some() {
            return Err(format!("{k} is given twice"));
        }
    }
    params_from_map(map)
}

/// Parameters from a JSON object.
pub fn params_from_json(body: &str) -> Result<Params, String> {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => params_from_map(m),
        Ok(_) => Err("the body must be a JSON object of parameters".into()),
        Err(e) => Err(format!("the body is not JSON: {e}")),
    }
}

/// Refuses textures past the server's bounds, before anything is built; `faces` is 6 for a
/// cube instruction, else 1.
fn check_bounds(q: &Question, faces: u64) -> Result<(), String> {
    let size = parse_size(q.texture.as_deref().unwrap_or("4x4"))?;
    let texels = size.width as u64 * size.height as u64 * size.layers as u64 * faces;
    if size.width > MAX_SIDE
        || size.height > MAX_SIDE
        || size.layers > MAX_LAYERS
        || texels > MAX_TEXELS
    {
        return Err(format!(
            "texture {}x{}x{}: the server draws textures of at most {MAX_SIDE}x{MAX_SIDE} texels, {MAX_LAYERS} layers and {MAX_TEXELS} texels in all (cube faces counted; this one has {texels})",
            size.width, size.height, size.layers
        ));
    }
    Ok(())
}

/// Answers parsed parameters as JSON (400 with the reason for a bad question).
fn respond_json(params: Result<Params, String>) -> Response<std::io::Cursor<Vec<u8>>> {
    let p = match params {
        Ok(p) => p,
        Err(e) => return error(400, &e),
    };
    let mut q = p.question;
    if q.texture.is_none() {
        q.texture = Some("4x4".into());
    }
    // (a file reference is refused by `answer`, before anything is read)
    let cube = !p.insn.contains(':')
        && tld4_explain::read_instruction(&p.insn).is_ok_and(|r| r.insn.dimension.is_cube());
    if let Err(e) = check_bounds(&q, if cube { 6 } else { 1 }) {
        return error(413, &e);
    }
    match answer(&p.insn, p.lane, &q) {
        Ok(a) => match serde_json::to_string(&a) {
            Ok(s) => reply(200, "application/json", s),
            Err(e) => error(500, &e.to_string()),
        },
        Err(e) => error(400, &e),
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
    fn textures_past_the_bounds_are_refused() {
        let q = Question {
            texture: Some("65x4".into()),
            ..Default::default()
        };
        assert!(check_bounds(&q, 1).unwrap_err().contains("at most 64x64"));
        let q = Question {
            texture: Some("4x4x9".into()),
            ..Default::default()
        };
        assert!(check_bounds(&q, 1).is_err());
        let q = Question {
            texture: Some("64x64x4".into()),
            ..Default::default()
        };
        assert!(check_bounds(&q, 1).is_ok());
        assert!(check_bounds(&q, 6).unwrap_err().contains("98304"));
    }
}
