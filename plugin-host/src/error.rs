//! `PluginError`: everything that can go wrong with a plugin, naming the plugin, its pack and
//! file, with what the plugin wrote to stderr and to the log before it failed.

use std::fmt;
use std::path::PathBuf;

use crate::types::{Captured, LogLine};

/// What went wrong, for callers that react differently (a bad file stops the run; a plugin that
/// fails on one host leaves its rules not evaluated there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginErrorKind {
    /// The file could not be read, or is over the size cap.
    Read,
    /// The file's sha256 is not the one the pack pins.
    Digest,
    /// Not a WebAssembly component, or a truncated or corrupt one.
    NotWasm,
    /// A component, but not one this spindle can run: another contract version, imports spindle
    /// does not provide, or metadata (`info`, `rules`) that breaks the contract.
    Contract,
    /// The plugin trapped (a Rust panic ends here), or called exit.
    Trap,
    /// The call ran past the time limit.
    Timeout,
    /// The call ran out of fuel.
    OutOfFuel,
    /// The plugin tried to grow its memory past the limit.
    Memory,
    /// The plugin returned a check-error.
    CheckError,
    /// The plugin returned output that breaks the contract (undeclared code, too much).
    BadOutput,
    /// The host itself failed (engine, compilation, a bug in the caller).
    Host,
}

#[derive(Debug, Clone)]
pub struct PluginError {
    pub kind: PluginErrorKind,
    /// The plugin's name in its pack (`acme`); empty for the host itself.
    pub plugin: String,
    /// The pack that declares it (its path or name); may be empty (`spindle plugin inspect`).
    pub pack: String,
    pub path: PathBuf,
    /// What happened, in a sentence that needs no context but the prefix.
    pub message: String,
    /// What the plugin wrote during the failed call (boxed: errors stay small).
    pub captured: Box<Captured>,
}

/// Lines of stderr and log shown in the message; the whole tail stays in `captured`.
const SHOWN_LINES: usize = 20;

impl PluginError {
    pub(crate) fn new(
        kind: PluginErrorKind,
        plugin: &str,
        pack: &str,
        path: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> Self {
        PluginError {
            kind,
            plugin: plugin.to_string(),
            pack: pack.to_string(),
            path: path.into(),
            message: message.into(),
            captured: Box::default(),
        }
    }

    pub(crate) fn with_captured(mut self, captured: Captured) -> Self {
        self.captured = Box::new(captured);
        self
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.plugin.is_empty() {
            write!(f, "plugin host")?;
        } else {
            write!(f, "plugin `{}`", self.plugin)?;
        }
        if !self.pack.is_empty() {
            write!(f, " of pack `{}`", self.pack)?;
        }
        if !self.path.as_os_str().is_empty() {
            write!(f, " ({})", self.path.display())?;
        }
        write!(f, ": {}", self.message)?;
        let c = &self.captured;
        write_tail(f, "stderr", c.stderr.lines(), c.stderr_dropped > 0)?;
        if c.stderr.trim().is_empty() {
            write_tail(f, "stdout", c.stdout.lines(), false)?;
        }
        let log = c.log.iter().map(|LogLine { level, message }| format!("{}: {message}", level.as_str()));
        write_tail(f, "log", log, c.log_dropped > 0)?;
        Ok(())
    }
}

/// The last [`SHOWN_LINES`] lines of a stream, indented under a heading.
fn write_tail<S: AsRef<str>>(
    f: &mut fmt::Formatter<'_>,
    what: &str,
    lines: impl Iterator<Item = S>,
    more_before: bool,
) -> fmt::Result {
    let lines: Vec<S> = lines.collect();
    let lines: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(0, |i| i + 1);
    if start >= end {
        return Ok(());
    }
    let shown = &lines[start.max(end.saturating_sub(SHOWN_LINES))..end];
    let cut = more_before || shown.len() < end - start;
    write!(f, "\n  plugin {what}{}:", if cut { " (last lines)" } else { "" })?;
    for line in shown {
        write!(f, "\n  | {line}")?;
    }
    Ok(())
}

impl std::error::Error for PluginError {}
