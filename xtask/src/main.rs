//! `cargo xtask`: repository chores, run with the alias in `.cargo/config.toml`.
//!
//! - `cargo xtask new-rule CODE name category` scaffolds a builtin rule: its file under
//!   `rules/src/<category>/`, its registration, and a fixture folder to fill in.
//! - `cargo xtask docs [--check]` regenerates the README's rule table.
//!
//! `--root DIR` works on another checkout than the one the xtask was built from (the tests use a
//! temporary copy). Usage and validation errors exit 2 and write nothing.

mod docs;
mod new_rule;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask [--root DIR] <command>

commands:
  new-rule CODE NAME CATEGORY  scaffold a builtin rule: its file, its registration, its fixtures
                               (cargo xtask new-rule CAP002 log-free-space capacity)
  docs [--check]               regenerate the README's rule table from the rules this xtask was
                               built with; with --check, only exit 1 when it is stale

options:
  --root DIR  the repository to work on (default: the one this xtask was built from)
  -h, --help  print this help
";

/// What went wrong, one line per problem; the run exits 2 without writing anything.
#[derive(Debug)]
pub struct Failure(pub Vec<String>);

impl Failure {
    pub fn one(message: impl Into<String>) -> Self {
        Failure(vec![message.into()])
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(Failure(problems)) => {
            for p in problems {
                eprintln!("error: {p}");
            }
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, Failure> {
    let mut root = None;
    let mut check = false;
    let mut positional = vec![];
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            "--root" => {
                let dir = it.next().ok_or_else(|| usage("`--root` needs a directory"))?;
                root = Some(PathBuf::from(dir));
            }
            "--check" => check = true,
            s if s.starts_with("--root=") => root = Some(PathBuf::from(&s["--root=".len()..])),
            s if s.starts_with('-') => return Err(usage(format!("unknown option `{s}`"))),
            s => positional.push(s),
        }
    }
    let root = root.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf());
    match positional.as_slice() {
        ["new-rule", ..] if check => Err(usage("`--check` is an option of `docs`, not of `new-rule`")),
        ["new-rule", code, name, category] => new_rule::run(&root, code, name, category),
        ["new-rule", ..] => Err(usage(
            "`new-rule` takes three arguments, CODE NAME CATEGORY (`new-rule CAP002 log-free-space capacity`)",
        )),
        ["docs"] => docs::run(&root, check),
        ["docs", extra, ..] => Err(usage(format!("unexpected argument `{extra}`: `docs` takes none"))),
        [] => Err(usage("no command given")),
        [other, ..] => Err(usage(format!("unknown command `{other}`"))),
    }
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::one(format!("{}\n\n{USAGE}", message.into()))
}
