//! The `spindle` binary: the command line mapped onto the library's options, and its outcome
//! onto exit statuses (0 clean, 1 findings, 2 bad input or an incomplete run).

#![forbid(unsafe_code)]

mod cli;

use std::process::ExitCode;

use spindle::{UserError, commands};
use spindle_report::shown::Shown;
use spindle_report::snippet::Snippet;

use crate::cli::{Cli, CollectCommand, Command, InspectFormat, PluginCommand, SchemaKind};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // An interrupted run removes its temporary report and restores the terminal; see
    // spindle::signals.
    spindle::signals::install();
    // The version names the plugin contracts too: whoever builds a plugin asks which it may target.
    let version: &'static str = Box::leak(spindle::version_line().into_boxed_str());
    let mut command = <Cli as clap::CommandFactory>::command().version(version);
    let matches = command.get_matches_mut();
    if let Some(misuse) = matches.subcommand_matches("check").and_then(cli::live_only_offline) {
        let check = command.find_subcommand_mut("check").expect("check is a subcommand");
        check.error(clap::error::ErrorKind::ArgumentConflict, misuse).exit();
    }
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result: Result<u8, UserError> = match cli.command {
        Command::Check(args) => spindle::check(&(*args).into()).map(spindle::Exit::code),
        Command::Merge(args) => {
            commands::merge::run(&args.shards, args.output.as_deref()).map(spindle::Exit::code)
        }
        Command::Diff(args) => commands::diff::run(&(*args).into()).map(spindle::Exit::code),
        Command::Baseline(args) => commands::baseline::run(&(*args).into()).map(spindle::Exit::code),
        Command::Plan(args) => commands::plan::run(&(*args).into()).map(spindle::Exit::code),
        Command::Rules { format, config } => {
            commands::explain::rules_table(format.into(), &config.into()).and_then(print)
        }
        Command::Explain { rule, config } => {
            commands::explain::explain(&rule, &config.into()).and_then(print)
        }
        Command::Init { snapshots, output, force } => {
            commands::init::init(&snapshots, &output, force).map(|written| {
                eprintln!("{written}");
                0
            })
        }
        Command::Completions { shell } => {
            // Generated whole, then printed as every command's text is.
            let mut script = Vec::new();
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "spindle", &mut script);
            print(String::from_utf8_lossy(&script).into_owned())
        }
        Command::Collect { command: CollectCommand::Sql { server, connect, output } } => {
            commands::collect::sql(&server, &connect.into(), output.as_deref()).map(|()| 0)
        }
        Command::Collect { command: CollectCommand::Host { image, device, host_name, output } } => {
            commands::collect::host(image.or(device).as_deref(), host_name.as_deref(), output.as_deref())
                .map(|()| 0)
        }
        Command::Collect { command: CollectCommand::Inventory(a) } => {
            commands::collect::inventory(&commands::collect::InventoryOptions {
                inventory: a.inventory,
                out_dir: a.out_dir,
                tags: a.tags,
                shard: a.shard,
                concurrency: usize::from(a.concurrency),
                allow_unreachable: a.allow_unreachable,
                connect: a.connect.into(),
            })
            .map(spindle::Exit::code)
        }
        Command::Plugin { command: PluginCommand::Inspect { file, format } } => {
            commands::plugin::inspect(&file, format == InspectFormat::Json).and_then(print)
        }
        Command::Schema { which } => print(match which {
            SchemaKind::Facts => spindle_core::schema::facts_schema(),
            SchemaKind::Pack => spindle_core::schema::pack_schema(),
        }),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{:?}", miette::Report::new(shown(e)));
            ExitCode::from(2)
        }
    }
}

/// An error as stderr shows it (escaped, cut, its snippet a window): see [`Shown`].
fn shown(e: UserError) -> Shown {
    let snippet = match (&e.src, e.span) {
        (Some(src), Some(span)) => {
            Some(Snippet::new(src.name(), src.inner(), span.offset()..span.offset() + span.len()))
        }
        _ => None,
    };
    Shown::new(&e.message, e.help.as_deref())
        .with_snippet(snippet)
        .with_related(e.related.into_iter().map(shown).collect())
}

/// Prints a command's text to stdout; exit status 0. A reader that closed the pipe early
/// (`spindle rules | head`) chose to read no more: the rest is dropped, as `check` drops its
/// report's. Any other failure (a full disk) is an error: exit status 2, never a panic.
// UserError is built once, on the way to exit status 2 (as in the library).
#[allow(clippy::result_large_err)]
fn print(text: String) -> Result<u8, UserError> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if !spindle::output::reader_closed(&e) => {
            Err(UserError::plain(format!("stdout: cannot write: {e}")))
        }
        _ => Ok(0),
    }
}
