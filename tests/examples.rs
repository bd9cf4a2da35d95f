//! The bundled examples reproduce published cases; these are the findings a correct linter must
//! (and must not) report on them. See examples/README.md for the story behind each.

use spindle_test_support::sarif as sarif_schema;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use spindle_test_support::EXAMPLES;

fn check(example: &str, extra: &[&str]) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(example);
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("check")
        .arg(&dir)
        .args(["--format", "json", "--fail-on", "never"])
        .args(extra)
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["hosts"].as_array().unwrap().len(), 1, "one host per example");
    report["hosts"][0].clone()
}

fn findings<'a>(host: &'a Value, code: &str) -> Vec<&'a Value> {
    host["findings"].as_array().unwrap().iter().filter(|f| f["code"] == code).collect()
}

fn not_evaluated<'a>(host: &'a Value, code: &str) -> Vec<&'a Value> {
    host["not_evaluated"].as_array().unwrap().iter().filter(|f| f["code"] == code).collect()
}

#[test]
fn erp_server_1_sector_63() {
    let h = check("win2003-sector63", &[]);
    let aln = findings(&h, "ALN001");
    assert!(!aln.is_empty());
    assert!(
        aln.iter()
            .all(|f| f["severity"] == "error" && f["measured"].as_str().unwrap().starts_with("32,256 B"))
    );
    assert!(!findings(&h, "FMT001").is_empty(), "4 KiB clusters on data volumes");
    let lat = findings(&h, "LAT001");
    assert!(
        lat.iter().any(|f| f["severity"] == "error" && f["message"].as_str().unwrap().contains("149.4 ms")),
        "{lat:?}"
    );
    assert!(!findings(&h, "MED001").is_empty(), "data and log on the same RAID 5 spindles");
    // SQL Server 2005 has no sys.dm_server_services: IFI is unknown, not a pass.
    assert!(!not_evaluated(&h, "GRW003").is_empty());
    // The hardware RAID's stripe unit is invisible to Windows: ALN002 cannot judge it.
    assert!(!not_evaluated(&h, "ALN002").is_empty());
}

#[test]
fn erp_server_2_aligned_twin() {
    let h = check("win2003-aligned", &[]);
    assert!(findings(&h, "ALN001").is_empty(), "65,536 B offsets are aligned");
    assert!(findings(&h, "FMT001").is_empty(), "64 KiB clusters");
    let lat = findings(&h, "LAT001");
    assert!(
        lat.iter().any(|f| f["severity"] == "warning" && f["message"].as_str().unwrap().contains("74 ms")),
        "74 ms is still above the 20 ms warning: {lat:?}"
    );
    assert!(lat.iter().all(|f| f["severity"] != "error"));
}

#[test]
fn azure_storage_spaces() {
    let h = check("azure-storage-spaces", &[]);
    let str1 = findings(&h, "STR001");
    assert!(str1.iter().any(|f| f["message"].as_str().unwrap().contains("8 of the 16")), "{str1:?}");
    assert!(!findings(&h, "STR002").is_empty(), "256 KiB interleave for OLTP");
    assert!(!findings(&h, "PLC001").is_empty(), "data and log on one space");
    let fmt = findings(&h, "FMT001");
    assert!(!fmt.is_empty(), "4 KiB clusters on the data volume");
    assert!(
        fmt.iter().all(|f| !f["entity"]["label"].as_str().unwrap().contains("D:")),
        "the temp disk is exempt"
    );

    // Declared as a data warehouse, 256 KiB is right.
    let dw = check("azure-storage-spaces", &["--pack", "data-warehouse"]);
    assert!(findings(&dw, "STR002").is_empty());
}

#[test]
fn hdd_raid_shared_spindles() {
    let h = check("hdd-raid-shared-spindles", &[]);
    assert!(!findings(&h, "MED001").is_empty(), "two logical drives, one set of spindles");
    assert!(findings(&h, "PLC001").is_empty(), "data and log are on different volumes");
    assert!(!findings(&h, "LAT003").is_empty(), "38 ms against a 5.4 ms floor");
    // Windows puts a Microsoft Reserved partition at 17,408 B on GPT disks: no I/O, not judged.
    assert!(findings(&h, "ALN001").is_empty() && findings(&h, "ALN004").is_empty(), "{h}");
}

#[test]
fn linux_xfs_on_md() {
    let h = check("linux-xfs-md", &[]);
    assert!(!findings(&h, "FMT004").is_empty(), "relatime, not noatime");
    assert!(!findings(&h, "STR004").is_empty(), "512 KiB md chunk for OLTP");
    assert!(!findings(&h, "PLC004").is_empty(), "tempdb shares the data volume");
    assert!(findings(&h, "PLC001").is_empty(), "data and log mounts are separate volumes");
    let unresolved = h["not_evaluated"].as_array().unwrap().iter().any(|n| n["missing"] == "volume_id");
    assert!(!unresolved, "Linux files join volumes by mount point without volume_id");
}

#[test]
fn company_pack_declares_waives_and_tightens() {
    let pack = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/packs/acme-production.toml");
    let h = check("win2003-sector63", &["--pack", pack.to_str().unwrap()]);
    // The declared stripe unit lets ALN002 judge the hardware RAID.
    assert!(not_evaluated(&h, "ALN002").is_empty(), "{:?}", not_evaluated(&h, "ALN002"));
    assert!(!findings(&h, "ALN002").is_empty());
    let aln = findings(&h, "ALN001");
    assert!(!aln.is_empty() && aln.iter().all(|f| f["waiver"].is_object()), "waived, still reported");
}

#[test]
fn every_example_gives_valid_sarif() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("check")
        .args([
            "azure-storage-spaces",
            "hdd-raid-shared-spindles",
            "linux-xfs-md",
            "win2003-aligned",
            "win2003-sector63",
        ])
        .args(["--format", "sarif"])
        .current_dir(&root)
        .output()
        .unwrap();
    let log = sarif_schema::assert_valid_sarif_text(&String::from_utf8(out.stdout).unwrap());
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["informationUri"], "https://github.com/spindle-sql/spindle");
    // Every rule links the first public reference of its docs.
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), spindle_rules::all().len());
    for r in rules {
        let meta = &spindle_rules::all().into_iter().find(|b| b.meta.code == r["id"]).unwrap().meta;
        let first = spindle_core::references::reference_urls(&meta.docs()).first().map(|u| u.to_string());
        assert_eq!(r["helpUri"].as_str().map(str::to_string), first, "{}", r["id"]);
        assert!(r["helpUri"].as_str().is_some_and(|u| u.starts_with("https://")), "{}", r["id"]);
    }
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() > 20);
    assert!(results.iter().all(|r| {
        !r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap().starts_with('/')
    }));
}

/// The text report of `example` at 80 columns, run from the repository as a user would.
fn text_report(example: &str, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", &format!("examples/{example}"), "--fail-on", "never"])
        .args(extra)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("COLUMNS", "80")
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// What a person reads first on each example, at 80 columns (docs/report-text.md).
#[test]
fn text_reports_of_the_examples_at_80_columns() {
    for example in EXAMPLES {
        insta::assert_snapshot!(format!("text-{example}"), text_report(example, &[]));
    }
    insta::assert_snapshot!(
        "text-win2003-sector63-acme-production",
        text_report("win2003-sector63", &["--pack", "examples/packs/acme-production.toml"])
    );
}

/// Grouping is presentation: every finding of the JSON report — its entity, measured value and
/// position — is in the text report, waived or not, and every check not evaluated is counted.
#[test]
fn the_text_report_loses_no_finding() {
    let pack = ["--pack", "examples/packs/acme-production.toml"];
    for (example, extra) in EXAMPLES.iter().map(|e| (*e, &[][..])).chain([("win2003-sector63", &pack[..])]) {
        let rel = Path::new("examples").join(example);
        let h = check(example, extra);
        let text = text_report(example, extra);
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let host = h["host"].as_str().unwrap();
        for f in h["findings"].as_array().unwrap() {
            let label = f["entity"]["label"].as_str().unwrap();
            let label = label.strip_prefix(&format!("{host} › ")).unwrap_or(label);
            let loc = &f["location"];
            // check() reads the example by its absolute path; the text report by the relative one.
            let file = Path::new(loc["path"].as_str().unwrap()).file_name().unwrap().to_str().unwrap();
            let at = format!("{}:{}:{}", rel.join(file).display(), loc["line"], loc["column"]);
            let entry = match f["measured"].as_str() {
                Some(m) => format!("{label}: {m} at {at}"),
                None => format!("{label} at {at}"),
            };
            assert!(flat.contains(&entry), "{example}: {entry} not in:\n{text}");
        }
        let not_evaluated = h["not_evaluated"].as_array().unwrap().len();
        assert!(flat.contains(&format!("{not_evaluated} not evaluated")), "{example}: {text}");
    }
}
