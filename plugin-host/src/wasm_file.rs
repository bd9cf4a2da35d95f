//! Reading a plugin file: the size cap, the pinned sha256, and a first look at what it is.

use std::path::Path;

use sha2::{Digest, Sha256};
use spindle_files::ReadError;

use crate::cache::hex;

/// A plugin file larger than this is refused unread (a rule plugin is a few MiB at most).
pub const MAX_WASM_BYTES: u64 = 64 << 20;

/// What went wrong reading a file, before the plugin's name is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileError {
    Read(String),
    Digest(String),
    NotWasm(String),
}

/// The file's bytes, at most [`MAX_WASM_BYTES`] of them, read once (what is hashed is what runs).
/// Only a regular file is read: a named pipe would block the run (in `open`, waiting for a
/// writer, or in reads), and a device such as `/dev/zero` has no end.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    spindle_files::read_regular(path, MAX_WASM_BYTES).map_err(|e| {
        FileError::Read(match e {
            ReadError::NotRegular(kind) => {
                format!("the plugin path is {kind}, not a regular file; a plugin is a .wasm file")
            }
            ReadError::TooLarge { .. } => {
                format!("the plugin file is over {} MiB, the most spindle loads", MAX_WASM_BYTES >> 20)
            }
            ReadError::Io(e) => format!("cannot read the plugin file: {e}"),
        })
    })
}

pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Checks the file's digest against the one the pack pins (64 hex digits, optionally written
/// `sha256:<hex>`, any case).
pub(crate) fn check_digest(actual: &[u8; 32], expected: &str) -> Result<(), FileError> {
    let want = expected.trim();
    let want = want.strip_prefix("sha256:").unwrap_or(want).to_ascii_lowercase();
    if want.len() != 64 || !want.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(FileError::Digest(format!(
            "the pack's sha256 `{expected}` is not 64 hex digits; the file's is {}",
            hex(actual)
        )));
    }
    let have = hex(actual);
    if want != have {
        return Err(FileError::Digest(format!(
            "sha256 mismatch: the pack expects {want}, the file has {have}; refusing to load it \
             (if the plugin was updated on purpose, update the sha256 in the pack)"
        )));
    }
    Ok(())
}

/// Refuses what is plainly not a WebAssembly component, with a message that says what it is.
pub(crate) fn check_header(bytes: &[u8]) -> Result<(), FileError> {
    if bytes.is_empty() {
        return Err(FileError::NotWasm("the file is empty, not a WebAssembly component".into()));
    }
    if !bytes.starts_with(b"\0asm") {
        let what = if bytes.starts_with(b"\x7fELF") {
            "an ELF file (a native binary, or wasmtime's precompiled code), not a .wasm component"
        } else if bytes.starts_with(b"(component") || bytes.starts_with(b"(module") {
            "WebAssembly text (.wat); spindle loads the binary form"
        } else {
            "not a WebAssembly file (it does not start with the \\0asm magic)"
        };
        return Err(FileError::NotWasm(format!("the file is {what}")));
    }
    match bytes.get(4..8) {
        None => {
            Err(FileError::NotWasm("the file is truncated: it ends inside the WebAssembly header".into()))
        }
        Some([1, 0, 0, 0]) => Err(FileError::NotWasm(
            "the file is a core WebAssembly module, not a component: build the plugin for \
             wasm32-wasip2 (or wrap the module with `wasm-tools component new`)"
                .into(),
        )),
        Some([0x0d, 0, 1, 0]) => Ok(()),
        Some(v) => Err(FileError::NotWasm(format!(
            "the file is WebAssembly of an unknown version or layer ({v:02x?}), not a component \
             this spindle reads"
        ))),
    }
}

/// wasmtime's compile error, said plainly: truncation is the common case (an interrupted copy).
pub(crate) fn describe_compile_error(bytes: &[u8], detail: &str) -> String {
    let lower = detail.to_lowercase();
    let truncated = truncated(bytes) || ["unexpected end", "end-of-file"].iter().any(|s| lower.contains(s));
    if truncated {
        format!("the file is a truncated or corrupt WebAssembly component (copied incompletely?): {detail}")
    } else {
        format!("the file is not a valid WebAssembly component: {detail}")
    }
}

/// Whether the file ends inside one of its top-level sections (each is an id byte, a LEB128 size,
/// then that many bytes).
pub(crate) fn truncated(bytes: &[u8]) -> bool {
    let mut at = 8;
    while at < bytes.len() {
        at += 1;
        let mut size: u64 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = bytes.get(at) else { return true };
            at += 1;
            size |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
            if shift > 35 {
                return false;
            }
        }
        match (at as u64).checked_add(size) {
            Some(end) if end <= bytes.len() as u64 => at = end as usize,
            _ => return true,
        }
    }
    false
}
