//! The HTTP server of `tld4 serve`: the teaching page's files and its JSON API (one gather
//! question at a time, answered with `tld4 explain`'s text and numbers by
//! `tld4_explain::answer`), on hyper, with tower-http's timeout and panic guard.
//!
//! Served to a classroom it must stay up, so everything a client sends is bounded while it
//! is read ([`limits`]: the head, the URL, the body, the texture, the time), a connection
//! carries one request, connections past a cap (kept under the open-file limit) are answered
//! 503, a failed `accept` is paused on and retried, and a panic while answering is answered
//! 500. The server ends only when the listener itself fails: [`serve`] returns the error.
//! No file is ever opened for a request. The library writes nothing itself: events go to
//! the caller's `log`.

pub mod api;
pub mod app;
pub mod conn;
pub mod head;
pub mod limits;

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

pub use app::{service, App, Asset};
pub use limits::Limits;

/// Why the server cannot serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The limits cannot be met (the open-file limit is too low).
    #[error("{0}")]
    Limits(String),
    /// The async runtime could not start.
    #[error("cannot start the server's threads: {0}")]
    Runtime(std::io::Error),
    /// The listener failed for good: the server no longer accepts connections.
    #[error("the listener failed, no connection can be accepted any more: {0}")]
    Accept(std::io::Error),
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The page's files.
    pub assets: &'static [Asset],
    /// Answers computed at once (blocking threads).
    pub threads: usize,
    /// Connections served at once, as asked for (kept under the open-file limit).
    pub max_connections: usize,
    /// See [`limits::DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// Where events go (the address listened on, accept failures).
    pub log: fn(&str),
}

/// Binds `addr` and serves until the listener fails (the error is returned; the function
/// returns nothing else).
pub fn serve(addr: SocketAddr, config: &Config) -> Result<std::convert::Infallible, ServeError> {
    let limits = Limits::new(
        config.max_connections,
        config.timeout,
        Limits::open_file_limit(),
    )
    .map_err(ServeError::Limits)?;
    let listener = TcpListener::bind(addr).map_err(|source| ServeError::Listen { addr, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| ServeError::Listen { addr, source })?;
    listener
        .set_nonblocking(true)
        .map_err(|source| ServeError::Listen { addr, source })?;
    // (connections are read and written on this thread; answers computed on `threads`
    // blocking threads)
    let rt = tokio::runtime::Builder::new_current_thread()
        .max_blocking_threads(config.threads.max(1))
        .enable_io()
        .enable_time()
        .build()
        .map_err(ServeError::Runtime)?;
    (config.log)(&format!(
        "tld4 serve: http://{bound}/ ({} threads, at most {} connections)",
        config.threads, limits.max_connections
    ));
    let err = rt.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|source| ServeError::Listen { addr, source })?;
        let app = service(config.assets, api::respond, limits.timeout);
        let caps = conn::Caps::new(&limits);
        let e = conn::accept_loop(
            || listener.accept(),
            |(stream, _peer): (tokio::net::TcpStream, SocketAddr)| {
                conn::dispatch(stream, &caps, &app, limits.timeout)
            },
            config.log,
        )
        .await;
        Err(ServeError::Accept(e))
    });
    // (connections still open are dropped with the runtime)
    rt.shutdown_timeout(Duration::from_millis(100));
    err
}
