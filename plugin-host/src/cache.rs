//! The compiled-code cache: Cranelift takes ~75 ms per plugin in a release build (~1 s in a debug
//! build), loading a cached entry a few milliseconds.
//!
//! An entry is `<dir>/wasm/<key>.cwasm`, where the key is the sha256 of the plugin's wasm, the
//! wasmtime version, and the engine's compatibility fingerprint (target, Cranelift flags,
//! tunables, wasm features). Its content is a header (magic, the key, the sha256 of the wasm it
//! was compiled from, the payload's length and sha256, then an HMAC-SHA256 of all of these) and
//! the payload, wasmtime's serialized component. Entries are written to a temporary file in the
//! same directory and renamed into place, so a reader sees a whole entry or none. Anything that
//! does not check out (bad header, wrong length, digest or HMAC, an entry wasmtime refuses) is
//! deleted and the plugin compiled again. The cache is an optimisation: when the directory
//! cannot be created, written or trusted, plugins are compiled every run and nothing fails.
//!
//! An entry is native code this process will run, so it is trusted only when nobody but the
//! user (or root) could have written it:
//! - every directory from `/` to `<dir>/wasm`, as written and with symlinks resolved, is owned
//!   by the effective user or root, and neither group nor others can write it (a root-owned
//!   sticky directory such as `/tmp` is fine: others cannot rename what they do not own in it);
//! - the entry is a regular file (not a symlink) owned by the effective user or root, that
//!   neither group nor others can write;
//! - its HMAC checks out under `<dir>/hmac-key`, 32 random bytes the cache creates 0600 on
//!   first use and refuses when another user owns it or group or others can read or write it.
//!   Another user cannot compute a valid HMAC, so even an entry they managed to put in place is
//!   compiled again rather than run, and the HMAC binds the entry to the sha256 of the wasm it
//!   was compiled from, so one plugin's code never runs as another's.
//!
//! On other platforms than Unix the ownership checks are skipped (the cache lives in the user's
//! profile, private by default); the HMAC is checked everywhere.

use std::ffi::OsString;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The wasmtime this spindle is built with (pinned in Cargo.toml). Part of the key so entries of
/// another build are never even opened; wasmtime also checks its version in the payload.
pub const WASMTIME_VERSION: &str = "48.0.8";

/// Starts every entry; the trailing digit is the layout of spindle's header (2: with the wasm's
/// sha256 and the HMAC).
const MAGIC: &[u8; 16] = b"spindle-cwasm-2\n";
/// What the HMAC covers: magic, key (32 bytes), the wasm's sha256 (32), payload length (8,
/// little-endian), payload sha256 (32).
const SIGNED_LEN: usize = MAGIC.len() + 32 + 32 + 8 + 32;
/// The signed part, then its HMAC-SHA256 (32 bytes).
const HEADER_LEN: usize = SIGNED_LEN + 32;
/// The per-user secret of the HMAC, in the cache directory.
const KEY_FILE: &str = "hmac-key";
const KEY_LEN: usize = 32;

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

    /// The compiled component cached under `key` for the wasm whose sha256 is `wasm_sha256`, if
    /// there is a sound one this user can trust. A bad entry in a trusted directory is removed;
    /// nothing in an untrusted one is touched.
    pub fn load(&self, engine: &Engine, key: &str, wasm_sha256: &[u8; 32]) -> Option<Component> {
        let (dir, entries, path) = (self.dir.as_ref()?, self.entries()?, self.entry_path(key)?);
        // Before anything is opened: in a directory another user controls, even a file that
        // checks out now could be swapped before it is read.
        trusted_dir_path(&entries).ok()?;
        let data = read_trusted_entry(&path).ok()?;
        // A key that cannot be trusted turns the cache off, touching nothing. Without a key
        // (lost, or never made) no entry can be checked: each is compiled again and replaced,
        // under a new key.
        let mac_key = read_mac_key(dir).ok()?;
        let Some(payload) = mac_key.and_then(|k| payload(&data, key, wasm_sha256, &k)) else {
            let _ = fs::remove_file(&path);
            return None;
        };
        // SAFETY: `Component::deserialize` trusts its input to be machine code wasmtime itself
        // produced; a crafted file could run arbitrary code in this process. What reaches this
        // point was written by this user (or root) with this user's secret key: every directory
        // on its path and the file itself are owned by the effective user or root and writable
        // by no one else, and its HMAC under the key in `<dir>/hmac-key` (private to the user)
        // checks out over a header that names this key (the plugin's content hash and this
        // engine's fingerprint), the sha256 of the wasm the plugin file has now, and the
        // payload's length and sha256. So a truncated, corrupt, misplaced, stale or planted entry
        // never gets here. wasmtime then checks its own header (version, engine settings) and
        // refuses a mismatch. What remains is someone who can already act as this user (or as
        // root): the cache adds no trust beyond the user's own account.
        #[allow(unsafe_code)]
        let component = unsafe { Component::deserialize(engine, payload) };
        match component {
            Ok(c) => Some(c),
            Err(_) => {
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// Caches `serialized` (from `Component::serialize` of the wasm whose sha256 is
    /// `wasm_sha256`) under `key`, atomically. Best effort: nothing is written where [`load`]
    /// would not trust it.
    ///
    /// [`load`]: CodeCache::load
    pub fn store(&self, key: &str, wasm_sha256: &[u8; 32], serialized: &[u8]) -> io::Result<()> {
        let (Some(dir), Some(entries), Some(path)) =
            (self.dir.as_ref(), self.entries(), self.entry_path(key))
        else {
            return Ok(());
        };
        create_private_dir(&entries)?;
        trusted_dir_path(&entries).map_err(io::Error::other)?;
        let mac_key = mac_key_or_create(dir)?;
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").suffix(".cwasm").tempfile_in(&entries)?;
        tmp.write_all(&header(key, wasm_sha256, serialized, &mac_key))?;
        tmp.write_all(serialized)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// An entry's header for `payload` compiled from the wasm `wasm_sha256`, under `key`, signed
/// with `mac_key`.
fn header(key: &str, wasm_sha256: &[u8; 32], payload: &[u8], mac_key: &[u8; KEY_LEN]) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&key_bytes(key));
    h.extend_from_slice(wasm_sha256);
    h.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    h.extend_from_slice(&Sha256::digest(payload));
    let mac = hmac_sha256(mac_key, &h);
    h.extend_from_slice(&mac);
    h
}

fn key_bytes(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The payload of an entry read back, if its header matches `key`, the wasm's sha256, its
/// length and its digest, and its HMAC under `mac_key` is right.
pub(crate) fn payload<'a>(
    data: &'a [u8],
    key: &str,
    wasm_sha256: &[u8; 32],
    mac_key: &[u8; KEY_LEN],
) -> Option<&'a [u8]> {
    let (head, payload) = data.split_at_checked(HEADER_LEN)?;
    let (signed, tag) = head.split_at(SIGNED_LEN);
    // The HMAC first: nothing else of a forged header is worth looking at.
    // `verify_slice` compares in constant time (ctutils): a forger learns nothing from timing.
    if hmac_of(mac_key, signed).verify_slice(tag).is_err() {
        return None;
    }
    let (magic, rest) = signed.split_at(MAGIC.len());
    let (k, rest) = rest.split_at(32);
    let (wasm, rest) = rest.split_at(32);
    let (len, digest) = rest.split_at(8);
    let len = u64::from_le_bytes(len.try_into().ok()?);
    let sound = magic == MAGIC
        && k == key_bytes(key)
        && wasm == wasm_sha256
        && len == payload.len() as u64
        && digest == Sha256::digest(payload).as_slice();
    sound.then_some(payload)
}

/// HMAC-SHA256 (RFC 2104) of `data` under `key`.
pub(crate) fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    hmac_of(key, data).finalize().into_bytes().into()
}

/// The HMAC-SHA256 state under `key`, fed `data`; any key length is accepted.
fn hmac_of(key: &[u8], data: &[u8]) -> Hmac<Sha256> {
    let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.chain_update(data)
}

/// The cache's HMAC key, if `dir` has a sound one; an error when it has one that cannot be
/// trusted (then the cache is not used at all).
fn read_mac_key(dir: &Path) -> io::Result<Option<[u8; KEY_LEN]>> {
    let mut file = match open_no_follow(&dir.join(KEY_FILE)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    check_key_file(&meta).map_err(io::Error::other)?;
    let mut key = [0u8; KEY_LEN];
    file.read_exact(&mut key)?;
    Ok(Some(key))
}

/// The cache's HMAC key, made (32 random bytes, 0600) if `dir` has none yet.
fn mac_key_or_create(dir: &Path) -> io::Result<[u8; KEY_LEN]> {
    if let Some(key) = read_mac_key(dir)? {
        return Ok(key);
    }
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| io::Error::other(format!("no random bytes: {e}")))?;
    // tempfile creates it 0600; no-clobber so that of two processes making a key at once, one
    // key wins and both use it.
    let mut tmp = tempfile::Builder::new().prefix(".tmp-key-").tempfile_in(dir)?;
    tmp.write_all(&key)?;
    tmp.as_file().sync_all()?;
    match tmp.persist_noclobber(dir.join(KEY_FILE)) {
        Ok(_) => Ok(key),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => read_mac_key(dir)?
            .ok_or_else(|| io::Error::other("the cache key vanished while it was being made")),
        Err(e) => Err(e.error),
    }
}

/// Opens a file for reading without following a symlink in its last component, and without
/// blocking on a FIFO put in its place.
fn open_no_follow(path: &Path) -> io::Result<fs::File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut o,
        (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
    );
    o.open(path)
}

/// Reads an entry if the file itself can be trusted (see the module's documentation).
fn read_trusted_entry(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_no_follow(path)?;
    // The open file's metadata, not the path's: what is checked is what is read.
    let meta = file.metadata()?;
    check_entry_file(&meta).map_err(io::Error::other)?;
    let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut data)?;
    Ok(data)
}

/// Owner and permission bits of a file or directory, and the effective user: what the trust
/// rules look at, kept apart so they can be tested without a second user.
#[cfg(any(unix, test))]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Owned {
    pub uid: u32,
    pub mode: u32,
    pub euid: u32,
}

#[cfg(any(unix, test))]
const ROOT: u32 = 0;
#[cfg(any(unix, test))]
const GROUP_OTHER_WRITE: u32 = 0o022;
#[cfg(any(unix, test))]
const GROUP_OTHER_ANY: u32 = 0o077;
#[cfg(any(unix, test))]
const STICKY: u32 = 0o1000;

#[cfg(any(unix, test))]
impl Owned {
    fn owner_ok(&self) -> bool {
        self.uid == self.euid || self.uid == ROOT
    }

    fn owner_name(&self) -> String {
        format!("uid {}, not the effective user (uid {}) or root", self.uid, self.euid)
    }
}

/// A directory on the cache's path can be trusted.
#[cfg(any(unix, test))]
pub(crate) fn trust_dir(o: Owned) -> Result<(), String> {
    if !o.owner_ok() {
        return Err(format!("owned by {}", o.owner_name()));
    }
    // In a root-owned sticky directory (`/tmp`) others may add entries but not rename or remove
    // ours, so what we own below it stays ours.
    if o.mode & GROUP_OTHER_WRITE != 0 && !(o.uid == ROOT && o.mode & STICKY != 0) {
        return Err(format!("writable by group or others (mode {:o})", o.mode & 0o7777));
    }
    Ok(())
}

/// A cache entry can be trusted.
#[cfg(any(unix, test))]
pub(crate) fn trust_entry(o: Owned) -> Result<(), String> {
    if !o.owner_ok() {
        return Err(format!("owned by {}", o.owner_name()));
    }
    if o.mode & GROUP_OTHER_WRITE != 0 {
        return Err(format!("writable by group or others (mode {:o})", o.mode & 0o7777));
    }
    Ok(())
}

/// The HMAC key file can be trusted: a secret nobody else can read or replace.
#[cfg(any(unix, test))]
pub(crate) fn trust_key_file(o: Owned) -> Result<(), String> {
    if !o.owner_ok() {
        return Err(format!("owned by {}", o.owner_name()));
    }
    if o.mode & GROUP_OTHER_ANY != 0 {
        return Err(format!("readable or writable by group or others (mode {:o})", o.mode & 0o7777));
    }
    Ok(())
}

#[cfg(unix)]
fn owned(meta: &fs::Metadata) -> Owned {
    use std::os::unix::fs::MetadataExt;
    let euid = rustix::process::geteuid().as_raw();
    Owned { uid: meta.uid(), mode: meta.mode(), euid }
}

#[cfg(unix)]
fn check_entry_file(meta: &fs::Metadata) -> Result<(), String> {
    if !meta.file_type().is_file() {
        return Err("not a regular file".into());
    }
    trust_entry(owned(meta))
}

#[cfg(not(unix))]
fn check_entry_file(meta: &fs::Metadata) -> Result<(), String> {
    if meta.file_type().is_file() { Ok(()) } else { Err("not a regular file".into()) }
}

#[cfg(unix)]
fn check_key_file(meta: &fs::Metadata) -> Result<(), String> {
    if !meta.file_type().is_file() || meta.len() != KEY_LEN as u64 {
        return Err(format!("not a regular file of {KEY_LEN} bytes"));
    }
    trust_key_file(owned(meta))
}

#[cfg(not(unix))]
fn check_key_file(meta: &fs::Metadata) -> Result<(), String> {
    if meta.file_type().is_file() && meta.len() == KEY_LEN as u64 {
        Ok(())
    } else {
        Err(format!("not a regular file of {KEY_LEN} bytes"))
    }
}

/// Every directory from the root to `dir` can be trusted, along the path as written (so no
/// symlink on it can be replaced by someone else) and with symlinks resolved (so the
/// directories actually used are trusted too). `dir` must exist.
#[cfg(unix)]
pub(crate) fn trusted_dir_path(dir: &Path) -> Result<(), String> {
    let written = std::path::absolute(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let resolved = fs::canonicalize(&written).map_err(|e| format!("{}: {e}", written.display()))?;
    for path in [&written, &resolved] {
        for a in path.ancestors() {
            let meta = fs::symlink_metadata(a).map_err(|e| format!("{}: {e}", a.display()))?;
            // A symlink itself cannot be changed, only replaced, which takes write access to
            // the directory holding it, checked as the next ancestor.
            let checked = if meta.file_type().is_symlink() {
                let o = owned(&meta);
                if o.owner_ok() { Ok(()) } else { Err(format!("owned by {}", o.owner_name())) }
            } else if meta.is_dir() {
                trust_dir(owned(&meta))
            } else {
                Err("not a directory".into())
            };
            checked.map_err(|why| format!("{}: {why}", a.display()))?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn trusted_dir_path(dir: &Path) -> Result<(), String> {
    if dir.is_dir() { Ok(()) } else { Err(format!("{}: not a directory", dir.display())) }
}

/// Creates `dir` and its parents; the directories it creates are private to the user (0700).
fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

#[cfg(test)]
pub(crate) fn entry_bytes(key: &str, wasm_sha256: &[u8; 32], payload: &[u8], mac_key: &[u8; 32]) -> Vec<u8> {
    let mut v = header(key, wasm_sha256, payload, mac_key);
    v.extend_from_slice(payload);
    v
}

#[cfg(all(test, unix))]
pub(crate) fn key_file(dir: &Path) -> PathBuf {
    dir.join(KEY_FILE)
}
