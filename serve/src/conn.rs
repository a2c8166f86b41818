//! Connections: the accept loop (errors paused on, not fatal, unless the listener itself is
//! gone), the connection cap (503 past it), and one connection's life: its head read under
//! a deadline, then hyper for one request, every read and write under a timeout.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;

use crate::app::App;
use crate::head::{read_head, Head};
use crate::limits::{
    Limits, ACCEPT_BACKOFF_MAX, ACCEPT_BACKOFF_MIN, CONNECTION_LIFE_IN_TIMEOUTS, MAX_HEAD,
    MAX_HEADERS,
};

/// Bytes of a refused request read and dropped after the answer, so that closing the
/// connection does not reset it before the client has read the answer.
const LINGER_BYTES: usize = 4 * 1024 * 1024;
/// The longest such lingering.
const LINGER_TIME: Duration = Duration::from_secs(1);

/// Whether a failed `accept` leaves the listener able to accept again (out of descriptors
/// or memory, a connection gone before it was taken, a signal): paused on, then retried.
/// Any other error (the listener closed, not a socket) ends the server.
pub fn accept_error_is_transient(e: &io::Error) -> bool {
    use rustix::io::Errno;
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
            | io::ErrorKind::TimedOut
            | io::ErrorKind::OutOfMemory
    ) {
        return true;
    }
    let Some(code) = e.raw_os_error() else {
        return false;
    };
    [
        Errno::MFILE,
        Errno::NFILE,
        Errno::NOBUFS,
        Errno::NOMEM,
        Errno::PROTO,
        Errno::PERM,
        Errno::HOSTUNREACH,
        Errno::NETUNREACH,
        Errno::NETDOWN,
        Errno::HOSTDOWN,
        Errno::NONET,
        Errno::AGAIN,
    ]
    .iter()
    .any(|x| x.raw_os_error() == code)
}

/// Accepts connections and hands each to `serve` until `accept` fails with an error that
/// is not [transient](accept_error_is_transient), which it returns; after a transient one
/// it pauses (doubling from [`ACCEPT_BACKOFF_MIN`] to [`ACCEPT_BACKOFF_MAX`] while they come
/// in a row) and tells `log` once a run.
pub async fn accept_loop<S, F, Fut>(
    mut accept: F,
    mut serve: impl FnMut(S),
    log: fn(&str),
) -> io::Error
where
    F: FnMut() -> Fut,
    Fut: Future<Output = io::Result<S>>,
{
    let mut pause = ACCEPT_BACKOFF_MIN;
    let mut failing = false;
    loop {
        match accept().await {
            Ok(s) => {
                if failing {
                    log("tld4 serve: accepting connections again");
                }
                failing = false;
                pause = ACCEPT_BACKOFF_MIN;
                serve(s);
            }
            Err(e) if accept_error_is_transient(&e) => {
                if !failing {
                    log(&format!(
                        "tld4 serve: accept failed ({e}); pausing and retrying"
                    ));
                }
                failing = true;
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(ACCEPT_BACKOFF_MAX);
            }
            Err(e) => return e,
        }
    }
}

/// The two caps of a server: connections served, and connections answered 503.
#[derive(Clone)]
pub struct Caps {
    served: Arc<Semaphore>,
    refused: Arc<Semaphore>,
}

impl Caps {
    /// The caps of `limits`.
    pub fn new(limits: &Limits) -> Caps {
        Caps {
            served: Arc::new(Semaphore::new(limits.max_connections)),
            refused: Arc::new(Semaphore::new(limits.max_refusals)),
        }
    }
}

/// Takes one accepted connection: served under the cap, answered 503 over it, closed at
/// once past both (its descriptor freed).
pub fn dispatch<S>(io: S, caps: &Caps, app: &App, timeout: Duration)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let life = timeout * CONNECTION_LIFE_IN_TIMEOUTS;
    if let Ok(permit) = Arc::clone(&caps.served).try_acquire_owned() {
        let app = *app;
        tokio::spawn(async move {
            let _ = tokio::time::timeout(life, serve_connection(io, app, timeout)).await;
            drop(permit);
        });
    } else if let Ok(permit) = Arc::clone(&caps.refused).try_acquire_owned() {
        tokio::spawn(async move {
            let mut io = Box::pin(timed(io, timeout.min(Duration::from_secs(1))));
            let why = "the server is serving as many connections as it may; try again";
            let _ = tokio::time::timeout(life, refuse(&mut io, 503, why)).await;
            drop(permit);
        });
    }
}

/// A stream whose every read and write must make progress within `timeout`.
fn timed<S: AsyncRead + AsyncWrite>(io: S, timeout: Duration) -> TimeoutStream<S> {
    let mut io = TimeoutStream::new(io);
    io.set_read_timeout(Some(timeout));
    io.set_write_timeout(Some(timeout));
    io
}

/// Serves one connection: its head (within `timeout`), then one request by hyper.
pub async fn serve_connection<S>(io: S, app: App, timeout: Duration)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let mut io = Box::pin(timed(io, timeout));
    let head = match tokio::time::timeout(timeout, read_head(&mut io)).await {
        Ok(Ok(h)) => h,
        Ok(Err(_)) => return,
        Err(_) => Head::Refuse {
            status: 408,
            why: format!(
                "the request head did not come within {} s",
                timeout.as_secs_f64()
            ),
        },
    };
    match head {
        Head::Closed => {}
        Head::Refuse { status, why } => refuse(&mut io, status, &why).await,
        Head::Pass(bytes) => {
            let conn = http1::Builder::new()
                .keep_alive(false)
                // (a client that closed its half after its request still gets its answer)
                .half_close(true)
                .max_buf_size(MAX_HEAD)
                .max_headers(MAX_HEADERS)
                .timer(TokioTimer::new())
                .header_read_timeout(timeout)
                .serve_connection(
                    TokioIo::new(Rewind::new(bytes, io)),
                    TowerToHyperService::new(app),
                )
                .without_shutdown();
            if let Ok(parts) = conn.await {
                let mut io = parts.io.into_inner();
                linger(&mut io).await;
            }
        }
    }
}

/// Answers `{"error": why}` with `status` and `Connection: close`, then lingers.
async fn refuse<S: AsyncRead + AsyncWrite + Unpin>(io: &mut S, status: u16, why: &str) {
    let body = crate::api::Reply::error(status, why).json;
    let reason = hyper::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    let text = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncache-control: no-store\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    if io.write_all(text.as_bytes()).await.is_ok() {
        linger(io).await;
    }
}

/// Ends the answer, then reads and drops what the client still sends (at most
/// [`LINGER_BYTES`] for [`LINGER_TIME`]), so that the close does not reset the connection
/// before the answer is read.
async fn linger<S: AsyncRead + AsyncWrite + Unpin>(io: &mut S) {
    if io.shutdown().await.is_err() {
        return;
    }
    let drain = async {
        let mut buf = [0u8; 8192];
        let mut seen = 0;
        while seen < LINGER_BYTES {
            match io.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen += n,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER_TIME, drain).await;
}

/// A stream that first reads back bytes already read from it.
struct Rewind<T> {
    prefix: Vec<u8>,
    at: usize,
    inner: T,
}

impl<T> Rewind<T> {
    fn new(prefix: Vec<u8>, inner: T) -> Rewind<T> {
        Rewind {
            prefix,
            at: 0,
            inner,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Rewind<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.at < this.prefix.len() {
            let n = (this.prefix.len() - this.at).min(buf.remaining());
            buf.put_slice(&this.prefix[this.at..this.at + n]);
            this.at += n;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Rewind<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// One exchange in memory, for tests and the fuzzer: `request` sent as a client would send
/// it (then its half closed), the server's bytes returned.
pub fn exchange(app: &App, request: &[u8], timeout: Duration) -> Vec<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime builds");
    rt.block_on(async {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let served = tokio::spawn(serve_connection(server, *app, timeout));
        let (mut r, mut w) = tokio::io::split(client);
        let request = request.to_vec();
        let send = tokio::spawn(async move {
            let _ = w.write_all(&request).await;
            let _ = w.shutdown().await;
        });
        let mut answer = Vec::new();
        let _ = r.read_to_end(&mut answer).await;
        let _ = send.await;
        let _ = served.await;
        answer
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{respond, Params, Reply};
    use crate::app::service;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    #[test]
    fn the_accept_loop_pauses_on_transient_errors_and_ends_on_the_listeners_own() {
        use rustix::io::Errno;
        let os = |e: Errno| io::Error::from_raw_os_error(e.raw_os_error());
        let mut script = vec![
            Err(os(Errno::MFILE)),
            Err(os(Errno::NFILE)),
            Ok(1),
            Err(io::Error::from(io::ErrorKind::ConnectionAborted)),
            Err(os(Errno::NOBUFS)),
            Ok(2),
            Err(os(Errno::BADF)),
            Ok(3),
        ]
        .into_iter();
        let mut served = Vec::new();
        let err = rt().block_on(accept_loop(
            || std::future::ready(script.next().unwrap()),
            |s| served.push(s),
            |_| {},
        ));
        assert_eq!(served, [1, 2]);
        assert_eq!(err.raw_os_error(), Some(Errno::BADF.raw_os_error()));
        for e in [Errno::INVAL, Errno::NOTSOCK, Errno::BADF] {
            assert!(!accept_error_is_transient(&os(e)), "{e:?}");
        }
    }

    /// Answers as the server does, but panics for lane 13.
    fn panics_at_lane_13(p: Result<Params, String>) -> Reply {
        if p.as_ref().is_ok_and(|p| p.lane == 13) {
            panic!("a bug in an answer");
        }
        respond(p)
    }

    fn status(answer: &[u8]) -> u16 {
        let text = String::from_utf8_lossy(answer);
        text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)
    }

    #[test]
    fn a_panic_while_answering_is_answered_500_and_the_next_request_served() {
        let app = service(&[], panics_at_lane_13, Duration::from_secs(5));
        let t = Duration::from_secs(5);
        let a = exchange(&app, b"GET /api/explain?lane=13 HTTP/1.1\r\n\r\n", t);
        assert_eq!(status(&a), 500, "{}", String::from_utf8_lossy(&a));
        assert!(String::from_utf8_lossy(&a).contains("internal error"));
        let a = exchange(&app, b"GET /api/explain?lane=1 HTTP/1.1\r\n\r\n", t);
        assert_eq!(status(&a), 200);
    }

    #[test]
    fn heads_in_memory_get_their_status() {
        let app = service(&[], respond, Duration::from_secs(5));
        let t = Duration::from_secs(5);
        let cases: &[(&[u8], u16)] = &[
            (b"GET /favicon.ico HTTP/1.1\r\n\r\n", 204),
            (b"GET / HTTP/2.0\r\n\r\n", 505),
            (b"GET /\xff HTTP/1.1\r\n\r\n", 400),
            (
                b"POST /api/explain HTTP/1.1\r\ncontent-length: 1099511627776\r\n\r\n",
                413,
            ),
            (b"DELETE /api/explain HTTP/1.1\r\n\r\n", 405),
            (b"GET /nothing HTTP/1.1\r\n\r\n", 404),
            (b"GET /api/explain?texture=4x HTTP/1.1\r\n\r\n", 400),
        ];
        for (req, want) in cases {
            let a = exchange(&app, req, t);
            assert_eq!(status(&a), *want, "{}", String::from_utf8_lossy(req));
        }
        // A client that sends nothing: nothing answered.
        assert!(exchange(&app, b"", t).is_empty());
    }
}
