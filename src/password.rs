//! Asking for a password on the terminal.

use std::io;

/// Reads a password from the terminal, with echo turned off before the prompt appears.
/// rpassword prints its prompt first and turns echo off after, so a password typed or pasted
/// the moment the prompt shows could land on the screen (and a test that types on seeing the
/// prompt saw it there, now and then).
#[cfg(unix)]
pub fn prompt_password(prompt: &str) -> io::Result<String> {
    use std::os::fd::AsRawFd;
    let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        return rpassword::prompt_password(prompt);
    };
    let fd = tty.as_raw_fd();
    // SAFETY: termios is plain data; tcgetattr fills it for an open descriptor, or fails.
    let mut saved: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
        return rpassword::prompt_password(prompt);
    }
    let mut quiet = saved;
    quiet.c_lflag &= !libc::ECHO;
    quiet.c_lflag |= libc::ECHONL;
    // Ctrl-C at the prompt would otherwise leave the shell with echo off.
    let _restore = crate::signals::RestoreTerminalOnInterrupt::new(fd, saved);
    // SAFETY: `fd` is open for the whole call and `quiet`/`saved` are valid termios values.
    unsafe { libc::tcsetattr(fd, libc::TCSANOW, &quiet) };
    let password = rpassword::prompt_password(prompt);
    unsafe { libc::tcsetattr(fd, libc::TCSANOW, &saved) };
    if password.as_ref().is_err_and(|e| e.kind() == io::ErrorKind::Interrupted) {
        // Ctrl-C: rpassword has raised SIGINT; the run ends as interrupted (130), not with an
        // error of its own.
        crate::signals::interrupted(libc::SIGINT);
    }
    password
}

#[cfg(not(unix))]
pub fn prompt_password(prompt: &str) -> io::Result<String> {
    rpassword::prompt_password(prompt)
}
