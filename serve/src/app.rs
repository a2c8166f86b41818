//! The routes: the page's files, the JSON API, and the answers to everything else, as one
//! axum service with tower-http's request timeout and panic guard.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, Method, Request, Response, StatusCode};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;

use crate::api::{params_from_json, params_from_query, Params, Reply};
use crate::limits::{MAX_BODY, MAX_URL};

/// One of the page's files.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    /// Its path (`/`, `/app.js` ...).
    pub path: &'static str,
    /// Its content type.
    pub kind: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// What answers a parsed question (the server's is [`crate::api::respond`]; a test may
/// give another).
pub type Answerer = fn(Result<Params, String>) -> Reply;

/// A response with a content type.
pub fn reply(status: u16, kind: &'static str, body: String) -> Response<Body> {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A JSON error: `{"error": why}`.
pub fn error(status: u16, why: &str) -> Response<Body> {
    json(Reply::error(status, why))
}

/// An API reply.
fn json(r: Reply) -> Response<Body> {
    reply(r.status, "application/json", r.json)
}

/// The service: routes, a request that takes longer than `timeout` (its body, its answer)
/// answered 408, and a panic answered 500 (the server goes on).
pub fn router(assets: &'static [Asset], answerer: Answerer, timeout: Duration) -> Router {
    Router::new()
        .fallback(move |req: Request<Body>| route(assets, answerer, req))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| error(500, "internal error"),
        ))
}

/// Routes a request.
async fn route(assets: &'static [Asset], answerer: Answerer, req: Request<Body>) -> Response<Body> {
    let (parts, body) = req.into_parts();
    let target = parts
        .uri
        .path_and_query()
        .map_or(parts.uri.path(), |p| p.as_str());
    if target.len() > MAX_URL {
        return error(414, &format!("the URL is longer than {MAX_URL} bytes"));
    }
    let path = parts.uri.path();
    let query = parts.uri.query().unwrap_or("");
    match (&parts.method, path) {
        (&Method::GET, "/api/explain") => json(answerer(params_from_query(query))),
        (&Method::POST, "/api/explain") => match read_body(&parts.headers, body).await {
            Ok(text) => json(answerer(params_from_json(&text))),
            Err(r) => r,
        },
        // (no icon: answered, so a page load logs no 404)
        (&Method::GET, "/favicon.ico") => {
            let mut r = reply(204, "image/x-icon", String::new());
            r.headers_mut().remove(header::CONTENT_TYPE);
            r
        }
        (&Method::GET, p) => match assets.iter().find(|a| a.path == p) {
            Some(a) => reply(200, a.kind, a.text.to_string()),
            None => error(
                404,
                &format!("no page {p}; the page is /, the API /api/explain (see /api)"),
            ),
        },
        (m, p) => error(405, &format!("{m} {p}: only GET, and POST to /api/explain")),
    }
}

/// The body, at most [`MAX_BODY`] bytes, as UTF-8 (a `Content-Length` past it is refused
/// before a byte is read).
async fn read_body(headers: &axum::http::HeaderMap, body: Body) -> Result<String, Response<Body>> {
    let too_large = || error(413, &format!("the body is larger than {MAX_BODY} bytes"));
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return Err(too_large());
    }
    let bytes = match Limited::new(body, MAX_BODY).collect().await {
        Ok(c) => c.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => return Err(too_large()),
        Err(_) => return Err(error(400, "the body could not be read")),
    };
    String::from_utf8(bytes.to_vec()).map_err(|_| error(400, "the body is not UTF-8"))
}
