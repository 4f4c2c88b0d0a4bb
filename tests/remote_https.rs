//! Remote profiles over HTTPS, against a small TLS server that each test starts on a free port
//! of 127.0.0.1 (rustls, with certificates that rcgen makes for the test: a test CA and server
//! certificates signed by it, expired, for another name, or self-signed). The server serves
//! the testdata profiles as gperftools' `/pprof/*` pages, and names addresses on
//! `/pprof/symbol` from the symbol section that `rpprof --raw` writes for the same profile.
//! Nothing reaches beyond loopback; every connection the server holds is dropped after 30 s
//! at most. Needs no tool but rpprof itself.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    date_time_ymd,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A test CA: its certificate (PEM, for `SSL_CERT_FILE`) and what it signs with.
struct Ca {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let cert = params.self_signed(&key).unwrap();
        Ca {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// Writes the CA's certificate where `SSL_CERT_FILE` can name it.
    fn write(&self, dir: &Path, name: &str) -> String {
        let path = dir.join(name);
        std::fs::write(&path, &self.pem).unwrap();
        path.to_string_lossy().into_owned()
    }
}

/// A server certificate: for `names`, valid from `from` to `to` (years), signed by `ca` or
/// self-signed.
fn server_cert(
    names: &[&str],
    years: (i32, i32),
    ca: Option<&Ca>,
) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
    let key = KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut params = CertificateParams::new(names).unwrap();
    params
        .distinguished_name
        .push(DnType::CommonName, "rpprof test server");
    params.not_before = date_time_ymd(years.0, 1, 1);
    params.not_after = date_time_ymd(years.1, 1, 1);
    let cert = match ca {
        Some(ca) => params.signed_by(&key, &ca.issuer).unwrap(),
        None => params.self_signed(&key).unwrap(),
    };
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    (vec![cert.der().clone()], key)
}

/// What the server does with a connection.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// TLS, then HTTP.
    Tls,
    /// Plain HTTP (an https:// URL to an HTTP server).
    Plain,
    /// Accepts the connection and says nothing (a timeout).
    Silent,
    /// Reads the first bytes, then closes the connection without a word.
    Close,
}

/// The pages a server answers: path (with query) → body.
#[derive(Default, Clone)]
struct Pages {
    files: BTreeMap<String, Vec<u8>>,
    symbols: BTreeMap<u64, String>,
    /// Path → where it redirects to (`302 Found`).
    redirects: BTreeMap<String, String>,
    /// Path → a body sent whole under a `Content-Length` twice its size, the connection
    /// then closed: an answer cut short.
    cut: BTreeMap<String, Vec<u8>>,
}

/// A running test server; its thread ends with the test process.
struct Server {
    port: u16,
    /// Every request line it was sent, in order.
    requests: Arc<Mutex<Vec<String>>>,
}

fn serve(
    mode: Mode,
    cert: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
    pages: Pages,
) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = cert.map(|(chain, key)| {
        Arc::new(
            rustls::ServerConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap(),
        )
    });
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    let pages = Arc::new(pages);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let config = config.clone();
            let seen = seen.clone();
            let pages = pages.clone();
            std::thread::spawn(move || {
                let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
                let _ = conn.set_write_timeout(Some(Duration::from_secs(30)));
                match (mode, config) {
                    (Mode::Silent, _) => {
                        let mut conn = conn;
                        let mut sink = [0u8; 4096];
                        while matches!(conn.read(&mut sink), Ok(n) if n > 0) {}
                    }
                    (Mode::Close, _) => {
                        let mut conn = conn;
                        let _ = conn.read(&mut [0u8; 16]);
                    }
                    (Mode::Tls, Some(config)) => {
                        let Ok(tls) = rustls::ServerConnection::new(config) else {
                            return;
                        };
                        let mut stream = rustls::StreamOwned::new(tls, conn);
                        answer(&mut stream, &pages, &seen);
                        stream.conn.send_close_notify();
                        let _ = stream.flush();
                    }
                    _ => {
                        let mut conn = conn;
                        answer(&mut conn, &pages, &seen);
                    }
                }
            });
        }
    });
    Server { port, requests }
}

/// Reads one HTTP request from `stream` and answers it from `pages`; what is not HTTP gets
/// `400 Bad Request`, as from a web server.
fn answer<S: Read + Write>(stream: &mut S, pages: &Pages, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(0) => return,
        Ok(_) if line.ends_with("HTTP/1.1\r\n") => {}
        _ => {
            let stream = reader.into_inner();
            let _ = stream.write_all(
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            let _ = stream.flush();
            return;
        }
    }
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let line = line.trim_end().to_string();
    seen.lock().unwrap().push(line.clone());
    let mut words = line.split(' ');
    let method = words.next().unwrap_or("");
    let path = words.next().unwrap_or("");
    if let Some(to) = pages.redirects.get(path) {
        let stream = reader.into_inner();
        let _ = write!(
            stream,
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        let _ = stream.flush();
        return;
    }
    let (status, answer) = match (method, path) {
        ("GET", "/pprof/symbol") => ("200 OK", b"num_symbols: 1\n".to_vec()),
        ("POST", "/pprof/symbol") => {
            let mut out = String::new();
            for a in String::from_utf8_lossy(&body).split('+') {
                let a = a.trim();
                let Ok(n) = u64::from_str_radix(a.trim_start_matches("0x"), 16) else {
                    continue;
                };
                if let Some(name) = pages.symbols.get(&n) {
                    out.push_str(&format!("{a}\t{name}\n"));
                }
            }
            ("200 OK", out.into_bytes())
        }
        ("GET", p) if pages.cut.contains_key(p) => {
            let body = &pages.cut[p];
            let stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: text/plain\r\n\r\n",
                2 * body.len()
            );
            let _ = stream.write_all(body);
            let _ = stream.flush();
            return;
        }
        ("GET", p) => match pages.files.get(p) {
            Some(b) => ("200 OK", b.clone()),
            None => ("404 Not Found", b"no such page\n".to_vec()),
        },
        _ => ("405 Method Not Allowed", Vec::new()),
    };
    let stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n",
        answer.len()
    );
    let _ = stream.write_all(&answer);
    let _ = stream.flush();
}

/// The test's own directory (PPROF_TMPDIR and the CA files), empty.
fn test_dir(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("https-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs rpprof in `cwd` with `env` (SSL_CERT_FILE, SSL_CERT_DIR and CURL_CA_BUNDLE from the
/// test's own environment removed first, so that the system's trust store is used unless a
/// test says otherwise).
fn rpprof(cwd: &Path, tmp: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rpprof"));
    c.args(args)
        .current_dir(cwd)
        .env("PPROF_TMPDIR", tmp)
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .env_remove("CURL_CA_BUNDLE")
        .env_remove("RPPROF_HTTP_TIMEOUT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run rpprof")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

/// One failing fetch: exit status 1, nothing on stdout, one `rpprof:` line containing every
/// one of `want`; returns that line.
fn fails(out: &Output, want: &[&str]) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("rpprof:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    for w in want {
        assert!(errors[0].contains(w), "no {w:?} in {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    eprintln!("{}", errors[0]);
    errors[0].to_string()
}

/// The files saved in `dir` (fetched profiles), CA files left out.
fn saved(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| !p.to_string_lossy().ends_with(".pem"));
    v.sort();
    v
}

/// The heap case: `theap` and one of its profiles, as pages, with `/pprof/symbol` answering
/// from `rpprof --raw`'s symbol section. Returns the pages and the raw file.
fn heap_pages(tmp: &Path) -> (Pages, PathBuf) {
    let case = common::root().join("testdata/t-heap");
    let profile = std::fs::read(case.join("theap.hprof.0002.heap")).unwrap();
    let raw = ok(&rpprof(
        &case,
        tmp,
        &["--raw", "theap", "theap.hprof.0002.heap"],
        &[],
    ));
    let raw_file = tmp.join("theap.raw");
    std::fs::write(&raw_file, &raw).unwrap();
    let mut symbols = BTreeMap::new();
    let mut in_symbols = false;
    for l in raw.lines() {
        if l.starts_with("---") {
            in_symbols = l == "--- symbol";
            continue;
        }
        if !in_symbols {
            continue;
        }
        if let Some((a, name)) = l.split_once(' ')
            && let Ok(n) = u64::from_str_radix(a.trim_start_matches("0x"), 16)
        {
            symbols.insert(n, name.to_string());
        }
    }
    assert!(symbols.len() > 20, "{raw}");
    let mut files = BTreeMap::new();
    files.insert("/pprof/heap".to_string(), profile);
    files.insert(
        "/pprof/cmdline".to_string(),
        b"/tmp/rpprof-corpus/t-heap/theap\n--rounds=3\n".to_vec(),
    );
    (
        Pages {
            files,
            symbols,
            ..Pages::default()
        },
        raw_file,
    )
}

/// Fetched over HTTPS with the test CA in `SSL_CERT_FILE`: the report is the local file's,
/// with the program; without it, the program's name comes from `/pprof/cmdline` and the
/// names from `/pprof/symbol`, all over HTTPS, and the report is that of the raw file made
/// from the same symbols.
#[test]
fn heap_over_https_with_the_test_ca() {
    let tmp = test_dir("heap");
    let case = common::root().join("testdata/t-heap");
    let ca = Ca::new("rpprof test CA");
    let ca_file = ca.write(&tmp, "ca.pem");
    let (pages, raw_file) = heap_pages(&tmp);
    let saved_profile = pages.files["/pprof/heap"].clone();
    let s = serve(
        Mode::Tls,
        Some(server_cert(
            &["127.0.0.1", "localhost"],
            (2020, 2999),
            Some(&ca),
        )),
        pages,
    );
    let env = [("SSL_CERT_FILE", ca_file.as_str())];

    for host in ["127.0.0.1", "localhost"] {
        let url = format!("https://{host}:{}/pprof/heap", s.port);
        let local = ok(&rpprof(
            &case,
            &tmp,
            &["--text", "theap", "theap.hprof.0002.heap"],
            &[],
        ));
        let out = rpprof(&case, &tmp, &["--text", "theap", &url], &env);
        assert_eq!(ok(&out), local);
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("Fetching /pprof/heap profile from {url} to")),
            "{err}"
        );
        assert!(err.contains("Wrote profile to "), "{err}");
    }
    // The saved copies are the served bytes.
    let files = saved(&tmp);
    let fetched: Vec<&PathBuf> = files
        .iter()
        .filter(|p| p.to_string_lossy().contains(".pprof.heap"))
        .collect();
    assert_eq!(fetched.len(), 2, "{files:?}");
    for f in fetched {
        assert_eq!(std::fs::read(f).unwrap(), saved_profile);
    }

    // CURL_CA_BUNDLE, which google-pprof's curl reads, is read too ...
    let url = format!("https://127.0.0.1:{}/pprof/heap", s.port);
    let local = ok(&rpprof(
        &case,
        &tmp,
        &["--text", "theap", "theap.hprof.0002.heap"],
        &[],
    ));
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "theap", &url],
        &[("CURL_CA_BUNDLE", &ca_file)],
    );
    assert_eq!(ok(&out), local);
    // ... unless SSL_CERT_FILE or SSL_CERT_DIR is set.
    let other = Ca::new("another test CA").write(&tmp, "other.pem");
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "theap", &url],
        &[("CURL_CA_BUNDLE", &ca_file), ("SSL_CERT_FILE", &other)],
    );
    fails(&out, &[&url, "unknown issuer", "SSL_CERT_FILE="]);

    // Without the program: /pprof/cmdline and /pprof/symbol over HTTPS too.
    let url = format!("https://127.0.0.1:{}/pprof/heap", s.port);
    s.requests.lock().unwrap().clear();
    let out = rpprof(&case, &tmp, &["--text", &url], &env);
    let report = ok(&out);
    let raw = raw_file.to_string_lossy().into_owned();
    assert_eq!(report, ok(&rpprof(&case, &tmp, &["--text", &raw], &[])));
    assert!(report.contains("tdata::render::Square::raster"), "{report}");
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("Using remote profile at {url}.")),
        "{err}"
    );
    assert!(err.contains("Wrote profile to "), "{err}");
    let requests = s.requests.lock().unwrap().clone();
    for want in [
        "GET /pprof/cmdline",
        "GET /pprof/heap",
        "GET /pprof/symbol",
        "POST /pprof/symbol",
    ] {
        assert!(
            requests.iter().any(|r| r.starts_with(&format!("{want} "))),
            "no {want} in {requests:?}"
        );
    }
}

/// A CPU page over HTTPS: fetched with `?seconds=N` from `--seconds`, the report is the
/// local file's.
/// A redirect from HTTPS to plain HTTP is refused (curl, and so google-pprof, follows none;
/// following it would send the request, and trust the answer, in the clear); one from
/// HTTPS to HTTPS is followed.
#[test]
fn no_redirect_from_https_to_http() {
    let tmp = test_dir("redirect");
    let ca = Ca::new("rpprof test CA");
    let ca_file = ca.write(&tmp, "ca.pem");
    let (pages, _) = heap_pages(&tmp);
    let plain = serve(Mode::Plain, None, pages.clone());
    let secure = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2020, 2999), Some(&ca))),
        pages.clone(),
    );
    // The redirector names the program and its symbols itself; only the profile moved.
    let mut hops = pages.clone();
    hops.files.remove("/pprof/heap");
    hops.redirects.insert(
        "/pprof/heap".to_string(),
        format!("http://127.0.0.1:{}/pprof/heap", plain.port),
    );
    hops.redirects.insert(
        "/pprof/growth".to_string(),
        format!("https://127.0.0.1:{}/pprof/heap", secure.port),
    );
    let redirector = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2020, 2999), Some(&ca))),
        hops,
    );
    let env = [("SSL_CERT_FILE", ca_file.as_str())];
    let url = format!("https://127.0.0.1:{}/pprof/heap", redirector.port);
    let out = rpprof(&tmp, &tmp, &["--text", &url], &env);
    fails(&out, &[&url, "refused a redirect from HTTPS to plain HTTP"]);
    assert!(
        plain.requests.lock().unwrap().is_empty(),
        "the plain server was asked"
    );
    // HTTPS to HTTPS: followed (the program's name and symbols come from the server the
    // profile came from).
    let moved = format!("https://127.0.0.1:{}/pprof/growth", redirector.port);
    let out = rpprof(&tmp, &tmp, &["--text", &moved], &env);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(text(&out.stdout).starts_with("Total:"), "{err}");
}

#[test]
fn cpu_over_https_with_seconds() {
    let tmp = test_dir("cpu");
    let case = common::root().join("testdata/t-cpu");
    let ca = Ca::new("rpprof test CA");
    let ca_file = ca.write(&tmp, "ca.pem");
    let mut pages = Pages::default();
    pages.files.insert(
        "/pprof/profile?seconds=2".to_string(),
        std::fs::read(case.join("tcpu-nopie.prof")).unwrap(),
    );
    let s = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2020, 2999), Some(&ca))),
        pages,
    );
    let url = format!("https://127.0.0.1:{}", s.port);
    let local = ok(&rpprof(
        &case,
        &tmp,
        &["--text", "tcpu-nopie", "tcpu-nopie.prof"],
        &[],
    ));
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "--seconds=2", "tcpu-nopie", &url],
        &[("SSL_CERT_FILE", &ca_file)],
    );
    assert_eq!(ok(&out), local);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "Gathering CPU profile from {url}/pprof/profile?seconds=2 for 2 seconds"
        )),
        "{err}"
    );
}

/// Every way the server's certificate can be refused: one line naming the URL and the cause,
/// exit status 1, nothing on stdout, nothing saved.
#[test]
fn certificate_errors_are_one_clear_line() {
    let tmp = test_dir("certs");
    let case = common::root().join("testdata/t-heap");
    let ca = Ca::new("rpprof test CA");
    let ca_file = ca.write(&tmp, "ca.pem");
    let other = Ca::new("another test CA");
    let other_file = other.write(&tmp, "other.pem");
    let (pages, _) = heap_pages(&tmp);
    let _ = std::fs::remove_file(tmp.join("theap.raw"));
    let with = |file: &str| [("SSL_CERT_FILE", file.to_string())];
    let run = |port: u16, env: &[(&str, String)]| {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let url = format!("https://127.0.0.1:{port}/pprof/heap");
        (
            url.clone(),
            rpprof(&case, &tmp, &["--text", "theap", &url], &env),
        )
    };

    // Signed by a CA that SSL_CERT_FILE does not hold.
    let good = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2020, 2999), Some(&ca))),
        pages.clone(),
    );
    let (url, out) = run(good.port, &with(&other_file));
    let line = fails(
        &out,
        &[
            &url,
            "certificate not trusted: unknown issuer",
            "SSL_CERT_FILE=",
        ],
    );
    assert!(line.contains(&other_file), "{line}");

    // The system's trust store does not hold the test CA either. (On a machine without
    // one, the line says that there are no trusted certificates.)
    let (url, out) = run(good.port, &[]);
    let line = fails(&out, &[&url]);
    assert!(
        line.contains("certificate not trusted: unknown issuer")
            || line.contains("no trusted certificates in the system's trust store"),
        "{line}"
    );

    // SSL_CERT_DIR alone replaces the system's store too.
    let dir = tmp.join("certdir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("other.pem"), &other.pem).unwrap();
    let (url, out) = run(
        good.port,
        &[("SSL_CERT_DIR", dir.to_string_lossy().into_owned())],
    );
    fails(&out, &[&url, "unknown issuer", "SSL_CERT_DIR="]);
    // ... and with the test CA in it, the fetch works.
    std::fs::write(dir.join("ca.pem"), &ca.pem).unwrap();
    let (_, out) = run(
        good.port,
        &[("SSL_CERT_DIR", dir.to_string_lossy().into_owned())],
    );
    ok(&out);
    for f in saved(&tmp) {
        if f.is_file() {
            std::fs::remove_file(f).unwrap();
        }
    }

    // A self-signed server certificate is never accepted silently.
    let selfsigned = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2020, 2999), None)),
        pages.clone(),
    );
    let (url, out) = run(selfsigned.port, &with(&ca_file));
    fails(
        &out,
        &[
            &url,
            "certificate not trusted: unknown issuer",
            "self-signed",
        ],
    );

    // Expired.
    let expired = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2010, 2020), Some(&ca))),
        pages.clone(),
    );
    let (url, out) = run(expired.port, &with(&ca_file));
    fails(
        &out,
        &[
            &url,
            "certificate expired: not valid after 2020-01-01 00:00:00 UTC",
        ],
    );

    // Not valid yet.
    let future = serve(
        Mode::Tls,
        Some(server_cert(&["127.0.0.1"], (2900, 2999), Some(&ca))),
        pages.clone(),
    );
    let (url, out) = run(future.port, &with(&ca_file));
    fails(
        &out,
        &[
            &url,
            "certificate not valid yet: not valid before 2900-01-01 00:00:00 UTC",
        ],
    );

    // Made for another name.
    let other_name = serve(
        Mode::Tls,
        Some(server_cert(&["profiles.example"], (2020, 2999), Some(&ca))),
        pages.clone(),
    );
    let (url, out) = run(other_name.port, &with(&ca_file));
    fails(
        &out,
        &[
            &url,
            "certificate name mismatch: the certificate is for profiles.example, not 127.0.0.1",
        ],
    );

    // SSL_CERT_FILE that cannot be read.
    let missing = tmp.join("missing.pem").to_string_lossy().into_owned();
    let (url, out) = run(good.port, &with(&missing));
    fails(
        &out,
        &[
            &url,
            &format!("cannot read SSL_CERT_FILE={missing}: No such file"),
        ],
    );
    let (url, out) = run(good.port, &[("CURL_CA_BUNDLE", missing.clone())]);
    fails(
        &out,
        &[
            &url,
            &format!("cannot read CURL_CA_BUNDLE={missing}: No such file"),
        ],
    );
    // ... or holds no certificate.
    let empty = tmp.join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let empty = empty.to_string_lossy().into_owned();
    let (url, out) = run(good.port, &with(&empty));
    fails(
        &out,
        &[
            &url,
            &format!("no trusted certificates in SSL_CERT_FILE={empty}"),
        ],
    );

    // Without the program, the first request (/pprof/cmdline) is the one that fails.
    let url = format!("https://127.0.0.1:{}/pprof/heap", selfsigned.port);
    let out = rpprof(
        &case,
        &tmp,
        &["--text", &url],
        &[("SSL_CERT_FILE", &ca_file)],
    );
    fails(
        &out,
        &[
            &format!("https://127.0.0.1:{}/pprof/cmdline:", selfsigned.port),
            "unknown issuer",
        ],
    );

    assert!(saved(&tmp).iter().all(|p| p.is_dir()), "{:?}", saved(&tmp));
}

/// An https:// URL to a plain HTTP server, to a server that closes the connection at once,
/// and to one that never answers the handshake (with a 1 s timeout): one line each.
#[test]
fn handshake_failures_and_timeouts() {
    let tmp = test_dir("handshake");
    let case = common::root().join("testdata/t-heap");
    let ca = Ca::new("rpprof test CA");
    let ca_file = ca.write(&tmp, "ca.pem");
    let plain = serve(Mode::Plain, None, Pages::default());
    let url = format!("https://127.0.0.1:{}/pprof/heap", plain.port);
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "theap", &url],
        &[("SSL_CERT_FILE", &ca_file)],
    );
    fails(
        &out,
        &[&url, "TLS handshake failed", "is this an HTTPS server?"],
    );

    let close = serve(Mode::Close, None, Pages::default());
    let url = format!("https://127.0.0.1:{}/pprof/heap", close.port);
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "theap", &url],
        &[("SSL_CERT_FILE", &ca_file)],
    );
    fails(
        &out,
        &[&url, "the server closed the connection without an answer"],
    );

    let silent = serve(Mode::Silent, None, Pages::default());
    let url = format!("https://127.0.0.1:{}/pprof/heap", silent.port);
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "theap", &url],
        &[("SSL_CERT_FILE", &ca_file), ("RPPROF_HTTP_TIMEOUT", "1")],
    );
    fails(&out, &[&url, "timed out"]);
    assert!(saved(&tmp).is_empty(), "{:?}", saved(&tmp));
}

/// An answer cut short (the server closes the connection before the length it announced):
/// one line, and nothing left in $PPROF_TMPDIR (the answer is written to a file as it comes).
#[test]
fn an_answer_cut_short_leaves_no_file() {
    let tmp = test_dir("cut-short");
    let case = common::root().join("testdata/t-heap");
    let (mut pages, _) = heap_pages(&tmp);
    let whole = pages.files["/pprof/heap"].clone();
    assert!(whole.len() > 16 << 10, "{}", whole.len());
    pages.cut.insert("/pprof/heap".to_string(), whole);
    let plain = serve(Mode::Plain, None, pages);
    let url = format!("http://127.0.0.1:{}/pprof/heap", plain.port);
    let out = rpprof(&case, &tmp, &["--text", "theap", &url], &[]);
    fails(
        &out,
        &[&url, "closed the connection before the answer was complete"],
    );
    assert_eq!(saved(&tmp), [tmp.join("theap.raw")]);
}

/// A connection the server refuses at once: still one line.
#[test]
fn refused_connection() {
    let tmp = test_dir("refused");
    let case = common::root().join("testdata/t-heap");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let ca_file = Ca::new("rpprof test CA").write(&tmp, "ca.pem");
    let url = format!("https://127.0.0.1:{port}/pprof/heap");
    let out = rpprof(
        &case,
        &tmp,
        &["--text", "theap", &url],
        &[("SSL_CERT_FILE", &ca_file)],
    );
    fails(&out, &[&url, "cannot connect"]);
}
