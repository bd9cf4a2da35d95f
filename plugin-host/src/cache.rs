//! The compiled-code cache: Cranelift takes ~75 ms per plugin in a release build (~1 s in a debug
//! build), loading a cached entry a few milliseconds.
//!
//! An entry is `<dir>/wasm/<key>.cwasm`, where the key is the sha256 of the plugin's wasm, the
//! wasmtime version, and the engine's compatibility fingerprint (target, Cranelift flags,
//! tunables, wasm features). Its content is a header (magic, the key, the payload's length and
//! sha256) then the payload, wasmtime's serialized component. Entries are written to a temporary
//! file in the same directory and renamed into place, so a reader sees a whole entry or none.
//! Anything that does not check out (bad header, wrong length or digest, an entry wasmtime
//! refuses) is deleted and the plugin compiled again. The cache is an optimisation: when the
//! directory cannot be created or written, plugins are compiled every run and nothing fails.

use std::ffi::OsString;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The wasmtime this spindle is built with (pinned in Cargo.toml). Part of the key so entries of
/// another build are never even opened; wasmtime also checks its version in the payload.
pub const WASMTIME_VERSION: &str = "48.0.8";

/// Starts every entry; the trailing digit is the layout of spindle's header.
const MAGIC: &[u8; 16] = b"spindle-cwasm-1\n";
/// Magic, key (32 bytes), payload length (8 bytes, little-endian), payload sha256 (32 bytes).
const HEADER_LEN: usize = MAGIC.len() + 32 + 8 + 32;

/// Where compiled plugins are cached: `$SPINDLE_CACHE_DIR`, else `$XDG_CACHE_HOME/spindle`, else
/// `$HOME/.cache/spindle`; `None` when none is set (the cache is then off).
pub fn default_dir() -> Option<PathBuf> {
    dir_from(
        std::env::var_os("SPINDLE_CACHE_DIR"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`default_dir`] from the variables' values. Empty values count as unset, and so does a
/// relative `XDG_CACHE_HOME` (the XDG spec says to ignore it).
pub(crate) fn dir_from(
    spindle: Option<OsString>,
    xdg: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(spindle) {
        return Some(dir);
    }
    if let Some(xdg) = set(xdg).filter(|p| p.is_absolute()) {
        return Some(xdg.join("spindle"));
    }
    set(home).map(|h| h.join(".cache").join("spindle"))
}

/// A sha256 fed by `Hash`: the engine's fingerprint as bytes, stable for a given build (unlike
/// `DefaultHasher`, whose algorithm may change between Rust releases).
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        // Never used: the digest is read with `finalize`.
        0
    }
}

/// What, besides the wasm, decides whether compiled code can be reused: the wasmtime version
/// and every engine setting wasmtime itself considers for compatibility.
pub fn engine_fingerprint(engine: &Engine) -> [u8; 32] {
    let mut h = ShaHasher(Sha256::new());
    WASMTIME_VERSION.hash(&mut h);
    engine.precompile_compatibility_hash().hash(&mut h);
    h.0.finalize().into()
}

/// An entry's key: sha256 of the wasm's sha256 and the engine fingerprint, as 64 hex digits.
pub fn key(wasm_sha256: &[u8; 32], fingerprint: &[u8; 32]) -> String {
    let mut h = Sha256::new();
    h.update(b"spindle plugin cache\0");
    h.update(wasm_sha256);
    h.update(fingerprint);
    hex(&h.finalize())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Clone)]
pub(crate) struct CodeCache {
    dir: Option<PathBuf>,
}

impl CodeCache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        CodeCache { dir }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn entries(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("wasm"))
    }

    pub fn entry_path(&self, key: &str) -> Option<PathBuf> {
        self.entries().map(|d| d.join(format!("{key}.cwasm")))
    }

    /// The compiled component cached under `key`, if there is a sound one. A bad entry is removed.
    pub fn load(&self, engine: &Engine, key: &str) -> Option<Component> {
        let path = self.entry_path(key)?;
        if !private(path.parent()?) || !private(&path) {
            return None;
        }
        let data = fs::read(&path).ok()?;
        let Some(payload) = payload(&data, key) else {
            let _ = fs::remove_file(&path);
            return None;
        };
        // SAFETY: `Component::deserialize` trusts its input to be machine code wasmtime itself
        // produced; a crafted file could run arbitrary code in this process. What reaches this
        // point is a file that spindle wrote: it sits in spindle's own cache directory (created
        // private to the user, and neither it nor the file writable by others), under the name of a key derived from the plugin's content hash
        // and this engine's fingerprint, and its header repeats that key and carries the
        // payload's length and sha256, all checked above, so a truncated, corrupt, misplaced or
        // stale entry never gets here. wasmtime then checks its own header (version, engine
        // settings) and refuses a mismatch. What remains is someone who can write the user's
        // cache directory on purpose, who can equally change the user's shell startup files:
        // the cache adds no trust beyond the user's own account.
        match unsafe { Component::deserialize(engine, payload) } {
            Ok(c) => Some(c),
            Err(_) => {
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// Caches `serialized` (from `Component::serialize`) under `key`, atomically. Best effort.
    pub fn store(&self, key: &str, serialized: &[u8]) -> std::io::Result<()> {
        let (Some(dir), Some(path)) = (self.entries(), self.entry_path(key)) else {
            return Ok(());
        };
        create_private_dir(&dir)?;
        if !private(&dir) {
            return Ok(());
        }
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").suffix(".cwasm").tempfile_in(&dir)?;
        tmp.write_all(&header(key, serialized))?;
        tmp.write_all(serialized)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// An entry's header for `payload` under `key`.
fn header(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&key_bytes(key));
    h.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    h.extend_from_slice(&Sha256::digest(payload));
    h
}

fn key_bytes(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The payload of an entry read back, if its header matches `key`, its length and its digest.
pub(crate) fn payload<'a>(data: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let (head, payload) = data.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = head.split_at(MAGIC.len());
    let (k, rest) = rest.split_at(32);
    let (len, digest) = rest.split_at(8);
    let len = u64::from_le_bytes(len.try_into().ok()?);
    let sound = magic == MAGIC
        && k == key_bytes(key)
        && len == payload.len() as u64
        && digest == Sha256::digest(payload).as_slice();
    sound.then_some(payload)
}

/// Whether only its owner can write `path` (on Unix: no group or other write bit). Entries in a
/// directory others can write are neither read nor written.
fn private(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(path)
            .is_ok_and(|m| !m.file_type().is_symlink() && m.permissions().mode() & 0o022 == 0)
    }
    #[cfg(not(unix))]
    {
        path.exists()
    }
}

/// Creates `dir` and its parents; the directories it creates are private to the user (0700).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

#[cfg(test)]
pub(crate) fn entry_bytes(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut v = header(key, payload);
    v.extend_from_slice(payload);
    v
}
