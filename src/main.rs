//! spindle: a plugin-based linter for SQL Server storage.

// UserError carries the offending file for miette to show; it is built once, on the way to exit
// status 2, so its size on the error path costs nothing worth boxing for.
#![allow(clippy::result_large_err)]

mod check;
mod cli;
mod collect;
mod errors;
mod explain;
mod input;
mod ordered;
mod output;
mod packs;
// tests/plugins.rs includes this module by path and uses parts of its API (limits, counters,
// cache inspection) that the binary itself has no use for.
#[allow(dead_code, unused_imports)]
mod plugin;
mod plugin_rules;
mod text;

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Rules { format } => explain::rules(format).map(|()| ExitCode::SUCCESS),
        Command::Explain { rule } => explain::explain(&rule).map(|()| ExitCode::SUCCESS),
        Command::Collect { command: cli::CollectCommand::Sql { server, connect, output } } => {
            collect::command::sql(&server, &connect, output.as_deref())
        }
        Command::Collect { command: cli::CollectCommand::Host { image, device, host_name, output } } => {
            collect::command::host(
                image.as_deref(),
                device.as_deref(),
                host_name.as_deref(),
                output.as_deref(),
            )
        }
        Command::Plugin { command: cli::PluginCommand::Inspect { file, format } } => {
            plugin::inspect::run(&file, format == cli::InspectFormat::Json)
                .map(|()| ExitCode::SUCCESS)
                .map_err(|e| errors::UserError::plain(e.to_string()))
        }
        Command::Schema { which } => {
            let schema = match which {
                cli::SchemaKind::Facts => spindle_core::schema::facts_schema(),
                cli::SchemaKind::Pack => spindle_core::schema::pack_schema(),
            };
            print!("{schema}");
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("{:?}", miette::Report::new(e));
        ExitCode::from(2)
    })
}
