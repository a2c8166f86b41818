//! The request head, read before hyper sees it: bounded in size and time, so that the
//! answers hyper cannot give are given here (docs/sources.md, Decisions):
//! 505 for an HTTP version other than 1.0 and 1.1 (hyper answers 400), 413 at once for a
//! `Content-Length` past [`MAX_BODY`] (hyper answers 431 for one past 2^64 - 3, and would
//! wait for the body), 431 for a head past [`MAX_HEAD`] or [`MAX_HEADERS`] lines. Every
//! other head, good or bad, is handed on to hyper whole.

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::limits::{MAX_BODY, MAX_HEAD, MAX_HEADERS};

/// What the head read says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// Hand the bytes read (a whole head, a head hyper refuses, or the start of one that
    /// ended) on to hyper.
    Pass(Vec<u8>),
    /// Answer this status and message, and close.
    Refuse {
        /// 413, 431 or 505.
        status: u16,
        /// Why, for `{"error": ...}`.
        why: String,
    },
    /// The client closed before sending a byte.
    Closed,
}

/// What the bytes so far are.
fn judge(buf: &[u8]) -> Option<Head> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Partial) => None,
        Ok(httparse::Status::Complete(_)) => {
            let too_long = req.headers.iter().find(|h| {
                h.name.eq_ignore_ascii_case("content-length") && body_length_past_limit(h.value)
            });
            Some(match too_long {
                Some(h) => Head::Refuse {
                    status: 413,
                    why: format!(
                        "the body is larger than {MAX_BODY} bytes (Content-Length: {})",
                        String::from_utf8_lossy(h.value)
                    ),
                },
                None => Head::Pass(buf.to_vec()),
            })
        }
        Err(httparse::Error::Version) => Some(match other_version(buf) {
            Some(v) => Head::Refuse {
                status: 505,
                why: format!("{v}: only HTTP/1.0 and HTTP/1.1 are served"),
            },
            None => Head::Pass(buf.to_vec()),
        }),
        Err(httparse::Error::TooManyHeaders) => Some(Head::Refuse {
            status: 431,
            why: format!("the request has more than {MAX_HEADERS} header lines"),
        }),
        // (hyper answers 400 for the rest)
        Err(_) => Some(Head::Pass(buf.to_vec())),
    }
}

/// Whether a `Content-Length` value of decimal digits is past [`MAX_BODY`] (any count of
/// digits: nothing is converted that could overflow; a value that is not digits is hyper's
/// to refuse).
fn body_length_past_limit(value: &[u8]) -> bool {
    let v = value.trim_ascii();
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let digits = match v.iter().position(|&b| b != b'0') {
        Some(i) => &v[i..],
        None => return false,
    };
    digits.len() > 20
        || std::str::from_utf8(digits)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .is_none_or(|n| n > MAX_BODY as u64)
}

/// The version of a request line `METHOD TARGET HTTP/D.D` that is well formed but not 1.x.
fn other_version(buf: &[u8]) -> Option<String> {
    let line = buf
        .split(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())?;
    let version = line.trim_ascii().rsplit(|&b| b == b' ').next()?;
    match version {
        [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
            if major.is_ascii_digit() && minor.is_ascii_digit() && *major != b'1' =>
        {
            Some(String::from_utf8_lossy(version).into_owned())
        }
        [b'H', b'T', b'T', b'P', b'/', major] if major.is_ascii_digit() && *major != b'1' => {
            Some(String::from_utf8_lossy(version).into_owned())
        }
        _ => None,
    }
}

/// Reads a request head: at most [`MAX_HEAD`] bytes, judged after each read (the caller
/// bounds the time).
pub async fn read_head<R: AsyncRead + Unpin>(io: &mut R) -> std::io::Result<Head> {
    let mut buf = vec![0u8; MAX_HEAD];
    let mut len = 0;
    loop {
        let n = io.read(&mut buf[len..]).await?;
        if n == 0 {
            buf.truncate(len);
            return Ok(if len == 0 {
                Head::Closed
            } else {
                Head::Pass(buf)
            });
        }
        len += n;
        if let Some(h) = judge(&buf[..len]) {
            return Ok(h);
        }
        if len == MAX_HEAD {
            return Ok(Head::Refuse {
                status: 431,
                why: format!("the request head is larger than {MAX_HEAD} bytes"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(text: &[u8]) -> Option<Head> {
        judge(text)
    }

    #[test]
    fn content_lengths_past_the_limit_are_refused_without_converting_them() {
        for v in [
            "16385",
            "1099511627776",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999999999",
            "000000000000000000000000016385",
        ] {
            let h = format!("POST /api/explain HTTP/1.1\r\nContent-Length: {v}\r\n\r\n");
            assert!(
                matches!(judged(h.as_bytes()), Some(Head::Refuse { status: 413, .. })),
                "{v}"
            );
        }
        for v in [
            "16384",
            "0",
            "00000000000000000000000000000016",
            "-1",
            "1e9",
            "",
        ] {
            let h = format!("POST /api/explain HTTP/1.1\r\nContent-Length: {v}\r\n\r\n");
            assert!(matches!(judged(h.as_bytes()), Some(Head::Pass(_))), "{v}");
        }
    }

    #[test]
    fn other_http_versions_are_505_and_a_partial_head_waits() {
        for line in [
            "GET / HTTP/2.0\r\n",
            "GET / HTTP/3.0\r\n\r\n",
            "GET / HTTP/0.9\r\n",
        ] {
            assert!(
                matches!(
                    judged(line.as_bytes()),
                    Some(Head::Refuse { status: 505, .. })
                ),
                "{line}"
            );
        }
        assert_eq!(judged(b"GET / HTTP/1.1\r\nHost: a"), None);
        // (bad bytes in the request line are hyper's 400)
        assert!(matches!(
            judged(b"GET /\xff\xfe HTTP/1.1\r\n\r\n"),
            Some(Head::Pass(_))
        ));
        let many: String = (0..=MAX_HEADERS).map(|k| format!("X-{k}: 1\r\n")).collect();
        let h = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert!(matches!(
            judged(h.as_bytes()),
            Some(Head::Refuse { status: 431, .. })
        ));
    }
}
