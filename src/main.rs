//! The `spindle` binary: the command line mapped onto the library's options, and its outcome
//! onto exit statuses (0 clean, 1 findings, 2 bad input or an incomplete run).

mod cli;

use std::fmt;
use std::process::ExitCode;

use clap::Parser;
use miette::{Diagnostic, LabeledSpan, SourceCode};
use spindle::UserError;
use spindle_core::untrusted;
use spindle_report::snippet::Snippet;

use crate::cli::{Cli, CollectCommand, Command, InspectFormat, PluginCommand, SchemaKind};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // An interrupted run removes its temporary report and restores the terminal; see
    // spindle::signals.
    spindle::signals::install();
    let cli = Cli::parse();
    let result: Result<u8, UserError> = match cli.command {
        Command::Check(args) => spindle::check(&(*args).into()).map(spindle::Exit::code),
        Command::Baseline(args) => spindle::check(&(*args).into()).map(spindle::Exit::code),
        Command::Rules { format, packs } => spindle::explain::rules_table(format.into(), &packs).map(print),
        Command::Explain { rule, packs } => spindle::explain::explain(&rule, &packs).map(print),
        Command::Init { snapshots, output, force } => {
            spindle::init::init(&snapshots, &output, force).map(|written| {
                eprintln!("{written}");
                0
            })
        }
        Command::Completions { shell } => {
            // Generated whole, then printed as every command's text is.
            let mut script = Vec::new();
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "spindle", &mut script);
            Ok(print(String::from_utf8_lossy(&script).into_owned()))
        }
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
            eprintln!("{:?}", miette::Report::new(Shown::from(e)));
            ExitCode::from(2)
        }
    }
}

/// An error as stderr shows it. Its message and help quote data (a file's name, a server's
/// message, a plugin's output): escaped, so they cannot drive the terminal, and cut, so a
/// megabyte of it is not echoed; newlines stay, inside miette's frame. Its snippet is a window
/// around the span, not the whole line: a line of megabytes was printed whole, and a span past
/// column 65,535 made miette panic.
#[derive(Debug)]
struct Shown {
    message: String,
    help: Option<String>,
    snippet: Option<Snippet>,
    /// Each of several errors found at once (a pack's), with its own snippet.
    related: Vec<Shown>,
}

impl From<UserError> for Shown {
    fn from(e: UserError) -> Self {
        let snippet = match (&e.src, e.span) {
            (Some(src), Some(span)) => {
                Some(Snippet::new(src.name(), src.inner(), span.offset()..span.offset() + span.len()))
            }
            _ => None,
        };
        Shown {
            message: untrusted::message_keeping_lines(&e.message).into_owned(),
            help: e.help.as_deref().map(|h| untrusted::message_keeping_lines(h).into_owned()),
            snippet,
            related: e.related.into_iter().map(Shown::from).collect(),
        }
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown {}

impl Diagnostic for Shown {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = LabeledSpan::new_with_span(Some("here".into()), self.snippet.as_ref()?.span());
        Some(Box::new(std::iter::once(label)))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

/// Prints a command's text to stdout; exit status 0.
fn print(text: String) -> u8 {
    print!("{text}");
    0
}
