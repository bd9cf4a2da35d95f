//! `cargo xtask dist`: the release artifacts, the same bytes for the same commit.
//!
//! For each target: `spindle` built with the `dist` profile (`--profile dev` for a quick check of
//! the packaging) and the commit named in `--version`; an archive holding it with the README
//! (its first section is the quick start), the manual it links to (`docs/`), the licence, the
//! bundled packs and the example snapshots the quick start runs on; a CycloneDX SBOM of the crates linked into it, by
//! cargo-cyclonedx; and over all of them a `SHA256SUMS` that `sha256sum -c` checks.
//!
//! Why our own few hundred lines rather than cargo-dist: cargo-dist builds on the CI runner of
//! each platform (a Windows runner for the exe) and writes its own workflow. spindle cross-builds
//! both targets on one Linux machine, the one its CI runs on (mingw for Windows, musl-gcc for the
//! static Linux build, both from Debian), so the artifacts a tag publishes are the ones this
//! command makes and a test checks.
//!
//! Reproducible: paths are remapped (`--remap-path-prefix`) so that the checkout, cargo's
//! registry and the target folder do not end up in the binary; the archives take the commit's time (see `archive`); the
//! SBOM's time is the commit's and its random serial number is left out (CycloneDX makes it
//! optional; cargo-cyclonedx has no reproducible mode yet).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sha2::{Digest, Sha256};

use crate::Failure;
use crate::archive::{self, Entry};

/// What `dist` builds for when no `--target` is given.
pub const TARGETS: [&str; 2] = ["x86_64-unknown-linux-musl", "x86_64-pc-windows-gnu"];

pub struct Options {
    /// A cargo profile: `dist` (the default) or `dev`.
    pub profile: String,
    pub targets: Vec<String>,
    /// Where the artifacts go (default `<target dir>/artifacts`: not `dist`, where cargo puts the
    /// `dist` profile's build scripts); emptied first.
    pub out: Option<PathBuf>,
}

impl Options {
    /// What is wrong with these options, each problem once.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = vec![];
        for t in &self.targets {
            if !TARGETS.contains(&t.as_str()) {
                problems.push(format!("unknown target `{t}`: dist builds {}", TARGETS.join(", ")));
            }
        }
        if !["dist", "dev", "release"].contains(&self.profile.as_str()) {
            problems.push(format!("unknown profile `{}`: dist, dev or release", self.profile));
        }
        problems
    }
}

pub fn run(root: &Path, options: &Options) -> Result<ExitCode, Failure> {
    let problems = options.problems();
    if !problems.is_empty() {
        return Err(Failure(problems));
    }
    let version = env!("CARGO_PKG_VERSION");
    let commit = commit(root)?;
    let epoch = git(root, &["log", "-1", "--format=%ct"])?
        .parse::<u64>()
        .map_err(|e| Failure::one(format!("git log: the commit time: {e}")))?;
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let target_dir = if target_dir.is_absolute() { target_dir } else { root.join(target_dir) };
    let out = options.out.clone().unwrap_or_else(|| target_dir.join("artifacts"));
    if out.exists() {
        fs::remove_dir_all(&out)
            .map_err(|e| Failure::one(format!("{}: cannot empty: {e}", out.display())))?;
    }
    fs::create_dir_all(&out).map_err(|e| Failure::one(format!("{}: cannot create: {e}", out.display())))?;

    let mut written = vec![];
    for target in &options.targets {
        let exe = build(root, &target_dir, target, &options.profile, &commit, epoch)?;
        let stem = format!("spindle-{version}-{target}");
        let entries = entries(root, &stem, &exe, target)?;
        let (name, bytes) = if target.contains("windows") {
            (format!("{stem}.zip"), archive::zip(&entries, epoch))
        } else {
            (format!("{stem}.tar.gz"), archive::tar_gz(&entries, epoch))
        };
        let bytes = bytes.map_err(|e| Failure::one(format!("{name}: {e}")))?;
        write(&out.join(&name), &bytes)?;
        eprintln!(
            "dist: {name}: {} bytes (the program alone: {} bytes)",
            bytes.len(),
            entries[0].bytes.len()
        );
        written.push(name);
        let sbom = format!("{stem}.cdx.json");
        write(&out.join(&sbom), &sbom_for(root, target, epoch)?)?;
        written.push(sbom);
    }
    written.sort();
    let mut sums = String::new();
    for name in &written {
        let bytes = fs::read(out.join(name)).map_err(|e| Failure::one(format!("{name}: {e}")))?;
        sums.push_str(&format!("{:x}  {name}\n", Sha256::digest(&bytes)));
    }
    write(&out.join("SHA256SUMS"), sums.as_bytes())?;
    println!("{}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// The commit to name: 12 hex digits, `-dirty` when tracked files differ from it.
fn commit(root: &Path) -> Result<String, Failure> {
    let hash = git(root, &["rev-parse", "--short=12", "HEAD"])?;
    let clean = Command::new("git")
        .args(["diff", "--quiet", "HEAD", "--"])
        .current_dir(root)
        .status()
        .map_err(|e| Failure::one(format!("git: {e}")))?
        .success();
    Ok(if clean { hash } else { format!("{hash}-dirty") })
}

fn git(root: &Path, args: &[&str]) -> Result<String, Failure> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| Failure::one(format!("git {}: {e}", args.join(" "))))?;
    if !out.status.success() {
        return Err(Failure::one(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Builds the binary for `target` and gives its path.
fn build(
    root: &Path,
    target_dir: &Path,
    target: &str,
    profile: &str,
    commit: &str,
    epoch: u64,
) -> Result<PathBuf, Failure> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap_or_default();
    // Only what reaches the target's code: build scripts keep their own flags. The folders the
    // sources were in are renamed so that the binary does not depend on where it was built:
    // the checkout, cargo's registry, and the target folder (code that build scripts generate,
    // such as Cranelift's, is compiled from there). When several match, rustc applies the last,
    // so the target folder, often inside the checkout, comes after it.
    let rustflags = [
        format!("--remap-path-prefix={}=/spindle", root.display()),
        format!("--remap-path-prefix={}=/cargo", cargo_home.display()),
        format!("--remap-path-prefix={}=/target", target_dir.display()),
    ]
    .join("\x1f");
    let mut cargo = crate::cargo();
    cargo
        .args([
            "build",
            "--locked",
            "-p",
            "spindle",
            "--bin",
            "spindle",
            "--target",
            target,
            "--profile",
            profile,
        ])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target_dir)
        .env("SPINDLE_COMMIT", commit)
        .env("SOURCE_DATE_EPOCH", epoch.to_string())
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags)
        .env_remove("RUSTFLAGS");
    if target.ends_with("-musl") {
        // C dependencies (mimalloc) compiled against musl, not glibc: Debian's musl-tools.
        cargo.env("CC_x86_64_unknown_linux_musl", "musl-gcc");
    }
    eprintln!("dist: cargo build --target {target} --profile {profile} (commit {commit})");
    let status = cargo.status().map_err(|e| Failure::one(format!("cargo: {e}")))?;
    if !status.success() {
        return Err(Failure::one(format!("cargo build for {target} failed ({status})")));
    }
    let dir = if profile == "dev" { "debug" } else { profile };
    let exe = if target.contains("windows") { "spindle.exe" } else { "spindle" };
    Ok(target_dir.join(target).join(dir).join(exe))
}

/// What an archive holds, the program first.
fn entries(root: &Path, stem: &str, exe: &Path, target: &str) -> Result<Vec<Entry>, Failure> {
    let read = |p: &Path| fs::read(p).map_err(|e| Failure::one(format!("{}: {e}", p.display())));
    let windows = target.contains("windows");
    let mut out = vec![Entry {
        path: format!("{stem}/{}", if windows { "spindle.exe" } else { "spindle" }),
        bytes: read(exe)?,
        executable: true,
    }];
    for (from, to) in [("README.md", "README.md"), ("LICENSE", "LICENSE")] {
        out.push(Entry {
            path: format!("{stem}/{to}"),
            bytes: text(read(&root.join(from))?, windows),
            executable: false,
        });
    }
    // The manual, which the README links to: its pages open as text on either system.
    for file in files(&root.join("docs"), &["md", "png", "yml", "yaml"])? {
        let below = file.strip_prefix(root.join("docs")).unwrap();
        let below = below.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        let bytes = read(&file)?;
        let bytes = if file.extension().is_some_and(|e| e == "png") { bytes } else { text(bytes, windows) };
        out.push(Entry { path: format!("{stem}/docs/{below}"), bytes, executable: false });
    }
    for (dir, into) in [("rule-packs", "packs".to_string()), ("examples", "examples".to_string())] {
        for file in files(&root.join(dir), &["toml", "json"])? {
            let below = file.strip_prefix(root.join(dir)).unwrap();
            // The examples' plugin sources and packs that name built plugins are for the repository.
            if dir == "examples" && (below.starts_with("plugins") || below.starts_with("packs")) {
                continue;
            }
            let below =
                below.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push(Entry {
                path: format!("{stem}/{into}/{below}"),
                bytes: read(&file)?,
                executable: false,
            });
        }
    }
    Ok(out)
}

/// A text file as the target's users open it: with CRLF line ends in a Windows archive, since
/// Notepad before Windows 10 1809 (Windows Server 2016) shows an LF-only file as one line.
fn text(bytes: Vec<u8>, windows: bool) -> Vec<u8> {
    if !windows {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 40);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && (i == 0 || bytes[i - 1] != b'\r') {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// The files under `dir` with one of `extensions`, sorted by path.
fn files(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).map_err(|e| Failure::one(format!("{}: {e}", d.display())))? {
            let path = entry.map_err(|e| Failure::one(format!("{}: {e}", d.display())))?.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The CycloneDX SBOM of the crates linked into `spindle` for `target` (no build-only or
/// development dependencies), by cargo-cyclonedx, with the commit's time, without the random
/// serial number, and the checkout's folder renamed.
fn sbom_for(root: &Path, target: &str, epoch: u64) -> Result<Vec<u8>, Failure> {
    let name = format!("spindle-sbom-{target}");
    let status = crate::cargo()
        .args([
            "cyclonedx",
            "--format",
            "json",
            "--spec-version",
            "1.5",
            "--no-build-deps",
            "--target",
            target,
        ])
        .args(["--override-filename", &name])
        .current_dir(root)
        .status()
        .map_err(|e| {
            Failure::one(format!("cargo cyclonedx: {e} (scripts/install-test-tools.sh installs it)"))
        })?;
    if !status.success() {
        return Err(Failure::one(format!(
            "cargo cyclonedx failed ({status}); scripts/install-test-tools.sh installs cargo-cyclonedx"
        )));
    }
    // It writes one file beside each workspace package's manifest: take the binary's, remove all.
    let mut ours = None;
    for manifest in members(root)? {
        let file = manifest.with_file_name(format!("{name}.json"));
        if let Ok(bytes) = fs::read(&file) {
            if manifest == root.join("Cargo.toml") {
                ours = Some(bytes);
            }
            let _ = fs::remove_file(&file);
        }
    }
    let bytes =
        ours.ok_or_else(|| Failure::one(format!("cargo cyclonedx wrote no {name}.json beside Cargo.toml")))?;
    // Its references name the checkout's folder (`path+file:///home/me/spindle#spindle@0.1.0`):
    // renamed `/spindle`, as in the binary.
    let text =
        String::from_utf8_lossy(&bytes).replace(&format!("file://{}", root.display()), "file:///spindle");
    let mut bom: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Failure::one(format!("cargo cyclonedx's SBOM: {e}")))?;
    if let Some(b) = bom.as_object_mut() {
        b.remove("serialNumber");
        if let Some(m) = b.get_mut("metadata").and_then(|m| m.as_object_mut()) {
            m.insert("timestamp".into(), spindle_core::date::rfc3339_utc(epoch).into());
        }
    }
    let mut text = serde_json::to_vec_pretty(&bom).map_err(|e| Failure::one(e.to_string()))?;
    text.push(b'\n');
    Ok(text)
}

/// The manifests of the workspace's packages.
fn members(root: &Path) -> Result<Vec<PathBuf>, Failure> {
    Ok(crate::workspace_metadata(root)?["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["manifest_path"].as_str().map(PathBuf::from))
        .collect())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    fs::write(path, bytes).map_err(|e| Failure::one(format!("{}: cannot write: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The archive carries the manual beside the README, its text with the target's line ends.
    #[test]
    fn entries_hold_the_readme_and_the_manual() {
        let dir = tempfile::TempDir::new().unwrap();
        let root = dir.path();
        for (path, body) in [
            ("README.md", "# spindle\nSee [docs](docs/SUMMARY.md).\n"),
            ("LICENSE", "MIT\n"),
            ("docs/SUMMARY.md", "# Summary\n- [Rules](rules.md)\n"),
            ("docs/recipes/gitlab-ci.yml", "a: 1\n"),
            ("docs/shot.png", "\u{89}PNG\n"),
            ("rule-packs/recommended.toml", "name = \"recommended\"\n"),
            ("examples/e/h.json", "{}\n"),
            ("spindle.exe", "MZ"),
        ] {
            fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            fs::write(root.join(path), body).unwrap();
        }
        let entries = entries(root, "s", &root.join("spindle.exe"), "x86_64-pc-windows-gnu").unwrap();
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "s/spindle.exe",
                "s/README.md",
                "s/LICENSE",
                "s/docs/SUMMARY.md",
                "s/docs/recipes/gitlab-ci.yml",
                "s/docs/shot.png",
                "s/packs/recommended.toml",
                "s/examples/e/h.json",
            ]
        );
        let bytes = |p: &str| &entries.iter().find(|e| e.path == p).unwrap().bytes;
        assert_eq!(bytes("s/docs/SUMMARY.md"), b"# Summary\r\n- [Rules](rules.md)\r\n");
        assert_eq!(bytes("s/docs/shot.png"), "\u{89}PNG\n".as_bytes(), "an image is copied as it is");
    }
}
