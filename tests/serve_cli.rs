//! `tld4 serve` under load and faults, on loopback: lying lengths, slow and stalled clients,
//! pipelined requests never read, many connections, a low open-file limit, oversized and
//! malformed heads. After each, a normal request must still be answered within a second
//! (the server started with `--timeout 1`). Every loop is bounded in count and time, and
//! every server is killed when its test ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The liveness bound of every normal request after a fault.
const ANSWER_WITHIN: Duration = Duration::from_secs(1);

/// A `tld4 serve` child on 127.0.0.1, an unused port.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts `tld4 serve --port 0 --timeout 1 EXTRA...`, under `prlimit --nofile=N` when
    /// `open_files` is given.
    fn start(extra: &[&str], open_files: Option<u32>) -> Server {
        let bin = env!("CARGO_BIN_EXE_tld4");
        let mut cmd = match open_files {
            Some(n) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--nofile={n}:{n}")).arg("--").arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.args(["serve", "--port", "0", "--threads", "2", "--timeout", "1"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start tld4 serve");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(port) = line
                    .split("http://127.0.0.1:")
                    .nth(1)
                    .and_then(|r| r.split('/').next())
                    .and_then(|p| p.parse::<u16>().ok())
                {
                    let _ = tx.send(port);
                }
            }
        });
        let port = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("tld4 serve prints its address");
        Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        }
    }

    /// A connection with `timeout` on reads and writes.
    fn connect(&self, timeout: Duration) -> TcpStream {
        let s = TcpStream::connect_timeout(&self.addr, timeout).expect("connect");
        s.set_read_timeout(Some(timeout)).unwrap();
        s.set_write_timeout(Some(timeout)).unwrap();
        s
    }

    /// Sends `request` whole, then reads the answer until the server closes (at most
    /// `timeout` a read).
    fn exchange(&self, request: &[u8], timeout: Duration) -> Vec<u8> {
        let mut s = self.connect(timeout);
        let _ = s.write_all(request);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        answer
    }

    /// Asserts that a normal request is answered 200 within [`ANSWER_WITHIN`], and that the
    /// process still runs.
    fn assert_serving(&self, after: &str) {
        let t = Instant::now();
        let a = self.exchange(
            b"GET /api/explain?texture=4x4&coord=0.3,0.6 HTTP/1.1\r\nHost: t\r\n\r\n",
            ANSWER_WITHIN,
        );
        assert!(
            status(&a) == Some(200) && t.elapsed() <= ANSWER_WITHIN,
            "after {after}: no answer within a second ({:?}): {}",
            t.elapsed(),
            String::from_utf8_lossy(&a[..a.len().min(200)])
        );
    }

    fn assert_running(&mut self) {
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "tld4 serve exited"
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The status of an answer.
fn status(answer: &[u8]) -> Option<u16> {
    let line = answer.split(|&b| b == b'\r').next()?;
    let text = std::str::from_utf8(line).ok()?;
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

/// The body of an answer.
fn body(answer: &[u8]) -> String {
    let at = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(answer.len(), |p| p + 4);
    String::from_utf8_lossy(&answer[at..]).into_owned()
}

#[test]
fn lying_content_lengths_are_refused_413_and_the_server_stays_up() {
    let mut s = Server::start(&[], None);
    for length in [
        "1099511627776",
        "18446744073709551615",
        "18446744073709551616",
        "16385",
    ] {
        // (the old server died after four of these: five each)
        for _ in 0..5 {
            let a = s.exchange(
                format!(
                    "POST /api/explain HTTP/1.1\r\nHost: t\r\nContent-Length: {length}\r\n\r\n"
                )
                .as_bytes(),
                Duration::from_secs(5),
            );
            assert_eq!(status(&a), Some(413), "{length}: {}", body(&a));
            assert!(body(&a).contains("larger than 16384 bytes"), "{}", body(&a));
        }
        s.assert_serving(length);
    }
    // A body shorter than its length: 408 when the time is up.
    let t = Instant::now();
    let a = s.exchange(
        b"POST /api/explain HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{\"texture\":",
        Duration::from_secs(10),
    );
    assert_eq!(status(&a), Some(408), "{}", body(&a));
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    s.assert_serving("a short body");
    s.assert_running();
}

#[test]
fn stalled_heads_and_bodies_hold_no_worker_and_are_cut_off() {
    let mut s = Server::start(&[], None);
    let mut stalled = Vec::new();
    // More stalled clients than threads (2), half in their head, half in their body.
    for k in 0..8 {
        let mut c = s.connect(Duration::from_secs(10));
        let part: &[u8] = if k % 2 == 0 {
            b"GET /api/explain?texture=4x4 HTTP/1.1\r\nHo"
        } else {
            b"POST /api/explain HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n{\"tex"
        };
        c.write_all(part).unwrap();
        stalled.push(c);
    }
    s.assert_serving("8 stalled clients");
    // Each is answered 408 (or closed) once the timeout (1 s) has passed.
    let t = Instant::now();
    for (k, mut c) in stalled.into_iter().enumerate() {
        let mut a = Vec::new();
        let _ = c.read_to_end(&mut a);
        assert!(
            a.is_empty() || status(&a) == Some(408),
            "stalled client {k}: {}",
            String::from_utf8_lossy(&a)
        );
    }
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    // A client that sends its head a byte at a time is cut off too.
    let mut c = s.connect(Duration::from_secs(10));
    let t = Instant::now();
    for b in b"GET /api/explain?texture=4x4&coord=0.1,0.2&lane=0&x="
        .iter()
        .cycle()
        .take(40)
    {
        if c.write_all(&[*b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut a = Vec::new();
    let _ = c.read_to_end(&mut a);
    assert!(
        a.is_empty() || status(&a) == Some(408),
        "{}",
        String::from_utf8_lossy(&a)
    );
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    s.assert_serving("a slow head");
    s.assert_running();
}

#[test]
fn pipelined_requests_never_read_hold_nothing() {
    let mut s = Server::start(&[], None);
    // Many large answers asked for at once on each of four connections, none read.
    let q = "GET /api/explain?texture=64x64x4&insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+ARRAY_2D HTTP/1.1\r\nHost: t\r\n\r\n";
    let many = q.repeat(200);
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut c = s.connect(Duration::from_secs(5));
        let _ = c.write_all(many.as_bytes());
        held.push(c);
    }
    s.assert_serving("pipelined requests not read");
    // One answer a connection (no keep-alive), and the connection closed within the time.
    let t = Instant::now();
    for mut c in held {
        let mut a = Vec::new();
        let _ = c.read_to_end(&mut a);
        if !a.is_empty() {
            assert_eq!(status(&a), Some(200));
            let answers = a.windows(9).filter(|w| w == b"HTTP/1.1 ").count();
            assert_eq!(answers, 1);
        }
    }
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    s.assert_serving("pipelined requests");
    s.assert_running();
}

#[test]
fn connections_past_the_cap_are_answered_503_then_served_again() {
    let mut s = Server::start(&["--max-connections", "4"], None);
    let mut idle: Vec<TcpStream> = (0..12).map(|_| s.connect(Duration::from_secs(5))).collect();
    // (the cap's connections wait for their heads; the next ones are answered at once)
    let mut refused = 0;
    for c in idle.iter_mut().skip(4) {
        let mut a = Vec::new();
        let _ = c.read_to_end(&mut a);
        if status(&a) == Some(503) {
            assert!(body(&a).contains("as many connections"), "{}", body(&a));
            refused += 1;
        } else {
            assert!(a.is_empty(), "{}", String::from_utf8_lossy(&a));
        }
    }
    assert!(refused >= 1, "no 503");
    drop(idle);
    // (the server sees the closes at its next read)
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) {
        let a = s.exchange(b"GET /api HTTP/1.1\r\nHost: t\r\n\r\n", ANSWER_WITHIN);
        if status(&a) == Some(200) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    s.assert_serving("connections past the cap");
    s.assert_running();
}

#[test]
fn a_low_open_file_limit_caps_connections_instead_of_running_out() {
    // 40 descriptors: the cap is kept 16 under it, whatever --max-connections asks.
    let mut s = Server::start(&["--max-connections", "1000"], Some(40));
    for round in 0..3 {
        let conns: Vec<TcpStream> = (0..100)
            .filter_map(|_| TcpStream::connect_timeout(&s.addr, Duration::from_secs(2)).ok())
            .collect();
        assert!(conns.len() >= 50, "{} connections", conns.len());
        drop(conns);
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(5) {
            let a = s.exchange(b"GET /api HTTP/1.1\r\nHost: t\r\n\r\n", ANSWER_WITHIN);
            if status(&a) == Some(200) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        s.assert_serving(&format!(
            "100 connections under 40 open files, round {round}"
        ));
    }
    s.assert_running();
    // A limit that leaves no room: refused at the start with a message, exit status 2.
    let out = Command::new("prlimit")
        .args([
            "--nofile=12:12",
            "--",
            env!("CARGO_BIN_EXE_tld4"),
            "serve",
            "--port",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("open-file limit (12)"));
}

#[test]
fn oversized_and_malformed_heads_get_their_status() {
    let mut s = Server::start(&[], None);
    let t = Duration::from_secs(5);
    // A 1 MiB header line: refused at 16 KiB, never buffered whole.
    let mut long = b"GET /api HTTP/1.1\r\nX-Long: ".to_vec();
    long.resize(1 << 20, b'a');
    long.extend_from_slice(b"\r\n\r\n");
    assert_eq!(status(&s.exchange(&long, t)), Some(431));
    let mut line = b"GET /".to_vec();
    line.resize(1 << 20, b'a');
    assert_eq!(status(&s.exchange(&line, t)), Some(431));
    s.assert_serving("a 1 MiB header line");
    let a = s.exchange(b"GET / HTTP/2.0\r\nHost: t\r\n\r\n", t);
    assert_eq!(status(&a), Some(505), "{}", body(&a));
    let a = s.exchange(b"GET /\xff\xfe\x80 HTTP/1.1\r\nHost: t\r\n\r\n", t);
    assert_eq!(status(&a), Some(400));
    let a = s.exchange(b"G\xc3\xa9T / HTTP/1.1\r\nHost: t\r\n\r\n", t);
    assert_eq!(status(&a), Some(400));
    // A URL past 8 KiB within the head's 16: 414, as before.
    let a = s.exchange(
        format!("GET /api/explain?{} HTTP/1.1\r\n\r\n", "x".repeat(9000)).as_bytes(),
        t,
    );
    assert_eq!(status(&a), Some(414));
    s.assert_serving("malformed heads");
    // The page's icon request: answered, empty.
    let a = s.exchange(b"GET /favicon.ico HTTP/1.1\r\nHost: t\r\n\r\n", t);
    assert_eq!(status(&a), Some(204));
    s.assert_running();
}

#[test]
fn json_bodies_are_read_as_the_query_string() {
    let s = Server::start(&[], None);
    let t = Duration::from_secs(5);
    let post = |b: &str| {
        s.exchange(
            format!(
                "POST /api/explain HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{b}",
                b.len()
            )
            .as_bytes(),
            t,
        )
    };
    let a = post(r#"{"texture": "4x4", "coord": "0.5,0.5", "texture": "2x2"}"#);
    assert_eq!(status(&a), Some(400));
    assert!(body(&a).contains("texture is given twice"), "{}", body(&a));
    let a = s.exchange(
        b"GET /api/explain?texture=4x4&coord=0.5,0.5&texture=2x2 HTTP/1.1\r\n\r\n",
        t,
    );
    assert_eq!(status(&a), Some(400));
    assert!(body(&a).contains("texture is given twice"), "{}", body(&a));
    for bad in ["4y4", "x", "0x4"] {
        let a = post(&format!(r#"{{"texture": "{bad}"}}"#));
        assert_eq!(status(&a), Some(400), "{bad}: {}", body(&a));
    }
    let a = post(r#"{"texture": "4096x4096"}"#);
    assert_eq!(status(&a), Some(413));
    // Chunked, past the limit: 413 while reading.
    let mut chunked =
        b"POST /api/explain HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n{}\r\n", 4096, " ".repeat(4096)).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(status(&s.exchange(&chunked, t)), Some(413));
    let a = post(r#"{"texture": "4x4", "coord": "0.5,0.5"}"#);
    assert_eq!(status(&a), Some(200), "{}", body(&a));
}

#[test]
fn a_port_in_use_is_an_error_with_exit_status_2() {
    let s = Server::start(&[], None);
    let out = Command::new(env!("CARGO_BIN_EXE_tld4"))
        .args(["serve", "--port", &s.addr.port().to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen"));
}
