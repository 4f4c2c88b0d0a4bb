//! Starting `rpprof --http` on a free loopback port, and asking it things.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// A running web UI; stopped (by its process id) when dropped.
pub struct WebServer {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    /// What it wrote to standard error so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Drop for WebServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `rpprof --http=127.0.0.1:0 --no_browser <args>` in `dir`.
pub fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> WebServer {
    launch(dir, &["--http=127.0.0.1:0", "--no_browser"], args, env)
}

/// Starts `rpprof <flags> <args>` in `dir`, `flags` including `--http`; `$BROWSER` is `true`
/// unless `env` says otherwise.
pub fn launch(dir: &Path, flags: &[&str], args: &[&str], env: &[(&str, &str)]) -> WebServer {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rpprof"));
    c.args(flags)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Never a real browser, whatever the flags say.
        .env("BROWSER", "true");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("start rpprof --http");
    let stderr = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    let pipe = child.stderr.take().expect("stderr");
    let log = stderr.clone();
    std::thread::spawn(move || {
        let mut r = BufReader::new(pipe);
        let mut line = String::new();
        while r.read_line(&mut line).is_ok_and(|n| n > 0) {
            if let Some(u) = line.trim().strip_prefix("Serving web UI on ") {
                let _ = tx.send(u.to_string());
            }
            log.lock().unwrap().push_str(&line);
            line.clear();
        }
    });
    // A guard against a server that never starts (not a time limit on anything measured).
    let url = match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(u) => u,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "rpprof --http {args:?} did not start:\n{}",
                stderr.lock().unwrap()
            );
        }
    };
    WebServer { child, url, stderr }
}

/// An answer: status, content type, body.
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into()
}

fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    let mut r = r.expect("request");
    let status = r.status().as_u16();
    let content_type = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut body = Vec::new();
    r.body_mut()
        .with_config()
        .limit(1 << 30)
        .reader()
        .read_to_end(&mut body)
        .expect("body");
    Answer {
        status,
        content_type,
        body,
    }
}

/// GET `url`.
pub fn get(url: &str) -> Answer {
    answer(agent().get(url).call())
}

/// POST to `url` (empty body).
pub fn post(url: &str) -> Answer {
    answer(agent().post(url).send(&[][..]))
}

/// A query component, percent-encoded.
pub fn enc(s: &str) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}
