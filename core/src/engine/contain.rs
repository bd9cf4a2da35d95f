//! A panic in a rule, contained: the rule fails for the host, the run goes on.
//!
//! The message comes from a panic hook rather than from the payload alone, for the location.
//! The hook is installed once per process and keeps quiet only for panics on a thread that is
//! inside [`contain`]: swapping the process-wide hook around each call instead would race when
//! hosts are checked on several threads (one thread's swap would silence, or print, another
//! thread's panic), and printing every contained panic would repeat one rule's bug for every
//! host of a fleet on stderr, where the report already says it once per host.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    /// `Some` while this thread runs [`contain`]: the panic message, once there is one.
    static CAPTURED: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

static QUIET_HOOK: Once = Once::new();

/// Runs `f`; a panic inside it is returned as its message (with where it happened) instead of
/// unwinding further. Where panics abort (a WASI plugin), there is nothing to catch: the panic
/// prints and traps as before, and the host reports the plugin failed.
///
/// `AssertUnwindSafe` is sound for the engine's calls: a rule reads the host view and its
/// parameters through shared references and returns owned findings, which are dropped when it
/// panics. The only state it writes through a shared reference is caches behind `OnceLock`s
/// (the view's memos, the typed parameters, a rule's default fix), and a `OnceLock` whose
/// initialiser panicked stays empty, to be filled by the next call.
pub(crate) fn contain<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    if !cfg!(panic = "unwind") {
        return Ok(f());
    }
    QUIET_HOOK.call_once(install_quiet_hook);
    // Kept and put back, so a contained call nested in another leaves the outer one capturing.
    let outer = CAPTURED.with(|c| c.replace(Some(None)));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    let captured = CAPTURED.with(|c| c.replace(outer)).flatten();
    result.map_err(|payload| captured.unwrap_or_else(|| payload_text(payload.as_ref()).to_string()))
}

fn install_quiet_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        let kept = CAPTURED.with(|c| match c.try_borrow_mut().as_deref_mut() {
            Ok(Some(slot)) => {
                *slot = Some(describe(info));
                true
            }
            _ => false,
        });
        if !kept {
            previous(info);
        }
    }));
}

/// `attempt to divide by zero (at rules/src/x.rs:12:5)`.
fn describe(info: &PanicHookInfo<'_>) -> String {
    let text = payload_text(info.payload());
    match info.location() {
        Some(at) => format!("{text} (at {}:{}:{})", at.file(), at.line(), at.column()),
        None => text.to_string(),
    }
}

fn payload_text(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "a panic without a message"
    }
}
