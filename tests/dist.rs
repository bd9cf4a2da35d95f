//! The release artifacts as a user receives them: `cargo xtask dist`'s folder (`SPINDLE_DIST`,
//! else `<target>/artifacts`), checked the way a DBA uses it. The checksums verify with
//! `sha256sum -c`; the Linux binary is static (`file` says so, no interpreter, no shared
//! library) and runs in a folder holding nothing but itself and the example; `--version` names
//! the version, the commit and the target; each archive holds the README, the manual it links to
//! (docs/), the licence, the packs and the examples; the SBOM is CycloneDX and lists the crates linked.
//!
//! CI (scripts/test.sh) makes a quick dist of the Linux target (`--profile dev`) and sets
//! `SPINDLE_REQUIRE_DIST`; the release workflow checks its real artifacts with this same file.
//! Elsewhere, with no dist folder, the tests skip, saying why.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_spindle");

/// The dist folder, or `None` after saying why the test skips.
fn dist() -> Option<PathBuf> {
    let dir = std::env::var_os("SPINDLE_DIST").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(BIN).parent().and_then(Path::parent).expect("<target>/debug/spindle").join("artifacts")
    });
    if dir.join("SHA256SUMS").is_file() {
        return Some(dir);
    }
    let why = format!("no release artifacts in {}: run `cargo xtask dist`", dir.display());
    spindle_test_support::tier::unavailable(&why, &["SPINDLE_REQUIRE_DIST"]);
    None
}

/// Runs `program` (a path, or a tool found on PATH or in the sbin folders a non-login root shell
/// may lack: `chroot` is in /usr/sbin).
fn run(program: &str, args: &[&str], cwd: &Path) -> std::process::Output {
    let path = if program.contains('/') {
        PathBuf::from(program)
    } else {
        spindle_test_support::disk_tools::tool(program)
    };
    Command::new(path).args(args).current_dir(cwd).output().unwrap_or_else(|e| panic!("{program}: {e}"))
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

/// A fresh folder under the target folder.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().join(format!("dist-tests/{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_checksums_cover_every_artifact_and_verify() {
    let Some(dist) = dist() else { return };
    let sums = fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
    let listed: Vec<&str> = sums.lines().map(|l| l.split_once("  ").expect("`HASH  NAME` lines").1).collect();
    let mut present = names(&dist);
    present.retain(|n| n != "SHA256SUMS");
    assert_eq!(listed, present, "every artifact, each once, sorted");
    assert!(listed.iter().any(|n| n.ends_with("-x86_64-unknown-linux-musl.tar.gz")), "{listed:?}");
    let o = run("sha256sum", &["--check", "--strict", "SHA256SUMS"], &dist);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_linux_binary_is_static_and_runs_alone() {
    let Some(dist) = dist() else { return };
    let archive =
        names(&dist).into_iter().find(|n| n.ends_with("-x86_64-unknown-linux-musl.tar.gz")).unwrap();
    let stem = archive.trim_end_matches(".tar.gz").to_string();
    let dir = scratch("linux");
    let o = run("tar", &["xzf", dist.join(&archive).to_str().unwrap()], &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let top = dir.join(&stem);
    assert_eq!(names(&dir), std::slice::from_ref(&stem), "one folder named as the archive");
    let inside = names(&top);
    for expected in ["LICENSE", "README.md", "docs", "examples", "packs", "spindle"] {
        assert!(inside.iter().any(|n| n == expected), "{expected} in {inside:?}");
    }
    assert_eq!(names(&top.join("packs")), ["data-warehouse.toml", "oltp.toml", "recommended.toml"]);
    assert!(fs::read_to_string(top.join("README.md")).unwrap().starts_with("# spindle"));
    // The manual the README links to, every chapter its SUMMARY lists.
    let summary = fs::read_to_string(top.join("docs/SUMMARY.md")).unwrap();
    for chapter in summary.split("](").skip(1).filter_map(|s| s.split(')').next()) {
        assert!(top.join("docs").join(chapter).is_file(), "docs/{chapter} in the archive");
    }

    // Static: `file` says so, and the program asks for no interpreter and no shared library.
    let exe = top.join("spindle");
    let file = String::from_utf8(run("file", &["-b", exe.to_str().unwrap()], &dir).stdout).unwrap();
    assert!(file.contains("statically linked") || file.contains("static-pie linked"), "{file}");
    let headers =
        String::from_utf8(run("readelf", &["-l", "-d", exe.to_str().unwrap()], &dir).stdout).unwrap();
    assert!(!headers.contains("INTERP") && !headers.contains("(NEEDED)"), "{headers}");

    // --version names the version, the commit it was built from and the target.
    let version = String::from_utf8(run(exe.to_str().unwrap(), &["--version"], &dir).stdout).unwrap();
    let expected_start = format!("spindle {} (commit ", env!("CARGO_PKG_VERSION"));
    assert!(version.starts_with(&expected_start), "{version}");
    let commit = version[expected_start.len()..].split([',', '-']).next().unwrap();
    assert!(commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit()), "{version}");
    assert!(version.contains(", x86_64-unknown-linux-musl; plugin contracts "), "{version}");
    assert!(stem.starts_with(&format!("spindle-{}-", env!("CARGO_PKG_VERSION"))), "{stem}");

    // Alone: a root holding only the program and one example, no /lib, no /etc, no /proc.
    let root = scratch("chroot");
    fs::copy(&exe, root.join("spindle")).unwrap();
    fs::create_dir(root.join("example")).unwrap();
    fs::copy(top.join("examples/win2003-sector63/erp-sql1.json"), root.join("example/erp-sql1.json"))
        .unwrap();
    let root_s = root.to_str().unwrap();
    let args = ["/spindle", "check", "--no-config", "--format", "json", "/example"];
    let o = if is_root() {
        run("chroot", &[&[root_s][..], &args].concat(), &dir)
    } else {
        // An unprivileged user namespace maps us to root in it, where chroot is allowed.
        let o = run("unshare", &[&["--user", "--map-root-user", "chroot", root_s][..], &args].concat(), &dir);
        if o.status.code() != Some(1) && String::from_utf8_lossy(&o.stderr).contains("unshare") {
            eprintln!("skipped the chroot: no user namespaces here: {}", String::from_utf8_lossy(&o.stderr));
            return;
        }
        o
    };
    assert_eq!(o.status.code(), Some(1), "the example's findings: {}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
    assert_eq!(report["hosts"][0]["host"], "erp-sql1", "{report:#}");
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(&root);
}

fn is_root() -> bool {
    String::from_utf8(run("id", &["-u"], Path::new("/")).stdout).unwrap().trim() == "0"
}

#[test]
fn each_sbom_is_cyclonedx_and_lists_the_crates_linked() {
    let Some(dist) = dist() else { return };
    let sboms: Vec<String> = names(&dist).into_iter().filter(|n| n.ends_with(".cdx.json")).collect();
    assert!(sboms.iter().any(|n| n.contains("x86_64-unknown-linux-musl")), "{sboms:?}");
    let lock = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let locked = |name: &str| {
        let at = lock
            .find(&format!("name = \"{name}\"\nversion = \""))
            .unwrap_or_else(|| panic!("{name} in Cargo.lock"));
        lock[at..]
            .lines()
            .nth(1)
            .unwrap()
            .trim_start_matches("version = \"")
            .trim_end_matches('"')
            .to_string()
    };
    for name in sboms {
        let bom: Value = serde_json::from_slice(&fs::read(dist.join(&name)).unwrap()).unwrap();
        assert_eq!(bom["bomFormat"], "CycloneDX", "{name}");
        assert!(bom["specVersion"].as_str().is_some_and(|v| v.starts_with("1.")), "{name}");
        assert!(
            bom.get("serialNumber").is_none(),
            "{name}: no random serial number, the same SBOM each time"
        );
        assert_eq!(bom["metadata"]["component"]["name"], "spindle", "{name}");
        let components = bom["components"].as_array().expect("components");
        for krate in ["wasmtime", "tiberius", "serde_json", "spindle-core"] {
            let c =
                components.iter().find(|c| c["name"] == krate).unwrap_or_else(|| panic!("{krate} in {name}"));
            assert_eq!(c["version"], locked(krate), "{name}: {krate} as Cargo.lock has it");
            assert!(c["purl"].as_str().is_some_and(|p| p.starts_with("pkg:cargo/")), "{c}");
        }
        // Only the crates built for that target: the Windows API bindings only in Windows'.
        let has_wmi = components.iter().any(|c| c["name"] == "wmi");
        assert_eq!(has_wmi, name.contains("windows"), "{name}: wmi");
    }
}

#[test]
fn the_windows_archive_holds_the_exe_and_text_windows_can_read() {
    let Some(dist) = dist() else { return };
    let Some(archive) = names(&dist).into_iter().find(|n| n.ends_with("-x86_64-pc-windows-gnu.zip")) else {
        eprintln!("skipped: no Windows archive in {} (CI's quick dist builds Linux only)", dist.display());
        return;
    };
    let dir = scratch("windows");
    let o = run("python3", &["-m", "zipfile", "-e", dist.join(&archive).to_str().unwrap(), "."], &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let top = dir.join(archive.trim_end_matches(".zip"));
    for expected in
        ["LICENSE", "README.md", "docs/SUMMARY.md", "docs/rules.md", "spindle.exe", "packs", "examples"]
    {
        assert!(top.join(expected).exists(), "{expected}");
    }
    let readme = fs::read(top.join("README.md")).unwrap();
    assert!(readme.windows(2).filter(|w| w == b"\r\n").count() > 100, "CRLF line ends");
    assert!(!readme.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r'), "no bare LF");
    let exe = fs::read(top.join("spindle.exe")).unwrap();
    assert_eq!(&exe[..2], b"MZ", "a Windows program");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_release_workflow_builds_checks_and_publishes_the_same_artifacts() {
    // actionlint does not install here (its packages download it from GitHub); the workflow is
    // parsed by PyYAML and held to what a release needs.
    let Some(python) = spindle_test_support::consumers::python_with_yaml() else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/workflows/release.yml");
    let text = fs::read_to_string(&path).unwrap();
    let workflow =
        spindle_test_support::consumers::parse_yaml(&python, &[("release.yml".into(), text)]).remove(0);
    // PyYAML reads the key `on` as the boolean true (YAML 1.1), as GitHub does not.
    let on = workflow.get("on").or_else(|| workflow.get("true")).expect("on:");
    assert_eq!(on["push"]["tags"][0], "v*", "a version tag releases");
    assert_eq!(workflow["permissions"]["contents"], "write", "to publish the release");
    let jobs = workflow["jobs"].as_object().unwrap();
    let steps: Vec<&Value> = jobs.values().flat_map(|j| j["steps"].as_array().unwrap()).collect();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    let position =
        |needle: &str| runs.iter().position(|r| r.contains(needle)).unwrap_or_else(|| panic!("{needle}"));
    // The toolchain the project pins, the cross tools and the SBOM tool the install script pins.
    let toolchain = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let rust = toolchain.split("rust-version = \"").nth(1).unwrap().split('"').next().unwrap();
    assert!(runs[position("rustup toolchain install")].contains(rust), "Rust {rust}");
    for package in ["musl-tools", "gcc-mingw-w64-x86-64"] {
        position(package);
    }
    let install =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-test-tools.sh"))
            .unwrap();
    let pinned = install.split("CARGO_CYCLONEDX_VERSION=").nth(1).unwrap().lines().next().unwrap();
    assert!(
        runs[position("cargo install cargo-cyclonedx")].contains(&format!("--version {pinned} --locked"))
    );
    // Build, then check with this file, then publish: in that order.
    let (dist, check, publish) =
        (position("cargo xtask dist"), position("--test dist"), position("gh release create"));
    assert!(dist < check && check < publish, "{runs:?}");
    let check_step =
        steps.iter().find(|s| s["run"].as_str().is_some_and(|r| r.contains("--test dist"))).unwrap();
    assert_eq!(check_step["env"]["SPINDLE_REQUIRE_DIST"], "1", "a missing artifact fails the release");
    let out = runs[dist].split("--out ").nth(1).unwrap().split_whitespace().next().unwrap();
    assert!(check_step["env"]["SPINDLE_DIST"].as_str().unwrap().ends_with(&format!("/{out}")));
    assert!(runs[publish].contains(&format!("{out}/*")), "every artifact, SHA256SUMS included, is published");
}
