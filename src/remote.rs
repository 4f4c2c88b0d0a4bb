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
//! HTTP goes through ureq 3 (blocking, no async runtime, no TLS in this build: `https://` is
//! refused with a clear message). Every failure is one line: the URL and what went wrong
//! (status and the first bytes of the body, a refused connection, a timeout).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
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
        let host = hostport
            .rsplit_once(':')
            .map_or(hostport, |(h, _)| h)
            .to_string();
        let (prefix, page) = match path.find("/pprof/") {
            Some(i) => (&path[..i], &path[i..]),
            None => (path, ""),
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

    /// The URL of the profile page, with `seconds=` for the timed ones.
    pub fn profile_url(&self, seconds: u64) -> String {
        let mut url = format!("{}{}", self.base, self.page);
        if self.timed() {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&format!("seconds={seconds}"));
        }
        url
    }
}

/// The HTTP client, with the timeouts of one fetch.
pub struct Client {
    agent: ureq::Agent,
    timeout: Duration,
}

/// The read timeout in seconds from `$RPPROF_HTTP_TIMEOUT`, when it is set (tests use it).
fn timeout_override() -> Option<u64> {
    std::env::var("RPPROF_HTTP_TIMEOUT").ok()?.parse().ok()
}

impl Client {
    /// A client whose requests give up after `timeout` (connecting: 10 s at most).
    pub fn new(timeout: Duration) -> Client {
        let timeout = timeout_override().map_or(timeout, Duration::from_secs);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .max_redirects(5)
            .user_agent(concat!("rpprof/", env!("CARGO_PKG_VERSION")))
            .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
            .timeout_global(Some(timeout))
            .build()
            .into();
        Client { agent, timeout }
    }

    fn check_scheme(url: &str) -> Result<()> {
        if url.starts_with("https://") {
            return Err(Error::refused(format!(
                "{url}: https is not supported by this build of rpprof; use http:// (or fetch the profile with curl and give its file)"
            )));
        }
        Ok(())
    }

    fn timed_out(&self, url: &str) -> Error {
        Error::refused(format!(
            "{url}: no answer within {} s (timed out)",
            self.timeout.as_secs()
        ))
    }

    /// One line for a request that failed before an answer came.
    fn transport_error(&self, url: &str, e: ureq::Error) -> Error {
        match e {
            ureq::Error::Timeout(_) => self.timed_out(url),
            ureq::Error::Io(io)
                if matches!(
                    io.kind(),
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                ) =>
            {
                self.timed_out(url)
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
            other => Error::refused(format!("{url}: {other}")),
        }
    }

    fn body(
        &self,
        url: &str,
        r: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Vec<u8>> {
        let mut resp = r.map_err(|e| self.transport_error(url, e))?;
        let status = resp.status();
        let mut reader = resp.body_mut().with_config().limit(MAX_BODY).reader();
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
        let mut body = Vec::new();
        reader.read_to_end(&mut body).map_err(|e| {
            // ureq reports its own errors inside io::Error.
            match e.into_inner().map(|i| i.downcast::<ureq::Error>()) {
                Some(Ok(u)) => self.transport_error(url, *u),
                Some(Err(other)) => Error::refused(format!("{url}: reading the answer: {other}")),
                None => Error::refused(format!("{url}: the answer was cut short")),
            }
        })?;
        Ok(body)
    }

    /// GET `url`: the body of a 2xx answer, else one error line.
    pub fn get(&self, url: &str) -> Result<Vec<u8>> {
        Self::check_scheme(url)?;
        self.body(url, self.agent.get(url).call())
    }

    /// POST `data` to `url`.
    pub fn post(&self, url: &str, data: &[u8]) -> Result<Vec<u8>> {
        Self::check_scheme(url)?;
        self.body(url, self.agent.post(url).send(data))
    }
}

/// The program's name from `/pprof/cmdline` (its first line).
pub fn program_name(target: &Target) -> Result<String> {
    let url = format!("{}{}", target.base, PROGRAM_NAME_PAGE);
    let body = Client::new(Duration::from_secs(30)).get(&url)?;
    let text = String::from_utf8_lossy(&body);
    let name = text.lines().next().unwrap_or("").trim().to_string();
    if name.is_empty() {
        return Err(Error::refused(format!(
            "{url}: no program name in the answer"
        )));
    }
    Ok(name)
}

/// The directory fetched profiles are saved in: `$PPROF_TMPDIR`, else `~/pprof`.
pub fn profile_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PPROF_TMPDIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join("pprof")
}

/// Fetches the profile of `target` and saves it; returns the saved file. `program` names the
/// file (its base name); messages as pprof's go to `messages`.
pub fn fetch_profile(
    target: &Target,
    program: &str,
    seconds: u64,
    messages: &mut Vec<String>,
) -> Result<PathBuf> {
    let url = target.profile_url(seconds);
    let timeout = if target.timed() {
        Duration::from_secs_f64(seconds as f64 * 1.01 + 60.0)
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
    if !target.timed() {
        name.push_str(&target.page.replace(['/', '?'], "."));
    }
    let dir = profile_dir();
    // A second fetch within the same second (the web UI's --every) gets a name of its own
    // rather than replacing the first's file.
    let mut path = dir.join(&name);
    for n in 1.. {
        if !path.exists() {
            break;
        }
        path = dir.join(format!("{name}.{n}"));
    }
    let name = file_name_of(&path);
    if target.timed() {
        messages.push(format!(
            "Gathering CPU profile from {url} for {seconds} seconds to\n  {}",
            path.display()
        ));
    } else {
        messages.push(format!(
            "Fetching {} profile from {url} to\n  {}",
            target.page,
            path.display()
        ));
    }
    let body = Client::new(timeout).get(&url)?;
    if body.is_empty() {
        return Err(Error::refused(format!("{url}: the answer is empty")));
    }
    if !crate::profile::looks_like_profile(&body[..body.len().min(64)]) {
        let head = String::from_utf8_lossy(&body[..body.len().min(80)]);
        let head: String = head.split_whitespace().collect::<Vec<_>>().join(" ");
        return Err(Error::refused(format!(
            "{url}: the answer is not a profile: {head:?}"
        )));
    }
    // The directory is made once there is something to put in it.
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let tmp = dir.join(format!(".tmp.{name}"));
    std::fs::write(&tmp, &body).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
    messages.push(format!("Wrote profile to {}", path.display()));
    Ok(path)
}

fn file_name_of(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Names of `addrs` from the server's `/pprof/symbol` page: first a GET to check that it
/// symbolizes (`num_symbols: N`, N > 0), then one POST of every address (`0x...+0x...`);
/// answers are `0x<address><TAB><names>` lines, inlined names separated by `--`.
pub fn symbols(target: &Target, addrs: &[u64]) -> Result<BTreeMap<u64, String>> {
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
                "{url}: not a symbol page (expected \"num_symbols: N\", got {first:?})"
            )));
        }
    }
    let mut names = BTreeMap::new();
    if addrs.is_empty() {
        return Ok(names);
    }
    let post: Vec<String> = addrs.iter().map(|a| format!("0x{a:x}")).collect();
    let body = client.post(&url, post.join("+").as_bytes())?;
    for line in String::from_utf8_lossy(&body).lines() {
        let line = line.trim_end_matches('\r');
        let Some((addr, name)) = line.split_once('\t') else {
            continue;
        };
        let hex = addr
            .trim()
            .trim_start_matches("0x")
            .trim_start_matches("0X");
        if let Ok(a) = u64::from_str_radix(hex, 16) {
            names.insert(a, name.trim().to_string());
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
