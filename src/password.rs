//! Asking for a password on the terminal.

use std::io;

/// Reads a password from the terminal, with echo turned off before the prompt appears.
/// rpassword prints its prompt first and turns echo off after, so a password typed or pasted
/// the moment the prompt shows could land on the screen (and a test that types on seeing the
/// prompt saw it there, now and then).
#[cfg(unix)]
pub fn prompt_password(prompt: &str) -> io::Result<String> {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        return rpassword::prompt_password(prompt);
    };
    let Ok(saved) = tcgetattr(&tty) else {
        return rpassword::prompt_password(prompt);
    };
    let mut quiet = saved.clone();
    quiet.local_modes.remove(LocalModes::ECHO);
    quiet.local_modes.insert(LocalModes::ECHONL);
    // Ctrl-C at the prompt would otherwise leave the shell with echo off.
    let _restore = crate::signals::RestoreTerminalOnInterrupt::new(&tty, saved.clone());
    let _ = tcsetattr(&tty, OptionalActions::Now, &quiet);
    let password = rpassword::prompt_password(prompt);
    let _ = tcsetattr(&tty, OptionalActions::Now, &saved);
    if password.as_ref().is_err_and(|e| e.kind() == io::ErrorKind::Interrupted) {
        // Ctrl-C: rpassword has raised SIGINT; the run ends as interrupted (130), not with an
        // error of its own.
        crate::signals::interrupted(signal_hook::consts::SIGINT);
    }
    password
}

#[cfg(not(unix))]
pub fn prompt_password(prompt: &str) -> io::Result<String> {
    rpassword::prompt_password(prompt)
}
