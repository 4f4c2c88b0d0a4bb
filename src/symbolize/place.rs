//! A frame's place, pprof's `file:line` text, kept as its file (shared between the frames of
//! a file) and its line rather than as a string of its own: a large profile has hundreds of
//! thousands of frames, and a string each was a tenth of a run's memory.

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashSet;

/// `line` when `file` holds the whole text (`?`, `??:?`, `f.c:12 (discriminator 3)`, a line
/// number with leading zeros, or one too large for a `u32`).
const WHOLE: u32 = u32::MAX;

/// pprof's `file:line`, `??:0` or `?`: the text it prints for a frame's place.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    /// The text before `:line`, or the whole text when `line` is [`WHOLE`].
    file: Arc<str>,
    line: u32,
}

/// The empty text.
impl Default for Place {
    fn default() -> Place {
        Place {
            file: Arc::from(""),
            line: WHOLE,
        }
    }
}

/// The file and line of `text` when it is `file:line` with the line written as `u32`
/// prints it (so that the text is made again from them byte for byte).
fn split(text: &str) -> Option<(&str, u32)> {
    let (file, digits) = text.rsplit_once(':')?;
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    let line: u32 = digits.parse().ok().filter(|_| canonical)?;
    (line != WHOLE).then_some((file, line))
}

impl Place {
    /// The place `file:line`.
    pub fn new(file: Arc<str>, line: u32) -> Place {
        if line == WHOLE {
            return Place::whole(&format!("{file}:{line}"));
        }
        Place { file, line }
    }

    /// The place printed as `text`, with its file a string of its own (see
    /// [`Place::interned`] to share it).
    pub fn whole(text: &str) -> Place {
        match split(text) {
            Some((file, line)) => Place {
                file: Arc::from(file),
                line,
            },
            None => Place {
                file: Arc::from(text),
                line: WHOLE,
            },
        }
    }

    /// The place printed as `text`, its file (or whole text) taken from `files` when one
    /// there is equal, else added to it.
    pub fn interned(text: &str, files: &mut FxHashSet<Arc<str>>) -> Place {
        let (file, line) = split(text).unwrap_or((text, WHOLE));
        let file = match files.get(file) {
            Some(f) => f.clone(),
            None => {
                let f: Arc<str> = Arc::from(file);
                files.insert(f.clone());
                f
            }
        };
        Place { file, line }
    }

    /// The place as stored: the file (or whole text) and the line ([`u32::MAX`]: the first
    /// is the whole text). [`Place::from_raw`] makes it again.
    pub fn raw(&self) -> (&Arc<str>, u32) {
        (&self.file, self.line)
    }

    /// The place [`Place::raw`] gave.
    pub fn from_raw(file: Arc<str>, line: u32) -> Place {
        Place { file, line }
    }

    /// The line, when the place is `file:line`.
    pub fn line(&self) -> Option<u32> {
        (self.line != WHOLE).then_some(self.line)
    }

    /// The file: the text without its `:line` (pprof's `--files` key). A text that is not
    /// `file:line` as [`split`] reads it is cut the same way when it ends in `:` and digits
    /// (`f.c:007`), else is whole.
    pub fn file(&self) -> &str {
        if self.line != WHOLE {
            return &self.file;
        }
        let text = &*self.file;
        if let Some(i) = text.rfind(':') {
            let digits = &text[i + 1..];
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                return &text[..i];
            }
        }
        text
    }

    /// [`Place::file`], and the file of a place jeprof reads with its discriminator
    /// (`f.cc:63 (discriminator 3)`, which jeprof's `--files` keeps whole: a "file" per line).
    pub fn file_of_line(&self) -> &str {
        if self.line == WHOLE
            && let Some((line, disc)) = self.file.rsplit_once(" (discriminator ")
            && let Some(n) = disc.strip_suffix(')')
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && let Some((file, _)) = split(line)
        {
            return file;
        }
        self.file()
    }

    /// True for the empty text.
    pub fn is_empty(&self) -> bool {
        self.line == WHOLE && self.file.is_empty()
    }

    /// Appends the text to `buf`.
    pub fn push_to(&self, buf: &mut String) {
        buf.push_str(&self.file);
        if self.line != WHOLE {
            buf.push(':');
            let mut digits = [0; 20];
            let digits = crate::units::decimal(u64::from(self.line), &mut digits);
            // (ASCII digits.)
            buf.push_str(std::str::from_utf8(digits).unwrap_or_default());
        }
    }

    /// `f` of the text, made in a buffer of the thread's (not allocated per call).
    pub fn with_text<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        if self.line == WHOLE {
            return f(&self.file);
        }
        thread_local! {
            static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        BUF.with(|b| match b.try_borrow_mut() {
            Ok(mut buf) => {
                buf.clear();
                self.push_to(&mut buf);
                f(&buf)
            }
            // (`f` itself asked for a place's text: a buffer of its own.)
            Err(_) => f(&self.to_string()),
        })
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == WHOLE {
            f.write_str(&self.file)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

impl PartialEq<str> for Place {
    fn eq(&self, other: &str) -> bool {
        if self.line == WHOLE {
            return *self.file == *other;
        }
        match split(other) {
            Some((file, line)) => line == self.line && file == &*self.file,
            None => false,
        }
    }
}

impl PartialEq<&str> for Place {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl From<&str> for Place {
    fn from(text: &str) -> Place {
        Place::whole(text)
    }
}

impl From<String> for Place {
    fn from(text: String) -> Place {
        Place::whole(&text)
    }
}

// unwrap-free tests on constant texts.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_made_again_byte_for_byte() {
        for text in [
            "f.c:12",
            "f.c:0",
            "??:0",
            "?",
            "",
            ":0",
            "??:?",
            "f.c:007",
            "f.c:",
            "f.c:12 (discriminator 3)",
            "a:b:12",
            "f.c:4294967295",
            "f.c:4294967294",
            "f.c:99999999999",
            "C:\\x.c:3",
        ] {
            let p = Place::whole(text);
            assert_eq!(p.to_string(), text);
            let mut buf = String::from(">");
            p.push_to(&mut buf);
            assert_eq!(buf, format!(">{text}"));
            assert!(p == text, "{text}");
            assert!(p.with_text(|t| t == text));
            let mut files = FxHashSet::default();
            assert_eq!(Place::interned(text, &mut files), p);
            let (f, l) = p.raw();
            assert_eq!(Place::from_raw(f.clone(), l), p);
        }
        assert_eq!(
            Place::new(Arc::from("f.c"), u32::MAX).to_string(),
            "f.c:4294967295"
        );
    }

    #[test]
    fn parts() {
        let p = Place::whole("dir/f.c:12");
        assert_eq!((p.file(), p.line()), ("dir/f.c", Some(12)));
        assert_eq!(Place::whole("f.c:007").file(), "f.c");
        assert_eq!(Place::whole("f.c:007").line(), None);
        assert_eq!(Place::whole("?").file(), "?");
        assert_eq!(Place::whole("??:?").file(), "??:?");
        assert!(Place::whole("").is_empty());
        assert!(Place::default().is_empty());
        assert_eq!(Place::default(), Place::whole(""));
        assert!(!Place::whole(":0").is_empty());
        assert!(Place::whole("f.c:12") != "f.c:012");
        assert!(Place::whole("f.c:12") != "f.c");
        assert!(Place::whole("?") != "?:0");
        // jeprof's places with a discriminator: their file, for --files.
        let d = Place::whole("dir/f.cc:63 (discriminator 3)");
        assert_eq!(d.file(), "dir/f.cc:63 (discriminator 3)");
        assert_eq!(d.file_of_line(), "dir/f.cc");
        assert_eq!(Place::whole("dir/f.c:12").file_of_line(), "dir/f.c");
        for whole in [
            "f.cc (discriminator 3)",
            "f.cc:63 (discriminator )",
            "f.cc:x (discriminator 3)",
            "??:?",
        ] {
            assert_eq!(Place::whole(whole).file_of_line(), whole);
        }
    }

    #[test]
    fn interned_files_are_shared() {
        let mut files = FxHashSet::default();
        let a = Place::interned("f.c:1", &mut files);
        let b = Place::interned("f.c:2", &mut files);
        assert!(Arc::ptr_eq(a.raw().0, b.raw().0));
        assert_eq!(files.len(), 1);
    }
}
