//! Remote profiles: fetching from the `/pprof/*` pages of gperftools' remote-server protocol
//! (brpc's builtin service, gperftools-instrumented servers), as pprof does with curl.
//!
//! An argument is remote when it starts with `http://` or `https://`, or is `host:port` with
//! an optional path, and no local file has that name. The profile is fetched once (CPU and
//! contention pages with `?seconds=N`), saved as pprof saves it (`$PPROF_TMPDIR`, default
//! `~/pprof`, `<program>.<time>.<host>[.<page>]`), and read from that copy. Without a local
//! program, the program's name comes from `/pprof/cmdline` and the symbols from
//! `/pprof/symbol`.
//!
//! HTTP goes through ureq 3 (blocking, no async runtime); HTTPS through rustls with the ring
//! crypto provider, trusting the system's certificates (read by rustls-native-certs from the
//! places OpenSSL uses), or only those of `$SSL_CERT_FILE` (a PEM bundle) and `$SSL_CERT_DIR`
//! when either is set, or else only those of `$CURL_CA_BUNDLE` (which curl, and so pprof,
//! reads) when it is set. Every failure is one line: the URL and what went wrong (status and the
//! first bytes of the body, a refused connection, a timeout, a certificate that is not
//! trusted, has expired or names another host).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::error::{Error, Result};

/// pprof's pages.
pub const PROFILE_PAGE: &str = "/pprof/profile";
/// The symbol page (GET: `num_symbols: N`; POST: addresses → names).
pub const SYMBOL_PAGE: &str = "/pprof/symbol";
/// The program's command line, one argument per line.
pub const PROGRAM_NAME_PAGE: &str = "/pprof/cmdline";

/// The most a page may send (a large CPU profile is a few MB).
const MAX_BODY: u64 = 1 << 30;

/// A parsed remote argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `http://host:port` and any prefix before the profile page.
    pub base: String,
    /// The host, without the port (for the saved file's name).
    pub host: String,
    /// The page: `/pprof/heap`, ...; [`PROFILE_PAGE`] when the argument has none.
    pub page: String,
}

impl Target {
    /// Splits `arg` as pprof's `ParseProfileURL` does: the known `/pprof/*` page at its end
    /// (with any query), everything before it the base.
    pub fn parse(arg: &str) -> Target {
        let (proto, rest) = match arg.split_once("://") {
            Some((p, r)) => (format!("{p}://"), r),
            None => ("http://".to_string(), arg),
        };
        let (hostport, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        // (A password in the URL does not go into the saved file's name.)
        let host_only = hostport.rsplit_once('@').map_or(hostport, |(_, h)| h);
        let host = host_only
            .rsplit_once(':')
            .map_or(host_only, |(h, _)| h)
            .to_string();
        // A base URL pasted with its final `/` (`http://host:port/`) is the base.
        let (prefix, page) = match path.find("/pprof/") {
            Some(i) => (&path[..i], &path[i..]),
            None => (path.trim_end_matches('/'), ""),
        };
        let page = if page.is_empty() || page == "/" {
            PROFILE_PAGE.to_string()
        } else {
            page.to_string()
        };
        Target {
            base: format!("{proto}{hostport}{prefix}"),
            host,
            page,
        }
    }

    /// True for the pages that profile for a time: CPU and contention.
    pub fn timed(&self) -> bool {
        let p = self.page.split('?').next().unwrap_or("");
        p == PROFILE_PAGE || p == "/pprof/pmuprofile" || p == "/pprof/contention"
    }

    /// True for the CPU profile pages (not contention), which pprof announces as CPU
    /// profiles and names without a page suffix.
    pub fn cpu(&self) -> bool {
        let p = self.page.split('?').next().unwrap_or("");
        p == PROFILE_PAGE || p == "/pprof/pmuprofile"
    }

    /// The value of the `seconds=` in the argument's own query, if it has one (its first).
    fn url_seconds_text(&self) -> Option<&str> {
        let (_, query) = self.page.split_once('?')?;
        query.split('&').find_map(|kv| kv.strip_prefix("seconds="))
    }

    /// The `seconds=` the argument's own query asks for, if any; one that is not a whole
    /// number of seconds is an error.
    pub fn url_seconds(&self) -> Result<Option<u64>> {
        match self.url_seconds_text() {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                Error::refused(format!(
                    "{}{}: seconds={v} is not a whole number of seconds",
                    self.base, self.page
                ))
            }),
        }
    }

    /// The URL of the profile page, with `seconds=` for the timed ones (unless the
    /// argument has one of its own, which is then what the profile takes).
    pub fn profile_url(&self, seconds: u64) -> String {
        let mut url = format!("{}{}", self.base, self.page);
        if self.timed() && self.url_seconds_text().is_none() {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&format!("seconds={seconds}"));
        }
        url
    }
}

/// The rustls error inside an I/O error (a failed handshake comes as one).
fn tls_error(io: &std::io::Error) -> Option<&rustls::Error> {
    io.get_ref()?.downcast_ref::<rustls::Error>()
}

/// The HTTP client, with the timeouts of one fetch.
pub struct Client {
    agent: ureq::Agent,
    /// For `https://` URLs: a redirect to `http://` is refused, not followed.
    secure: ureq::Agent,
    timeout: Duration,
    connect_timeout: Duration,
}

/// The read timeout in seconds from `$RPPROF_HTTP_TIMEOUT`, when it is set (tests use it).
fn timeout_override() -> Option<u64> {
    std::env::var("RPPROF_HTTP_TIMEOUT").ok()?.parse().ok()
}

/// The certificates HTTPS trusts.
struct Roots {
    certs: Arc<Vec<ureq::tls::Certificate<'static>>>,
    /// Where they came from, for messages: `the system's trust store`, `SSL_CERT_FILE=...`.
    source: String,
    /// True when they are the system's (no variable named others).
    system: bool,
    /// Why there are none, when there are none.
    problem: Option<String>,
}

/// The value of the environment variable `name`, when it is set and not empty.
fn var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Why a certificate file named by `name` cannot be read, if it cannot.
fn unreadable(name: &str, file: &std::ffi::OsStr) -> Option<String> {
    let e = std::fs::metadata(file).err()?;
    let why = if e.kind() == std::io::ErrorKind::NotFound {
        "No such file".to_string()
    } else {
        e.to_string()
    };
    Some(format!(
        "cannot read {name}={}: {why}",
        file.to_string_lossy()
    ))
}

/// The certificates HTTPS trusts: those of `$SSL_CERT_FILE` and `$SSL_CERT_DIR` when either
/// is set (and nothing else); else those of `$CURL_CA_BUNDLE` when it is set (the variable
/// google-pprof's curl reads); else the system's trust store (the file and directory OpenSSL
/// uses). Read once per run.
fn roots() -> &'static Roots {
    static ROOTS: OnceLock<Roots> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let named: Vec<String> = ["SSL_CERT_FILE", "SSL_CERT_DIR"]
            .iter()
            .filter_map(|v| Some(format!("{v}={}", var(v)?.to_string_lossy())))
            .collect();
        let curl = var("CURL_CA_BUNDLE").filter(|_| named.is_empty());
        let (certs, source, mut problem): (Vec<Vec<u8>>, String, Option<String>) =
            if let Some(bundle) = curl {
                use rustls::pki_types::CertificateDer;
                use rustls::pki_types::pem::PemObject;
                let source = format!("CURL_CA_BUNDLE={}", bundle.to_string_lossy());
                match CertificateDer::pem_file_iter(&bundle) {
                    Ok(it) => (
                        it.filter_map(|c| c.ok().map(|c| c.to_vec())).collect(),
                        source,
                        None,
                    ),
                    Err(e) => (
                        Vec::new(),
                        source,
                        unreadable("CURL_CA_BUNDLE", &bundle)
                            .or_else(|| Some(format!("cannot read CURL_CA_BUNDLE: {e}"))),
                    ),
                }
            } else {
                let source = if named.is_empty() {
                    "the system's trust store".to_string()
                } else {
                    named.join(" and ")
                };
                // rustls-native-certs reads $SSL_CERT_FILE and $SSL_CERT_DIR when either is
                // set (and then nothing else), else the places OpenSSL would read.
                let found = rustls_native_certs::load_native_certs();
                // An unreadable SSL_CERT_FILE is an error even when SSL_CERT_DIR gave
                // certificates: the user named it.
                let problem = var("SSL_CERT_FILE").and_then(|f| unreadable("SSL_CERT_FILE", &f));
                let problem = problem.or_else(|| {
                    found.certs.is_empty().then(|| match found.errors.first() {
                        Some(e) => format!("no trusted certificates in {source}: {e}"),
                        None => format!("no trusted certificates in {source}"),
                    })
                });
                let certs = found.certs.iter().map(|c| c.to_vec()).collect();
                (certs, source, problem)
            };
        if problem.is_none() && certs.is_empty() {
            problem = Some(format!("no trusted certificates in {source}"));
        }
        let system = named.is_empty() && var("CURL_CA_BUNDLE").is_none();
        Roots {
            certs: Arc::new(
                certs
                    .into_iter()
                    .map(|der| ureq::tls::Certificate::from_der(&der).to_owned())
                    .collect(),
            ),
            source,
            system,
            problem,
        }
    })
}

/// The TLS settings: rustls with ring, trusting [`roots`].
fn tls_config() -> ureq::tls::TlsConfig {
    ureq::tls::TlsConfig::builder()
        .provider(ureq::tls::TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .root_certs(ureq::tls::RootCerts::Specific(roots().certs.clone()))
        .build()
}

/// `2020-01-01 00:00:00 UTC` for seconds since the Unix epoch.
fn utc(secs: u64) -> String {
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    // Days to a civil date (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `localhost` for rustls' `DnsName("localhost")`, `127.0.0.1` for `IpAddress(127.0.0.1)`.
fn presented_name(s: &str) -> String {
    let inner = s
        .split_once('(')
        .and_then(|(_, r)| r.strip_suffix(')'))
        .unwrap_or(s);
    inner.trim_matches('"').to_string()
}

/// The reason of a failed TLS handshake, in words.
fn tls_reason(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let hint = || {
        let r = roots();
        if let Some(p) = &r.problem {
            return format!(" ({p})");
        }
        if r.system {
            " (self-signed, or signed by a CA that the system does not trust: give the CA's PEM file in SSL_CERT_FILE)".to_string()
        } else {
            format!(
                " (self-signed, or signed by a CA that is not in {})",
                r.source
            )
        }
    };
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            C::UnknownIssuer => format!("certificate not trusted: unknown issuer{}", hint()),
            C::ExpiredContext { not_after, .. } => format!(
                "certificate expired: not valid after {}",
                utc(not_after.as_secs())
            ),
            C::Expired => "certificate expired".to_string(),
            C::NotValidYetContext { not_before, .. } => format!(
                "certificate not valid yet: not valid before {}",
                utc(not_before.as_secs())
            ),
            C::NotValidYet => "certificate not valid yet".to_string(),
            C::NotValidForNameContext {
                expected,
                presented,
            } => {
                let names: Vec<String> = presented.iter().map(|p| presented_name(p)).collect();
                let names = if names.is_empty() {
                    "no host name".to_string()
                } else {
                    names.join(", ")
                };
                format!(
                    "certificate name mismatch: the certificate is for {names}, not {}",
                    expected.to_str()
                )
            }
            C::NotValidForName => "certificate name mismatch".to_string(),
            C::Revoked => "certificate revoked".to_string(),
            C::BadSignature => "certificate has a bad signature".to_string(),
            other => format!("certificate refused: {other}"),
        },
        rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
            "TLS handshake failed: the answer is not TLS (is this an HTTPS server? try http://)"
                .to_string()
        }
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateHandshakeMessage { .. } => {
            format!("TLS handshake failed: {e} (is this an HTTPS server? try http://)")
        }
        other => format!("TLS handshake failed: {other}"),
    }
}

impl Client {
    /// A client whose requests give up after `timeout` (connecting: 10 s at most).
    pub fn new(timeout: Duration) -> Client {
        let timeout = timeout_override().map_or(timeout, Duration::from_secs);
        let connect_timeout = timeout.min(Duration::from_secs(10));
        let agent = |https_only: bool| -> ureq::Agent {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .proxy(None)
                .max_redirects(5)
                .https_only(https_only)
                .user_agent(concat!("rpprof/", env!("CARGO_PKG_VERSION")))
                .timeout_connect(Some(connect_timeout))
                .timeout_global(Some(timeout))
                .tls_config(tls_config())
                .build()
                .into()
        };
        Client {
            agent: agent(false),
            secure: agent(true),
            timeout,
            connect_timeout,
        }
    }

    /// An HTTPS URL when no certificate can be trusted: one line saying why, before
    /// connecting.
    fn check_roots(url: &str) -> Result<()> {
        if url.starts_with("https://")
            && let Some(p) = &roots().problem
        {
            return Err(Error::refused(format!("{url}: {p}")));
        }
        Ok(())
    }

    /// A request that took too long: to connect, to answer, or (`in_body`) to send the
    /// whole answer once it had begun.
    fn timed_out(&self, url: &str, which: Option<ureq::Timeout>, in_body: bool) -> Error {
        if let Some(ureq::Timeout::Connect | ureq::Timeout::Resolve) = which {
            let handshake = if url.starts_with("https://") {
                ", TLS handshake included"
            } else {
                ""
            };
            return Error::refused(format!(
                "{url}: no connection within {} s{handshake} (timed out)",
                self.connect_timeout.as_secs()
            ));
        }
        let what = if in_body {
            "the answer began but was not complete"
        } else {
            "no answer"
        };
        Error::refused(format!(
            "{url}: {what} within {} s (timed out)",
            self.timeout.as_secs()
        ))
    }

    /// One line for a request that failed before an answer came (or, `in_body`, while its
    /// body was read).
    fn transport_error(&self, url: &str, e: ureq::Error, in_body: bool) -> Error {
        match e {
            ureq::Error::Timeout(t) => self.timed_out(url, Some(t), in_body),
            ureq::Error::Io(io)
                if matches!(
                    io.kind(),
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                ) =>
            {
                self.timed_out(url, None, in_body)
            }
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                Error::refused(format!("{url}: cannot connect: connection refused"))
            }
            ureq::Error::ConnectionFailed => Error::refused(format!(
                "{url}: cannot connect: connection refused or failed"
            )),
            ureq::Error::HostNotFound => {
                Error::refused(format!("{url}: cannot connect: host not found"))
            }
            // (The resolver's failure comes as an uncategorized I/O error.)
            ureq::Error::Io(io) if io.to_string().contains("failed to lookup address") => {
                Error::refused(format!("{url}: cannot connect: host not found"))
            }
            ureq::Error::RequireHttpsOnly(to) => Error::refused(format!(
                "{url}: refused a redirect from HTTPS to plain HTTP ({to})"
            )),
            ureq::Error::Io(io)
                if matches!(
                    io.kind(),
                    std::io::ErrorKind::UnexpectedEof
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::BrokenPipe
                ) =>
            {
                if in_body {
                    return Error::refused(format!(
                        "{url}: the server closed the connection before the answer was complete"
                    ));
                }
                let hint = if url.starts_with("https://") {
                    " (during the TLS handshake? if it is not an HTTPS server, try http://)"
                } else {
                    ""
                };
                Error::refused(format!(
                    "{url}: the server closed the connection without an answer{hint}"
                ))
            }
            ureq::Error::Io(io) if tls_error(&io).is_some() => {
                let reason = tls_error(&io).map(tls_reason).unwrap_or_default();
                Error::refused(format!("{url}: {reason}"))
            }
            ureq::Error::Rustls(e) => Error::refused(format!("{url}: {}", tls_reason(&e))),
            ureq::Error::BodyExceedsLimit(n) => Error::refused(format!(
                "{url}: the answer is larger than {} MiB: not read (is this a pprof endpoint?)",
                n >> 20
            )),
            other => Error::refused(format!("{url}: {other}")),
        }
    }

    /// The body of a 2xx answer, to be read (at most [`MAX_BODY`] bytes); `None` for a 404
    /// when `missing_ok`; else one error line.
    fn open(
        &self,
        url: &str,
        r: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        missing_ok: bool,
    ) -> Result<Option<ureq::BodyReader<'static>>> {
        let resp = r.map_err(|e| self.transport_error(url, e, false))?;
        let status = resp.status();
        if missing_ok && status.as_u16() == 404 {
            return Ok(None);
        }
        let mut reader = resp.into_body().into_with_config().limit(MAX_BODY).reader();
        if !status.is_success() {
            let code = status.as_u16();
            let reason = status.canonical_reason().unwrap_or("");
            let mut head = Vec::new();
            let _ = reader.by_ref().take(120).read_to_end(&mut head);
            let head = String::from_utf8_lossy(&head);
            let head: String = head.split_whitespace().collect::<Vec<_>>().join(" ");
            let what = match code {
                401 | 403 => " (authentication required or refused)",
                404 => " (no such page: is this a pprof endpoint?)",
                _ => "",
            };
            return Err(Error::refused(format!(
                "{url}: HTTP {code} {reason}{what}: {head:?}"
            )));
        }
        Ok(Some(reader))
    }

    /// The error line for `e`, met reading the body of `url`.
    fn read_error(&self, url: &str, e: std::io::Error) -> Error {
        // ureq reports its own errors inside io::Error.
        match e.into_inner().map(|i| i.downcast::<ureq::Error>()) {
            Some(Ok(u)) => self.transport_error(url, *u, true),
            Some(Err(other)) if other.to_string().contains("disconnected") => Error::refused(
                format!("{url}: the server closed the connection before the answer was complete"),
            ),
            Some(Err(other)) => Error::refused(format!("{url}: reading the answer: {other}")),
            None => Error::refused(format!("{url}: the answer was cut short")),
        }
    }

    /// The body of a 2xx answer; `None` for a 404 when `missing_ok`; else one error line.
    fn body(
        &self,
        url: &str,
        r: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        missing_ok: bool,
    ) -> Result<Option<Vec<u8>>> {
        let Some(mut reader) = self.open(url, r, missing_ok)? else {
            return Ok(None);
        };
        // Grown by doubling up to the limit, never past it: an endless answer stops at
        // MAX_BODY bytes held, not twice that (as `read_to_end`'s doubling would make it).
        let mut body: Vec<u8> = Vec::with_capacity(1 << 16);
        loop {
            let room = body.capacity() - body.len();
            let got = reader
                .by_ref()
                .take(room as u64)
                .read_to_end(&mut body)
                .map_err(|e| self.read_error(url, e))?;
            if got == 0 && room > 0 {
                return Ok(Some(body));
            }
            if body.len() == body.capacity() {
                let more = body
                    .capacity()
                    .min(MAX_BODY as usize + 1 - body.len())
                    .max(1);
                body.reserve_exact(more);
            }
        }
    }

    /// GET `url`, a page whose answer may be large: its body to be read (at most
    /// [`MAX_BODY`] bytes, errors said by [`Client::read_error`]), else one error line.
    fn get_reader(&self, url: &str) -> Result<ureq::BodyReader<'static>> {
        Self::check_roots(url)?;
        let r = self.agent_for(url).get(url).call();
        // (`open` answers None only when a 404 is allowed.)
        self.open(url, r, false)?
            .ok_or_else(|| Error::refused(format!("{url}: HTTP 404")))
    }

    /// GET `url`: the body of a 2xx answer, else one error line.
    pub fn get(&self, url: &str) -> Result<Vec<u8>> {
        Ok(self.get_page(url, false)?.unwrap_or_default())
    }

    /// GET `url`, a page the server may not have: `None` when it answers 404.
    pub fn get_if_there(&self, url: &str) -> Result<Option<Vec<u8>>> {
        self.get_page(url, true)
    }

    fn get_page(&self, url: &str, missing_ok: bool) -> Result<Option<Vec<u8>>> {
        Self::check_roots(url)?;
        self.body(url, self.agent_for(url).get(url).call(), missing_ok)
    }

    /// The agent for `url`: one that stays on HTTPS for an `https://` URL.
    fn agent_for(&self, url: &str) -> &ureq::Agent {
        if url.starts_with("https://") {
            &self.secure
        } else {
            &self.agent
        }
    }

    /// POST `data` to `url`. A redirect is followed with the same POST to where it points
    /// (as pprof posts to the page curl finds at the end of the redirects; an HTTP client
    /// would send a GET without the body for a 302), up to 5 times, never from HTTPS to HTTP.
    pub fn post(&self, url: &str, data: &[u8]) -> Result<Vec<u8>> {
        let mut url = url.to_string();
        for _ in 0..=5 {
            Self::check_roots(&url)?;
            let r = self
                .agent_for(&url)
                .post(&url)
                .config()
                .max_redirects(0)
                .build()
                .send(data);
            if let Ok(resp) = &r
                && resp.status().is_redirection()
                && let Some(to) = resp.headers().get("location").and_then(|v| v.to_str().ok())
            {
                let next = resolve(&url, to);
                if url.starts_with("https://") && !next.starts_with("https://") {
                    return Err(Error::refused(format!(
                        "{url}: redirected to {next}, which is not HTTPS: not followed"
                    )));
                }
                url = next;
                continue;
            }
            return Ok(self.body(&url, r, false)?.unwrap_or_default());
        }
        Err(Error::refused(format!("{url}: too many redirects")))
    }
}

/// `name` with the symbol it starts with demangled, as c++filt reads a line: the run of
/// `[A-Za-z0-9_$.]` at its start is the symbol (`_ZN3foo3barEv(int)` is `foo::bar()(int)`).
fn demangle_leading(name: &str) -> String {
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')))
        .unwrap_or(name.len());
    let (symbol, rest) = name.split_at(end);
    if !symbol.starts_with("_Z") {
        return name.to_string();
    }
    format!("{}{rest}", crate::symbolize::demangle::demangle(symbol))
}

/// `to`, a redirect's `Location`, made absolute against `from`.
fn resolve(from: &str, to: &str) -> String {
    if to.contains("://") {
        return to.to_string();
    }
    let (scheme, rest) = from.split_once("://").unwrap_or(("http", from));
    if let Some(net) = to.strip_prefix("//") {
        return format!("{scheme}://{net}");
    }
    let authority = rest.split(['/', '?']).next().unwrap_or(rest);
    if to.starts_with('/') {
        return format!("{scheme}://{authority}{to}");
    }
    // Relative to the page's folder.
    let path = rest[authority.len()..].split('?').next().unwrap_or("");
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    format!("{scheme}://{authority}{folder}/{to}")
}

/// The program's name from `/pprof/cmdline` (its first line).
/// A server without that page (HTTP 404), or with an empty one, has its profiles named after
/// `unknown`, as the messages in `err` say: the profile and symbol pages may still answer.
pub fn program_name(target: &Target, err: &mut dyn Write) -> Result<String> {
    let url = format!("{}{}", target.base, PROGRAM_NAME_PAGE);
    let Some(body) = Client::new(Duration::from_secs(30)).get_if_there(&url)? else {
        let _ = writeln!(
            err,
            "Warning: {url}: no such page (HTTP 404): the program is named unknown"
        );
        return Ok(UNKNOWN_PROGRAM.to_string());
    };
    let text = String::from_utf8_lossy(&body);
    // The first line; a program's `/proc/self/cmdline` (its arguments after NULs) up to the
    // first NUL, as pprof cuts it.
    let line = text.lines().next().unwrap_or("");
    let name = line.split('\0').next().unwrap_or("").trim().to_string();
    if name.is_empty() {
        let _ = writeln!(
            err,
            "Warning: {url}: no program name in the answer: the program is named unknown"
        );
        return Ok(UNKNOWN_PROGRAM.to_string());
    }
    Ok(name)
}

/// The program's name when the server does not say it.
const UNKNOWN_PROGRAM: &str = "unknown";

/// The directory fetched profiles are saved in: `$PPROF_TMPDIR`, else `~/pprof`.
pub fn profile_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PPROF_TMPDIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join("pprof")
}

/// Fetches the profile of `target` and saves it; returns the saved file. `program` names the
/// file (its base name); messages as pprof's go to `err` as it goes (the one saying what is
/// awaited before the wait, which lasts the profile's seconds).
pub fn fetch_profile(
    target: &Target,
    program: &str,
    seconds: u64,
    err: &mut dyn Write,
) -> Result<PathBuf> {
    let seconds = target.url_seconds()?.unwrap_or(seconds);
    let url = target.profile_url(seconds);
    let timeout = if target.timed() {
        // (However many seconds are asked: past a century is past any answer.)
        Duration::from_secs_f64(seconds.min(1 << 32) as f64 * 1.01 + 60.0)
    } else {
        Duration::from_secs(60)
    };
    let base = Path::new(program).file_name().map_or_else(
        || "unknown".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut name = format!("{base}.{now}.{}", target.host);
    if !target.cpu() {
        name.push_str(&target.page.replace(['/', '?'], "."));
    }
    let dir = profile_dir();
    // Said before the profile's seconds are spent, not after.
    if dir.exists() && !dir.is_dir() {
        return Err(Error::refused(format!(
            "{}: not a directory, where fetched profiles are saved ($PPROF_TMPDIR, default ~/pprof)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::refused(format!(
            "Unable to create profile directory {} ($PPROF_TMPDIR, default ~/pprof): {}",
            dir.display(),
            e
        ))
    })?;
    // A second fetch within the same second (the web UI's --every) gets a name of its own
    // rather than replacing the first's file.
    let mut path = dir.join(&name);
    for n in 1.. {
        if !path.exists() {
            break;
        }
        path = dir.join(format!("{name}.{n}"));
    }
    // (Messages only: a standard error that cannot be written to does not stop the fetch.)
    let _ = if target.cpu() {
        writeln!(
            err,
            "Gathering CPU profile from {url} for {seconds} seconds to\n  {}",
            path.display()
        )
    } else {
        writeln!(
            err,
            "Fetching {} profile from {url} to\n  {}",
            target.page,
            path.display()
        )
    };
    let _ = err.flush();
    // The answer goes to its file as it comes (a CPU profile may be large; an endless answer
    // stops at the limit, having held a few kB): its start is looked at first.
    let client = Client::new(timeout);
    let mut body = client.get_reader(&url)?;
    let mut head = Vec::with_capacity(4096);
    body.by_ref()
        .take(4096)
        .read_to_end(&mut head)
        .map_err(|e| client.read_error(&url, e))?;
    if head.is_empty() {
        return Err(Error::refused(format!("{url}: the answer is empty")));
    }
    if !crate::profile::looks_like_profile(&head) {
        if head.starts_with(&[0x1f, 0x8b]) {
            return Err(Error::refused(format!(
                "{url}: the answer is gzip-compressed and not a gperftools or jemalloc profile (a protobuf profile, as Go servers send? Go pprof reads those)"
            )));
        }
        let head = String::from_utf8_lossy(&head[..head.len().min(80)]);
        let head: String = head.split_whitespace().collect::<Vec<_>>().join(" ");
        return Err(Error::refused(format!(
            "{url}: the answer is not a profile: {head:?}"
        )));
    }
    remove_left_behind(&dir);
    // Fetches under way at once (the web UI's --every, one per server) write files of
    // their own, and each takes a name no other has taken (the name said above, or the next
    // free one).
    static FETCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".tmp.{}.{}.{}",
        std::process::id(),
        FETCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        file_name_of(&path)
    ));
    let saved = save_body(&client, &url, &head, &mut body, &tmp)
        .and_then(|()| claim_name(&tmp, path, &dir, &name));
    let _ = std::fs::remove_file(&tmp);
    let path = saved?;
    let _ = writeln!(err, "Wrote profile to {}", path.display());
    Ok(path)
}

/// Gives the complete file `tmp` the name `path`, or if another file took it meanwhile, the
/// first free `<name>.<n>` in `dir`; `tmp` is left for the caller to remove. Where the file
/// system has no hard links, `tmp` is renamed to `path`.
fn claim_name(tmp: &Path, mut path: PathBuf, dir: &Path, name: &str) -> Result<PathBuf> {
    for n in 1.. {
        match std::fs::hard_link(tmp, &path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                path = dir.join(format!("{name}.{n}"));
            }
            Err(_) => break,
        }
    }
    std::fs::rename(tmp, &path).map_err(|e| Error::io(&path, e))?;
    Ok(path)
}

/// Writes `head` and the rest of `body` (the answer to `url`) to the new file `to`.
fn save_body(
    client: &Client,
    url: &str,
    head: &[u8],
    body: &mut dyn Read,
    to: &Path,
) -> Result<()> {
    let mut file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| Error::io(to, e))?;
    file.write_all(head).map_err(|e| Error::io(to, e))?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(client.read_error(url, e)),
        };
        file.write_all(&buf[..n]).map_err(|e| Error::io(to, e))?;
    }
    file.flush().map_err(|e| Error::io(to, e))
}

/// Removes from `dir` the files that fetches of rpprof processes no longer running left
/// behind (interrupted by Ctrl-C, killed): `.tmp.<pid>.<n>.<name>` files whose process is
/// gone and that nothing wrote to for a minute (the delay spares a fetch of another machine
/// that shares the folder and happens to have a process number that is free here). Only
/// where `/proc` says which processes run; a file that cannot be removed is left.
fn remove_left_behind(dir: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(".tmp."))
            .and_then(|n| n.split_once('.'))
            .and_then(|(pid, rest)| rest.contains('.').then_some(pid))
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid == std::process::id().to_string() || proc.join(pid).exists() {
            continue;
        }
        let idle = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|d| d >= Duration::from_secs(60));
        if idle && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn file_name_of(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Checks that the server's `/pprof/symbol` page symbolizes (a GET answered
/// `num_symbols: N`, N > 0), as pprof does before it fetches a profile: a server that cannot
/// name the addresses is said before a CPU profile's seconds are spent.
pub fn check_symbols(target: &Target) -> Result<()> {
    let url = format!("{}{}", target.base, SYMBOL_PAGE);
    let client = Client::new(Duration::from_secs(60));
    let check = client.get(&url)?;
    let first = String::from_utf8_lossy(&check);
    let first = first.lines().next().unwrap_or("").trim().to_string();
    match first
        .strip_prefix("num_symbols:")
        .map(|n| n.trim().parse::<u64>())
    {
        Some(Ok(0)) => {
            return Err(Error::refused(format!(
                "{url}: the server has no symbols (stripped binary); give the program file to symbolize locally"
            )));
        }
        Some(Ok(_)) => {}
        _ => {
            return Err(Error::refused(format!(
                "{url}: not a symbol page (expected \"num_symbols: N\", got {:?})",
                crate::profile::shorten(first.as_bytes(), 80)
            )));
        }
    }
    Ok(())
}

/// Names of `addrs` from the server's `/pprof/symbol` page (checked by [`check_symbols`]
/// before the profile was fetched): one POST of every address (`0x...+0x...`); answers are
/// `0x<address><TAB><names>` lines, inlined names separated by `--`. Addresses it leaves
/// unnamed are said in `warnings`; a POST that fails (the profile is fetched and saved by
/// then) is a warning too, and every address prints as hex, as when a program file is
/// missing.
pub fn symbols(
    target: &Target,
    addrs: &[u64],
    warnings: &mut Vec<String>,
) -> BTreeMap<u64, String> {
    let url = format!("{}{}", target.base, SYMBOL_PAGE);
    let client = Client::new(Duration::from_secs(60));
    let mut names = BTreeMap::new();
    if addrs.is_empty() {
        return names;
    }
    let post: Vec<String> = addrs.iter().map(|a| format!("0x{a:x}")).collect();
    let body = match client.post(&url, post.join("+").as_bytes()) {
        Ok(body) => body,
        Err(e) => {
            warnings.push(format!(
                "Warning: {e}; the profile's addresses print as hex (give the saved profile with the program file to name them)"
            ));
            return names;
        }
    };
    for line in String::from_utf8_lossy(&body).lines() {
        // `0x<address>`, blanks (a tab, or spaces as Go's handler writes), the names.
        let line = line.trim();
        let Some((addr, name)) = line.split_once([' ', '\t']) else {
            continue;
        };
        let hex = addr.trim_start_matches("0x").trim_start_matches("0X");
        if let Ok(a) = u64::from_str_radix(hex, 16) {
            // Mangled names are demangled, as pprof runs the page through c++filt.
            let name = name
                .trim()
                .split("--")
                .map(demangle_leading)
                .collect::<Vec<_>>()
                .join("--");
            names.insert(a, name);
        }
    }
    let named = addrs.iter().filter(|a| names.contains_key(a)).count();
    if named < addrs.len() {
        warnings.push(format!(
            "Warning: {url} named {named} of the {} addresses asked; the others print as hex",
            addrs.len()
        ));
    }
    names
}

// unwrap here only in tests, on files and names the tests make themselves (no input reaches
// them): a failure is the test failing.
#[cfg(test)]
mod tests {
    use super::*;

    /// Two fetches that chose the same name (the same second, host and page): the second to
    /// finish takes the next free name, neither file replaced.
    #[test]
    fn a_taken_name_is_not_replaced() {
        let dir = std::env::temp_dir().join(format!("rpprof-claim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join(".tmp.a"), dir.join(".tmp.b"));
        std::fs::write(&a, "first").unwrap();
        std::fs::write(&b, "second").unwrap();
        let name = "prog.1.host.pprof.heap";
        let first = claim_name(&a, dir.join(name), &dir, name).unwrap();
        let second = claim_name(&b, dir.join(name), &dir, name).unwrap();
        assert_eq!(first, dir.join(name));
        assert_eq!(second, dir.join(format!("{name}.1")));
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "first");
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "second");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fetch interrupted by Ctrl-C leaves its `.tmp.<pid>.<n>.<name>` file: the next fetch
    /// into the folder removes it once its process is gone and it has been idle a minute; a
    /// running process's file, a fresh one and other files stay.
    #[test]
    fn files_left_by_interrupted_fetches_are_removed() {
        let dir = std::env::temp_dir().join(format!("rpprof-left-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A process number that was in use and is no longer.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(3600);
        let make = |name: &str, idle: bool| {
            let p = dir.join(name);
            std::fs::write(&p, "part of a profile").unwrap();
            if idle {
                let f = std::fs::File::options().append(true).open(&p).unwrap();
                f.set_modified(old).unwrap();
            }
            p
        };
        let left = make(&format!(".tmp.{gone}.0.prog.1.host.pprof.heap"), true);
        let fresh = make(&format!(".tmp.{gone}.1.prog.2.host.pprof.heap"), false);
        let running = make(&format!(".tmp.{}.0.prog.3.host", std::process::id()), true);
        let parent = make(
            &format!(".tmp.{}.0.prog.4.host", std::os::unix::process::parent_id()),
            true,
        );
        let other = make(".tmp.notes", true);
        let profile = make("prog.5.host.pprof.heap", true);
        remove_left_behind(&dir);
        assert!(!left.exists());
        for kept in [&fresh, &running, &parent, &other, &profile] {
            assert!(kept.exists(), "{} removed", kept.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn certificate_dates_and_names() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_577_836_800), "2020-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400 + 3_661), "2000-02-29 01:01:01 UTC");
        assert_eq!(utc(32_503_679_999), "2999-12-31 23:59:59 UTC");
        assert_eq!(presented_name("DnsName(\"localhost\")"), "localhost");
        assert_eq!(presented_name("IpAddress(127.0.0.1)"), "127.0.0.1");
        assert_eq!(presented_name("odd"), "odd");
    }

    #[test]
    fn the_urls_own_seconds_are_the_profiles() {
        let t = Target::parse("h:1/pprof/profile?seconds=5");
        assert_eq!(t.url_seconds().ok(), Some(Some(5)));
        assert_eq!(t.profile_url(30), "http://h:1/pprof/profile?seconds=5");
        let t = Target::parse("h:1/pprof/profile?x=1");
        assert_eq!(t.url_seconds().ok(), Some(None));
        assert_eq!(t.profile_url(30), "http://h:1/pprof/profile?x=1&seconds=30");
        // Not a number: refused, and not asked for twice.
        let t = Target::parse("h:1/pprof/profile?seconds=1.5");
        assert!(t.url_seconds().is_err());
        assert_eq!(t.profile_url(30), "http://h:1/pprof/profile?seconds=1.5");
    }

    #[test]
    fn symbol_page_names_are_demangled_as_cxxfilt_does() {
        assert_eq!(demangle_leading("_ZN3foo3barEv"), "foo::bar()");
        assert_eq!(demangle_leading("_ZN3foo3barEv(int)"), "foo::bar()(int)");
        assert_eq!(demangle_leading("remote_alloc(int)"), "remote_alloc(int)");
        assert_eq!(demangle_leading("_Znot mangled"), "_Znot mangled");
    }

    #[test]
    fn redirects_resolve_against_the_page() {
        let from = "http://h:1/a/b/pprof/symbol?x=1";
        assert_eq!(resolve(from, "https://o:2/s"), "https://o:2/s");
        assert_eq!(resolve(from, "//o:2/s"), "http://o:2/s");
        assert_eq!(
            resolve(from, "/ok/pprof/symbol"),
            "http://h:1/ok/pprof/symbol"
        );
        assert_eq!(resolve(from, "symbol2"), "http://h:1/a/b/pprof/symbol2");
    }

    #[test]
    fn targets_as_pprof_splits_them() {
        let t = Target::parse("localhost:9002/pprof/heap");
        assert_eq!(t.base, "http://localhost:9002");
        assert_eq!(t.host, "localhost");
        assert_eq!(t.page, "/pprof/heap");
        assert!(!t.timed());
        let t = Target::parse("http://10.0.0.1:80");
        assert_eq!(t.page, PROFILE_PAGE);
        assert_eq!(
            t.profile_url(5),
            "http://10.0.0.1:80/pprof/profile?seconds=5"
        );
        let t = Target::parse("http://h:1/prefix/pprof/contention");
        assert_eq!(t.base, "http://h:1/prefix");
        assert_eq!(
            t.profile_url(2),
            "http://h:1/prefix/pprof/contention?seconds=2"
        );
        assert!(t.timed() && !t.cpu());
        // A base URL pasted with its final slash, with or without a prefix.
        let t = Target::parse("http://h:1/");
        assert_eq!(
            (t.base.as_str(), t.page.as_str()),
            ("http://h:1", PROFILE_PAGE)
        );
        assert!(t.cpu());
        let t = Target::parse("h:1/ok/");
        assert_eq!(t.base, "http://h:1/ok");
        // A password stays out of the saved file's name.
        let t = Target::parse("http://user:secret@h:1/pprof/heap");
        assert_eq!(t.host, "h");
        assert_eq!(t.base, "http://user:secret@h:1");
    }
}
