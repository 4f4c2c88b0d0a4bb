//! The shell on a terminal: line editing, history across sessions, reverse search
//! (Ctrl-R) and tab completion, by rustyline.
//!
//! The editor reads and draws on the terminal itself (`/dev/tty`), so reports on standard
//! output can still be redirected. History is kept in `$XDG_STATE_HOME/rpprof/history`
//! (`~/.local/state/rpprof/history` when that is not set).

use std::io::Write;
use std::path::PathBuf;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Behavior, CompletionType, Config, Context, Editor, Helper};

use super::complete::{Completion, Words};
use super::{Input, Shell};

/// What the editor asks for completions.
struct Completions {
    words: Words,
    files: FilenameCompleter,
}

impl Completer for Completions {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match self.words.complete(line, pos) {
            Completion::Words { start, words } => Ok((
                start,
                words
                    .into_iter()
                    .map(|w| Pair {
                        display: w.clone(),
                        replacement: w,
                    })
                    .collect(),
            )),
            Completion::File { start } => {
                // The file name alone, so that `base=` and `>` are not taken for part of it.
                let (_, pairs) = self.files.complete(&line[start..pos], pos - start, ctx)?;
                Ok((start, pairs))
            }
        }
    }
}

impl Hinter for Completions {
    type Hint = String;
}
impl Highlighter for Completions {}
impl Validator for Completions {}
impl Helper for Completions {}

/// Lines read from a terminal.
pub struct Terminal {
    editor: Editor<Completions, FileHistory>,
    history: Option<PathBuf>,
    /// The lines after the first of text pasted in one piece (bracketed paste gives them
    /// to the editor as one line), each run in its turn as if typed.
    pasted: std::collections::VecDeque<String>,
}

/// Where the shell's history is kept.
pub fn history_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|s| !s.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("state"))
        })?;
    Some(state.join("rpprof").join("history"))
}

impl Terminal {
    /// An editor completing with what `shell` knows; `None` when the terminal cannot be
    /// used (the caller reads plain lines then).
    pub fn new(shell: &Shell, err: &mut dyn Write) -> Option<Terminal> {
        let config = Config::builder()
            .behavior(Behavior::PreferTerm)
            .completion_type(CompletionType::List)
            .auto_add_history(false)
            .history_ignore_space(true)
            .max_history_size(5000)
            .ok()?
            .history_ignore_dups(true)
            .ok()?
            .build();
        let mut editor: Editor<Completions, FileHistory> = Editor::with_config(config).ok()?;
        let mut functions: Vec<String> = shell
            .session()
            .symbols
            .iter()
            .flat_map(|(_, frames)| frames.iter().map(|f| f.short.to_string()))
            .collect();
        functions.sort_unstable();
        functions.dedup();
        editor.set_helper(Some(Completions {
            words: Words {
                sample_types: shell.sample_types().iter().map(|s| s.to_string()).collect(),
                functions,
            },
            files: FilenameCompleter::new(),
        }));
        let history = history_file();
        if let Some(h) = &history {
            if let Some(dir) = h.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if h.exists()
                && let Err(e) = editor.load_history(h)
            {
                // A history whose bytes cannot be read cannot be added to either: it is put
                // aside under a name not taken (not lost) and a new one started.
                let damaged = matches!(&e, ReadlineError::Io(io) if io.kind() == std::io::ErrorKind::InvalidData);
                let aside = damaged
                    .then(|| {
                        (0..100).find_map(|n| {
                            let mut a = h.clone().into_os_string();
                            a.push(if n == 0 {
                                ".bad".to_string()
                            } else {
                                format!(".bad.{n}")
                            });
                            let a = PathBuf::from(a);
                            (!a.exists() && std::fs::rename(h, &a).is_ok()).then_some(a)
                        })
                    })
                    .flatten();
                let _ = writeln!(
                    err,
                    "rpprof: {}: history not read ({e}){}",
                    h.display(),
                    aside.map_or_else(String::new, |a| format!(
                        "; kept as {}, a new one is started",
                        a.display()
                    ))
                );
            }
        }
        catch_interrupts();
        Some(Terminal {
            editor,
            history,
            pasted: Default::default(),
        })
    }
}

/// Ctrl-C while a command runs (the editor reads the key itself at the prompt; while a
/// command runs the terminal sends SIGINT): a request to stop it ([`crate::cancel`]).
#[cfg(target_os = "linux")]
extern "C" fn on_interrupt(_: libc::c_int) {
    crate::cancel::request();
}

/// Makes Ctrl-C during a command stop the command (its report, and the programs it runs:
/// they get the signal too) instead of the shell, as in a shell: the profiles stay loaded.
fn catch_interrupts() {
    #[cfg(target_os = "linux")]
    // SAFETY: the handler only stores to an atomic (async-signal-safe); the sigaction
    // structure is zeroed and then filled as the C API expects.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// The reports' writer at a terminal: after a Ctrl-C, writing fails (the command stops
/// with "interrupted") until the next prompt.
pub struct Interruptible<'a>(pub &'a mut dyn Write);

impl Write for Interruptible<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        crate::cancel::check()?;
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        crate::cancel::check()?;
        self.0.flush()
    }
}

impl Terminal {
    /// Keeps `line` in the history (and its file).
    fn remember(&mut self, line: &str) {
        if !line.trim().is_empty()
            && self.editor.add_history_entry(line).unwrap_or(false)
            && let Some(h) = &self.history
        {
            let _ = self.editor.append_history(h);
        }
    }
}

impl Input for Terminal {
    fn read_line(&mut self, prompt: &str, err: &mut dyn Write) -> Option<String> {
        crate::cancel::clear();
        if let Some(line) = self.pasted.pop_front() {
            // Shown as the editor shows a line typed.
            let _ = writeln!(err, "{prompt}{line}");
            self.remember(&line);
            return Some(line);
        }
        loop {
            match self.editor.readline(prompt) {
                Ok(text) => {
                    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
                    let line = lines.next().unwrap_or_default().to_string();
                    self.pasted.extend(lines.map(str::to_string));
                    // A paste ending in a line end leaves nothing after it to run.
                    if self.pasted.back().is_some_and(|l| l.is_empty()) {
                        self.pasted.pop_back();
                    }
                    self.remember(&line);
                    return Some(line);
                }
                // Ctrl-C drops the line being typed, as in a shell.
                Err(ReadlineError::Interrupted) => continue,
                // (The editor has ended the prompt's line.)
                Err(ReadlineError::Eof) => return None,
                // Bytes that are not UTF-8 text (a key the terminal sends in another
                // encoding, binary pasted in): the line is dropped, the shell goes on.
                Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                    let _ = writeln!(
                        err,
                        "rpprof: the line typed is not UTF-8 text; it is dropped"
                    );
                }
                Err(e) => {
                    let _ = writeln!(err, "rpprof: cannot read the terminal: {e}");
                    return None;
                }
            }
        }
    }
}
