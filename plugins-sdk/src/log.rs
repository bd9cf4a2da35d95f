//! A line in spindle's log: the one capability a plugin is given (the host bounds how many lines
//! and how long, and may drop the rest). For what a user should act on, report a finding instead.
//!
//! Outside the component (native unit tests) the line goes to standard error.

use crate::wit::LogLevel;

pub fn debug(message: impl AsRef<str>) {
    emit(LogLevel::Debug, message.as_ref());
}

pub fn info(message: impl AsRef<str>) {
    emit(LogLevel::Info, message.as_ref());
}

pub fn warn(message: impl AsRef<str>) {
    emit(LogLevel::Warn, message.as_ref());
}

#[cfg(target_arch = "wasm32")]
fn emit(level: LogLevel, message: &str) {
    crate::bindings::log(level, message);
}

#[cfg(not(target_arch = "wasm32"))]
fn emit(level: LogLevel, message: &str) {
    let level = match level {
        LogLevel::Debug => "debug",
        LogLevel::Info => "info",
        LogLevel::Warn => "warn",
    };
    eprintln!("[plugin {level}] {message}");
}
