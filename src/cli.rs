//! The command line: clap's description of it, and how it maps onto the library's typed
//! options. Nothing else of the program knows about it.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use spindle::commands::baseline::BaselineOptions;
use spindle::commands::diff::{DiffFormat, DiffOptions};
use spindle::commands::explain::RulesFormat as LibRulesFormat;
use spindle::connect::{ConnectOptions, DEFAULT_PASSWORD_ENV, Encrypt, parse_duration};
use spindle::options::{
    CheckOptions, Colour as LibColour, DEFAULT_CONCURRENCY, Detail, FailOn as LibFailOn, Format as LibFormat,
    Order, Require as LibRequire, SarifOptions, SplitBy, TextStyle, Waived,
};
use spindle::sources::Source;
use spindle_core::pack::Selection;
use spindle_report::diff::DIFF_FORMATS;
use spindle_report::plan::{PLAN_FORMATS, PlanFormat};

/// spindle: a linter for SQL Server storage. It reads facts snapshots (partition offsets,
/// cluster sizes, stripe units, file placement, I/O stalls) and says what is wrong, why it
/// matters and how to fix it.
#[derive(Debug, Parser)]
#[command(name = "spindle", bin_name = "spindle", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What `spindle check --help` ends with: how a pipeline reads the outcome.
const CHECK_EXIT_STATUS: &str = "\
Exit status:
  0  no unwaived finding at or above --fail-on (with --baseline: no new one)
  1  such findings
  2  bad input or usage (nothing written; a stale --output report is removed), or an incomplete
     run (report written and marked incomplete): a rule failed, a server's facts could not be
     collected (the SQL Server of --local included; unless --allow-unreachable), or a host could
     not be judged (no rule could be evaluated on it, or it lacks what --require names)";

/// What `spindle plan --help` ends with.
const PLAN_EXIT_STATUS: &str = "\
Exit status:
  0  the plan was written
  2  bad input or usage (nothing written), or a host could not be fully checked (the plan is
     written, and covers only what was seen)";
/// What `spindle diff --help` ends with.
const DIFF_EXIT_STATUS: &str = "\
Exit status:
  0  the diff was written (whatever it shows, unless --fail-on-new)
  1  with --fail-on-new: a finding that is not waived is new in AFTER
  2  bad input or usage: nothing written (a stale --output is removed)";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check facts snapshots against rule packs.
    #[command(after_help = CHECK_EXIT_STATUS)]
    Check(Box<CheckArgs>),
    /// Merge the shard files of a sharded check (`spindle check --shard I/N`) into the report
    /// one unsharded run would have written, in the format the shards were asked for. Exit
    /// status: the run's, as `spindle check` gives it (0, 1, 2); 2 also when a shard is missing,
    /// repeated, unfinished or from another run (nothing written).
    Merge(MergeArgs),
    /// Record today's findings by fingerprint, so that `spindle check --baseline FILE` fails
    /// only on new ones: for adopting spindle on a fleet that already has findings. Exit status 0
    /// when written; 2 on bad input or an incomplete run (written, but what could not be checked
    /// is missing from it).
    Baseline(Box<BaselineArgs>),
    /// Turn each host's findings into an ordered change plan a DBA reviews and runs: online
    /// changes first, then what takes effect at a restart, then each outage that rebuilds volumes
    /// (databases offline, files copied off, partition realigned, formatted, copied back), then
    /// manual steps; each with its preconditions, its undo, destructive steps marked, and the
    /// expected gain where public measurements support one. spindle never runs the plan.
    #[command(after_help = PLAN_EXIT_STATUS)]
    Plan(Box<PlanArgs>),
    /// Compare two snapshots (or directories of them) of the same hosts: findings new, fixed
    /// and unchanged, layout changes (partition offsets, clusters, columns and interleave, files
    /// moved, growth settings, databases and files added or removed), and each file's latency
    /// and throughput before and after.
    #[command(after_help = DIFF_EXIT_STATUS)]
    Diff(Box<DiffArgs>),
    /// List the builtin rules: code, name, default severity, packs. With a pack (--pack, or the
    /// project's spindle.toml as `check` finds it), also the rules of the packs' plugins, and
    /// whether the packs (and --select, --ignore) enable each rule.
    Rules {
        #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
        format: RulesFormat,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Show a rule's documentation: what it checks, why it matters, how to fix it, references.
    Explain {
        /// Rule code (`ALN001`), name (`partition-offset-alignment`), or code prefix (`GRW`:
        /// lists the rules it covers). A plugin's rule (`acme/ACM001`) needs the pack that
        /// declares its plugin: the project's spindle.toml, or --pack.
        rule: String,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Write a commented starter pack (spindle.toml): extends recommended, a waiver template,
    /// and the stripe units the given snapshots need declared.
    Init {
        /// Snapshot files or directories whose missing declarations to list in the pack.
        #[arg(value_name = "FILE|DIR")]
        snapshots: Vec<PathBuf>,
        /// Where to write the pack.
        #[arg(long, short, value_name = "FILE", default_value = "spindle.toml")]
        output: PathBuf,
        /// Replace the file if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Print a shell completion script: `spindle completions bash > ~/.local/share/bash-completion/completions/spindle`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a JSON Schema: of the facts snapshot or of rule packs.
    Schema {
        #[arg(value_enum)]
        which: SchemaKind,
    },
    /// Collect a facts snapshot and save it, as evidence or for a later `spindle check`.
    Collect {
        #[command(subcommand)]
        command: CollectCommand,
    },
    /// Work with WASM rule plugins.
    Plugin {
        #[command(subcommand)]
        command: PluginCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum CollectCommand {
    /// Read a SQL Server's files, volumes and I/O counters over TDS (read-only; needs VIEW
    /// SERVER STATE, or VIEW SERVER PERFORMANCE STATE on 2022+).
    Sql {
        /// The server: `host`, `host\instance` (through the SQL Browser) or `host,port`.
        #[arg(long, value_name = "SERVER")]
        server: String,
        #[command(flatten)]
        connect: ConnectArgs,
        /// Write the snapshot to FILE (atomically) rather than to stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Read this machine's storage facts (Linux sysfs, Windows storage CIM), or those of a disk
    /// image or raw device from its bytes: partition offsets, cluster sizes, stripe geometry.
    Host {
        /// A raw disk image or a fixed VHD (golden VM images, cloud disks before deployment).
        #[arg(long, value_name = "FILE", conflicts_with = "device")]
        image: Option<PathBuf>,
        /// A block device, read directly (needs read access to it, usually root).
        #[arg(long, value_name = "DEVICE")]
        device: Option<PathBuf>,
        /// The host name to record (default: this machine's, or the image file's name).
        #[arg(long = "host", value_name = "NAME")]
        host_name: Option<String>,
        /// Write the snapshot to FILE (atomically) rather than to stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Read every SQL Server of an inventory (or share I/N of them, --shard), a snapshot per
    /// server into DIR, for a later `spindle check DIR`: collect in each network segment, check
    /// centrally. Exit status 0 when every server was collected, 2 when one was not (unless
    /// --allow-unreachable) or on bad input.
    Inventory(Box<CollectInventoryArgs>),
}

/// `spindle collect inventory`.
#[derive(Debug, clap::Args)]
pub struct CollectInventoryArgs {
    /// The inventory (TOML: `[[server]]` entries with optional login and tags).
    #[arg(value_name = "FILE")]
    pub inventory: PathBuf,
    /// Where the snapshots go, one `<server>.json` each (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Only the servers with this tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Collect only share I of N of the servers, by a hash of the host name, as `spindle check
    /// --shard` splits them.
    #[arg(long, value_name = "I/N", value_parser = clap::value_parser!(spindle::shard::Shard))]
    pub shard: Option<spindle::shard::Shard>,
    /// Servers collected at once (1 or more).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONCURRENCY as u16,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,
    /// A server that cannot be collected is said on stderr but does not fail the run (exit 2).
    #[arg(long)]
    pub allow_unreachable: bool,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// Load a plugin as `spindle check` would and show what it declares: its pack info, the
    /// contract version it was built against, and each rule with its parameters.
    Inspect {
        /// The plugin: a WASI 0.2 component (`.wasm`).
        #[arg(value_name = "FILE.wasm")]
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = InspectFormat::Text)]
        format: InspectFormat,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InspectFormat {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Snapshot files (`.json`) or directories of them; `-` reads one from standard input. Files
    /// of the same host merge into one view (volumes join by volume id).
    #[arg(value_name = "FILE|DIR", required_unless_present_any = ["servers", "inventory", "local"])]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub exclude: ExcludeArgs,
    /// Check this machine: its host facts, merged with the local SQL Server's when one answers
    /// (`--server` names the local instance; default `localhost`). The pre-go-live one-liner. A
    /// SQL Server that cannot be read is a collection error, as for --server.
    #[arg(long, conflicts_with = "inventory", help_heading = "Live collection")]
    pub local: bool,
    /// Collect from this SQL Server and check it: `host`, `host\instance` or `host,port`.
    /// Repeatable.
    #[arg(long = "server", value_name = "SERVER", help_heading = "Live collection")]
    pub servers: Vec<String>,
    /// Collect from every server of an inventory (TOML: `[[server]]` entries with optional
    /// login, pack and tags).
    #[arg(long, value_name = "FILE", help_heading = "Live collection")]
    pub inventory: Option<PathBuf>,
    /// Only the inventory's servers with this tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "TAG", requires = "inventory", help_heading = "Live collection")]
    pub tags: Vec<String>,
    /// Servers collected at once (1 or more).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONCURRENCY as u16,
          value_parser = clap::value_parser!(u16).range(1..), help_heading = "Live collection")]
    pub concurrency: u16,
    /// Save each collected snapshot in DIR (named for the server); reports then point into
    /// these files.
    #[arg(long, value_name = "DIR", help_heading = "Live collection")]
    pub save_snapshots: Option<PathBuf>,
    /// A server that cannot be collected (with --local: the local SQL Server) is reported but
    /// does not make the run incomplete (exit status 2). --require sql overrides it.
    #[arg(long, help_heading = "Live collection")]
    pub allow_unreachable: bool,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The report's format.
    #[arg(long, default_value = "text", value_parser = format_values(), long_help = format_help())]
    pub format: String,
    /// Colour the text report: `auto` on a terminal unless NO_COLOR is set (FORCE_COLOR or
    /// CLICOLOR_FORCE colour it anywhere).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto, help_heading = "Text report")]
    pub color: ColorArg,
    /// Only each host's verdict, counts and table of finding groups.
    #[arg(long, short, conflicts_with = "verbose", help_heading = "Text report")]
    pub quiet: bool,
    /// Also every finding's own message, every check not evaluated and every one not applicable.
    #[arg(long, short, help_heading = "Text report")]
    pub verbose: bool,
    /// List every check not evaluated, rather than one line per missing fact.
    #[arg(long, help_heading = "Text report")]
    pub show_not_evaluated: bool,
    /// Write the report to FILE (atomically: a failed run leaves no partial or stale file; a
    /// replaced file keeps its mode and owner; a device or pipe such as /dev/stdout is written
    /// into as the run goes, as stdout is; - is stdout), and a one-line summary of the run, with
    /// why it failed, to stderr.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit with status 1 when a finding at or above this severity is not waived. `note` also
    /// counts checks not evaluated for lack of a fact (never those not applicable).
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Exit with status 2 (the run is incomplete) when a host lacks these facts: `sql` — SQL
    /// Server's (sql_instances; a server that could not be reached fails it too, whatever
    /// --allow-unreachable says), `host` — the host's storage (disks, partitions and volumes).
    /// Comma-separated or repeated: `--require sql,host`.
    #[arg(long, value_enum, value_name = "FACTS", value_delimiter = ',')]
    pub require: Vec<RequireArg>,
    /// Hosts checked at once from snapshot files (default: one per CPU). The report lists them
    /// in file order whatever the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// GitHub code scanning's category for the log (`runAutomationDetails.id`, `NAME/`): runs
    /// uploaded for one commit need distinct ones. With --split-by, each host's category is
    /// `NAME/<host>/` (default `spindle/<host>/`).
    #[arg(long, value_name = "NAME", value_parser = clap::builder::NonEmptyStringValueParser::new(),
          help_heading = "SARIF")]
    pub sarif_category: Option<String>,
    /// Write one SARIF log per host (and per server not collected) into DIR, `<host>.sarif`, each
    /// its own category, rather than one log; DIR must hold no .sarif file. The exit status is
    /// the run's, as without.
    #[arg(long, num_args = 2, value_names = ["host", "DIR"], conflicts_with = "output",
          help_heading = "SARIF")]
    pub split_by: Option<Vec<PathBuf>>,
    /// Findings under a waiver (GitHub ignores SARIF suppressions): `keep` a result at its
    /// severity with a suppression; `note`: the same at level note, the message naming the
    /// waiver; `omit`: no result, counted in the run's properties.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = WaivedArg::Note, help_heading = "SARIF")]
    pub waived: WaivedArg,
    /// A baseline (`spindle baseline`): findings are marked new or unchanged, the baseline's
    /// findings not found again are counted as fixed, and only new findings fail the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Order of each host's findings: the most serious and harmful first (`triage`), or the
    /// largest expected gain of fixing them first (`gain`; a latency cut ranks as the speed-up
    /// it gives), then those with no estimate in triage order.
    #[arg(long, value_enum, default_value_t = CheckSort::Triage)]
    pub sort: CheckSort,
    /// Check only share I of N of the hosts (snapshot files and servers alike, by a hash of the
    /// host name: adding a server moves only that server), for a CI matrix, GitLab `parallel:`
    /// or a Kubernetes Indexed Job. Writes a shard file, not a report: `spindle merge` of all N
    /// gives the report --format asks for, byte for byte as one unsharded run would write it,
    /// and the run's exit status. A shard exits 0 once its file is written.
    #[arg(long, value_name = "I/N", value_parser = clap::value_parser!(spindle::shard::Shard))]
    pub shard: Option<spindle::shard::Shard>,
}

/// `spindle merge`: shard files into the report of the whole run.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shard files of one run (`spindle check --shard I/N -o FILE`), all N of them, in any
    /// order; a directory stands for every file under it.
    #[arg(value_name = "SHARD|DIR", required = true)]
    pub shards: Vec<PathBuf>,
    /// Write the report to FILE (atomically; - is stdout), and the run's one-line summary to
    /// stderr.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckSort {
    Triage,
    Gain,
}

/// `spindle diff`: two sides, the rule choice of `spindle check`, and where the diff goes.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The snapshot file or directory before the change (`-`: standard input).
    #[arg(value_name = "BEFORE")]
    pub before: PathBuf,
    /// The snapshot file or directory of the same hosts after it.
    #[arg(value_name = "AFTER")]
    pub after: PathBuf,
    #[command(flatten)]
    pub exclude: ExcludeArgs,
    /// Both sides are checked with the same packs and selection.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The diff's format: for people, for programs or for a change ticket.
    #[arg(long, default_value = "text", value_parser = diff_format_values(), long_help = diff_format_help())]
    pub format: String,
    /// Write the diff to FILE (atomically: a failed run leaves no partial or stale file; - is
    /// stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit with status 1 when a finding that is not waived is new in AFTER (a nightly drift
    /// check).
    #[arg(long)]
    pub fail_on_new: bool,
    /// Hosts compared at once (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

impl From<DiffArgs> for DiffOptions {
    fn from(a: DiffArgs) -> Self {
        DiffOptions {
            before: a.before,
            after: a.after,
            exclude: a.exclude.exclude,
            packs: a.config.packs,
            discover_config: !a.config.no_config,
            selection: a.config.selection.into(),
            format: DiffFormat::named(&a.format).expect("clap offers only the registry's diff formats"),
            output: a.output,
            fail_on_new: a.fail_on_new,
            jobs: a.jobs.map(usize::from),
        }
    }
}

/// `spindle baseline`: the inputs and rule choice of `spindle check`, and where the baseline goes.
#[derive(Debug, clap::Args)]
pub struct BaselineArgs {
    /// Snapshot files (`.json`) or directories of them, as for `spindle check`.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub exclude: ExcludeArgs,
    /// Where to write the baseline (atomically).
    #[arg(long, short, value_name = "FILE", default_value = "spindle-baseline.json")]
    pub output: PathBuf,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Facts every host must have, as for `spindle check`.
    #[arg(long, value_enum, value_name = "FACTS", value_delimiter = ',')]
    pub require: Vec<RequireArg>,
    /// Hosts checked at once (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Snapshot files (`.json`) or directories of them, as for `spindle check`.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub exclude: ExcludeArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The plan's format: a runbook for people, or one host's script.
    #[arg(long, default_value = "text", value_parser = plan_format_values(), long_help = plan_format_help())]
    pub format: String,
    /// Write the plan to FILE (atomically) rather than to stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Order of the steps within each phase: as they depend on each other (`steps`), or the
    /// largest expected gain first (`gain`). Phases always run in order.
    #[arg(long, value_enum, default_value_t = PlanSort::Steps)]
    pub sort: PlanSort,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanSort {
    Steps,
    Gain,
}

impl From<PlanArgs> for spindle::commands::plan::PlanOptions {
    fn from(a: PlanArgs) -> Self {
        spindle::commands::plan::PlanOptions {
            inputs: a.inputs,
            exclude: a.exclude.exclude,
            packs: a.config.packs,
            discover_config: !a.config.no_config,
            selection: a.config.selection.into(),
            format: PlanFormat::named(&a.format).expect("clap offers only the registry's plan formats"),
            output: a.output,
            by_gain: a.sort == PlanSort::Gain,
        }
    }
}

impl From<BaselineArgs> for BaselineOptions {
    fn from(a: BaselineArgs) -> Self {
        BaselineOptions {
            sources: vec![Source::files(a.inputs, a.exclude.exclude)],
            output: a.output,
            rules: a.config.into(),
            require: a.require.into_iter().map(RequireArg::into).collect(),
            jobs: a.jobs.map(usize::from),
        }
    }
}

impl From<RequireArg> for LibRequire {
    fn from(r: RequireArg) -> Self {
        match r {
            RequireArg::Sql => LibRequire::Sql,
            RequireArg::Host => LibRequire::Host,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WaivedArg {
    Keep,
    Note,
    Omit,
}

/// Files and folders a directory walk leaves out.
#[derive(Debug, Clone, Args)]
pub struct ExcludeArgs {
    /// Leave out of a directory's walk the files and folders this glob matches (repeatable):
    /// without `/`, their name (`*.bak`, `archive`); with `/`, their path below the directory
    /// given (`old/*`). Other files that are not snapshots are skipped with a note.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
}

/// Which packs judge and which rules run: one set of flags for every subcommand that runs or
/// lists rules (`check`, `baseline`, `plan`, `diff`, `rules`, `explain`), so that each finds and
/// applies the project's spindle.toml as the others do.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// Rule pack: a builtin name (recommended, oltp, data-warehouse) or a TOML file. Repeatable;
    /// later packs override earlier ones. Default: spindle.toml (or .spindle.toml) in the working
    /// directory or the nearest parent that has one, up to the repository's top folder (.git) or
    /// the home folder, and only if no other user could have written it; else recommended.
    #[arg(long = "pack", value_name = "NAME|FILE")]
    pub packs: Vec<String>,
    /// Do not look for spindle.toml or .spindle.toml: with no --pack, the recommended pack.
    #[arg(long, visible_alias = "isolated")]
    pub no_config: bool,
    #[command(flatten)]
    pub selection: SelectionArgs,
}

impl From<ConfigArgs> for spindle::options::RuleChoice {
    fn from(a: ConfigArgs) -> Self {
        spindle::options::RuleChoice {
            packs: a.packs,
            discover_config: !a.no_config,
            selection: a.selection.into(),
        }
    }
}

/// Rule selection over the packs' (as ruff's flags over its configuration). Selectors are
/// codes (`ALN001`), code prefixes (`ALN`, `acme/`) or rule names, comma-separated or repeated.
#[derive(Debug, Clone, Args)]
pub struct SelectionArgs {
    /// Only these rules run, whatever the packs select.
    #[arg(long, value_name = "RULES", value_delimiter = ',', help_heading = "Rule selection")]
    pub select: Option<Vec<String>>,
    /// These rules run too, besides those the packs (or --select) select.
    #[arg(long, value_name = "RULES", value_delimiter = ',', help_heading = "Rule selection")]
    pub extend_select: Vec<String>,
    /// These rules do not run, whatever selects them.
    #[arg(long, value_name = "RULES", value_delimiter = ',', help_heading = "Rule selection")]
    pub ignore: Vec<String>,
}

impl From<SelectionArgs> for Selection {
    fn from(a: SelectionArgs) -> Self {
        Selection { select: a.select, extend_select: a.extend_select, ignore: a.ignore }
    }
}

/// `--format`'s values: the formats the report crate's registry offers.
fn format_values() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(LibFormat::offered())
}

/// `--format`'s long help, one line per format from the registry.
fn format_help() -> String {
    registry_help(
        "The report's format:",
        spindle_report::formats::FORMATS.iter().filter(|f| f.offered).map(|f| (f.name, f.help)),
    )
}

/// `spindle plan --format`'s values: the plan registry's formats.
fn plan_format_values() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(PlanFormat::offered())
}

/// `spindle plan --format`'s long help, one line per format from the plan registry.
fn plan_format_help() -> String {
    registry_help("The plan's format:", PLAN_FORMATS.iter().map(|f| (f.name, f.help)))
}

/// `spindle diff --format`'s values: the diff registry's formats.
fn diff_format_values() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(DiffFormat::offered())
}

/// `spindle diff --format`'s long help, one line per format from the diff registry.
fn diff_format_help() -> String {
    registry_help("The diff's format:", DIFF_FORMATS.iter().map(|f| (f.name, f.help)))
}

/// A registry's formats as long help: a title, then `- name: help` a line.
fn registry_help<'a>(title: &str, formats: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = format!("{title}\n");
    for (name, help) in formats {
        out.push_str(&format!("- {name}: {help}\n"));
    }
    out.trim_end().to_string()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RequireArg {
    Sql,
    Host,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    Facts,
    Pack,
}

#[derive(Debug, Clone, Args)]
pub struct ConnectArgs {
    /// SQL Server login. Its password comes from the environment variable named by
    /// --password-env (default SPINDLE_SQL_PASSWORD), else from a prompt on a terminal; never
    /// from the command line.
    #[arg(long, value_name = "LOGIN", help_heading = "Connection")]
    pub user: Option<String>,
    /// Environment variable holding the SQL login's password.
    #[arg(long, value_name = "VAR", default_value = DEFAULT_PASSWORD_ENV, help_heading = "Connection")]
    pub password_env: String,
    /// Environment variable holding a Microsoft Entra ID (Azure AD) access token.
    #[arg(long, value_name = "VAR", conflicts_with_all = ["user", "integrated"], help_heading = "Connection")]
    pub access_token_env: Option<String>,
    /// Windows integrated authentication (Kerberos on Linux, in builds with the `kerberos` feature).
    #[arg(long, conflicts_with = "user", help_heading = "Connection")]
    pub integrated: bool,
    /// Encryption: `required` (default; the certificate is validated), `strict` (TDS 8.0), or
    /// `off` (plain TDS: the login and every result cross the network in clear).
    #[arg(long, value_enum, default_value_t = EncryptArg::Required, help_heading = "Connection")]
    pub encrypt: EncryptArg,
    /// Accept any server certificate (self-signed, wrong name): exposed to a man in the middle.
    #[arg(long, help_heading = "Connection")]
    pub trust_server_certificate: bool,
    /// Longest wait for the TCP connection and, separately, for the login.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration, help_heading = "Connection")]
    pub connect_timeout: Duration,
    /// Longest wait for any one answer from the server while reading a query's results.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration, help_heading = "Connection")]
    pub query_timeout: Duration,
    /// Read the I/O counters twice this far apart (`60s`, `5m`) and keep the difference: latency
    /// now, rather than averaged since the service started.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Connection")]
    pub sample: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncryptArg {
    Required,
    Strict,
    Off,
}

impl From<ConnectArgs> for ConnectOptions {
    fn from(a: ConnectArgs) -> Self {
        ConnectOptions {
            user: a.user,
            password_env: a.password_env,
            access_token_env: a.access_token_env,
            integrated: a.integrated,
            encrypt: match a.encrypt {
                EncryptArg::Required => Encrypt::Required,
                EncryptArg::Strict => Encrypt::Strict,
                EncryptArg::Off => Encrypt::Off,
            },
            trust_server_certificate: a.trust_server_certificate,
            connect_timeout: a.connect_timeout,
            query_timeout: a.query_timeout,
            sample: a.sample,
        }
    }
}

impl From<CheckArgs> for CheckOptions {
    fn from(a: CheckArgs) -> Self {
        let mut sources = vec![];
        if !a.inputs.is_empty() {
            sources.push(Source::files(a.inputs, a.exclude.exclude));
        }
        if a.local {
            // --server names the local instance.
            let sql = if a.servers.is_empty() { vec!["localhost".to_string()] } else { a.servers };
            sources.push(Source::ThisMachine { sql });
        } else {
            sources.extend(a.servers.into_iter().map(Source::Server));
        }
        if let Some(path) = a.inventory {
            sources.push(Source::Inventory { path, tags: a.tags });
        }
        CheckOptions {
            sources,
            concurrency: usize::from(a.concurrency),
            save_snapshots: a.save_snapshots,
            allow_unreachable: a.allow_unreachable,
            connect: a.connect.into(),
            packs: a.config.packs,
            discover_config: !a.config.no_config,
            selection: a.config.selection.into(),
            format: LibFormat::named(&a.format).expect("clap offers only the registry's formats"),
            output: a.output,
            fail_on: match a.fail_on {
                FailOn::Error => LibFailOn::Error,
                FailOn::Warning => LibFailOn::Warning,
                FailOn::Note => LibFailOn::Note,
                FailOn::Never => LibFailOn::Never,
            },
            require: a.require.into_iter().map(RequireArg::into).collect(),
            jobs: a.jobs.map(usize::from),
            text: TextStyle {
                colour: match a.color {
                    ColorArg::Auto => LibColour::Auto,
                    ColorArg::Always => LibColour::Always,
                    ColorArg::Never => LibColour::Never,
                },
                width: None,
                detail: match (a.quiet, a.verbose) {
                    (true, _) => Detail::Quiet,
                    (_, true) => Detail::Verbose,
                    _ => Detail::Normal,
                },
                show_not_evaluated: a.show_not_evaluated,
            },
            sarif: SarifOptions {
                category: a.sarif_category,
                split_by: a.split_by.map(|v| {
                    let [what, dir]: [PathBuf; 2] = v.try_into().expect("clap takes two values");
                    SplitBy { what: what.to_string_lossy().into_owned(), dir }
                }),
                waived: match a.waived {
                    WaivedArg::Keep => Waived::Keep,
                    WaivedArg::Note => Waived::Note,
                    WaivedArg::Omit => Waived::Omit,
                },
            },
            baseline: a.baseline,
            order: match a.sort {
                CheckSort::Triage => Order::Triage,
                CheckSort::Gain => Order::Gain,
            },
            shard: a.shard,
        }
    }
}

impl From<RulesFormat> for LibRulesFormat {
    fn from(f: RulesFormat) -> Self {
        match f {
            RulesFormat::Table => LibRulesFormat::Table,
            RulesFormat::Markdown => LibRulesFormat::Markdown,
        }
    }
}

/// `check`'s flags that only shape a live collection: the connection, the sample, how many
/// servers at once, where their snapshots go and whether an unreachable one counts. On a check
/// of snapshot files alone they would do nothing, and a user who wrote `--sample 60s` believes
/// latency was sampled: the run refuses them.
const LIVE_ONLY: [(&str, &str); 12] = [
    ("sample", "--sample"),
    ("concurrency", "--concurrency"),
    ("save_snapshots", "--save-snapshots"),
    ("allow_unreachable", "--allow-unreachable"),
    ("user", "--user"),
    ("password_env", "--password-env"),
    ("access_token_env", "--access-token-env"),
    ("integrated", "--integrated"),
    ("encrypt", "--encrypt"),
    ("trust_server_certificate", "--trust-server-certificate"),
    ("connect_timeout", "--connect-timeout"),
    ("query_timeout", "--query-timeout"),
];

/// The usage error for a live-only flag given to a `check` that collects nothing (no `--local`,
/// `--server` or `--inventory`), naming the first such flag; `None` when there is none.
pub fn live_only_offline(check: &clap::ArgMatches) -> Option<String> {
    use clap::parser::ValueSource;
    let given = |id: &str| check.value_source(id) == Some(ValueSource::CommandLine);
    if ["local", "servers", "inventory"].into_iter().any(given) {
        return None;
    }
    let (_, flag) = LIVE_ONLY.into_iter().find(|(id, _)| given(id))?;
    Some(format!(
        "{flag} applies to live collection only (--local, --server or --inventory); this check reads \
         snapshot files, so {flag} would do nothing"
    ))
}
