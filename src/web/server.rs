//! A small HTTP/1.1 server for the web UI: one thread per connection, at most
//! [`Limits::max_connections`] at once, one request per connection.
//!
//! What keeps one client from stalling the others: every connection has its own thread, so a
//! slow report or a slow reader holds only its own; the request head is read with a timeout
//! and a deadline and may not exceed [`Limits::max_head`] bytes (431; 414 when its URL is), a
//! body [`Limits::max_body`] (413); past [`Limits::max_connections`] a client gets 503 at once.
//! Requests are parsed by `httparse` (hyper's parser); everything else is here, small enough
//! to read in one sitting.
//!
//! When the server listens on a loopback address, a request from any other peer gets 403, and
//! so does one whose `Host` header names another host (a page elsewhere that had a name of
//! its own resolve to 127.0.0.1, "DNS rebinding").

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One request.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `HEAD` or `POST`.
    pub method: String,
    /// The path, percent-encoded as sent, without the query.
    pub path: String,
    /// The query string (after `?`), as sent.
    pub query: String,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body (POST).
    pub body: Vec<u8>,
    /// The client.
    pub peer: SocketAddr,
}

impl Request {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One answer.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: String,
    /// Other headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// An answer of `body` as `content_type`.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            content_type: content_type.to_string(),
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// A one-line plain-text answer (errors).
    pub fn text(status: u16, line: &str) -> Response {
        // (What a request sent, echoed in an error: its control characters escaped.)
        let mut body = String::with_capacity(line.len() + 1);
        for c in line.chars() {
            match c {
                '\r' | '\n' => body.push(' '),
                '\t' => body.push('\t'),
                c if c.is_control() => body.extend(c.escape_default()),
                c => body.push(c),
            }
        }
        body.push('\n');
        Response::new(status, "text/plain; charset=utf-8", body)
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// What answers requests.
pub trait Handler: Send + Sync {
    /// The answer to `req`.
    fn handle(&self, req: &Request) -> Response;

    /// The methods the page at `path` answers, for a 405's `Allow` header.
    fn allow(&self, _path: &str) -> &'static str {
        "GET, HEAD, POST"
    }
}

/// The server's limits.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The request line and headers, in bytes.
    pub max_head: usize,
    /// A request body, in bytes.
    pub max_body: usize,
    /// Connections served at once.
    pub max_connections: usize,
    /// How long one read from a client may wait.
    pub read_timeout: Duration,
    /// How long the whole request may take to arrive.
    pub request_deadline: Duration,
    /// How long one write to a client may wait.
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_head: 16 * 1024,
            max_body: 64 * 1024,
            max_connections: 128,
            read_timeout: Duration::from_secs(10),
            request_deadline: Duration::from_secs(20),
            write_timeout: Duration::from_secs(60),
        }
    }
}

/// Who may ask.
#[derive(Debug, Clone)]
pub struct Access {
    /// Only loopback peers (the server listens on a loopback address).
    pub loopback_only: bool,
    /// The host name the server was asked to listen on, accepted in `Host` headers besides
    /// `localhost` and loopback addresses.
    pub host: String,
}

impl Access {
    /// Why a request is refused, if it is.
    fn refuse(&self, peer: &SocketAddr, host_header: Option<&str>) -> Option<&'static str> {
        if !self.loopback_only {
            return None;
        }
        if !is_loopback(peer.ip()) {
            return Some("permission denied: this server answers only its own machine");
        }
        if let Some(h) = host_header {
            let name = host_name(h);
            let ok = name.eq_ignore_ascii_case("localhost")
                || name.eq_ignore_ascii_case(&self.host)
                || name
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<IpAddr>()
                    .is_ok_and(is_loopback);
            if !ok {
                return Some("permission denied: the Host header names another host");
            }
        }
        None
    }
}

/// True for 127.0.0.0/8, ::1 and IPv4-mapped loopback addresses.
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// The host part of a `Host` header (`name:port`, `[::1]:port`).
fn host_name(h: &str) -> &str {
    let h = h.trim();
    if h.starts_with('[') {
        return h.find(']').map_or(h, |i| &h[..=i]);
    }
    h.rsplit_once(':').map_or(h, |(n, _)| n)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        303 => "See Other",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// Writes `resp` (the head only for `HEAD`).
fn write_response(stream: &mut TcpStream, resp: &Response, head_only: bool) {
    let mut head = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    // A 204 has no body, and may not say a length (RFC 9110, 8.6).
    if resp.status != 204 {
        head.push_str(&format!(
            "Content-Type: {}\r\nContent-Length: {}\r\n",
            resp.content_type,
            resp.body.len()
        ));
    }
    head.push_str(
        "Connection: close\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n",
    );
    for (n, v) in &resp.headers {
        // Header values are made here, never from a request; still, no line breaks.
        head.push_str(n);
        head.push_str(": ");
        head.push_str(&v.replace(['\r', '\n'], " "));
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    if !head_only && resp.status != 204 {
        let _ = stream.write_all(&resp.body);
    }
    let _ = stream.flush();
}

/// Why a request could not be read: the status and line to answer with, if any.
type ReadError = Option<(u16, &'static str)>;

/// Reads one request from `stream`.
fn read_request(
    stream: &mut TcpStream,
    peer: SocketAddr,
    limits: &Limits,
) -> Result<Request, ReadError> {
    let start = Instant::now();
    let mut buf: Vec<u8> = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    let head_len = loop {
        if let Some(i) = find_head_end(&buf) {
            break i;
        }
        if buf.len() > limits.max_head {
            return Err(Some(too_large(&buf, limits.max_head)));
        }
        if start.elapsed() > limits.request_deadline {
            return Err(Some((408, "request too slow")));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(None),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                // What cannot begin a request (a TLS handshake on this plain port, binary
                // bytes) is refused at once, not when the deadline passes. (Looked at in
                // its first KB: a client sending a byte at a time costs little.)
                if buf.len() <= 1024 && find_head_end(&buf).is_none() && !could_be_head(&buf) {
                    return Err(Some((
                        400,
                        "bad request (not HTTP: https:// to an http:// server?)",
                    )));
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(Some((408, "request too slow")));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(None),
        }
    };
    if head_len > limits.max_head {
        return Err(Some(too_large(&buf, limits.max_head)));
    }
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(&buf[..head_len]) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(Some((400, "bad request"))),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Some((431, "too many request headers")));
        }
        Err(_) => return Err(Some((400, "bad request"))),
    }
    if parsed.version.unwrap_or(1) > 1 {
        return Err(Some((505, "only HTTP/1.0 and HTTP/1.1")));
    }
    let method = parsed.method.unwrap_or("").to_string();
    let target = parsed.path.unwrap_or("");
    // RFC 9112 3.2.2: the absolute form (`GET http://host:port/ui/ HTTP/1.1`, as sent to a
    // proxy) names the host in the URL, which the server then takes over the Host header.
    let (authority, target) = match absolute_form(target) {
        Some(Ok((a, t))) => (Some(a), t),
        Some(Err(())) => return Err(Some((400, "bad request target"))),
        None => (None, target),
    };
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target.to_string(), String::new()),
    };
    // (`http://host` and `http://host?q` name the root.)
    let path = if path.is_empty() && authority.is_some() {
        "/".to_string()
    } else {
        path
    };
    let mut hs: Vec<(String, String)> = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let Ok(v) = std::str::from_utf8(h.value) else {
            return Err(Some((400, "a header is not UTF-8")));
        };
        hs.push((h.name.to_ascii_lowercase(), v.trim().to_string()));
    }
    // RFC 9112 3.2: an HTTP/1.1 request names its host once; any request at most once (two
    // could name two hosts to the access check and to a proxy).
    let hosts = hs.iter().filter(|(n, _)| n == "host").count();
    if hosts > 1 || (hosts == 0 && parsed.version == Some(1)) {
        return Err(Some((400, "a request names its host in one Host header")));
    }
    if let Some(a) = authority {
        hs.retain(|(n, _)| n != "host");
        hs.push(("host".to_string(), a.to_string()));
    }
    let mut req = Request {
        method,
        path,
        query,
        headers: hs,
        body: Vec::new(),
        peer,
    };
    if req.header("transfer-encoding").is_some() {
        return Err(Some((501, "chunked request bodies are not accepted")));
    }
    let len = match req.header("content-length") {
        None => 0,
        Some(l) => match l.parse::<usize>() {
            Ok(n) => n,
            Err(_) => return Err(Some((400, "bad Content-Length"))),
        },
    };
    if len > limits.max_body {
        return Err(Some((413, "request body too large")));
    }
    let mut body = buf[head_len..].to_vec();
    while body.len() < len {
        if start.elapsed() > limits.request_deadline {
            return Err(Some((408, "request too slow")));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(None),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(Some((408, "request too slow"))),
        }
    }
    body.truncate(len);
    req.body = body;
    Ok(req)
}

/// The authority and the rest of an absolute-form request target (`http://host:port/path`,
/// the scheme in any case): `None` for another form, `Err` for an authority that is no
/// plain host and port (empty, with user information, with unbalanced brackets or other
/// characters no host name has), which the access check must not read.
fn absolute_form(target: &str) -> Option<std::result::Result<(&str, &str), ()>> {
    let scheme = target.get(..7)?;
    if !scheme.eq_ignore_ascii_case("http://") {
        return None;
    }
    let rest = &target[7..];
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let plain = authority
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'));
    let brackets = match authority.find('[') {
        None => !authority.contains(']'),
        Some(0) => authority.find(']').is_some_and(|c| {
            let after = &authority[c + 1..];
            after.is_empty() || (after.starts_with(':') && !after[1..].contains([':', '[', ']']))
        }),
        Some(_) => false,
    };
    if authority.is_empty() || !plain || !brackets {
        return Some(Err(()));
    }
    Some(Ok((authority, tail)))
}

/// Whether `buf`, a request head not yet ended, can still become one: its bytes so far
/// parse as the start of a request.
fn could_be_head(buf: &[u8]) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    !matches!(
        httparse::Request::new(&mut headers).parse(buf),
        Err(e) if e != httparse::Error::TooManyHeaders
    )
}

/// The answer to a request head past `max` bytes: 414 when its first line (the URL) is, 431
/// when its headers are.
fn too_large(head: &[u8], max: usize) -> (u16, &'static str) {
    match memchr::memchr(b'\n', head) {
        Some(i) if i <= max => (431, "request head too large"),
        _ => (414, "request URL too long"),
    }
}

/// The end of the request head (after the empty line that ends it: `\r\n\r\n`, or with a
/// bare `\n` for either line end, which RFC 9112 2.2 lets a server accept), if it has
/// arrived.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', buf).find_map(|i| match &buf[i + 1..] {
        [b'\n', ..] => Some(i + 2),
        [b'\r', b'\n', ..] => Some(i + 3),
        _ => None,
    })
}

/// The smallest answer worth compressing.
const COMPRESS_FROM: usize = 16 * 1024;

/// `resp`, gzipped when the client is on another machine and accepts gzip, and the answer is
/// text of some size (a large profile's flame graph page: 8.3 MB, 2.5 MB gzipped, in about
/// 60 ms: half a second less over a link of 100 Mbit/s). A client on this machine gets it
/// as it is: over loopback the bytes cost less than compressing them.
fn compressed_for(mut resp: Response, peer: IpAddr, accept: Option<&str>) -> Response {
    let text = [
        "text/",
        "application/json",
        "image/svg+xml",
        "application/javascript",
    ]
    .iter()
    .any(|t| resp.content_type.starts_with(t));
    if resp.status != 200 || !text || resp.headers.iter().any(|h| h.0 == "Content-Encoding") {
        return resp;
    }
    resp.headers.push(("Vary".into(), "Accept-Encoding".into()));
    if is_loopback(peer) || resp.body.len() < COMPRESS_FROM || !accept.is_some_and(accepts_gzip) {
        return resp;
    }
    let mut gz = flate2::write::GzEncoder::new(
        Vec::with_capacity(resp.body.len() / 4),
        flate2::Compression::fast(),
    );
    if gz.write_all(&resp.body).is_ok()
        && let Ok(body) = gz.finish()
    {
        resp.body = body;
        resp.headers
            .push(("Content-Encoding".into(), "gzip".into()));
    }
    resp
}

/// True when an `Accept-Encoding` value accepts gzip (RFC 9110, 12.5.3): named, and not
/// with a weight of 0.
fn accepts_gzip(value: &str) -> bool {
    value.split(',').any(|item| {
        let mut parts = item.split(';').map(str::trim);
        let coding = parts.next().unwrap_or("");
        let weight = parts
            .find_map(|p| p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")))
            .and_then(|q| q.trim().parse::<f64>().ok())
            .unwrap_or(1.0);
        (coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip"))
            && weight > 0.0
    })
}

/// Serves one connection.
fn serve_connection(
    mut stream: TcpStream,
    handler: &dyn Handler,
    access: &Access,
    limits: &Limits,
) {
    let Ok(peer) = stream.peer_addr() else {
        return;
    };
    let _ = stream.set_read_timeout(Some(limits.read_timeout));
    let _ = stream.set_write_timeout(Some(limits.write_timeout));
    let _ = stream.set_nodelay(true);
    // A foreign peer is refused before it can send anything.
    if let Some(why) = access.refuse(&peer, None) {
        write_response(&mut stream, &Response::text(403, why), false);
        return;
    }
    let req = match read_request(&mut stream, peer, limits) {
        Ok(r) => r,
        Err(Some((status, why))) => {
            write_response(&mut stream, &Response::text(status, why), false);
            return;
        }
        Err(None) => return,
    };
    let head_only = req.method == "HEAD";
    let resp = if let Some(why) = access.refuse(&peer, req.header("host")) {
        Response::text(403, why)
    } else if !matches!(req.method.as_str(), "GET" | "HEAD" | "POST") {
        let allow = handler.allow(&req.path);
        Response::text(405, &format!("use {}", allow.replace(", ", " or ")))
            .with_header("Allow", allow)
    } else {
        // A handler that panics costs its own request only; one whose client has gone
        // stops where it looks (`crate::cancel`: listings, between routines).
        let gone = Arc::new(AtomicBool::new(false));
        let watching = watch_client(&stream, gone.clone());
        let resp = crate::cancel::with_token(gone, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler.handle(&req)))
                .unwrap_or_else(|_| Response::text(500, "internal error"))
        });
        if let Some((done, watcher)) = watching {
            done.store(true, Ordering::Relaxed);
            // Woken now, not at its next look: the answer waits for it.
            watcher.thread().unpark();
            let _ = watcher.join();
        }
        resp
    };
    let resp = compressed_for(resp, peer.ip(), req.header("accept-encoding"));
    write_response(&mut stream, &resp, head_only);
    // Let the client read the answer before the socket goes.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // At most a second and 64 KiB of it: a client that keeps sending holds its thread no
    // longer.
    let mut sink = [0u8; 512];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let (start, mut drained) = (Instant::now(), 0usize);
    while let Ok(n) = stream.read(&mut sink) {
        drained += n;
        if n == 0 || drained > 64 * 1024 || start.elapsed() > Duration::from_secs(1) {
            break;
        }
    }
}

/// Looks every 100 ms, until the first flag it returns is set (and its thread unparked),
/// whether the client of `stream` has closed its end (or reset the connection): then sets
/// `gone`. (On Linux; a peek that does not wait, leaving the stream's own blocking reads and
/// writes as they are.)
fn watch_client(
    stream: &TcpStream,
    gone: Arc<AtomicBool>,
) -> Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fd = stream.as_raw_fd();
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let watcher = std::thread::Builder::new()
            .name("rpprof-http-watch".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let mut b = [0u8; 1];
                    // SAFETY: `fd` stays open until this thread is joined (the caller joins
                    // it before the stream is dropped); one byte is peeked into `b`.
                    let n = unsafe {
                        libc::recv(
                            fd,
                            b.as_mut_ptr().cast(),
                            1,
                            libc::MSG_PEEK | libc::MSG_DONTWAIT,
                        )
                    };
                    let would_block = n < 0
                        && matches!(
                            std::io::Error::last_os_error().kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                        );
                    // 0: the client's end is closed; below 0 (but for "nothing yet"): reset.
                    if n == 0 || (n < 0 && !would_block) {
                        gone.store(true, Ordering::Relaxed);
                        return;
                    }
                    // Unparked early when the answer is ready.
                    std::thread::park_timeout(Duration::from_millis(100));
                }
            })
            .ok()?;
        Some((done, watcher))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (stream, gone);
        None
    }
}

/// Counts a connection while it is served.
struct Active(Arc<AtomicUsize>);

impl Drop for Active {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Accepts connections on `listener` for ever, each served on a thread of its own.
pub fn run(listener: TcpListener, handler: Arc<dyn Handler>, access: Access, limits: Limits) {
    let active = Arc::new(AtomicUsize::new(0));
    let access = Arc::new(access);
    let limits = Arc::new(limits);
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            // Out of file descriptors and the like: give it a moment.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        if active.load(Ordering::Acquire) >= limits.max_connections {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            write_response(
                &mut stream,
                &Response::text(503, "too many connections; try again"),
                false,
            );
            continue;
        }
        active.fetch_add(1, Ordering::AcqRel);
        let guard = Active(active.clone());
        let (handler, access, limits) = (handler.clone(), access.clone(), limits.clone());
        let spawned = std::thread::Builder::new()
            .name("rpprof-http".into())
            .spawn(move || {
                let _guard = guard;
                serve_connection(stream, &*handler, &access, &limits);
            });
        if spawned.is_err() {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request whose client has gone is asked to stop (`crate::cancel`); one whose client
    /// waits runs to its end. (unwrap: on the test's own sockets and locks.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_request_whose_client_has_gone_is_asked_to_stop() {
        // unwrap: on this test's own loopback sockets and its own lock (never poisoned: no
        // handler here panics).
        use std::sync::Mutex;
        struct Waits(Mutex<Vec<(String, bool)>>);
        impl Handler for Waits {
            fn handle(&self, req: &Request) -> Response {
                let start = Instant::now();
                while !crate::cancel::requested() && start.elapsed() < Duration::from_secs(1) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                let stopped = crate::cancel::requested();
                self.0.lock().unwrap().push((req.path.clone(), stopped));
                Response::text(200, if stopped { "stopped" } else { "finished" })
            }
        }
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handler = Arc::new(Waits(Mutex::new(Vec::new())));
        let access = Access {
            loopback_only: true,
            host: "127.0.0.1".into(),
        };
        let h: Arc<dyn Handler> = handler.clone();
        std::thread::spawn(move || run(listener, h, access, Limits::default()));
        let ask = |path: &str| {
            let mut c = TcpStream::connect(addr).unwrap();
            write!(c, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
            c
        };
        // Gone at once.
        drop(ask("/gone"));
        // Waits for its answer.
        let mut answer = String::new();
        ask("/waits").read_to_string(&mut answer).unwrap();
        assert!(answer.ends_with("finished\n"), "{answer}");
        let start = Instant::now();
        while handler.0.lock().unwrap().len() < 2 && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut seen = handler.0.lock().unwrap().clone();
        seen.sort();
        assert_eq!(
            seen,
            [("/gone".to_string(), true), ("/waits".to_string(), false)]
        );
    }

    #[test]
    fn gzip_for_other_machines_that_accept_it() {
        use std::io::Read as _;
        let page = "<p>frame</p>\n".repeat(4000);
        let resp = || Response::new(200, "text/html; charset=utf-8", page.clone());
        // (unwrap: on the test's own addresses and its own gzip stream.)
        let far: IpAddr = "192.0.2.7".parse().unwrap();
        let near: IpAddr = "127.0.0.1".parse().unwrap();
        // (A server on [::] sees this machine's IPv4 clients so.)
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let gz = compressed_for(resp(), far, Some("gzip, deflate, br"));
        assert!(
            gz.headers
                .contains(&("Content-Encoding".into(), "gzip".into()))
        );
        assert!(
            gz.headers
                .contains(&("Vary".into(), "Accept-Encoding".into()))
        );
        assert!(gz.body.len() < page.len() / 10, "{}", gz.body.len());
        let mut back = String::new();
        flate2::read::GzDecoder::new(&gz.body[..])
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, page);
        // As it is: this machine, no gzip asked or it refused, a small or binary answer,
        // an error page.
        let plain = |r: Response| !r.headers.iter().any(|h| h.0 == "Content-Encoding");
        assert!(plain(compressed_for(resp(), near, Some("gzip"))));
        assert!(plain(compressed_for(resp(), mapped, Some("gzip"))));
        assert!(plain(compressed_for(resp(), far, None)));
        assert!(plain(compressed_for(resp(), far, Some("gzip;q=0, br"))));
        assert!(plain(compressed_for(resp(), far, Some("identity"))));
        let small = Response::new(200, "text/plain", "x".repeat(100));
        assert!(plain(compressed_for(small, far, Some("gzip"))));
        let proto = Response::new(200, "application/octet-stream", page.clone());
        assert!(plain(compressed_for(proto, far, Some("gzip"))));
        let missing = Response::new(404, "text/html", page.clone());
        assert!(plain(compressed_for(missing, far, Some("gzip"))));
        assert!(accepts_gzip("deflate, GZIP;q=0.5"));
        assert!(accepts_gzip("x-gzip"));
        assert!(!accepts_gzip("gzip;q=0.0"));
        assert!(!accepts_gzip("gzipped"));
    }

    #[test]
    fn absolute_form_targets() {
        assert_eq!(
            absolute_form("http://127.0.0.1:80/ui/x?a=1"),
            Some(Ok(("127.0.0.1:80", "/ui/x?a=1")))
        );
        assert_eq!(
            absolute_form("HTTP://[::1]:8080/"),
            Some(Ok(("[::1]:8080", "/")))
        );
        assert_eq!(
            absolute_form("Http://localhost"),
            Some(Ok(("localhost", "")))
        );
        assert_eq!(absolute_form("http://h?q"), Some(Ok(("h", "?q"))));
        assert_eq!(absolute_form("/ui/"), None);
        assert_eq!(absolute_form("https://h/"), None);
        for bad in [
            "http:///ui/",
            "http://localhost:1@evil.com/ui/",
            "http://[::1/ui/",
            "http://::1]/ui/",
            "http://[::1]x/",
            "http://a%2fb/",
        ] {
            assert_eq!(absolute_form(bad), Some(Err(())), "{bad}");
        }
    }

    #[test]
    fn host_names() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("[::1]:80"), "[::1]");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        let a = Access {
            loopback_only: true,
            host: "localhost".into(),
        };
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let other: SocketAddr = "10.1.2.3:5000".parse().unwrap();
        assert!(a.refuse(&local, Some("127.0.0.1:8080")).is_none());
        assert!(a.refuse(&local, Some("[::1]:8080")).is_none());
        assert!(a.refuse(&local, Some("LOCALHOST:8080")).is_none());
        assert!(a.refuse(&local, Some("evil.example:8080")).is_some());
        assert!(a.refuse(&other, None).is_some());
        let open = Access {
            loopback_only: false,
            host: "0.0.0.0".into(),
        };
        assert!(open.refuse(&other, Some("anything")).is_none());
    }
}
