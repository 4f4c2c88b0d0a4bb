//! Source files as `--list` and `--disasm` show them: read once per report, lines without
//! their ends (and without carriage returns, as pprof drops them).
//!
//! A source file is named by the program's debug information, so it can be anything: a
//! FIFO (whose opening waits for a writer), a device (`/dev/zero` reads without end), a
//! file of millions of empty lines. Only regular files up to [`MAX_BYTES`] are read, and a
//! line costs four bytes beyond its text.

use std::io::Read;

/// The most bytes read as one source file (the largest hand-written or generated C files,
/// such as SQLite's amalgamation, are under 10 MB).
pub const MAX_BYTES: u64 = 256 << 20;

/// A source file's text and where its lines start.
#[derive(Debug)]
pub struct Source {
    text: String,
    /// The byte at which each line starts; a line ends where the next starts, less its `\n`.
    starts: Vec<u32>,
}

impl Source {
    /// The file at `path`, or why it is not read: the system's words for an error (as Perl
    /// prints `$!`), or what makes it no source file.
    pub fn read(path: &str) -> Result<Source, String> {
        let io = |e: std::io::Error| crate::error::io_text(&e);
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err("not a regular file".to_string());
        }
        if meta.len() > MAX_BYTES {
            return Err(format!(
                "{} bytes, too big for a source file (at most {MAX_BYTES})",
                meta.len()
            ));
        }
        // (At most a byte past the limit: a file that grew since is refused all the same.)
        let mut data = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut data))
            .map_err(io)?;
        if data.len() as u64 > MAX_BYTES {
            return Err(format!(
                "more than {MAX_BYTES} bytes, too big for a source file"
            ));
        }
        Ok(Source::of_text(
            String::from_utf8_lossy(&data).replace('\r', ""),
        ))
    }

    /// `text` as a file's contents; its last line end ends its last line (no empty line
    /// after it). An empty text has one empty line, as pprof reads it.
    pub fn of_text(text: String) -> Source {
        let body = text.strip_suffix('\n').unwrap_or(&text);
        let mut starts = vec![0u32];
        // (Texts longer than 4 GiB are not read: MAX_BYTES.)
        starts.extend(memchr::memchr_iter(b'\n', body.as_bytes()).map(|i| (i + 1) as u32));
        Source { text, starts }
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Line `i` (from 0).
    pub fn line(&self, i: usize) -> Option<&str> {
        let start = *self.starts.get(i)? as usize;
        let end = match self.starts.get(i + 1) {
            Some(&next) => next as usize - 1,
            None => self.text.strip_suffix('\n').unwrap_or(&self.text).len(),
        };
        self.text.get(start..end)
    }

    /// The lines from line `from` (from 0), in order.
    pub fn lines_from(&self, from: usize) -> impl Iterator<Item = &str> {
        (from..self.starts.len()).map_while(|i| self.line(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines are those of a split at line ends without the empty piece after a last
    /// line end: the reading `--list` had when it kept each line apart.
    #[test]
    fn lines_as_split_at_line_ends() {
        for text in crate::testing::joined(&["a", "\n", "bc", ""], 4) {
            let mut by_split: Vec<&str> = text.split('\n').collect();
            if text.ends_with('\n') {
                by_split.pop();
            }
            let s = Source::of_text(text.clone());
            let lines: Vec<&str> = s.lines_from(0).collect();
            assert_eq!(lines, by_split, "{text:?}");
            assert_eq!(s.line(lines.len()), None);
            for from in 0..=lines.len() {
                assert_eq!(s.lines_from(from).collect::<Vec<_>>(), by_split[from..]);
            }
        }
    }

    /// A FIFO is not opened (which would wait for a writer), a device not read.
    #[cfg(target_os = "linux")]
    #[test]
    fn only_regular_files() {
        // unwrap: on the test's own paths.
        assert_eq!(Source::read("/dev/zero").unwrap_err(), "not a regular file");
        let dir = std::env::temp_dir().join(format!("rpprof-source-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let fifo = dir.join("fifo.c");
        // (A temporary directory's path holds no NUL.)
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let path = fifo.to_string_lossy().to_string();
        assert_eq!(Source::read(&path).unwrap_err(), "not a regular file");
        assert_eq!(
            Source::read(&dir.join("none.c").to_string_lossy()).unwrap_err(),
            "No such file or directory"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
