//! Finding snapshot files, grouping them by host, and loading one host's files at a time, so a
//! fleet of any size is checked in memory bounded by its largest host.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use spindle_core::glob::Glob;
use spindle_core::load::parse_snapshot;
use spindle_core::locate::locate;
use spindle_core::view::Document;
use spindle_files::ReadError;

use crate::errors::{UserError, load_error};

/// Largest snapshot read. A host with 10,000 database files is about 5 MiB of JSON; anything
/// near this limit is not a snapshot.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 << 20;

/// The snapshot files of a run, in a stable order. Held for the whole run, so kept compact: a
/// directory's path once, each file's name in one shared buffer (about 25 bytes a file rather
/// than 90 for a `PathBuf`), so a fleet of a million files lists in tens of megabytes.
#[derive(Debug, Default)]
pub struct Files {
    dirs: Vec<PathBuf>,
    /// Every file name's encoded bytes, one after another.
    names: Vec<u8>,
    /// Per file: its directory in `dirs`, and where its name ends in `names`.
    entries: Vec<(u32, u32)>,
    /// The text of inputs that can be read only once (standard input, a pipe such as
    /// `<(gunzip -c s.json.gz)`, a device), by file index in ascending order: read whole when
    /// listed, since the host name and the load would otherwise each consume part of it.
    held: Vec<(u32, String)>,
    /// The files named on the command line, by index in ascending order; every other was found
    /// by walking a directory, and is skipped rather than refused when it is not a snapshot.
    named: Vec<u32>,
    /// Whether a skip note has been printed: the first one says how to silence them, once.
    skip_noted: std::sync::atomic::AtomicBool,
}

impl Files {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The text of file `i`: held since it was listed, or read now.
    pub fn text(&self, i: usize) -> Result<String, UserError> {
        match self.held(i) {
            Some(text) => Ok(text.to_owned()),
            None => read_text(&self.path(i)),
        }
    }

    fn held(&self, i: usize) -> Option<&str> {
        let i = u32::try_from(i).ok()?;
        self.held.binary_search_by_key(&i, |(j, _)| *j).ok().map(|k| self.held[k].1.as_str())
    }

    pub fn path(&self, i: usize) -> PathBuf {
        let (dir, end) = self.entries[i];
        let start = if i == 0 { 0 } else { self.entries[i - 1].1 };
        let bytes = &self.names[start as usize..end as usize];
        // SAFETY: `bytes` are exactly the encoded bytes of one `OsStr`, appended by `push`.
        #[allow(unsafe_code)]
        let name = unsafe { OsStr::from_encoded_bytes_unchecked(bytes) };
        let dir = &self.dirs[dir as usize];
        if name.is_empty() { dir.clone() } else { join_as_given(dir, name) }
    }

    fn add_dir(&mut self, dir: PathBuf) -> Result<u32, UserError> {
        self.dirs.push(dir);
        u32::try_from(self.dirs.len() - 1).map_err(|_| too_many())
    }

    fn push(&mut self, dir: u32, name: &OsStr) -> Result<(), UserError> {
        self.names.extend_from_slice(name.as_encoded_bytes());
        let end = u32::try_from(self.names.len()).map_err(|_| too_many())?;
        self.entries.push((dir, end));
        Ok(())
    }

    /// Whether file `i` was found by walking a directory rather than named.
    fn walked(&self, i: usize) -> bool {
        u32::try_from(i).is_ok_and(|i| self.named.binary_search(&i).is_err())
    }

    /// A file named on the command line: its directory and name, or the whole path when it has
    /// no final name (`..`).
    fn push_path(&mut self, path: &Path) -> Result<(), UserError> {
        self.named.push(u32::try_from(self.entries.len()).map_err(|_| too_many())?);
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => {
                let dir = self.add_dir(parent.to_path_buf())?;
                self.push(dir, name)
            }
            _ => {
                let dir = self.add_dir(path.to_path_buf())?;
                self.push(dir, OsStr::new(""))
            }
        }
    }
}

fn too_many() -> UserError {
    UserError::plain(
        "too many snapshot files for one run (their names exceed 4 GiB); check the fleet in parts",
    )
}

/// The hosts of a run: which files describe each, in order of first appearance.
#[derive(Debug, Default)]
pub struct Groups {
    /// File indices, grouped by host.
    members: Vec<u32>,
    /// Where each host's files start in `members`.
    starts: Vec<u32>,
    /// Host names, lower-cased, to their group: for merging a live server with its files.
    by_host: HashMap<Box<str>, u32>,
}

impl Groups {
    /// How many hosts the files describe.
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    fn files(&self, g: usize) -> &[u32] {
        let end = self.starts.get(g + 1).map_or(self.members.len(), |&e| e as usize);
        &self.members[self.starts[g] as usize..end]
    }

    /// The host index by lower-cased name, handed over: a run needs it only to merge live
    /// servers, and then no more.
    pub fn take_host_index(&mut self) -> HashMap<Box<str>, u32> {
        std::mem::take(&mut self.by_host)
    }
}

/// Expands the command line's files and directories into snapshot paths, in a stable order.
/// See [`discover_excluding`].
pub fn discover(inputs: &[PathBuf]) -> Result<Files, UserError> {
    discover_excluding(inputs, &Exclude::default())
}

/// `--exclude GLOB`: files and folders a directory walk leaves out without a word. A pattern
/// without `/` is matched against each file's and folder's name (`*.bak`, `archive`); one with
/// `/` against the path below the folder given (`old/*`). `*` matches any run of characters,
/// `/` included, and `?` one character. Files named on the command line are always read.
#[derive(Debug, Clone, Default)]
pub struct Exclude(Vec<Glob>);

impl Exclude {
    pub fn new(patterns: &[String]) -> Exclude {
        Exclude(patterns.iter().map(|p| Glob::new(p.trim_end_matches('/'))).collect())
    }

    fn matches(&self, below: &Path) -> bool {
        let name = below.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let below: Vec<_> = below.components().map(|c| c.as_os_str().to_string_lossy()).collect();
        let below = below.join("/");
        self.0.iter().any(|g| if g.as_str().contains('/') { g.matches(&below) } else { g.matches(&name) })
    }
}

/// Expands the command line's files and directories into snapshot paths, in a stable order.
/// A directory's `.json` files and subdirectories are walked (hidden ones and those `exclude`
/// matches are left out); any other file found there is skipped with a note on stderr, so a
/// `NOTES.txt` or a `.bak` beside the snapshots does not stop a fleet's run. (A `.json` file
/// that turns out to be a report or baseline spindle wrote is skipped later, when its host is
/// looked for: see [`group_by_host`].) A file named on the command line is always read, and
/// refused if it is not a snapshot. `-` is standard input; it and any other input that is not
/// a regular file (a pipe, a device) is read here, once.
pub fn discover_excluding(inputs: &[PathBuf], exclude: &Exclude) -> Result<Files, UserError> {
    discover_all(&[(inputs, exclude.clone())])
}

/// [`discover_excluding`] over several sets of inputs, each with its own `--exclude`, into one
/// list in order; standard input is read once among them all.
pub fn discover_all(sets: &[(&[PathBuf], Exclude)]) -> Result<Files, UserError> {
    let mut out = Files::default();
    let mut stdin_read = false;
    for (inputs, exclude) in sets {
        for input in *inputs {
            add_input(input, exclude, &mut stdin_read, &mut out)?;
        }
    }
    Ok(out)
}

/// One input of the command line onto `out`: standard input, a directory walked, a file, or a
/// pipe or device read now.
fn add_input(
    input: &Path,
    exclude: &Exclude,
    stdin_read: &mut bool,
    out: &mut Files,
) -> Result<(), UserError> {
    if input.as_os_str() == "-" {
        if std::mem::replace(stdin_read, true) {
            return Err(UserError::plain("-: standard input can be read only once"));
        }
        let text = read_bounded(io::stdin().lock(), STDIN_NAME)?;
        out.push_path(Path::new(STDIN_NAME))?;
        out.hold(text);
        return Ok(());
    }
    let meta = fs::metadata(input)
        .map_err(|e| UserError::plain(format!("{}: cannot read: {e}", input.display())))?;
    if meta.is_dir() {
        let before = out.len();
        walk(input, input, exclude, out)?;
        if out.len() == before {
            return Err(UserError::plain(format!(
                "{}: no snapshot (.json) files in this directory",
                input.display()
            )));
        }
    } else if meta.is_file() {
        out.push_path(input)?;
    } else {
        let text = read_stream(input)?;
        out.push_path(input)?;
        out.hold(text);
    }
    Ok(())
}

/// How standard input is named in reports and errors.
const STDIN_NAME: &str = "<stdin>";

impl Files {
    /// Keeps the text of the file just pushed.
    fn hold(&mut self, text: String) {
        self.held.push((self.entries.len() as u32 - 1, text));
    }
}

fn walk(dir: &Path, root: &Path, exclude: &Exclude, out: &mut Files) -> Result<(), UserError> {
    let read = |e: std::io::Error| UserError::plain(format!("{}: cannot read directory: {e}", dir.display()));
    let mut entries: Vec<_> = fs::read_dir(dir).map_err(read)?.collect::<Result<_, _>>().map_err(read)?;
    entries.sort_by_key(|e| e.file_name());
    let mut here = None;
    for entry in entries {
        let name = entry.file_name();
        if name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let kind = entry.file_type().map_err(read)?;
        let path = join_as_given(dir, &name);
        if exclude.matches(path.strip_prefix(root).unwrap_or(&path)) {
            continue;
        }
        if kind.is_dir() {
            walk(&path, root, exclude, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            // A named pipe here would hang the run on its first read, and a device would be read
            // to the size cap: neither is a snapshot file. A link is judged by what it points to.
            if !kind.is_file() {
                let meta = fs::metadata(&path)
                    .map_err(|e| UserError::plain(format!("{}: cannot read: {e}", path.display())))?;
                if !meta.is_file() {
                    return Err(UserError {
                        help: Some(
                            "a snapshot directory holds only regular .json files; name a pipe or \
                             device on the command line to read it once"
                                .into(),
                        ),
                        ..UserError::plain(format!(
                            "{}: not a regular file ({})",
                            path.display(),
                            spindle_files::kind(&meta)
                        ))
                    });
                }
            }
            let dir = match here {
                Some(d) => d,
                None => *here.insert(out.add_dir(dir.to_path_buf())?),
            };
            out.push(dir, &name)?;
        } else {
            let head = head_of(&path);
            let what = match report_kind(&path, head.as_deref()) {
                Some(kind) => format!("not a snapshot: looks like a report spindle wrote ({kind})"),
                None => "not a snapshot (.json) file".to_string(),
            };
            out.skipped(&path, &what);
        }
    }
    Ok(())
}

/// `dir` joined with `name`, written as the user wrote `dir`: reports show paths as given, and
/// on Windows `Path::join` adds a backslash even to `examples/x`, printing `examples/x\a.json`.
fn join_as_given(dir: &Path, name: &OsStr) -> PathBuf {
    if !cfg!(windows) {
        return dir.join(name);
    }
    match (dir.to_str(), name.to_str()) {
        (Some(d), Some(n)) => PathBuf::from(join_styled(d, n)),
        _ => dir.join(name),
    }
}

/// `dir` and `name` joined as on Windows, with the separator `dir` uses last (`examples/x` →
/// `examples/x/a.json`, `D:\fleet` → `D:\fleet\a.json`), a backslash when it uses none.
fn join_styled(dir: &str, name: &str) -> String {
    let sep = dir.rfind(['/', '\\']).map_or('\\', |i| dir.as_bytes()[i] as char);
    if dir.is_empty() || dir.ends_with(['/', '\\', ':']) {
        format!("{dir}{name}")
    } else {
        format!("{dir}{sep}{name}")
    }
}

impl Files {
    /// The note for a file a directory walk found and does not read as a snapshot; the first
    /// note of a run says how to leave such files out, the others do not repeat it.
    fn skipped(&self, path: &Path, what: &str) {
        let hint = if self.skip_noted.swap(true, std::sync::atomic::Ordering::Relaxed) {
            ""
        } else {
            " (--exclude GLOB leaves such files out without a note)"
        };
        eprintln!(
            "spindle: skipped {}: {what}{hint}",
            spindle_core::untrusted::name(&path.display().to_string())
        );
    }
}

/// Reads a snapshot file's text, refusing files too large to be snapshots before reading them,
/// and reading at most one byte over the cap whatever the file's size says (files in /proc or
/// /sys say 0 or 4096).
pub fn read_text(path: &Path) -> Result<String, UserError> {
    read_capped(path, MAX_SNAPSHOT_BYTES, "a snapshot")
}

/// The text of `path`, a regular file of at most `cap_bytes` (named `what` in the error, "a
/// snapshot"): a pipe or device is refused without waiting on it, and no more than one byte
/// past the cap is read whatever the file's size says.
pub(crate) fn read_capped(path: &Path, cap_bytes: u64, what: &str) -> Result<String, UserError> {
    let shown = path.display().to_string();
    let bytes = spindle_files::read_regular(path, cap_bytes).map_err(|e| unread(e, &shown, what))?;
    utf8(bytes, &shown)
}

/// An input that is not a regular file, read whole, once: a pipe or a device.
fn read_stream(path: &Path) -> Result<String, UserError> {
    let shown = path.display().to_string();
    let fail = |e: io::Error| UserError::plain(format!("{shown}: cannot read: {e}"));
    let file = spindle_files::open_nonblocking(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    // The pipe was opened without waiting for a writer; its reads should wait for the data.
    spindle_files::set_blocking(&file).map_err(fail)?;
    let text = read_bounded(file, &shown)?;
    if text.is_empty() && spindle_files::is_fifo(&meta) {
        return Err(UserError::plain(format!(
            "{shown}: a named pipe with nothing written into it (spindle does not wait for a writer)"
        )));
    }
    Ok(text)
}

/// At most [`MAX_SNAPSHOT_BYTES`] of `r` as text; more is an error, found by reading one byte
/// past the cap rather than trusting a size (`/dev/zero` and pipes have none).
fn read_bounded(r: impl Read, shown: &str) -> Result<String, UserError> {
    let bytes =
        spindle_files::read_bounded(r, MAX_SNAPSHOT_BYTES).map_err(|e| unread(e, shown, "a snapshot"))?;
    utf8(bytes, shown)
}

fn unread(e: ReadError, shown: &str, what: &str) -> UserError {
    UserError::plain(match e {
        ReadError::TooLarge { size_bytes: Some(n), cap_bytes } => {
            format!("{shown}: file is {n} bytes; {what} is at most {cap_bytes} bytes")
        }
        ReadError::TooLarge { size_bytes: None, cap_bytes } => {
            format!("{shown}: more than {cap_bytes} bytes; {what} is at most {cap_bytes} bytes")
        }
        e => format!("{shown}: cannot read: {e}"),
    })
}

fn utf8(bytes: Vec<u8>, shown: &str) -> Result<String, UserError> {
    String::from_utf8(bytes).map_err(|e| {
        UserError::plain(format!("{shown}: not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
    })
}

/// The group of a file that is not a snapshot, skipped.
const SKIPPED: u32 = u32::MAX;

/// Groups files by the host they describe (names compared without case, as Windows and DNS
/// do: SQL Server reports `SQL01` where the host collector says `sql01`), in order of first
/// appearance. Only the host name is read here (the scan stops there, and collectors write
/// `host` first); the full parse, with its errors, happens per group in [`load_group`]. The
/// names are read on `threads` threads.
pub fn group_by_host(files: &Files, threads: usize) -> Result<Groups, UserError> {
    let mut by_host: HashMap<Box<str>, u32> = HashMap::new();
    let mut group_of = Vec::with_capacity(files.len());
    let indices: Vec<u32> = (0..files.len() as u32).collect();
    crate::ordered::for_each_in_order(
        &indices,
        threads,
        |&i| host_name(files, i as usize),
        |name| {
            let Some(name) = name? else {
                group_of.push(SKIPPED);
                return Ok(());
            };
            let key = name.to_lowercase();
            let next = by_host.len() as u32;
            let g = match by_host.get(key.as_str()) {
                Some(&g) => g,
                None => *by_host.entry(key.into_boxed_str()).or_insert(next),
            };
            group_of.push(g);
            Ok::<(), UserError>(())
        },
    )?;
    drop(indices);
    if by_host.is_empty() && !files.is_empty() {
        return Err(UserError::plain(
            "no snapshot among the inputs: every file found is a report or baseline spindle wrote",
        ));
    }
    // Counting sort: each host's files together, in file order.
    let mut starts = vec![0u32; by_host.len() + 1];
    for &g in group_of.iter().filter(|&&g| g != SKIPPED) {
        starts[g as usize + 1] += 1;
    }
    for g in 1..starts.len() {
        starts[g] += starts[g - 1];
    }
    let mut fill = starts.clone();
    let mut members = vec![0u32; starts[starts.len() - 1] as usize];
    for (i, &g) in group_of.iter().enumerate().filter(|&(_, &g)| g != SKIPPED) {
        members[fill[g as usize] as usize] = i as u32;
        fill[g as usize] += 1;
    }
    starts.pop();
    Ok(Groups { members, starts, by_host })
}

/// The host a snapshot file describes: from its first bytes when they name it, else from the
/// whole file; a file that names none is an error, where it goes wrong. `None` for a file a
/// directory walk found that is a report or a baseline spindle wrote: skipped, with a note.
fn host_name(files: &Files, i: usize) -> Result<Option<String>, UserError> {
    let path = files.path(i);
    let head = match files.held(i) {
        Some(text) => host_name_in_head(text.as_bytes()),
        None => host_name_from_head(&path)?,
    };
    if let Some(name) = head {
        return Ok(Some(name));
    }
    // No host name near the top: the full parse finds it or says what is wrong, and where.
    let text = files.text(i)?;
    let written = report_kind(&path, Some(&text))
        .map(|kind| format!("looks like a report spindle wrote ({kind})"))
        .or_else(|| is_baseline(&text).then(|| "a baseline spindle wrote (spindle baseline)".to_string()));
    match written {
        Some(what) if files.walked(i) => {
            files.skipped(&path, &format!("not a snapshot: {what}"));
            return Ok(None);
        }
        Some(what) => return Err(not_a_snapshot(&path, &what)),
        None => {}
    }
    if let Some(name) =
        locate(&text, "/host/name").and_then(|span| serde_json::from_str::<String>(&text[span.value]).ok())
    {
        return Ok(Some(name));
    }
    Err(parse_snapshot(&path.display().to_string(), text.clone())
        .err()
        .map(|e| load_error(e, Some(&text)))
        .unwrap_or_else(|| UserError::plain(format!("{}: no host.name", path.display()))))
}

/// What kind of report spindle writes `text` (the file `path`) looks like, when it looks like
/// one: by the lines and keys that open spindle's reports, for its extension (`.md`, `.html`,
/// `.xml`, `.sarif`, or any other for the JSON reports). A Markdown file of anyone else's is no
/// report of spindle's. Only the first kilobytes of `text` are looked at.
fn report_kind(path: &Path, text: Option<&str>) -> Option<&'static str> {
    let text = text?;
    let head = &text[..text.floor_char_boundary(4096)];
    let ext = path.extension().and_then(OsStr::to_str).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("md" | "markdown") => {
            let spindles = head.starts_with("# spindle ")
                || head.starts_with("# Change plan for ") && head.contains("spindle runs nothing");
            return spindles.then_some("a Markdown report");
        }
        Some("html" | "htm") => {
            return head.contains("<title>spindle storage report</title>").then_some("an HTML report");
        }
        Some("xml") => return head.contains("<testsuites name=\"spindle\"").then_some("a JUnit report"),
        _ => {}
    }
    if head.contains("\"report_version\"") && head.contains("\"spindle_version\"") {
        Some("a JSON report")
    } else if head.contains("\"runs\"") && head.contains("sarif") {
        Some("a SARIF report")
    } else if head.trim_start().starts_with('[')
        && head.contains("\"check_name\"")
        && head.contains("\"fingerprint\"")
    {
        Some("a GitLab Code Quality report")
    } else {
        None
    }
}

/// Whether `text` opens as the baseline file `spindle baseline` writes.
fn is_baseline(text: &str) -> bool {
    let head = text[..text.floor_char_boundary(4096)].trim_start();
    head.starts_with('{') && head.contains("\"spindle_baseline\"")
}

/// The error for a file spindle wrote named where snapshots were expected: a hint, not a parse
/// error.
fn not_a_snapshot(path: &Path, what: &str) -> UserError {
    UserError {
        help: Some(
            "write reports outside the folders of snapshots (`-o ../report.sarif`), or move this file away"
                .into(),
        ),
        ..UserError::plain(format!("{}: not a snapshot: {what}", path.display()))
    }
}

/// The first kilobytes of a regular file, as text (what is not UTF-8 replaced), for telling
/// what it is; `None` when it cannot be read or is not a regular file.
fn head_of(path: &Path) -> Option<String> {
    let (file, _) = spindle_files::open_regular(path).ok()?;
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    file.take(HEAD_BYTES).read_to_end(&mut head).ok()?;
    Some(String::from_utf8_lossy(&head).into_owned())
}

/// How much of a file is read for its host name.
const HEAD_BYTES: u64 = 8 << 10;

/// The host name, when the first bytes of the file hold it (collectors write `host` first);
/// `None` sends the caller to the whole file.
fn host_name_from_head(path: &Path) -> Result<Option<String>, UserError> {
    let shown = path.display();
    let (file, meta) = spindle_files::open_regular(path)
        .map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    if meta.len() > MAX_SNAPSHOT_BYTES {
        return Err(UserError::plain(format!(
            "{shown}: file is {} bytes; a snapshot is at most {MAX_SNAPSHOT_BYTES} bytes",
            meta.len()
        )));
    }
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    file.take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    Ok(host_name_in_head(&head))
}

fn host_name_in_head(head: &[u8]) -> Option<String> {
    let head = &head[..head.len().min(HEAD_BYTES as usize)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    // A span found in the head is complete: the scanner saw its closing quote.
    locate(valid, "/host/name").and_then(|span| serde_json::from_str::<String>(&valid[span.value]).ok())
}

/// Reads and parses every file of one host.
pub fn load_group(files: &Files, groups: &Groups, g: usize) -> Result<Vec<Document>, UserError> {
    groups
        .files(g)
        .iter()
        .map(|&i| {
            let p = &files.path(i as usize);
            let text = files.text(i as usize)?;
            // parse_snapshot keeps the text for locating facts; on error we need it for the
            // message, so read it again only on the error path.
            parse_snapshot(&p.display().to_string(), text).map_err(|e| {
                let text = files.text(i as usize).ok();
                load_error(e, text.as_deref())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_paths_are_joined_with_the_separator_the_user_wrote() {
        assert_eq!(join_styled("examples/x", "a.json"), "examples/x/a.json");
        assert_eq!(join_styled("examples/x/", "a.json"), "examples/x/a.json");
        assert_eq!(join_styled(r"D:\fleet", "a.json"), r"D:\fleet\a.json");
        assert_eq!(join_styled(r"D:\fleet/site-a", "a.json"), "D:\\fleet/site-a/a.json");
        assert_eq!(join_styled("fleet", "a.json"), r"fleet\a.json");
        assert_eq!(join_styled("D:", "a.json"), "D:a.json");
    }

    fn snapshot(dir: &Path, name: &str, host: &str) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, format!("{{\"schema_version\": 1, \"host\": {{\"name\": \"{host}\"}}}}")).unwrap();
        p
    }

    #[test]
    fn files_list_in_name_order_with_their_full_paths() {
        let dir = tempfile::TempDir::new().unwrap();
        let sub = dir.path().join("b-site");
        fs::create_dir(&sub).unwrap();
        let c = snapshot(dir.path(), "c.json", "h3");
        let a = snapshot(dir.path(), "a.json", "h1");
        let inner = snapshot(&sub, "x y.json", "h2");
        let extra = snapshot(dir.path(), ".hidden.json", "h4");
        let files = discover(&[dir.path().to_path_buf(), extra.clone()]).unwrap();
        let paths: Vec<PathBuf> = (0..files.len()).map(|i| files.path(i)).collect();
        // A hidden file is skipped in a walk, but read when named.
        assert_eq!(paths, [a, inner, c, extra]);

        // A bare file name (the current directory) stays as it was given.
        let bare = discover(&[PathBuf::from("Cargo.toml")]).unwrap();
        assert_eq!(bare.path(0), PathBuf::from("Cargo.toml"));
    }

    #[test]
    fn hosts_group_in_order_of_first_appearance_with_their_files_in_order() {
        let dir = tempfile::TempDir::new().unwrap();
        let p: Vec<PathBuf> = [
            ("1.json", "sql02"),
            ("2.json", "SQL01"),
            ("3.json", "sql01"),
            ("4.json", "sql03"),
            ("5.json", "Sql02"),
        ]
        .iter()
        .map(|(n, h)| snapshot(dir.path(), n, h))
        .collect();
        let files = discover(&[dir.path().to_path_buf()]).unwrap();
        for threads in [1, 3] {
            let mut groups = group_by_host(&files, threads).unwrap();
            let of = |g: usize| groups.files(g).iter().map(|&i| files.path(i as usize)).collect::<Vec<_>>();
            assert_eq!(of(0), [p[0].clone(), p[4].clone()]);
            assert_eq!(of(1), [p[1].clone(), p[2].clone()]);
            assert_eq!(of(2), [p[3].clone()]);
            let index = groups.take_host_index();
            assert_eq!(index.get("sql01"), Some(&1));
            assert_eq!(index.len(), 3);
        }
    }
}
