//! Errors that carry their input: the file, and where in it.
//!
//! Every error rpprof reports names the file it came from and, when it is about the file's
//! contents, the line (text formats) or the byte offset (binary formats), e.g.
//! `heap.0003.heap:17: bad sample line "1x2: 3 [0: 0] @ 0x1"`.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a file an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// The whole file (or no file at all).
    None,
    /// A 1-based line number, for text formats.
    Line(usize),
    /// A byte offset from the start of the file, for binary formats.
    Byte(u64),
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The input is not what it claims to be, or is damaged.
    Format(String),
    /// The command line is wrong.
    Usage(String),
    /// The request makes no sense for this input (e.g. subtracting a CPU profile from a heap profile).
    Refused(String),
    /// An option rpprof accepts but does not implement yet.
    NotImplemented(String),
    /// A failure of rpprof itself or of a program it runs.
    Internal(String),
}

/// An rpprof error: a kind, and the file and place it is about.
#[derive(Debug)]
pub struct Error {
    /// The file the error is about, if any.
    pub path: Option<PathBuf>,
    /// Where in that file.
    pub location: Location,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// Result with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A format error in `path` at `location`.
    pub fn format(path: &Path, location: Location, msg: impl Into<String>) -> Error {
        Error {
            path: Some(path.to_path_buf()),
            location,
            kind: ErrorKind::Format(msg.into()),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, err: std::io::Error) -> Error {
        Error {
            path: Some(path.to_path_buf()),
            location: Location::None,
            kind: ErrorKind::Io(err),
        }
    }

    /// A command-line error.
    pub fn usage(msg: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::None,
            kind: ErrorKind::Usage(msg.into()),
        }
    }

    /// A refused request.
    pub fn refused(msg: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::None,
            kind: ErrorKind::Refused(msg.into()),
        }
    }

    /// An option that is accepted but not implemented yet.
    pub fn not_implemented(what: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::None,
            kind: ErrorKind::NotImplemented(what.into()),
        }
    }

    /// A failure of rpprof or of a helper program.
    pub fn internal(msg: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::None,
            kind: ErrorKind::Internal(msg.into()),
        }
    }

    /// The same error, about `path` (unless it already names a file).
    pub fn in_file(mut self, path: &Path) -> Error {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// True when the report could not be written because its reader went away (`rpprof ...
    /// | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.path.is_none()
            && matches!(&self.kind, ErrorKind::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The process exit status for this error: 1 for refused input and usage errors (as pprof),
    /// 2 for internal failures, unimplemented options and I/O errors that are about no input
    /// file (the report could not be written).
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            ErrorKind::NotImplemented(_) | ErrorKind::Internal(_) => 2,
            ErrorKind::Io(_) if self.path.is_none() => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{}", p.display())?;
            match self.location {
                Location::None => {}
                Location::Line(n) => write!(f, ":{n}")?,
                Location::Byte(b) => write!(f, ": byte {b}")?,
            }
            f.write_str(": ")?;
        }
        match &self.kind {
            // Ctrl-C in the shell: the command stopped.
            ErrorKind::Io(e) if self.path.is_none() && crate::cancel::is_stop(e) => {
                write!(f, "{e}")
            }
            // About no input file: the report (or a message) could not be written.
            ErrorKind::Io(e) if self.path.is_none() => {
                write!(f, "cannot write the report: {}", io_text(e))
            }
            ErrorKind::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                f.write_str("No such file")
            }
            ErrorKind::Io(e) => f.write_str(&io_text(e)),
            ErrorKind::Format(m)
            | ErrorKind::Usage(m)
            | ErrorKind::Refused(m)
            | ErrorKind::Internal(m) => f.write_str(m),
            ErrorKind::NotImplemented(m) => write!(f, "{m} is not implemented yet"),
        }
    }
}

/// The system's words for an I/O error (as Perl prints `$!`), without Rust's " (os error N)".
pub fn io_text(e: &std::io::Error) -> String {
    let msg = e.to_string();
    match msg.rfind(" (os error ") {
        Some(at) if msg.ends_with(')') => msg[..at].to_string(),
        _ => msg,
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}
