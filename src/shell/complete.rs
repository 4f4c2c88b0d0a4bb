//! Tab completion in the shell: command names, option names and their values, and the
//! function names of the loaded profile where a command takes a regular expression.

use super::commands::{COMMANDS, GRANULARITIES, OPTIONS};

/// What completion knows about the session.
#[derive(Debug, Default)]
pub struct Words {
    /// The names `sample_index=` takes.
    pub sample_types: Vec<String>,
    /// The profile's function names (short names), sorted, once each.
    pub functions: Vec<String>,
}

/// What the word under the cursor is.
#[derive(Debug, PartialEq, Eq)]
pub enum Completion {
    /// Candidates replacing the text from `start` to the cursor.
    Words {
        /// Where the word starts.
        start: usize,
        /// The candidates.
        words: Vec<String>,
    },
    /// A file name starting at `start`.
    File {
        /// Where the file name starts.
        start: usize,
    },
}

/// The commands whose words are regular expressions over function names.
const TAKES_FUNCTIONS: &[&str] = &[
    "top",
    "text",
    "list",
    "weblist",
    "disasm",
    "peek",
    "web",
    "gv",
    "evince",
    "traces",
    "dot",
    "svg",
    "pdf",
    "ps",
    "gif",
    "collapsed",
    "flame",
    "proto",
    "raw",
];

impl Words {
    /// The completions of `line` with the cursor at byte `pos`.
    pub fn complete(&self, line: &str, pos: usize) -> Completion {
        let pos = pos.min(line.len());
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map_or(0, |i| {
            i + head[i..].chars().next().map_or(1, char::len_utf8)
        });
        let word = &head[start..];
        let first = head[..start].split_whitespace().next();
        let Some(first) = first else {
            // The first word: a command, an option (name= or name=value), a shortcut.
            if let Some((name, value)) = word.split_once('=') {
                let vstart = start + name.len() + 1;
                return self.values(name, value, vstart);
            }
            // A command is completed with the space that follows it.
            let mut words: Vec<String> = COMMANDS
                .iter()
                .map(|c| format!("{} ", c.0))
                .chain(["exit ", "o "].iter().map(|s| s.to_string()))
                .chain(OPTIONS.iter().map(|o| format!("{}=", o.0)))
                .chain(self.sample_types.iter().cloned())
                .chain(GRANULARITIES.iter().map(|g| g.to_string()))
                .filter(|w| w.starts_with(word))
                .collect();
            words.sort();
            words.dedup();
            return Completion::Words { start, words };
        };
        let command = first.trim_end_matches(|c: char| c.is_ascii_digit());
        if word.starts_with('>') {
            // (`>file` or `>>file`.)
            let marks = if word.starts_with(">>") { 2 } else { 1 };
            return Completion::File {
                start: start + marks,
            };
        }
        match command {
            "help" => {
                let mut words: Vec<String> = COMMANDS
                    .iter()
                    .map(|c| c.0)
                    .chain(OPTIONS.iter().map(|o| o.0))
                    .filter(|w| w.starts_with(word))
                    .map(str::to_string)
                    .collect();
                words.sort();
                Completion::Words { start, words }
            }
            "callgrind" => Completion::File { start },
            c if TAKES_FUNCTIONS.contains(&c) => {
                let (start, word) = match word.strip_prefix('-') {
                    Some(w) if !w.starts_with('-') => (start + 1, w),
                    _ => (start, word),
                };
                Completion::Words {
                    start,
                    words: self.functions(word),
                }
            }
            _ => Completion::Words {
                start,
                words: Vec::new(),
            },
        }
    }

    /// The values of option `name` starting with `prefix` (at `start`).
    fn values(&self, name: &str, prefix: &str, start: usize) -> Completion {
        let pick = |all: &[&str]| -> Vec<String> {
            all.iter()
                .filter(|v| v.starts_with(prefix))
                .map(|v| v.to_string())
                .collect()
        };
        let words = match name {
            "sample_index" => {
                let types: Vec<&str> = self.sample_types.iter().map(String::as_str).collect();
                pick(&types)
            }
            "granularity" => pick(GRANULARITIES),
            "cum" | "drop_negative" | "show_bytes" => pick(&["true", "false"]),
            "focus" | "ignore" | "hide" | "show" => self.functions(prefix),
            "base" => return Completion::File { start },
            _ => Vec::new(),
        };
        Completion::Words { start, words }
    }

    /// The function names starting with `prefix`.
    fn functions(&self, prefix: &str) -> Vec<String> {
        let from = self.functions.partition_point(|f| f.as_str() < prefix);
        self.functions[from..]
            .iter()
            .take_while(|f| f.starts_with(prefix))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        Words {
            sample_types: [
                "inuse_objects",
                "inuse_space",
                "alloc_objects",
                "alloc_space",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            functions: ["main", "tdata::index::grow", "tdata::store::Slab::take"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }

    fn list(c: Completion) -> (usize, Vec<String>) {
        match c {
            Completion::Words { start, words } => (start, words),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn commands_options_values_functions() {
        let w = words();
        assert_eq!(list(w.complete("to", 2)), (0, vec!["top ".to_string()]));
        assert_eq!(
            list(w.complete("sample_i", 8)),
            (0, vec!["sample_index=".to_string()])
        );
        assert_eq!(
            list(w.complete("sample_index=al", 15)),
            (
                13,
                vec!["alloc_objects".to_string(), "alloc_space".to_string()]
            )
        );
        assert_eq!(
            list(w.complete("granularity=l", 13)),
            (12, vec!["lines".to_string()])
        );
        assert_eq!(
            list(w.complete("list tdata::i", 13)),
            (5, vec!["tdata::index::grow".to_string()])
        );
        assert_eq!(
            list(w.complete("top20 -tdata::s", 15)),
            (7, vec!["tdata::store::Slab::take".to_string()])
        );
        assert_eq!(
            list(w.complete("focus=ma", 8)),
            (6, vec!["main".to_string()])
        );
        assert_eq!(
            list(w.complete("help pe", 7)),
            (5, vec!["peek".to_string()])
        );
        assert_eq!(w.complete("base=/tm", 8), Completion::File { start: 5 });
        assert_eq!(w.complete("top >ou", 7), Completion::File { start: 5 });
        assert_eq!(w.complete("top >>ou", 8), Completion::File { start: 6 });
    }
}
