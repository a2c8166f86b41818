//! The HTTP target: the input is what a client sends to `tld4 serve` (then closes its half);
//! the server's connection handling (`tld4_serve::conn::exchange`: the head read, hyper, the
//! routes, the API) answers it in memory. Properties: the answer is nothing (a head that
//! never ended) or one well-formed HTTP/1.1 (or, to a 1.0 request, 1.0) response with one of the statuses the server
//! gives, never 500 (a caught panic is a bug), and an error's body is `{"error": ...}` with
//! a message.

use std::sync::OnceLock;
use std::time::Duration;

use tld4_serve::api::respond;
use tld4_serve::conn::exchange;
use tld4_serve::{service, App, Asset};

use crate::targets::{refused, Verdict};

/// The statuses `tld4 serve` answers with (docs/cli.md, `tld4 serve`).
const STATUSES: [u16; 11] = [200, 204, 400, 404, 405, 408, 413, 414, 431, 503, 505];

/// The interim answer to `Expect: 100-continue`, before the answer itself.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// The page as the target serves it: one file.
const ASSETS: &[Asset] = &[Asset {
    path: "/",
    kind: "text/html; charset=utf-8",
    text: "<!doctype html><title>tld4</title>",
}];

/// The service, made once.
fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(|| service(ASSETS, respond, Duration::from_secs(1)))
}

/// Runs one input as a client's bytes.
pub fn http(input: &[u8]) -> Verdict {
    let answer = exchange(app(), input, Duration::from_secs(1));
    let answer = answer.strip_prefix(CONTINUE).unwrap_or(&answer);
    if answer.is_empty() {
        return refused("no answer: the request head never ended");
    }
    let head_end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("an answer without the end of its head: {answer:?}"));
    let head = std::str::from_utf8(&answer[..head_end]).expect("an answer head in UTF-8");
    let line = head.lines().next().unwrap_or("");
    let status: u16 = line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| line.strip_prefix("HTTP/1.0 "))
        .and_then(|r| r.get(..3))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a malformed status line: {line:?}"));
    assert_ne!(status, 500, "a panic while answering: {answer:?}");
    assert!(STATUSES.contains(&status), "an unexpected status: {line}");
    let body = &answer[head_end + 4..];
    if (200..300).contains(&status) {
        return Verdict::Accepted;
    }
    // (hyper's own refusals of a head it cannot parse have no body)
    if !body.is_empty() {
        let v: serde_json::Value = serde_json::from_slice(body)
            .unwrap_or_else(|e| panic!("{status}: a body that is not JSON ({e}): {body:?}"));
        let message = v["error"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{status}: an error without a message");
        return refused(format!("{line}: {message}"));
    }
    refused(line)
}
