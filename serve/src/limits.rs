//! Every bound of `tld4 serve`, in one table (docs/sources.md, Decisions:
//! guesses at what a classroom needs, not measured limits of anything).

use std::time::Duration;

/// The longest request URL accepted, in bytes (414 past it).
pub const MAX_URL: usize = 8 * 1024;
/// The largest request head (request line and headers) read, in bytes (431 past it: the
/// head is never buffered past this).
pub const MAX_HEAD: usize = 16 * 1024;
/// The most header lines a request may have (431 past it).
pub const MAX_HEADERS: usize = 64;
/// The largest request body accepted, in bytes (413 past it, or at once for a
/// `Content-Length` past it).
pub const MAX_BODY: usize = 16 * 1024;
/// The largest texture side a request may ask for.
pub const MAX_SIDE: u32 = 64;
/// The most layers (or cubes) a request may ask for.
pub const MAX_LAYERS: u32 = 8;
/// The most texels (all layers and cube faces) a request may ask for: the texture is written
/// into the answer's scenario document, so this bounds each answer's work and size (a guess at
/// what a lesson needs: a 64x64 texture of 4 layers, or two 32x32 cubes).
pub const MAX_TEXELS: u64 = 16 * 1024;
/// The most bytes a pasted scenario document's memory regions may hold together (its
/// `memory`: texture headers, samplers and texels in GPU memory, written as hex): a guess,
/// past what a body of [`MAX_BODY`] can write, so the body is the bound in practice and this
/// one stands should the body's grow.
pub const MAX_SCENARIO_MEMORY: u64 = 4 * 1024 * 1024;
/// Connections served at once, by default (`--max-connections`); more are answered 503.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Open files kept back from the connection cap: standard streams, the listener, the async
/// runtime's own descriptors, and a margin.
pub const RESERVED_FILES: u64 = 16;
/// The time a client has, by default (`--timeout`), to send its request head, to send its
/// body, and for each read or write of the connection to make progress (408, or the
/// connection is closed).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection's whole life, in timeouts: one request and its answer (no keep-alive), so a
/// client that reads its answer a byte at a time is cut off too.
pub const CONNECTION_LIFE_IN_TIMEOUTS: u32 = 6;
/// The first pause after a failed `accept` (out of descriptors, a connection reset before it
/// was taken ...); doubled at each failure in a row up to [`ACCEPT_BACKOFF_MAX`].
pub const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
/// The longest pause after failed `accept`s in a row.
pub const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The limits one server runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once; more are answered 503.
    pub max_connections: usize,
    /// Connections over the cap answered 503 at once; past them a connection is closed at
    /// once.
    pub max_refusals: usize,
    /// See [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
}

impl Limits {
    /// The limits for `max_connections` asked for and `timeout`, within `open_files` (the
    /// process's open-file limit, `None` where it is unknown or unlimited): the cap and the
    /// 503 answers together stay [`RESERVED_FILES`] under it.
    pub fn new(
        max_connections: usize,
        timeout: Duration,
        open_files: Option<u64>,
    ) -> Result<Limits, String> {
        let max_connections = max_connections.max(1);
        let (max_connections, max_refusals) = match open_files {
            None => (max_connections, (max_connections / 4).max(1)),
            Some(n) => {
                let free = n.saturating_sub(RESERVED_FILES);
                if free < 2 {
                    return Err(format!(
                        "the open-file limit ({n}) leaves no descriptors for connections (at least {} are needed; raise it with ulimit -n)",
                        RESERVED_FILES + 2
                    ));
                }
                let free = usize::try_from(free).unwrap_or(usize::MAX);
                let cap = max_connections.min(free - (free / 4).max(1));
                (cap, (free - cap).min((cap / 4).max(1)))
            }
        };
        Ok(Limits {
            max_connections,
            max_refusals,
            timeout,
        })
    }

    /// The process's open-file limit (soft), or `None` where there is none.
    pub fn open_file_limit() -> Option<u64> {
        let l = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        l.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_stays_under_the_open_file_limit() {
        let t = DEFAULT_TIMEOUT;
        let l = Limits::new(256, t, Some(64)).unwrap();
        assert!(
            l.max_connections + l.max_refusals + RESERVED_FILES as usize <= 64,
            "{l:?}"
        );
        assert!(l.max_connections >= 1 && l.max_refusals >= 1, "{l:?}");
        let l = Limits::new(256, t, Some(1024)).unwrap();
        assert_eq!(l.max_connections, 256);
        assert!(l.max_connections + l.max_refusals + RESERVED_FILES as usize <= 1024);
        let l = Limits::new(256, t, None).unwrap();
        assert_eq!((l.max_connections, l.max_refusals), (256, 64));
        assert!(Limits::new(256, t, Some(17))
            .unwrap_err()
            .contains("ulimit"));
        let l = Limits::new(256, t, Some(18)).unwrap();
        assert_eq!((l.max_connections, l.max_refusals), (1, 1));
    }
}
