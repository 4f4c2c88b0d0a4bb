//! A pseudo-terminal for tests that need rpprof to see a terminal: the shell's line editor,
//! and pprof's rule that no output mode on a terminal means the shell.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A pseudo-terminal: the test holds the master side, the child gets the other.
pub struct Pty {
    master: File,
    slave: OwnedFd,
}

impl Pty {
    /// A new pseudo-terminal, 120 columns wide; `raw`: no line discipline (the bytes a
    /// program writes arrive as they are, `\n` not turned into `\r\n`).
    pub fn open(raw: bool) -> Pty {
        let mut master: libc::c_int = -1;
        let mut slave: libc::c_int = -1;
        let size = libc::winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two descriptors; the name and termios pointers may be null.
        let r = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
        // Not inherited by the programs other tests start meanwhile (a copy of the terminal
        // there would keep it open after our program ends).
        for fd in [master, slave] {
            // SAFETY: fcntl on descriptors we own.
            unsafe {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        if raw {
            // SAFETY: a termios filled by tcgetattr on a descriptor we own.
            unsafe {
                let mut t: libc::termios = std::mem::zeroed();
                libc::tcgetattr(slave, &mut t);
                libc::cfmakeraw(&mut t);
                libc::tcsetattr(slave, libc::TCSANOW, &t);
            }
        }
        // SAFETY: the descriptors were just opened and are owned by nothing else.
        unsafe {
            Pty {
                master: File::from_raw_fd(master),
                slave: OwnedFd::from_raw_fd(slave),
            }
        }
    }

    /// The terminal side, for one of the child's standard streams.
    pub fn stdio(&self) -> Stdio {
        Stdio::from(self.slave.try_clone().expect("dup the terminal"))
    }

    /// Starts `cmd` in a new session whose controlling terminal is this one (so that
    /// `/dev/tty` is it too). Its streams are set by the caller.
    pub fn spawn(&self, cmd: &mut Command) -> Child {
        use std::os::unix::process::CommandExt;
        let fd = self.slave.as_raw_fd();
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::ioctl(fd, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd.spawn().expect("start the program on the terminal")
    }

    /// Collects everything the child writes to the terminal, from now on, in a thread.
    pub fn reader(&self) -> Screen {
        let mut master = self.master.try_clone().expect("dup the master");
        let buf = Arc::new(Mutex::new(Vec::new()));
        let b = buf.clone();
        let done = Arc::new(Mutex::new(false));
        let d = done.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            loop {
                match master.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => b.lock().expect("screen").extend_from_slice(&chunk[..n]),
                }
            }
            *d.lock().expect("screen") = true;
        });
        Screen { buf, done }
    }

    /// Types `keys` on the terminal.
    pub fn type_keys(&self, keys: &[u8]) {
        let mut m = &self.master;
        m.write_all(keys).expect("type on the terminal");
        m.flush().expect("flush");
    }

    /// Gives up the terminal side held by the test (after the child has it), so that the
    /// master sees the end when the child exits.
    pub fn close_slave(self) -> File {
        drop(self.slave);
        self.master
    }
}

/// What a program wrote on the terminal.
#[derive(Clone)]
pub struct Screen {
    buf: Arc<Mutex<Vec<u8>>>,
    /// Set when the terminal was closed on the other side.
    done: Arc<Mutex<bool>>,
}

impl Screen {
    /// Everything so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf.lock().expect("screen")).into_owned()
    }

    /// Waits until the text after byte `from` contains `what`; returns the end of the match.
    /// A program that never writes it fails the test after a minute (a hang, not a time
    /// limit on its speed).
    pub fn wait_for(&self, from: usize, what: &str) -> usize {
        let start = Instant::now();
        loop {
            {
                let b = self.buf.lock().expect("screen");
                let text = String::from_utf8_lossy(&b[from.min(b.len())..]).into_owned();
                if let Some(i) = text.find(what) {
                    return from + i + what.len();
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the terminal never showed {what:?}; it shows:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything written, once the terminal is closed on the program's side (the program
    /// ended and [`Pty::close_slave`] was called).
    pub fn all(&self) -> String {
        let start = Instant::now();
        while !*self.done.lock().expect("screen") {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the terminal was never closed; it shows:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.text()
    }

    /// The number of bytes so far.
    pub fn len(&self) -> usize {
        self.buf.lock().expect("screen").len()
    }
}
