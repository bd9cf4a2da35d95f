//! `spindle check --shard I/N` and `spindle merge`: the merge of every shard is the report one
//! unsharded run writes, byte for byte, with its exit status; a merge that could pass part of
//! a fleet (a shard missing, repeated, unfinished, from another run) writes nothing and exits 2.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use serde_json::Value;
use tempfile::TempDir;

use spindle_test_support::{EXAMPLES, fleet_gen};

/// The formats a fleet's pipeline consumes, which a merge must give back unchanged.
const MACHINE_FORMATS: [&str; 4] = ["json", "sarif", "junit", "gitlab"];

fn spindle(cwd: &Path, args: &[&str]) -> Output {
    spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .arg("--no-config")
        .env("SPINDLE_SQL_PASSWORD", "unused: no server answers")
        .current_dir(cwd)
        .output()
        .expect("spindle runs")
}

fn merge(cwd: &Path, args: &[&str]) -> Output {
    spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
        .arg("merge")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("spindle runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bundled examples copied into `dir/snapshots`, so that reports name them relatively.
fn examples_in(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let to = dir.join("snapshots");
    for example in EXAMPLES {
        fs::create_dir_all(to.join(example)).unwrap();
        for f in fs::read_dir(root.join(example)).unwrap() {
            let f = f.unwrap().path();
            fs::copy(&f, to.join(example).join(f.file_name().unwrap())).unwrap();
        }
    }
    to
}

/// Runs `check` once whole and as `count` shards merged (given to the merge in reverse order),
/// in `format`, and asserts the reports are the same bytes and the exit statuses the same.
/// Returns the whole run's report and exit status.
fn assert_merge_is_whole(cwd: &Path, check: &[&str], format: &str, count: u32) -> (Vec<u8>, Option<i32>) {
    let whole_out = cwd.join(format!("whole.{format}"));
    let mut args = vec!["check", "--format", format, "-o", whole_out.to_str().unwrap()];
    args.extend_from_slice(check);
    let whole = spindle(cwd, &args);
    assert!(whole_out.exists(), "{format}: {}", stderr(&whole));

    let shards = cwd.join(format!("shards-{format}-{count}"));
    fs::create_dir_all(&shards).unwrap();
    let mut files = vec![];
    let mut hosts_in_shards = 0;
    for index in 1..=count {
        let file = shards.join(format!("shard-{index}.jsonl"));
        let spec = format!("{index}/{count}");
        let mut args = vec!["check", "--format", format, "--shard", &spec, "-o", file.to_str().unwrap()];
        args.extend_from_slice(check);
        let o = spindle(cwd, &args);
        assert_eq!(o.status.code(), Some(0), "shard {spec}: {}", stderr(&o));
        hosts_in_shards += fs::read_to_string(&file)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("{\"kind\":\"host\""))
            .count();
        files.push(file.to_str().unwrap().to_string());
    }
    files.reverse();
    let merged_out = cwd.join(format!("merged.{format}"));
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["-o", merged_out.to_str().unwrap()]);
    let merged = merge(cwd, &args);
    assert_eq!(merged.status.code(), whole.status.code(), "{format} {count}: {}", stderr(&merged));
    let (a, b) = (fs::read(&whole_out).unwrap(), fs::read(&merged_out).unwrap());
    if a != b {
        let at = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        let show = |v: &[u8]| {
            String::from_utf8_lossy(&v[at.saturating_sub(200)..(at + 200).min(v.len())]).into_owned()
        };
        panic!(
            "{format}, {count} shards: the merge differs at byte {at}:\nwhole: {}\nmerged: {}",
            show(&a),
            show(&b)
        );
    }
    if format == "json" {
        let report: Value = serde_json::from_slice(&a).unwrap();
        let reported =
            report["hosts"].as_array().unwrap().iter().filter(|h| h["collection_error"].is_null()).count();
        assert_eq!(hosts_in_shards, reported, "every host checked by exactly one shard");
    }
    (a, whole.status.code())
}

#[test]
fn merged_shards_of_the_examples_are_the_unsharded_report() {
    let dir = TempDir::new().unwrap();
    examples_in(dir.path());
    for format in MACHINE_FORMATS.into_iter().chain(["text"]) {
        for count in [1, 3, 16] {
            let (report, code) = assert_merge_is_whole(dir.path(), &["snapshots"], format, count);
            assert_eq!(code, Some(1), "the examples have errors");
            assert!(!report.is_empty());
        }
    }
}

const FLEET_HOSTS: usize = 96;

/// The generated fleet, once for every test of this file: 96 hosts, one file each, so that each
/// of 16 shards holds about six and their hosts interleave in the unsharded order. (It was 2,000:
/// four formats times three shard counts of a debug binary over them took minutes of every test
/// run and proved nothing 96 do not.)
fn fleet() -> &'static Path {
    static FLEET: OnceLock<TempDir> = OnceLock::new();
    FLEET
        .get_or_init(|| {
            let dir = TempDir::new().unwrap();
            fleet_gen::generate(&dir.path().join("fleet"), FLEET_HOSTS).unwrap();
            dir
        })
        .path()
}

#[test]
fn merged_shards_of_a_generated_fleet_are_the_unsharded_report() {
    let cwd = fleet();
    for format in MACHINE_FORMATS {
        // One shard is the examples' test; here, shards that each hold part of a fleet.
        for count in [3, 16] {
            let (report, _) = assert_merge_is_whole(cwd, &["fleet"], format, count);
            if format == "json" {
                let report: Value = serde_json::from_slice(&report).unwrap();
                assert_eq!(report["summary"]["hosts"], FLEET_HOSTS);
            }
        }
    }
}

#[test]
fn incompleteness_and_a_baseline_carry_over() {
    let dir = TempDir::new().unwrap();
    examples_in(dir.path());
    // A host without SQL Server's facts cannot be judged under --require sql: the run is
    // incomplete (exit 2), merged or not.
    fs::create_dir_all(dir.path().join("more")).unwrap();
    fs::write(dir.path().join("more/sql01.json"), spindle_test_support::SECTOR_63).unwrap();
    for format in ["json", "sarif"] {
        let (_, code) =
            assert_merge_is_whole(dir.path(), &["snapshots", "more", "--require", "sql"], format, 3);
        assert_eq!(code, Some(2), "{format}");
    }
    // A baseline of every example, checked against three of them: the other two hosts'
    // findings are "not checked", listed in the baseline's order whichever shard held them.
    let o = spindle(dir.path(), &["baseline", "snapshots", "-o", "baseline.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let three = ["snapshots/win2003-sector63", "snapshots/azure-storage-spaces", "snapshots/linux-xfs-md"];
    let mut check: Vec<&str> = three.to_vec();
    check.extend(["--baseline", "baseline.json"]);
    for count in [3, 16] {
        let (report, code) = assert_merge_is_whole(dir.path(), &check, "json", count);
        assert_eq!(code, Some(0), "nothing new against the baseline");
        let report: Value = serde_json::from_slice(&report).unwrap();
        let baseline = &report["summary"]["baseline"];
        assert!(baseline["not_checked"].as_u64().unwrap() > 0, "{baseline}");
        assert_eq!(baseline["not_checked"], baseline["not_checked_findings"].as_array().unwrap().len());
    }
}

/// Servers that cannot be collected are reported where the inventory lists them, whichever
/// shard tried them; the run is incomplete unless --allow-unreachable says otherwise.
#[test]
fn servers_not_collected_keep_their_place_and_their_verdict() {
    let dir = TempDir::new().unwrap();
    examples_in(dir.path());
    // Every 127.0.0.x is this machine; a port just closed refuses at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let inventory: String =
        (2..14).map(|n| format!("[[server]]\nname = \"127.0.0.{n},{port}\"\n\n")).collect::<String>();
    fs::write(dir.path().join("servers.toml"), inventory).unwrap();
    let base = ["snapshots", "--inventory", "servers.toml", "--user", "spindle", "--encrypt", "off"];
    let (report, code) = assert_merge_is_whole(dir.path(), &base, "json", 3);
    assert_eq!(code, Some(2));
    let report: Value = serde_json::from_slice(&report).unwrap();
    assert_eq!(report["summary"]["collection_errors"], 12, "{}", report["summary"]);
    let mut allowed = base.to_vec();
    allowed.push("--allow-unreachable");
    let (_, code) = assert_merge_is_whole(dir.path(), &allowed, "sarif", 3);
    assert_eq!(code, Some(1), "the examples' errors, the servers allowed to be unreachable");
}

/// Shards of `spindle check snapshots --format json --shard I/3`, written into `dir`.
fn three_shards(dir: &Path, extra: &[&str]) -> Vec<PathBuf> {
    (1..=3)
        .map(|i| {
            let file = dir.join(format!("s{i}.jsonl"));
            let spec = format!("{i}/3");
            let mut args = vec![
                "check",
                "snapshots",
                "--format",
                "json",
                "--shard",
                &spec,
                "-o",
                file.to_str().unwrap(),
            ];
            args.extend_from_slice(extra);
            let o = spindle(dir, &args);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            file
        })
        .collect()
}

#[test]
fn a_merge_of_part_of_a_run_writes_nothing_and_says_why() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    examples_in(cwd);
    let shards = three_shards(cwd, &[]);
    let s = |i: usize| shards[i].to_str().unwrap();
    let out = cwd.join("merged.json");
    let refused = |args: &[&str], expect: &str| {
        let mut all = args.to_vec();
        all.extend(["-o", out.to_str().unwrap()]);
        let o = merge(cwd, &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expect), "{args:?}: expected {expect:?} in {}", stderr(&o));
        assert!(!out.exists(), "{args:?}: nothing written");
    };
    refused(&[s(0), s(2)], "shard 2/3 missing");
    refused(&[s(0), s(1), s(2), s(1)], "are both shard 2/3");

    // Another run: another format.
    let other = cwd.join("other");
    fs::create_dir_all(&other).unwrap();
    let o =
        spindle(cwd, &["check", "snapshots", "--format", "sarif", "--shard", "2/3", "-o", "other/s2.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    refused(&[s(0), "other/s2.jsonl", s(2)], "of another run");

    // A shard cut short (its job killed): the file and the line.
    let text = fs::read_to_string(&shards[2]).unwrap();
    let cut = text.trim_end().rsplit_once('\n').unwrap().0.to_string() + "\n";
    fs::write(cwd.join("cut.jsonl"), &cut).unwrap();
    let lines = cut.lines().count();
    refused(
        &[s(0), s(1), "cut.jsonl"],
        &format!("cut.jsonl:{}: the file ends before its `end` line", lines + 1),
    );

    // A report is not a shard file.
    let o = spindle(cwd, &["check", "snapshots", "--format", "json", "-o", "report.json"]);
    assert!(cwd.join("report.json").exists(), "{}", stderr(&o));
    refused(&["report.json"], "report.json:1:");

    // A directory stands for the shard files in it.
    fs::create_dir_all(cwd.join("all")).unwrap();
    for f in &shards {
        fs::copy(f, cwd.join("all").join(f.file_name().unwrap())).unwrap();
    }
    let o = merge(cwd, &["all", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("5 hosts"), "{}", stderr(&o));
}

#[test]
fn shard_usage_errors() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    examples_in(cwd);
    for (args, expect) in [
        (vec!["check", "snapshots", "--shard", "0/3"], "shards are numbered from 1 to 3"),
        (vec!["check", "snapshots", "--shard", "4/3"], "shards are numbered from 1 to 3"),
        (vec!["check", "snapshots", "--shard", "three"], "expected I/N"),
        (vec!["check", "--local", "--shard", "1/2"], "--local checks this machine alone"),
        (
            vec!["check", "snapshots", "--format", "sarif", "--split-by", "host", "logs", "--shard", "1/2"],
            "needs no merge",
        ),
    ] {
        let o = spindle(cwd, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expect), "{args:?}: {}", stderr(&o));
    }
}

/// `spindle collect inventory --shard I/N`: each server collected by exactly one shard, into
/// one folder, and the check of that folder, sharded and merged, is the check of it whole.
#[test]
fn collect_per_shard_then_check_centrally() {
    use spindle_test_support::mock_sql::{Peers, healthy};
    let peers = Peers::new();
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    // Six servers on hosts of their own (127.0.0.2 to .7), and two that refuse.
    let mut names: Vec<String> =
        (2..8).map(|n| peers.sql_at(&format!("127.0.0.{n}"), healthy(&format!("127.0.0.{n}")))).collect();
    names.extend([peers.refusing(), peers.refusing()]);
    let inventory: String = names.iter().map(|n| format!("[[server]]\nname = \"{n}\"\n\n")).collect();
    fs::write(cwd.join("servers.toml"), inventory).unwrap();
    let conn = ["--user", "spindle", "--encrypt", "off", "--connect-timeout", "5s"];
    let collect = |out: &str, extra: &[&str]| {
        let mut args = vec!["collect", "inventory", "servers.toml", "--out-dir", out];
        args.extend_from_slice(&conn);
        args.extend_from_slice(extra);
        let o = spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
            .args(&args)
            .env("SPINDLE_SQL_PASSWORD", "pw")
            .current_dir(cwd)
            .output()
            .unwrap();
        (o.status.code(), stderr(&o))
    };
    let listing = |d: &str| {
        let mut names: Vec<String> = fs::read_dir(cwd.join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };

    let (code, err) = collect("whole", &[]);
    assert_eq!(code, Some(2), "two servers refuse: {err}");
    assert!(err.contains("6 servers collected into whole, 2 not"), "{err}");
    assert_eq!(listing("whole").len(), 6);

    let mut collected = 0;
    for i in 1..=3 {
        let (code, err) = collect("fleet", &["--shard", &format!("{i}/3"), "--allow-unreachable"]);
        assert_eq!(code, Some(0), "{err}");
        collected += err
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .find(|w| w[1].starts_with("server") && w[0].parse::<usize>().is_ok())
            .map_or(0, |w| w[0].parse::<usize>().unwrap());
    }
    assert_eq!(collected, 6, "each server collected by exactly one shard");
    assert_eq!(listing("fleet"), listing("whole"), "the shards' snapshots are the whole run's");

    for format in ["json", "gitlab"] {
        assert_merge_is_whole(cwd, &["fleet"], format, 3);
    }
}
