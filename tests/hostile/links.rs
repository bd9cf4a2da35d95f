//! Hostile links and folders: see main.rs. Issue 24's `-o` through symbolic links (a failed run
//! deleted the file a link pointed to; root followed another user's link in /tmp) and config
//! discovery (a spindle.toml another user planted in a shared folder judged root's run).
//!
//! Runs as root, as CI does: another user's files are made with lchown.

use std::fs;
use std::os::unix::fs::{PermissionsExt, lchown, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

use spindle_test_support::SECTOR_63;

/// A user other than root (and than whoever runs the tests as root).
const NOBODY: u32 = 65534;

fn spindle_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .current_dir(dir)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .expect("spindle runs")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn mkdir(path: &Path, mode: u32) -> PathBuf {
    fs::create_dir_all(path).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    path.to_path_buf()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The message as one line, without the frame miette draws.
fn line(o: &Output) -> String {
    stderr(o).split_whitespace().filter(|w| *w != "│").collect::<Vec<_>>().join(" ")
}

#[test]
fn issue24_a_failed_run_never_deletes_what_an_output_link_points_to() {
    let dir = TempDir::new().unwrap();
    let snaps = mkdir(&dir.path().join("snaps"), 0o755);
    write(&snaps, "a.json", SECTOR_63);
    write(&snaps, "b.json", "{\"schema_version\": 1, \"host\": {\"name\": \"b\"}, \"disks\": 5}");
    let keep = write(&mkdir(&dir.path().join("elsewhere"), 0o755), "keep.txt", "the only copy");
    let reports = mkdir(&dir.path().join("reports"), 0o755);
    let link = reports.join("spindle.json");
    symlink("../elsewhere/keep.txt", &link).unwrap();
    let cases: [&[&str]; 3] = [
        &["check", s(&snaps), "--format", "json", "-o", s(&link)],
        &["baseline", s(&snaps), "-o", s(&link)],
        &["diff", s(&snaps), s(&snaps), "-o", s(&link)],
    ];
    for args in cases {
        let o = spindle_in(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(fs::read_to_string(&keep).unwrap(), "the only copy", "{args:?}");
        // The link itself goes, so that no report of an earlier run is read through it.
        assert!(fs::symlink_metadata(&link).is_err(), "{args:?}");
        symlink("../elsewhere/keep.txt", &link).unwrap();
    }
}

#[test]
fn issue24_root_never_writes_through_another_users_link_in_a_shared_folder() {
    if !spindle_test_support::tier::root("planting another user's files (chown)") {
        return;
    }
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "sql01.json", SECTOR_63);
    let precious = write(dir.path(), "shadow", "root:$6$secret:20000::::::\n");
    let private = mkdir(&dir.path().join("private"), 0o700);
    // A folder like /tmp: sticky, every user may write in it.
    let shared = mkdir(&dir.path().join("tmp"), 0o1777);
    let planted = shared.join("report.json");
    symlink(&precious, &planted).unwrap();
    lchown(&planted, Some(NOBODY), Some(NOBODY)).unwrap();
    let planted_dir = shared.join("out");
    symlink(&private, &planted_dir).unwrap();
    lchown(&planted_dir, Some(NOBODY), Some(NOBODY)).unwrap();

    for out in [planted.clone(), planted_dir.join("report.json")] {
        for args in [
            vec!["check", s(&good), "--format", "json", "-o", s(&out)],
            vec!["plan", s(&good), "-o", s(&out)],
            vec!["init", "--force", "-o", s(&out)],
        ] {
            let o = spindle_in(dir.path(), &args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            let l = line(&o);
            assert!(
                l.contains("a symbolic link of another user (uid 65534) in the shared folder"),
                "{args:?}: {l}"
            );
            assert_eq!(fs::read_to_string(&precious).unwrap(), "root:$6$secret:20000::::::\n");
            assert!(fs::read_dir(&private).unwrap().next().is_none(), "{args:?}");
            assert!(fs::symlink_metadata(&planted).unwrap().is_symlink());
        }
    }
    // One's own link there is followed, as the kernel's fs.protected_symlinks would.
    let own = shared.join("mine.json");
    let target = write(dir.path(), "mine-target.json", "yesterday's report");
    symlink(&target, &own).unwrap();
    let o = spindle_in(dir.path(), &["check", s(&good), "--format", "json", "-o", s(&own)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(fs::read_to_string(&target).unwrap().contains("\"sql01\""));
}

/// A check of SECTOR_63 run in `cwd`: exit status 1 under the recommended pack, 0 under a pack
/// that selects only ALN004.
fn check_in(cwd: &Path, snapshot: &Path) -> Output {
    spindle_in(cwd, &["check", s(snapshot)])
}

#[test]
fn issue24_config_discovery_ignores_packs_other_users_could_have_written() {
    if !spindle_test_support::tier::root("planting another user's files (chown)") {
        return;
    }
    let dir = TempDir::new().unwrap();
    let snapshot = write(dir.path(), "sql01.json", SECTOR_63);
    let lenient = "select = [\"ALN004\"]\n";

    // Planted by another user in a folder like /tmp: named, and not used.
    let shared = mkdir(&dir.path().join("tmp"), 0o1777);
    let work = mkdir(&shared.join("work"), 0o755);
    let planted = write(&shared, "spindle.toml", lenient);
    lchown(&planted, Some(NOBODY), Some(NOBODY)).unwrap();
    let o = check_in(&work, &snapshot);
    assert_eq!(o.status.code(), Some(1), "the recommended pack judged: {}", stderr(&o));
    let l = line(&o);
    assert!(
        l.contains(&format!(
            "not using the pack {}: it belongs to another user (uid 65534)",
            planted.display()
        )),
        "{l}"
    );
    // Root's own file there is no better: anyone may replace it.
    lchown(&planted, Some(0), Some(0)).unwrap();
    let o = check_in(&work, &snapshot);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(line(&o).contains("every user can write its folder"), "{}", stderr(&o));
    // Every subcommand that finds packs says so too.
    let o = spindle_in(&work, &["rules"]);
    assert!(line(&o).contains("not using the pack"), "{}", stderr(&o));

    // In a private folder: another user's pack, or one every user can write, is not used.
    let project = mkdir(&dir.path().join("project"), 0o755);
    let sub = mkdir(&project.join("sub"), 0o755);
    let pack = write(&project, "spindle.toml", lenient);
    lchown(&pack, Some(NOBODY), Some(NOBODY)).unwrap();
    let o = check_in(&sub, &snapshot);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(line(&o).contains("it belongs to another user (uid 65534)"), "{}", stderr(&o));
    lchown(&pack, Some(0), Some(0)).unwrap();
    fs::set_permissions(&pack, fs::Permissions::from_mode(0o666)).unwrap();
    let o = check_in(&sub, &snapshot);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(line(&o).contains("every user can write it"), "{}", stderr(&o));
    // Root's or one's own, in a folder only they can write: used.
    fs::set_permissions(&pack, fs::Permissions::from_mode(0o644)).unwrap();
    let o = check_in(&sub, &snapshot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(line(&o).contains("using the pack"), "{}", stderr(&o));

    // The search stops at the repository's top folder...
    let repo = mkdir(&project.join("repo"), 0o755);
    mkdir(&repo.join(".git"), 0o755);
    let o = check_in(&mkdir(&repo.join("src"), 0o755), &snapshot);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("pack"), "{}", stderr(&o));
    // ...and at the home folder.
    let home = mkdir(&project.join("home"), 0o755);
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", s(&snapshot)])
        .current_dir(mkdir(&home.join("x"), 0o755))
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("HOME", &home)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("pack"), "{}", stderr(&o));
}
