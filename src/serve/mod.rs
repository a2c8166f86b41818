//! `tld4 serve`: a self-contained teaching page and its JSON API, on the project's own texture
//! unit. The page's files are built into the binary (`include_str!`; no CDN, works offline);
//! the server itself (limits, timeouts, the connection cap) is the `tld4-serve` crate. It binds
//! to 127.0.0.1 unless `--bind` says otherwise.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tld4_serve::limits::{DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUT};
use tld4_serve::{Asset, Config};

use crate::CmdResult;

/// Arguments of `tld4 serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The TCP port.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on (loopback by default; 0.0.0.0 serves a classroom).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Requests answered at once (1..64).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: u16,
    /// Connections served at once (more are answered 503); kept under the open-file limit.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS as u32, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
    /// Seconds a client has to send its request head, to send its body, and for each read
    /// or write to make progress (1..600).
    #[arg(long, default_value_t = DEFAULT_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout: u64,
}

/// The page's files.
const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        kind: "text/html; charset=utf-8",
        text: include_str!("page/index.html"),
    },
    Asset {
        path: "/app.js",
        kind: "text/javascript; charset=utf-8",
        text: include_str!("page/app.js"),
    },
    Asset {
        path: "/view.js",
        kind: "text/javascript; charset=utf-8",
        text: include_str!("page/view.js"),
    },
    Asset {
        path: "/style.css",
        kind: "text/css; charset=utf-8",
        text: include_str!("page/style.css"),
    },
    Asset {
        path: "/api",
        kind: "text/plain; charset=utf-8",
        text: include_str!("page/api.txt"),
    },
];

/// Writes a server event to standard error.
fn log(line: &str) {
    crate::output::elog!("{line}");
}

/// `tld4 serve`: serves until the listener fails (then an error: exit status 2).
pub fn serve(args: &ServeArgs) -> CmdResult {
    let config = Config {
        assets: ASSETS,
        threads: args.threads.into(),
        max_connections: args.max_connections as usize,
        timeout: Duration::from_secs(args.timeout),
        log,
    };
    match tld4_serve::serve(SocketAddr::new(args.bind, args.port), &config) {
        Ok(never) => match never {},
        Err(e) => Err(format!("tld4 serve: {e}").into()),
    }
}
