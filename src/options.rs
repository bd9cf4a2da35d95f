//! What a check is asked to do, as the library takes it: typed options, filled by the command
//! line (src/cli.rs) or by a caller of the library, and the outcome a caller maps to an exit
//! status.

use std::path::PathBuf;

use spindle_core::pack::Selection;
pub use spindle_report::Order;

use crate::connect::ConnectOptions;
use crate::sources::Source;

/// How many servers are collected at once by default.
pub const DEFAULT_CONCURRENCY: usize = 16;

/// `spindle check`: where the facts come from, which packs judge them, where the report goes.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Where the facts come from: snapshot files, live servers, an inventory, this machine. A
    /// live server's snapshot merges with the files of the host it was reached at.
    pub sources: Vec<Source>,
    /// Servers collected at once.
    pub concurrency: usize,
    /// Keep each collected snapshot in this directory; reports then point into the files.
    pub save_snapshots: Option<PathBuf>,
    /// A server that cannot be collected does not make the run incomplete.
    pub allow_unreachable: bool,
    pub connect: ConnectOptions,
    /// Builtin pack names or TOML files, later ones overriding earlier ones; empty: the pack
    /// [`discover_config`](Self::discover_config) finds, else `recommended`.
    pub packs: Vec<String>,
    /// With no `packs`, look for `spindle.toml` (or `.spindle.toml`) in the working directory
    /// and its parents, and use it (see [`crate::packs::discover_config`]).
    pub discover_config: bool,
    /// `--select`, `--extend-select`, `--ignore`: over the packs' choice of rules.
    pub selection: Selection,
    pub format: Format,
    /// Where the report goes (atomically); `None` or `-`: standard output.
    pub output: Option<PathBuf>,
    pub fail_on: FailOn,
    /// Facts every host must have: a host without them cannot be judged, and the run is
    /// incomplete.
    pub require: Vec<Require>,
    /// Hosts checked at once from snapshot files; `None`: one per CPU.
    pub jobs: Option<usize>,
    /// How the text report looks: colour, width, how much it shows.
    pub text: TextStyle,
    /// For GitHub code scanning: the SARIF log's category, a log per host, waived findings.
    pub sarif: SarifOptions,
    /// A baseline file (`spindle baseline`): each finding is marked new or unchanged against
    /// it, and only new findings fail the run.
    pub baseline: Option<PathBuf>,
    /// The order of each host's findings: triage, or the largest expected gain first (in
    /// every format: the machine formats list the findings in that order too).
    pub order: Order,
    /// `--shard I/N`: check only this share of the hosts, into a shard file for `spindle merge`.
    pub shard: Option<crate::shard::Shard>,
}

/// Which packs judge and which of their rules run, as every subcommand that runs or lists rules
/// takes them: `--pack`, `--no-config`, `--select`, `--extend-select`, `--ignore`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleChoice {
    /// Builtin pack names or TOML files; empty: the pack discovery finds, else `recommended`.
    pub packs: Vec<String>,
    /// With no `packs`, look for the project's `spindle.toml` (see
    /// [`crate::packs::discover_config`]).
    pub discover_config: bool,
    pub selection: Selection,
}

/// `--sarif-category`, `--split-by`, `--waived`: what GitHub code scanning needs of a SARIF log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SarifOptions {
    /// GitHub's analysis category (`runAutomationDetails.id`); with `split_by`, the prefix of
    /// each log's.
    pub category: Option<String>,
    /// One log per host into a directory, rather than one log to `output`.
    pub split_by: Option<SplitBy>,
    pub waived: Waived,
}

/// `--split-by WHAT DIR`: `what` is `host` (the only split there is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitBy {
    pub what: String,
    pub dir: PathBuf,
}

pub use spindle_report::sarif::Waived;

/// The text report's look, as asked for; the library settles `Auto` and the width against the
/// terminal and the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextStyle {
    pub colour: Colour,
    /// Columns to wrap to; `None`: the terminal's width, else `COLUMNS`, else 100.
    pub width: Option<usize>,
    pub detail: Detail,
    /// List every check not evaluated rather than one line per missing fact.
    pub show_not_evaluated: bool,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Colour {
    /// On a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` or `CLICOLOR_FORCE` force it.
    #[default]
    Auto,
    Always,
    Never,
}

pub use spindle_report::text::Detail;

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            sources: vec![],
            concurrency: DEFAULT_CONCURRENCY,
            save_snapshots: None,
            allow_unreachable: false,
            connect: ConnectOptions::default(),
            packs: vec![],
            discover_config: false,
            selection: Selection::default(),
            format: Format::named("text").expect("text is a format"),
            output: None,
            fail_on: FailOn::Error,
            require: vec![],
            jobs: None,
            text: TextStyle::default(),
            sarif: SarifOptions::default(),
            baseline: None,
            order: Order::Triage,
            shard: None,
        }
    }
}

/// The report's format: one of `spindle_report::formats::FORMATS`.
pub use spindle_report::formats::Format;

/// The lowest severity of an unwaived finding that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Error,
    Warning,
    /// Notes, and rules not evaluated for lack of facts.
    Note,
    Never,
}

/// A collector's facts a run requires of every host (`--require`), so that a pipeline can fail
/// when spindle could not see them rather than pass on what it could.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Require {
    /// SQL Server's facts: `sql_instances` collected, with at least one instance.
    Sql,
    /// The host's storage: `disks`, `partitions` and `volumes` collected.
    Host,
}

impl Require {
    /// The word `--require` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Require::Sql => "sql",
            Require::Host => "host",
        }
    }
}

/// How a check that ran to the end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// No unwaived finding at or above `fail_on`.
    Clean,
    /// Such findings.
    Findings,
    /// A rule failed, a host could not be judged (no rule could be evaluated on it, or facts
    /// `require` names are missing), or a server gave no facts (without `allow_unreachable`):
    /// the report is marked incomplete.
    Incomplete,
}

impl Exit {
    /// The process exit status: 0, 1 or 2 (2 is also bad input or usage).
    pub fn code(self) -> u8 {
        match self {
            Exit::Clean => 0,
            Exit::Findings => 1,
            Exit::Incomplete => 2,
        }
    }
}
