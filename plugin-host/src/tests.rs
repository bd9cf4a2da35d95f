//! What can be tested without a guest plugin; tests/plugins.rs runs real ones.

use std::path::Path;

use crate::bindings::v0_1::types as wit;
use crate::cache::{self, CodeCache, dir_from};
use crate::capture::{LOG_LINE_MAX_BYTES, LOG_MAX_BYTES, LOG_MAX_LINES, LogSink, TailPipe, escape};
use crate::types::LogLevel;
use crate::{Limits, PluginErrorKind, PluginHost, validate};

/// An empty but valid component: magic, then version 0x0d, layer 1.
const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\x00\x01\x00";

fn host(dir: &Path) -> PluginHost {
    PluginHost::with_cache_dir(Some(dir.to_path_buf())).unwrap()
}

fn load_bytes(bytes: &[u8], sha256: Option<&str>) -> crate::PluginError {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.wasm");
    std::fs::write(&path, bytes).unwrap();
    host(&dir.path().join("cache")).load("x", "packs/x.toml", &path, sha256, Limits::default()).unwrap_err()
}

#[test]
fn a_text_file_is_not_wasm() {
    let e = load_bytes(b"hello, I am not wasm\n", None);
    assert_eq!(e.kind, PluginErrorKind::NotWasm);
    let msg = e.to_string();
    assert!(msg.starts_with("plugin `x` of pack `packs/x.toml` ("), "{msg}");
    assert!(msg.contains("not a WebAssembly file"), "{msg}");
}

#[test]
fn an_empty_file_and_a_core_module_and_an_elf_are_told_apart() {
    assert!(load_bytes(b"", None).message.contains("empty"));
    let core = load_bytes(b"\0asm\x01\x00\x00\x00", None);
    assert_eq!(core.kind, PluginErrorKind::NotWasm);
    assert!(core.message.contains("core WebAssembly module, not a component"), "{}", core.message);
    assert!(load_bytes(b"\x7fELF\x02\x01\x01", None).message.contains("ELF"));
    assert!(load_bytes(b"(component)", None).message.contains(".wat"));
}

#[test]
fn a_truncated_component_says_so() {
    let e = load_bytes(b"\0asm\x0d\x00", None);
    assert_eq!(e.kind, PluginErrorKind::NotWasm);
    assert!(e.message.contains("truncated"), "{}", e.message);
    // A section whose declared size runs past the end of the file.
    let e = load_bytes(b"\0asm\x0d\x00\x01\x00\x07\x20\x01", None);
    assert_eq!(e.kind, PluginErrorKind::NotWasm);
    assert!(e.message.contains("truncated or corrupt"), "{}", e.message);
}

#[test]
fn truncation_is_found_from_the_section_sizes() {
    use crate::wasm_file::truncated;
    assert!(!truncated(EMPTY_COMPONENT));
    assert!(!truncated(b"\0asm\x0d\x00\x01\x00\x00\x02ab\x01\x00"));
    assert!(truncated(b"\0asm\x0d\x00\x01\x00\x00\x03ab"));
    assert!(truncated(b"\0asm\x0d\x00\x01\x00\x00"));
    assert!(truncated(b"\0asm\x0d\x00\x01\x00\x00\x80"));
}

#[test]
fn a_component_that_is_no_plugin_is_refused() {
    let e = load_bytes(EMPTY_COMPONENT, None);
    assert_eq!(e.kind, PluginErrorKind::Contract);
    assert!(e.message.contains("not a spindle plugin"), "{}", e.message);
}

#[test]
fn a_sha256_mismatch_is_refused_with_both_digests() {
    let actual = cache::hex(&crate::wasm_file::sha256(EMPTY_COMPONENT));
    let expected = "0".repeat(64);
    let e = load_bytes(EMPTY_COMPONENT, Some(&expected));
    assert_eq!(e.kind, PluginErrorKind::Digest);
    assert!(e.message.contains(&expected) && e.message.contains(&actual), "{}", e.message);
    // Checked before anything else: even a file that is not wasm.
    assert_eq!(load_bytes(b"junk", Some(&expected)).kind, PluginErrorKind::Digest);
    // A malformed digest in the pack.
    let e = load_bytes(EMPTY_COMPONENT, Some("abc"));
    assert!(e.message.contains("not 64 hex digits"), "{}", e.message);
    // The right digest, any case, with or without `sha256:`, passes to the next check.
    for d in [actual.clone(), actual.to_uppercase(), format!("sha256:{actual}")] {
        assert_eq!(load_bytes(EMPTY_COMPONENT, Some(&d)).kind, PluginErrorKind::Contract);
    }
}

#[test]
fn a_missing_file_is_a_read_error() {
    let dir = tempfile::tempdir().unwrap();
    let e =
        host(dir.path()).load("x", "p", &dir.path().join("nope.wasm"), None, Limits::default()).unwrap_err();
    assert_eq!(e.kind, PluginErrorKind::Read);
    assert!(e.to_string().contains("nope.wasm"), "{e}");
}

#[test]
fn an_oversized_file_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.wasm");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(crate::MAX_WASM_BYTES + 1).unwrap();
    let e = host(dir.path()).load("x", "p", &path, None, Limits::default()).unwrap_err();
    assert_eq!(e.kind, PluginErrorKind::Read);
    assert!(e.message.contains("over 64 MiB"), "{}", e.message);
}

#[test]
fn the_cache_dir_follows_the_environment() {
    let s = |v: &str| Some(std::ffi::OsString::from(v));
    assert_eq!(dir_from(s("/c"), s("/x"), s("/h")), Some("/c".into()));
    assert_eq!(dir_from(s(""), s("/x"), s("/h")), Some("/x/spindle".into()));
    assert_eq!(dir_from(None, s("relative"), s("/h")), Some("/h/.cache/spindle".into()));
    assert_eq!(dir_from(None, None, s("/h")), Some("/h/.cache/spindle".into()));
    assert_eq!(dir_from(None, None, None), None);
}

#[test]
fn the_cache_key_depends_on_the_wasm_and_the_engine() {
    let a = [1u8; 32];
    let b = [2u8; 32];
    let k = cache::key(&a, &b);
    assert_eq!(k.len(), 64);
    assert!(k.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(k, cache::key(&a, &b));
    assert_ne!(k, cache::key(&b, &b));
    assert_ne!(k, cache::key(&a, &a));
    // The fingerprint is stable for one engine configuration and changes with it.
    let e1 = wasmtime::Engine::default();
    let e2 = wasmtime::Engine::default();
    assert_eq!(cache::engine_fingerprint(&e1), cache::engine_fingerprint(&e2));
    let mut c = wasmtime::Config::new();
    c.consume_fuel(true);
    let e3 = wasmtime::Engine::new(&c).unwrap();
    assert_ne!(cache::engine_fingerprint(&e1), cache::engine_fingerprint(&e3));
}

/// The wasm sha256 the cache tests file their entries under.
const WASM: [u8; 32] = [7; 32];

#[test]
fn a_cache_entry_is_read_back_only_when_whole_under_its_key_and_signed() {
    let payload = b"compiled code".to_vec();
    let mac = [9u8; 32];
    let entry = cache::entry_bytes("k1", &WASM, &payload, &mac);
    assert_eq!(cache::payload(&entry, "k1", &WASM, &mac), Some(&payload[..]));
    assert_eq!(cache::payload(&entry, "k2", &WASM, &mac), None, "another key");
    assert_eq!(cache::payload(&entry, "k1", &[8; 32], &mac), None, "compiled from other wasm");
    assert_eq!(cache::payload(&entry, "k1", &WASM, &[10; 32]), None, "signed with another user's key");
    assert_eq!(cache::payload(&entry[..entry.len() - 1], "k1", &WASM, &mac), None, "truncated");
    let mut flipped = entry.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert_eq!(cache::payload(&flipped, "k1", &WASM, &mac), None, "corrupt");
    assert_eq!(cache::payload(b"short", "k1", &WASM, &mac), None);
    // A forger who knows the layout but not the key: every field right, the HMAC guessed.
    let mut forged = entry.clone();
    forged[16 + 32 + 32 + 8 + 32] ^= 1;
    assert_eq!(cache::payload(&forged, "k1", &WASM, &mac), None, "forged");
}

#[test]
fn the_cache_hmac_is_rfc_4231s() {
    // RFC 4231, test cases 1, 2 and 6 (a key longer than the block).
    let hex = |b: [u8; 32]| cache::hex(&b);
    assert_eq!(
        hex(cache::hmac_sha256(&[0x0b; 20], b"Hi There")),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    );
    assert_eq!(
        hex(cache::hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(
        hex(cache::hmac_sha256(&[0xaa; 131], b"Test Using Larger Than Block-Size Key - Hash Key First")),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    );
}

#[test]
fn a_bad_cache_entry_is_deleted_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CodeCache::new(Some(dir.path().to_path_buf()));
    let engine = wasmtime::Engine::default();
    // A sound header around a payload wasmtime refuses: deleted.
    cache.store("k", &WASM, b"not wasmtime's code").unwrap();
    let path = cache.entry_path("k").unwrap();
    assert!(path.exists());
    assert!(cache.load(&engine, "k", &WASM).is_none());
    assert!(!path.exists());
    // Garbage under the key: deleted.
    std::fs::write(&path, b"garbage").unwrap();
    assert!(cache.load(&engine, "k", &WASM).is_none());
    assert!(!path.exists());
    // No temporary files left behind.
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An entry of the empty component, stored under `k` for [`WASM`].
fn stored_entry(dir: &Path) -> (CodeCache, wasmtime::Engine, std::path::PathBuf) {
    let engine = wasmtime::Engine::default();
    let component = wasmtime::component::Component::from_binary(&engine, EMPTY_COMPONENT).unwrap();
    let cache = CodeCache::new(Some(dir.to_path_buf()));
    cache.store("k", &WASM, &component.serialize().unwrap()).unwrap();
    assert!(cache.load(&engine, "k", &WASM).is_some(), "a sound entry loads");
    let entry = cache.entry_path("k").unwrap();
    (cache, engine, entry)
}

#[cfg(unix)]
#[test]
fn a_cache_others_can_write_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (cache, engine, entry) = stored_entry(dir.path());
    assert_eq!(std::fs::metadata(entry.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
    std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o666)).unwrap();
    assert!(cache.load(&engine, "k", &WASM).is_none());
    assert!(entry.exists(), "left alone, not trusted");
    std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(cache.load(&engine, "k", &WASM).is_some());
    // Any directory on the way, not only the entry's.
    for d in [entry.parent().unwrap(), dir.path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(cache.load(&engine, "k", &WASM).is_none(), "{}", d.display());
        assert!(entry.exists(), "left alone, not trusted");
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(cache.load(&engine, "k", &WASM).is_some());
    }
}

#[cfg(unix)]
#[test]
fn a_cache_key_others_can_read_or_that_is_missing_spoils_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (cache, engine, entry) = stored_entry(dir.path());
    let key = cache::key_file(dir.path());
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600, "made private");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(cache.load(&engine, "k", &WASM).is_none(), "a key others can read is no secret");
    assert!(cache.store("k", &WASM, b"x").is_err(), "nor is it used to sign");
    // A lost key: the entries it signed are compiled again, under a new key.
    std::fs::remove_file(&key).unwrap();
    let (_, _, again) = stored_entry(dir.path());
    assert_eq!(again, entry);
    assert!(key.exists());
    // A symlink in place of the key (to a key someone else knows) is not followed.
    std::fs::rename(&key, dir.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), &key).unwrap();
    assert!(cache.load(&engine, "k", &WASM).is_none());
}

#[test]
fn the_cache_trusts_only_what_the_user_or_root_owns() {
    use cache::{Owned, trust_dir, trust_entry, trust_key_file};
    let me = 1000;
    let o = |uid, mode| Owned { uid, mode, euid: me };
    // Directories: the user's or root's, written by no one else, but for root's sticky /tmp.
    assert!(trust_dir(o(me, 0o40700)).is_ok());
    assert!(trust_dir(o(0, 0o40755)).is_ok());
    assert!(trust_dir(o(0, 0o41777)).is_ok(), "/tmp");
    assert!(trust_dir(o(65534, 0o40755)).unwrap_err().contains("owned by uid 65534"));
    assert!(trust_dir(o(me, 0o40775)).unwrap_err().contains("writable by group or others"));
    assert!(trust_dir(o(me, 0o41777)).is_err(), "sticky, but its owner can still swap entries");
    assert!(trust_dir(o(65534, 0o41777)).is_err());
    // Entries: the same owners, writable by no one else.
    assert!(trust_entry(o(me, 0o100644)).is_ok());
    assert!(trust_entry(o(0, 0o100600)).is_ok());
    assert!(trust_entry(o(65534, 0o100644)).unwrap_err().contains("owned by uid 65534"));
    assert!(trust_entry(o(me, 0o100620)).is_err());
    // The key: a secret, readable by its owner alone.
    assert!(trust_key_file(o(me, 0o100600)).is_ok());
    assert!(trust_key_file(o(me, 0o100640)).is_err());
    assert!(trust_key_file(o(65534, 0o100600)).is_err());
    // Root's own cache: root's files only.
    let r = |uid, mode| Owned { uid, mode, euid: 0 };
    assert!(trust_entry(r(0, 0o100644)).is_ok());
    assert!(trust_entry(r(65534, 0o100644)).is_err());
    assert!(trust_dir(r(65534, 0o40755)).is_err());
}

/// As root, with another user's files: what only root can set up. (Without root the rules are
/// tested above on their own, and the end-to-end test tests/hostile says it needs root.)
#[cfg(unix)]
#[test]
fn the_cache_ignores_another_users_entries_directories_and_key() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: needs root to give files to another user (uid 65534)");
        return;
    }
    let nobody = Some(65534);
    let dir = tempfile::tempdir().unwrap();
    let (cache, engine, entry) = stored_entry(dir.path());
    let key = cache::key_file(dir.path());
    for (what, path) in
        [("the entry", &entry), ("its directory", &entry.parent().unwrap().to_path_buf()), ("the key", &key)]
    {
        std::os::unix::fs::chown(path, nobody, nobody).unwrap();
        assert!(cache.load(&engine, "k", &WASM).is_none(), "{what} owned by another user");
        assert!(entry.exists(), "{what}: nothing of another user's is touched");
        std::os::unix::fs::chown(path, Some(0), Some(0)).unwrap();
        assert!(cache.load(&engine, "k", &WASM).is_some(), "{what} given back to root");
    }
    // A cache directory below one another user owns: they could swap the whole tree.
    let theirs = tempfile::tempdir().unwrap();
    std::os::unix::fs::chown(theirs.path(), nobody, nobody).unwrap();
    let below = theirs.path().join("cache");
    std::fs::create_dir(&below).unwrap();
    let cache = CodeCache::new(Some(below));
    assert!(cache.store("k", &WASM, b"code").is_err(), "nothing is written there");
    assert!(cache.load(&engine, "k", &WASM).is_none());
}

#[test]
fn a_real_component_round_trips_through_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (cache, _, entry) = stored_entry(dir.path());
    // Another engine configuration refuses the entry (wasmtime's own check): deleted.
    let mut c = wasmtime::Config::new();
    c.consume_fuel(true);
    assert!(cache.load(&wasmtime::Engine::new(&c).unwrap(), "k", &WASM).is_none());
    assert!(!entry.exists());
}

#[test]
fn the_log_is_bounded_and_escaped() {
    let mut log = LogSink::default();
    log.push(LogLevel::Info, "\x1b[31mred\x1b[0m\u{202e}");
    assert_eq!(log.lines[0].message, "\\e[31mred\\e[0m\\u{202e}");
    log.push(LogLevel::Warn, &"é".repeat(LOG_LINE_MAX_BYTES));
    assert!(log.lines[1].message.len() <= LOG_LINE_MAX_BYTES);
    for i in 0..10 * LOG_MAX_LINES {
        log.push(LogLevel::Debug, &format!("line {i}"));
    }
    assert_eq!(log.lines.len(), LOG_MAX_LINES);
    assert_eq!(log.dropped, 10 * LOG_MAX_LINES + 2 - LOG_MAX_LINES);
    let mut log = LogSink::default();
    for _ in 0..LOG_MAX_LINES {
        log.push(LogLevel::Debug, &"x".repeat(LOG_LINE_MAX_BYTES));
    }
    assert!(log.bytes <= LOG_MAX_BYTES);
    assert!(log.dropped > 0);
}

#[test]
fn a_pipe_keeps_the_tail() {
    let p = TailPipe::new(16);
    let mut w = p.clone();
    use wasmtime_wasi::p2::OutputStream;
    w.write(bytes::Bytes::from_static(b"first line\n")).unwrap();
    w.write(bytes::Bytes::from_static(b"second line\nthird\n")).unwrap();
    let (text, dropped) = p.contents();
    assert_eq!(dropped, 29 - 16);
    assert_eq!(text, "third\n", "starts at a whole line");
    w.write(bytes::Bytes::from(vec![b'y'; 100])).unwrap();
    assert_eq!(p.contents().1, 29 + 100 - 16);
}

#[test]
fn escape_keeps_newlines() {
    assert_eq!(escape("a\tb\nc\r\u{7}"), "a\\tb\nc\\r\\u{7}");
}

#[test]
fn escape_hides_no_bidirectional_or_invisible_mark() {
    // Left-to-right and right-to-left marks and the Arabic letter mark reorder text as the
    // overrides do; zero-width characters make two names look alike.
    for c in ['\u{200e}', '\u{200f}', '\u{61c}', '\u{202e}', '\u{2066}', '\u{200b}', '\u{feff}'] {
        assert_eq!(escape(&format!("a{c}b")), format!("a\\u{{{:x}}}b", c as u32));
    }
}

fn rule(code: &str, name: &str) -> wit::RuleMeta {
    wit::RuleMeta {
        code: code.into(),
        name: name.into(),
        summary: "Checks a thing.".into(),
        docs: "## What it checks\nx\n## Why it matters\nx\n## How to fix\nx\n## References\nx\n".into(),
        severity: wit::Severity::Warning,
        params: vec![],
    }
}

fn param(name: &str, kind: &str, choices: &[&str], default: &str) -> wit::ParamSpec {
    wit::ParamSpec {
        name: name.into(),
        kind: kind.into(),
        choices: choices.iter().map(|c| c.to_string()).collect(),
        default_json: default.into(),
        doc: "A parameter.".into(),
    }
}

#[test]
fn rules_are_checked_against_the_contract() {
    assert!(validate::rules(vec![rule("NAM001", "volume-label-convention")]).is_ok());
    let e = validate::rules(vec![
        rule("nam001", "x"),
        rule("NAM002", "Not_Kebab"),
        rule("NAM003", "dup"),
        rule("NAM003", "dup"),
    ])
    .unwrap_err();
    assert!(e.contains("`nam001` is not 3 uppercase letters"), "{e}");
    assert!(e.contains("`Not_Kebab` is not kebab-case"), "{e}");
    assert!(e.contains("`NAM003` is declared twice"), "{e}");
    assert!(validate::rules(vec![]).unwrap_err().contains("no rules"));
    let mut r = rule("NAM001", "x");
    r.docs = "## What it checks\nonly that".into();
    let e = validate::rules(vec![r]).unwrap_err();
    assert!(e.contains("`## How to fix`"), "{e}");
}

#[test]
fn params_are_checked_like_pack_values() {
    let with = |p: wit::ParamSpec| {
        let mut r = rule("NAM001", "x");
        r.params = vec![p];
        validate::rules(vec![r])
    };
    assert!(with(param("min_free_percent", "percent", &[], "30")).is_ok());
    assert!(with(param("workload", "choice", &["oltp", "dw"], "\"oltp\"")).is_ok());
    assert!(with(param("size_bytes", "bytes", &[], "65536")).is_ok());
    for (p, why) in [
        (param("p", "percent", &[], "130"), "not a percentage"),
        (param("p", "bytes", &[], "1.5"), "whole number"),
        (param("p", "factor", &[], "0"), "positive"),
        (param("p", "furlongs", &[], "1"), "unknown kind `furlongs`"),
        (param("p", "choice", &[], "\"a\""), "at least one choice"),
        (param("p", "choice", &["a"], "\"b\""), "one of the choices"),
        (param("p", "count", &["a"], "1"), "takes no choices"),
        (param("p", "count", &[], "{"), "not JSON"),
        (param("BadName", "count", &[], "1"), "not snake_case"),
    ] {
        let e = with(p).unwrap_err();
        assert!(e.contains(why), "{why}: {e}");
    }
}

#[test]
fn info_is_checked() {
    let ok = wit::PackInfo {
        id: "acme".into(),
        version: "1.0.0".into(),
        facts_schema_version: spindle_core::facts::SCHEMA_VERSION,
    };
    assert!(validate::info(ok.clone()).is_ok());
    let e = validate::info(wit::PackInfo { facts_schema_version: 999, ..ok.clone() }).unwrap_err();
    assert!(e.contains("facts schema_version 999"), "{e}");
    let e = validate::info(wit::PackInfo { id: "Acme Corp".into(), ..ok }).unwrap_err();
    assert!(e.contains("not kebab-case"), "{e}");
}

fn finding(code: &str, entity: &str) -> wit::Finding {
    wit::Finding {
        code: code.into(),
        severity: None,
        message: "bad".into(),
        measured: None,
        expected: None,
        entity: entity.into(),
        field: None,
        fix: None,
    }
}

#[test]
fn output_is_checked_against_declared_and_enabled_codes() {
    let declared = validate::rules(vec![rule("NAM001", "a"), rule("NAM002", "b")]).unwrap();
    let enabled = vec!["NAM001".to_string()];
    let out = |findings| wit::CheckOutput { findings, not_evaluated: vec![] };
    let (f, _) = validate::output(out(vec![finding("NAM001", "sql01/disk:0")]), &declared, &enabled).unwrap();
    assert_eq!(f[0].entity, "sql01/disk:0");
    let e = validate::output(out(vec![finding("NAM002", "h")]), &declared, &enabled).unwrap_err();
    assert!(e.contains("did not enable"), "{e}");
    let e = validate::output(out(vec![finding("ZZZ999", "h")]), &declared, &enabled).unwrap_err();
    assert!(e.contains("did not declare"), "{e}");
    let e = validate::output(out(vec![finding("NAM001", "")]), &declared, &enabled).unwrap_err();
    assert!(e.contains("entity"), "{e}");
    let many = vec![finding("NAM001", "h"); validate::MAX_FINDINGS + 1];
    let e = validate::output(out(many), &declared, &enabled).unwrap_err();
    assert!(e.contains("more than 100000"), "{e}");
    let mut big = finding("NAM001", "h");
    big.message = "x".repeat(validate::MAX_OUTPUT_TEXT + 1);
    let e = validate::output(out(vec![big]), &declared, &enabled).unwrap_err();
    assert!(e.contains("MiB of text"), "{e}");
    // Many bad findings: a few shown, all counted.
    let bad = vec![finding("ZZZ999", "h"); 50];
    let e = validate::output(out(bad), &declared, &enabled).unwrap_err();
    assert!(e.contains("50 problems") && e.contains("and 42 more"), "{e}");
}

#[test]
fn the_host_stops_its_ticker_when_dropped() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        drop(host(dir.path()));
    }
}

#[test]
fn escape_bounded_cuts_and_counts() {
    use crate::capture::escape_bounded;
    assert_eq!(escape_bounded("short", 10), "short");
    assert_eq!(escape_bounded("0123456789abc", 10), "0123456789… (3 more bytes)");
    // Escapes count as what they print; a character is never split.
    assert_eq!(escape_bounded("ab\u{1b}cd", 3), "ab… (3 more bytes)");
    assert_eq!(escape_bounded("ab\u{1b}cd", 5), "ab\\ec… (1 more bytes)");
    assert_eq!(escape_bounded("éééé", 5), "éé… (4 more bytes)");
    let big = "x".repeat(50_000_000);
    let start = std::time::Instant::now();
    let cut = escape_bounded(&big, validate::MAX_TEXT_BYTES);
    assert!(cut.len() < validate::MAX_TEXT_BYTES + 40, "{}", cut.len());
    assert!(
        cut.ends_with(&format!("… ({} more bytes)", 50_000_000 - validate::MAX_TEXT_BYTES)),
        "{}",
        &cut[4000..]
    );
    assert!(start.elapsed() < std::time::Duration::from_millis(500), "only the kept part is read");
}

#[test]
fn a_huge_version_is_quoted_cut() {
    let e = validate::info(wit::PackInfo {
        id: "acme".into(),
        version: "9".repeat(50_000_000),
        facts_schema_version: spindle_core::facts::SCHEMA_VERSION,
    })
    .unwrap_err();
    assert!(e.len() < 400, "{} bytes", e.len());
    assert!(e.contains("is not a short one-line version") && e.contains("more bytes)"), "{e}");
    let e = validate::info(wit::PackInfo {
        id: "Acme".repeat(10_000_000),
        version: "1.0".into(),
        facts_schema_version: spindle_core::facts::SCHEMA_VERSION,
    })
    .unwrap_err();
    assert!(e.len() < 400, "{} bytes", e.len());
}

#[test]
fn huge_rules_are_refused_and_quoted_cut() {
    let mut r = rule("NAM001", "x");
    r.params = vec![param("p", "choice", &[], "1")];
    r.params[0].doc = "d".repeat(validate::MAX_OUTPUT_TEXT + 1);
    let e = validate::rules(vec![r]).unwrap_err();
    assert!(e.contains("MiB of text, more than 16 MiB"), "{e}");
    let e = validate::rules(vec![rule(&"Z".repeat(1_000_000), "x")]).unwrap_err();
    assert!(e.len() < 600 && e.contains("more bytes)"), "{} bytes: {}", e.len(), &e[..200]);
    // A long parameter doc is kept, cut.
    let mut r = rule("NAM001", "x");
    r.params = vec![param("p", "count", &[], "1")];
    r.params[0].doc = "d".repeat(100_000);
    let rules = validate::rules(vec![r]).unwrap();
    assert!(rules[0].params[0].doc.len() < validate::MAX_TEXT_BYTES + 40);
}

#[test]
fn output_text_is_cut_and_pointers_are_bounded() {
    let declared = validate::rules(vec![rule("NAM001", "a")]).unwrap();
    let enabled = vec!["NAM001".to_string()];
    let out = |findings, not_evaluated| wit::CheckOutput { findings, not_evaluated };
    let mut f = finding("NAM001", "h");
    f.message = "m".repeat(1_000_000);
    f.fix = Some("f".repeat(1_000_000));
    f.field = Some("io/io_stall_read_ms".into());
    let (kept, _) = validate::output(out(vec![f], vec![]), &declared, &enabled).unwrap();
    assert!(kept[0].message.len() < validate::MAX_TEXT_BYTES + 40, "{}", kept[0].message.len());
    assert!(kept[0].message.ends_with(&format!("({} more bytes)", 1_000_000 - validate::MAX_TEXT_BYTES)));
    assert!(kept[0].fix.as_ref().unwrap().len() < validate::MAX_TEXT_BYTES + 40);
    assert_eq!(kept[0].field.as_deref(), Some("io/io_stall_read_ms"), "a pointer is kept whole");

    let with_field = |field: String| {
        let mut f = finding("NAM001", "h");
        f.field = Some(field);
        validate::output(out(vec![f], vec![]), &declared, &enabled)
    };
    let segments = vec!["x"; validate::MAX_FIELD_SEGMENTS].join("/");
    assert!(with_field(segments.clone()).is_ok(), "{} segments are fine", validate::MAX_FIELD_SEGMENTS);
    let e = with_field(format!("{segments}/x")).unwrap_err();
    assert!(e.contains("has a `field` 257 segments long, more than 256"), "{e}");
    let e = with_field(vec!["x"; 200_000].join("/")).unwrap_err();
    assert!(e.contains("bytes long, more than 4096") && e.len() < 400, "{e}");

    let ne = |entity: Option<String>, missing: String| wit::NotEvaluated {
        code: "NAM001".into(),
        entity,
        missing,
        reason: Some("r".repeat(100_000)),
    };
    let (_, kept) =
        validate::output(out(vec![], vec![ne(None, "offset_bytes".into())]), &declared, &enabled).unwrap();
    assert!(kept[0].reason.as_ref().unwrap().len() < validate::MAX_TEXT_BYTES + 40);
    let e = validate::output(out(vec![], vec![ne(None, "/0".repeat(300))]), &declared, &enabled).unwrap_err();
    assert!(e.contains("has a `missing` 300 segments long"), "{e}");
    let e = validate::output(out(vec![], vec![ne(Some("h".repeat(5000)), "x".into())]), &declared, &enabled)
        .unwrap_err();
    assert!(e.contains("over-long entity"), "{e}");
    // An undeclared code is quoted cut.
    let e = validate::output(out(vec![finding(&"Z".repeat(1_000_000), "h")], vec![]), &declared, &enabled)
        .unwrap_err();
    assert!(e.len() < 400, "{} bytes", e.len());
}

#[test]
fn pack_limits_have_caps() {
    use crate::{LimitField, MAX_FUEL, MAX_MEMORY_BYTES, MAX_TIMEOUT_MS};
    assert_eq!(Limits::default().over_cap(), None);
    let at_caps = Limits { memory_bytes: MAX_MEMORY_BYTES, timeout_ms: MAX_TIMEOUT_MS, fuel: Some(MAX_FUEL) };
    assert_eq!(at_caps.over_cap(), None);
    let (field, why) = Limits { timeout_ms: i64::MAX as u64, ..Limits::default() }.over_cap().unwrap();
    assert_eq!(field, LimitField::TimeoutMs);
    assert_eq!(why, "`timeout_ms` = 9223372036854775807 is over spindle's cap of 60000 ms per plugin call");
    let (field, _) = Limits { memory_bytes: MAX_MEMORY_BYTES + 1, ..Limits::default() }.over_cap().unwrap();
    assert_eq!(field, LimitField::MemoryBytes);
    let (field, _) = Limits { fuel: Some(MAX_FUEL + 1), ..Limits::default() }.over_cap().unwrap();
    assert_eq!(field, LimitField::Fuel);
    // And a host refuses them, whoever calls it.
    let dir = tempfile::tempdir().unwrap();
    let e = host(dir.path())
        .load("x", "p", Path::new("x.wasm"), None, Limits { timeout_ms: u64::MAX, ..Limits::default() })
        .unwrap_err();
    assert!(e.message.contains("over spindle's cap"), "{e}");
}

/// Issue 11: a limit over its cap is reported at that key's value in the pack, not at the
/// plugin's name, so the line and column lead to what to change.
#[test]
fn a_limit_over_its_cap_points_at_its_value() {
    use spindle_core::pack::{PackLoader, SourceText, load_packs};
    struct One(String);
    impl PackLoader for One {
        fn load(&self, reference: &str, _from: Option<&str>) -> Result<SourceText, String> {
            Ok(SourceText { path: reference.into(), text: self.0.clone() })
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    for (line, expected) in [
        ("timeout_ms = 9223372036854775807", (4, 14)),
        ("memory_bytes = 4294967297", (4, 16)),
        ("  fuel   = 1000000000001", (4, 12)),
    ] {
        let text = format!("# acme\n[plugins.acme]\npath = \"missing.wasm\"\n{line}\n");
        let decls = load_packs(&["acme.toml"], &One(text)).unwrap().plugins().unwrap();
        let e = crate::load_rules(&host, &decls).err().expect("refused");
        assert!(e.message.contains("over spindle's cap"), "{}", e.message);
        assert_eq!(e.line_col(), Some(expected), "{line}: {}", e.message);
    }
    // At the caps, the limits pass and the plugin file is what fails, at its path.
    let text = "[plugins.acme]\npath = \"missing.wasm\"\ntimeout_ms = 60000\n".to_string();
    let decls = load_packs(&["acme.toml"], &One(text)).unwrap().plugins().unwrap();
    let e = crate::load_rules(&host, &decls).err().expect("no such file");
    assert_eq!(e.line_col(), Some((2, 8)), "{}", e.message);
}
