//! Stage 4: render the aggregated profile in the chosen output mode, one module per mode.

pub mod callgrind;
pub mod collapsed;
pub mod disasm;
pub mod dot;
pub mod flame;
pub mod graphviz;
pub mod list;
pub mod peek;
pub mod proto;
pub mod raw;
pub mod source;
pub mod stacks;
pub mod symbols;
pub mod text;
pub mod traces;
pub mod trend;

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The output modes of pprof (and rpprof's additions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// `--text`.
    #[default]
    Text,
    /// `--callgrind`.
    Callgrind,
    /// `--collapsed`.
    Collapsed,
    /// `--raw`.
    Raw,
    /// `--dot`.
    Dot,
    /// `--svg`.
    Svg,
    /// `--pdf`.
    Pdf,
    /// `--ps`.
    Ps,
    /// `--gif`.
    Gif,
    /// `--gv`.
    Gv,
    /// `--evince`.
    Evince,
    /// `--web`.
    Web,
    /// `--list=<regexp>`.
    List,
    /// `--disasm=<regexp>`.
    Disasm,
    /// `--symbols`.
    Symbols,
    /// `--interactive`.
    Interactive,
    /// `--flame` (rpprof).
    Flame,
    /// `--proto` (rpprof).
    Proto,
    /// `--traces` (Go pprof's).
    Traces,
    /// `--peek=<regexp>` (Go pprof's).
    Peek,
    /// The stacks as JSON, for the web UI's flame graph ([`stacks`]); no option selects it.
    FlameData,
    /// `--trend` (rpprof): the leak trend of a series of dumps, in one of its formats.
    Trend(TrendFormat),
}

/// The formats of `--trend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrendFormat {
    /// A table with a sparkline per site (`--trend`, `--trend --text`).
    #[default]
    Text,
    /// `--trend --csv`.
    Csv,
    /// `--trend --json`.
    Json,
    /// `--trend --svg`: a chart of the total and the top sites.
    Svg,
}

impl Mode {
    /// The option that selects this mode.
    pub fn flag(self) -> &'static str {
        match self {
            Mode::Text => "--text",
            Mode::Callgrind => "--callgrind",
            Mode::Collapsed => "--collapsed",
            Mode::Raw => "--raw",
            Mode::Dot => "--dot",
            Mode::Svg => "--svg",
            Mode::Pdf => "--pdf",
            Mode::Ps => "--ps",
            Mode::Gif => "--gif",
            Mode::Gv => "--gv",
            Mode::Evince => "--evince",
            Mode::Web => "--web",
            Mode::List => "--list",
            Mode::Disasm => "--disasm",
            Mode::Symbols => "--symbols",
            Mode::Interactive => "--interactive",
            Mode::Flame => "--flame",
            Mode::Proto => "--proto",
            Mode::Traces => "--traces",
            Mode::Peek => "--peek",
            Mode::Trend(_) => "--trend",
            Mode::FlameData => "--http",
        }
    }
}
