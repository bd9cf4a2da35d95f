//! `spindle collect host` and `spindle check --local` end to end: disk images made by the real
//! tools (sfdisk, mkntfs, qemu-img) read by the binary, this machine's own sysfs, and the local
//! check merging host facts with a SQL Server's (the TDS mock).

use spindle_test_support::disk_tools as tools;

use spindle_test_support::mock_sql;

use std::fs;
use std::process::{Command, Output};

use serde_json::Value;
use tools::{MIB, TempDir, mkntfs, run, s, splice};

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("SPINDLE_SQL_PASSWORD", "pw")
        .output()
        .expect("spindle runs")
}

/// `spindle check --local` with the local instance at `server` (plain TDS, the mock's login).
fn check_local(server: &str, extra: &[&str]) -> Output {
    let mut args = vec!["check", "--local", "--server", server, "--user", "spindle", "--encrypt", "off"];
    args.extend_from_slice(&["--format", "json"]);
    args.extend_from_slice(extra);
    spindle(&args)
}

/// The sector-63 ERP server's layout as a golden image: MBR, one partition at sector 63, NTFS with 4 KiB
/// clusters.
fn sector63_image(dir: &TempDir) -> std::path::PathBuf {
    let disk = dir.sparse("golden.img", 96 * MIB);
    run("sfdisk", &["-q", s(&disk)], Some("label: dos\nstart=63, type=7\n"), &[]);
    let part_bytes = 96 * MIB - 63 * 512;
    let fs = mkntfs(dir, "part.ntfs", part_bytes / 4096 * 4096, 512, 4096, 63);
    splice(&fs, &disk, 63 * 512);
    disk
}

#[test]
fn a_golden_image_is_collected_and_its_misalignment_found() {
    if !tools::ready() {
        return;
    }
    let dir = TempDir::new("spindle-cli-image");
    let disk = sector63_image(&dir);
    let snap = dir.path("golden.json");
    let o = spindle(&["collect", "host", "--image", s(&disk), "--host", "golden", "-o", s(&snap)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&fs::read_to_string(&snap).unwrap()).unwrap();
    assert_eq!(v["host"]["name"], "golden");
    assert_eq!(v["partitions"][0]["offset_bytes"], 32_256);
    assert_eq!(v["volumes"][0]["filesystem"], "NTFS");
    assert_eq!(v["volumes"][0]["allocation_unit_bytes"], 4096);
    assert_eq!(v["disks"][0]["partition_style"], "mbr");

    let o = spindle(&["check", s(&snap), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "an error-level finding: {}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let aln = report["hosts"][0]["findings"].as_array().unwrap().iter().find(|f| f["code"] == "ALN001");
    let aln = aln.expect("ALN001 on the sector-63 partition");
    assert!(aln["measured"].as_str().unwrap().starts_with("32,256 B"), "{aln}");

    // The same disk as a fixed VHD gives the same facts.
    let vhd = dir.path("golden.vhd");
    run(
        "qemu-img",
        &["convert", "-f", "raw", "-O", "vpc", "-o", "subformat=fixed", s(&disk), s(&vhd)],
        None,
        &[],
    );
    let o = spindle(&["collect", "host", "--image", s(&vhd), "--host", "golden"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let w: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(w["partitions"][0]["offset_bytes"], 32_256);
    assert_eq!(w["volumes"][0]["allocation_unit_bytes"], 4096);
}

#[test]
fn a_truncated_image_is_a_clear_error_and_nothing_is_written() {
    if !tools::ready() {
        return;
    }
    let dir = TempDir::new("spindle-cli-image-bad");
    let disk = sector63_image(&dir);
    let short = dir.path("short.img");
    // The MBR survives; the partition it describes does not.
    fs::write(&short, &fs::read(&disk).unwrap()[..4096]).unwrap();
    let out = dir.path("short.json");
    let o = spindle(&["collect", "host", "--image", s(&short), "-o", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("short.img") && err.contains("past the end"), "{err}");
    assert!(!out.exists(), "nothing half-written");
    let o = spindle(&["collect", "host", "--image", s(&dir.path("absent.img"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("absent.img"));
}

#[test]
fn this_machine_is_collected_from_its_own_sysfs() {
    let o = spindle(&["collect", "host"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let hostname = fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_eq!(v["host"]["name"], hostname.trim());
    let root = v["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["mount_points"].as_array().unwrap().iter().any(|m| m == "/"));
    assert!(root.is_some_and(|r| r["os_volume"] == true), "{v:#}");
    // Looked for and none: Storage Spaces exist only on Windows. Empty, not absent, so the
    // checks on them are not left "not evaluated" forever.
    assert_eq!((&v["storage_pools"], &v["virtual_disks"]), (&serde_json::json!([]), &serde_json::json!([])));
    assert!(v["raid_sets"].is_array(), "{v:#}");
}

#[test]
fn check_local_merges_host_and_sql_facts_and_says_when_sql_is_missing() {
    // No SQL Server on this machine: a collection error (the run is incomplete), then the host
    // facts checked, SQL rules not evaluated with the reason.
    let o = check_local("127.0.0.1,1", &[]);
    assert_eq!(o.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["hosts"].as_array().unwrap().len(), 2);
    assert_eq!(report["hosts"][0]["host"], "127.0.0.1,1");
    let ne = report["hosts"][1]["not_evaluated"].as_array().unwrap();
    assert!(
        ne.iter()
            .any(|n| n["code"] == "GRW003" && n["reason"].as_str().unwrap_or("").contains("cannot connect")),
        "{ne:#?}"
    );

    // With an instance answering, its facts join the host's in one view.
    let peers = mock_sql::Peers::new();
    let server = peers.sql(mock_sql::healthy("LOCALSQL"));
    let dir = TempDir::new("spindle-cli-local");
    let saved = dir.path("saved");
    let o = check_local(&server, &["--save-snapshots", s(&saved)]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let host = &report["hosts"][0];
    assert_eq!(host["sources"].as_array().unwrap().len(), 2, "{host:#}");
    assert!(
        host["findings"].as_array().unwrap().iter().any(|f| f["code"] == "GRW003"),
        "IFI off on the mock"
    );
    assert_eq!(fs::read_dir(&saved).unwrap().count(), 2, "host and SQL snapshots saved");
}
