//! Finding snapshot files, grouping them by host, and loading one host's files at a time, so a
//! fleet of any size is checked in memory bounded by its largest host.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use spindle_core::load::parse_snapshot;
use spindle_core::locate::locate;
use spindle_core::view::Document;

use crate::errors::{UserError, load_error};

/// Largest snapshot read. A host with 10,000 database files is about 5 MiB of JSON; anything
/// near this limit is not a snapshot.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 << 20;

/// The files that describe one host.
#[derive(Debug)]
pub struct HostGroup {
    /// The host's name as the first of its files spells it.
    pub host: String,
    pub paths: Vec<PathBuf>,
}

/// Expands the command line's files and directories into snapshot paths, in a stable order.
/// A directory may hold only `.json` snapshots and subdirectories (hidden files are skipped);
/// anything else is an error rather than a silently ignored file.
pub fn discover(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, UserError> {
    let mut out = vec![];
    for input in inputs {
        let meta = fs::metadata(input)
            .map_err(|e| UserError::plain(format!("{}: cannot read: {e}", input.display())))?;
        if meta.is_dir() {
            let before = out.len();
            walk(input, &mut out)?;
            if out.len() == before {
                return Err(UserError::plain(format!(
                    "{}: no snapshot (.json) files in this directory",
                    input.display()
                )));
            }
        } else {
            out.push(input.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), UserError> {
    let read = |e: std::io::Error| UserError::plain(format!("{}: cannot read directory: {e}", dir.display()));
    let mut entries: Vec<_> = fs::read_dir(dir).map_err(read)?.collect::<Result<_, _>>().map_err(read)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(read)?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        } else {
            return Err(UserError {
                help: Some(
                    "a snapshot directory holds only .json snapshot files; move other files elsewhere".into(),
                ),
                ..UserError::plain(format!("{}: not a snapshot file (expected .json)", path.display()))
            });
        }
    }
    Ok(())
}

/// Reads a snapshot file's text, refusing files too large to be snapshots before reading them.
pub fn read_text(path: &Path) -> Result<String, UserError> {
    let shown = path.display();
    let meta = fs::metadata(path).map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    if meta.len() > MAX_SNAPSHOT_BYTES {
        return Err(UserError::plain(format!(
            "{shown}: file is {} bytes; a snapshot is at most {} bytes",
            meta.len(),
            MAX_SNAPSHOT_BYTES
        )));
    }
    let bytes = fs::read(path).map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        UserError::plain(format!("{shown}: not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
    })
}

/// Groups files by the host they describe (names compared without case, as Windows and DNS
/// do: SQL Server reports `SQL01` where the host collector says `sql01`), in order of first
/// appearance. Only the host name is
/// read here (the scan stops there, and collectors write `host` first); the full parse, with its
/// errors, happens per group in [`load_group`]. The names are read on `threads` threads.
pub fn group_by_host(paths: Vec<PathBuf>, threads: usize) -> Result<Vec<HostGroup>, UserError> {
    let mut groups: Vec<HostGroup> = vec![];
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut named = Vec::with_capacity(paths.len());
    crate::ordered::for_each_in_order(
        &paths,
        threads,
        |p| host_name(p),
        |name| {
            named.push(name?);
            Ok::<(), UserError>(())
        },
    )?;
    for (path, name) in paths.into_iter().zip(named) {
        add(&mut groups, &mut index, name, path);
    }
    Ok(groups)
}

/// The host a snapshot file describes: from its first bytes when they name it, else from the
/// whole file; a file that names none is an error, where it goes wrong.
fn host_name(path: &Path) -> Result<String, UserError> {
    if let Some(name) = host_name_from_head(path)? {
        return Ok(name);
    }
    // No host name near the top: the full parse finds it or says what is wrong, and where.
    let text = read_text(path)?;
    if let Some(name) =
        locate(&text, "/host/name").and_then(|span| serde_json::from_str::<String>(&text[span.value]).ok())
    {
        return Ok(name);
    }
    Err(parse_snapshot(&path.display().to_string(), text.clone())
        .err()
        .map(|e| load_error(e, Some(&text)))
        .unwrap_or_else(|| UserError::plain(format!("{}: no host.name", path.display()))))
}

fn add(groups: &mut Vec<HostGroup>, index: &mut HashMap<String, usize>, host: String, path: PathBuf) {
    let key = host.to_lowercase();
    match index.get(&key) {
        Some(&i) => groups[i].paths.push(path),
        None => {
            index.insert(key, groups.len());
            groups.push(HostGroup { host, paths: vec![path] });
        }
    }
}

/// The host name, when the first bytes of the file hold it (collectors write `host` first);
/// `None` sends the caller to the whole file.
fn host_name_from_head(path: &Path) -> Result<Option<String>, UserError> {
    const HEAD_BYTES: u64 = 8 << 10;
    let shown = path.display();
    let meta = fs::metadata(path).map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    if meta.len() > MAX_SNAPSHOT_BYTES {
        return Err(UserError::plain(format!(
            "{shown}: file is {} bytes; a snapshot is at most {MAX_SNAPSHOT_BYTES} bytes",
            meta.len()
        )));
    }
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    fs::File::open(path)
        .and_then(|f| f.take(HEAD_BYTES).read_to_end(&mut head))
        .map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    let valid = match std::str::from_utf8(&head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    // A span found in the head is complete: the scanner saw its closing quote.
    Ok(locate(valid, "/host/name").and_then(|span| serde_json::from_str::<String>(&valid[span.value]).ok()))
}

/// Reads and parses every file of one host.
pub fn load_group(group: &HostGroup) -> Result<Vec<Document>, UserError> {
    group
        .paths
        .iter()
        .map(|p| {
            let text = read_text(p)?;
            // parse_snapshot keeps the text for locating facts; on error we need it for the
            // message, so parse from a copy only on the error path.
            parse_snapshot(&p.display().to_string(), text).map_err(|e| {
                let text = fs::read_to_string(p).ok();
                load_error(e, text.as_deref())
            })
        })
        .collect()
}
