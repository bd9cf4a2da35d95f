//! The `spindle` binary: the command line mapped onto the library's options, and its outcome
//! onto exit statuses (0 clean, 1 findings, 2 bad input or an incomplete run).

mod cli;

use std::process::ExitCode;

use clap::Parser;
use spindle::UserError;

use crate::cli::{Cli, CollectCommand, Command, InspectFormat, PluginCommand, SchemaKind};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // An interrupted run removes its temporary report and restores the terminal; see
    // spindle::signals.
    spindle::signals::install();
    let cli = Cli::parse();
    let result: Result<u8, UserError> = match cli.command {
        Command::Check(args) => spindle::check(&args.into()).map(spindle::Exit::code),
        Command::Rules { format } => spindle::explain::rules_table(format.into()).map(print),
        Command::Explain { rule } => spindle::explain::explain(&rule).map(print),
        Command::Collect { command: CollectCommand::Sql { server, connect, output } } => {
            spindle::collect::sql(&server, &connect.into(), output.as_deref()).map(|()| 0)
        }
        Command::Collect { command: CollectCommand::Host { image, device, host_name, output } } => {
            spindle::collect::host(image.or(device).as_deref(), host_name.as_deref(), output.as_deref())
                .map(|()| 0)
        }
        Command::Plugin { command: PluginCommand::Inspect { file, format } } => {
            spindle::inspect_plugin(&file, format == InspectFormat::Json).map(print)
        }
        Command::Schema { which } => Ok(print(match which {
            SchemaKind::Facts => spindle_core::schema::facts_schema(),
            SchemaKind::Pack => spindle_core::schema::pack_schema(),
        })),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{:?}", miette::Report::new(e));
            ExitCode::from(2)
        }
    }
}

/// Prints a command's text to stdout; exit status 0.
fn print(text: String) -> u8 {
    print!("{text}");
    0
}
