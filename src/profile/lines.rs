//! Line-by-line reading of text profiles, keeping line numbers and byte offsets for messages.

/// One line: its text without the line end (`\n`, `\r\n`), its 1-based number and the offset
/// of its first byte.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub text: &'a [u8],
    pub number: usize,
    pub offset: usize,
    /// False for a last line that is not terminated by a newline.
    pub terminated: bool,
}

/// An iterator over the lines of a byte buffer.
pub struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
    number: usize,
}

impl<'a> Lines<'a> {
    pub fn new(data: &'a [u8]) -> Lines<'a> {
        Lines {
            data,
            pos: 0,
            number: 0,
        }
    }

    /// The lines of `data[..end]` from byte `pos` (a line's first byte), numbered on from
    /// line `number`: one part of a buffer, with the whole buffer's numbers and offsets.
    pub fn part(data: &'a [u8], pos: usize, end: usize, number: usize) -> Lines<'a> {
        Lines {
            data: data.get(..end).unwrap_or(data),
            pos,
            number,
        }
    }

    /// The whole buffer.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Goes on from byte `pos` (a line's first byte), the line before it being line `number`.
    pub fn resume_at(&mut self, pos: usize, number: usize) {
        self.pos = pos;
        self.number = number;
    }

    /// The next line, or `None` at the end of the data.
    pub fn next_line(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.data[start..];
        let (raw, terminated) = match memchr::memchr(b'\n', rest) {
            Some(i) => {
                self.pos = start + i + 1;
                (&rest[..i], true)
            }
            None => {
                self.pos = self.data.len();
                (rest, false)
            }
        };
        let mut text = raw;
        while let Some(t) = text.strip_suffix(b"\r") {
            text = t;
        }
        self.number += 1;
        Some(Line {
            text,
            number: self.number,
            offset: start,
            terminated,
        })
    }

    /// The number of the last line returned (0 before the first).
    pub fn line_no(&self) -> usize {
        self.number
    }

    /// The byte offset of the next line.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The length of the whole buffer, in bytes.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }

    /// True when every line has been read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;
    fn next(&mut self) -> Option<Line<'a>> {
        self.next_line()
    }
}

/// The start of a line for an error message: at most `max` characters, lossily decoded.
pub fn shorten(text: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(text);
    if s.chars().count() <= max {
        return s.into_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push_str("...");
    out
}

/// Splits on ASCII whitespace, skipping empty fields.
pub fn fields(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
}

/// Parses an unsigned decimal integer made only of digits.
pub fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

/// Parses a decimal integer with an optional leading minus sign.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    match s.strip_prefix(b"-") {
        // Through i128: -9223372036854775808 (i64::MIN) has no positive counterpart in i64.
        Some(d) => parse_u64(d).and_then(|v| i64::try_from(-i128::from(v)).ok()),
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}
