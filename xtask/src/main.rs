//! `cargo xtask`: repository chores, run with the alias in `.cargo/config.toml`.
//!
//! - `cargo xtask new-rule CODE name category` scaffolds a builtin rule: its file under
//!   `rules/src/<category>/` and a fixture folder to fill in, then runs codegen.
//! - `cargo xtask codegen [--check]` rewrites every list of the rules from the rule files (see
//!   `codegen`), the rule table in docs/rules.md included.
//! - `cargo xtask docs [--check]` regenerates the rule table (docs/rules.md) only.
//! - `cargo xtask dist` makes the release artifacts (see `dist`).
//! - `cargo xtask check-arch` enforces the crate layering (see `arch`) and that no two sibling
//!   modules of a crate depend on each other (see `modules`), nor any function over 100 lines
//!   without a reason (see `length`).
//!
//! `--root DIR` works on another checkout than the one the xtask was built from (the tests use a
//! temporary copy). Usage and validation errors exit 2 and write nothing.

mod arch;
mod archive;
mod codegen;
mod dist;
mod docs;
mod length;
mod modules;
mod new_rule;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask [--root DIR] <command>

commands:
  new-rule CODE NAME CATEGORY  scaffold a builtin rule: its file and its fixtures, then codegen
                               (cargo xtask new-rule CAP002 log-free-space capacity)
  codegen [--check]            rewrite every list of the builtin rules from the rule files (the
                               categories' mod.rs, rules/src/lib.rs, docs/rules.md's table); with
                               --check, only exit 1 when one is stale
  docs [--check]               regenerate docs/rules.md's rule table from the rules this xtask was
                               built with; with --check, only exit 1 when it is stale
  check-arch                   fail on a crate edge ARCHITECTURE.md does not draw (upward,
                               sideways, a command-line crate below the library), on a
                               circle of modules inside a crate and on a function over 100
                               lines without a `Long because` line in its doc comment
  dist [--profile dist|dev] [--target TRIPLE]... [--out DIR]
                               the release artifacts: per target (default: the static Linux
                               build x86_64-unknown-linux-musl and x86_64-pc-windows-gnu) an
                               archive and a CycloneDX SBOM, and SHA256SUMS, into DIR (default
                               target/artifacts); --profile dev checks the packaging quickly

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
    // `dist` has options of its own; everything before it is the xtask's.
    if let Some(at) = args.iter().position(|a| a == "dist") {
        let root = match &args[..at] {
            [] => default_root(),
            [flag, dir] if flag == "--root" => PathBuf::from(dir),
            [flag] if flag.starts_with("--root=") => PathBuf::from(&flag["--root=".len()..]),
            other => return Err(usage(format!("unexpected `{}` before `dist`", other.join(" ")))),
        };
        return dist::run(&root, &dist_options(&args[at + 1..])?);
    }
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
    let root = root.unwrap_or_else(default_root);
    match positional.as_slice() {
        ["new-rule", ..] if check => {
            Err(usage("`--check` is an option of `codegen` and `docs`, not of `new-rule`"))
        }
        ["new-rule", code, name, category] => new_rule::run(&root, code, name, category),
        ["new-rule", ..] => Err(usage(
            "`new-rule` takes three arguments, CODE NAME CATEGORY (`new-rule CAP002 log-free-space capacity`)",
        )),
        ["check-arch"] => arch::run(&root),
        ["codegen"] => codegen::run(&root, check),
        ["codegen", extra, ..] => Err(usage(format!("unexpected argument `{extra}`: `codegen` takes none"))),
        ["docs"] => docs::run(&root, check),
        ["docs", extra, ..] => Err(usage(format!("unexpected argument `{extra}`: `docs` takes none"))),
        [] => Err(usage("no command given")),
        [other, ..] => Err(usage(format!("unknown command `{other}`"))),
    }
}

/// The cargo that runs this xtask (`CARGO`), for the commands it runs in turn.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// `cargo metadata` of the workspace at `root`, without dependencies.
pub fn workspace_metadata(root: &Path) -> Result<serde_json::Value, Failure> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .current_dir(root)
        .output()
        .map_err(|e| Failure::one(format!("cargo metadata: {e}")))?;
    if !out.status.success() {
        return Err(Failure::one(format!("cargo metadata: {}", String::from_utf8_lossy(&out.stderr).trim())));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| Failure::one(format!("cargo metadata: {e}")))
}

/// The repository this xtask was built from.
fn default_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `dist`'s options; every problem is reported at once.
fn dist_options(args: &[String]) -> Result<dist::Options, Failure> {
    let mut options = dist::Options { profile: "dist".into(), targets: vec![], out: None };
    let mut problems = vec![];
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match flag {
            "--profile" => match value() {
                Some(v) => options.profile = v,
                None => problems.push("`--profile` needs a value: dist or dev".to_string()),
            },
            "--target" => match value() {
                Some(v) => options.targets.push(v),
                None => problems.push("`--target` needs a target triple".to_string()),
            },
            "--out" => match value() {
                Some(v) => options.out = Some(PathBuf::from(v)),
                None => problems.push("`--out` needs a directory".to_string()),
            },
            other => problems.push(format!("unknown argument `{other}` to `dist`")),
        }
    }
    problems.extend(options.problems());
    if !problems.is_empty() {
        return Err(Failure(problems));
    }
    if options.targets.is_empty() {
        options.targets = dist::TARGETS.iter().map(|t| t.to_string()).collect();
    }
    Ok(options)
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::one(format!("{}\n\n{USAGE}", message.into()))
}
