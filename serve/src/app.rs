//! The routes: the page's files, the JSON API, and the answers to everything else, as one
//! tower service with tower-http's request timeout and panic guard around it. An answer is
//! computed on the runtime's blocking threads (at most `threads` at once), never on the
//! thread that reads and writes the connections.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tower_http::catch_panic::{CatchPanic, ResponseForPanic};
use tower_http::timeout::Timeout;

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

/// A response's body.
pub type Body = Full<Bytes>;

/// What answers a panic: 500 (the server goes on).
#[derive(Debug, Clone, Copy)]
pub struct PanicReply;

impl ResponseForPanic for PanicReply {
    type ResponseBody = Body;
    fn response_for_panic(&mut self, _: Box<dyn Any + Send + 'static>) -> Response<Body> {
        error(500, "internal error")
    }
}

/// The service [`service`] makes: the routes, under tower-http's timeout and panic guard.
pub type App = CatchPanic<Timeout<Routes>, PanicReply>;

/// A response with a content type.
pub fn reply(status: u16, kind: &'static str, body: String) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
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
/// answered 408, and a panic answered 500.
pub fn service(assets: &'static [Asset], answerer: Answerer, timeout: Duration) -> App {
    let routes = Routes { assets, answerer };
    CatchPanic::custom(
        Timeout::with_status_code(routes, StatusCode::REQUEST_TIMEOUT, timeout),
        PanicReply,
    )
}

/// The routes.
#[derive(Debug, Clone, Copy)]
pub struct Routes {
    assets: &'static [Asset],
    answerer: Answerer,
}

impl tower_service::Service<Request<Incoming>> for Routes {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Incoming>) -> Self::Future {
        let routes = *self;
        Box::pin(async move { Ok(routes.route(req).await) })
    }
}

impl Routes {
    /// Routes a request.
    async fn route(self, req: Request<Incoming>) -> Response<Body> {
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
            (&Method::GET, "/api/explain") => self.answer(params_from_query(query)).await,
            (&Method::POST, "/api/explain") => match read_body(&parts.headers, body).await {
                Ok(text) => self.answer(params_from_json(&text)).await,
                Err(r) => r,
            },
            // (no icon: answered, so a page load logs no 404)
            (&Method::GET, "/favicon.ico") => {
                let mut r = reply(204, "image/x-icon", String::new());
                r.headers_mut().remove(header::CONTENT_TYPE);
                r
            }
            (&Method::GET, p) => match self.assets.iter().find(|a| a.path == p) {
                Some(a) => reply(200, a.kind, a.text.to_string()),
                None => error(
                    404,
                    &format!("no page {p}; the page is /, the API /api/explain (see /api)"),
                ),
            },
            (m, p) => error(405, &format!("{m} {p}: only GET, and POST to /api/explain")),
        }
    }

    /// The answer, computed on a blocking thread; a panic there is answered 500.
    async fn answer(self, params: Result<Params, String>) -> Response<Body> {
        let answerer = self.answerer;
        match tokio::task::spawn_blocking(move || answerer(params)).await {
            Ok(r) => json(r),
            Err(_) => error(500, "internal error"),
        }
    }
}

/// The body, at most [`MAX_BODY`] bytes, as UTF-8 (a `Content-Length` past it is refused
/// before a byte is read).
async fn read_body(headers: &HeaderMap, body: Incoming) -> Result<String, Response<Body>> {
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
