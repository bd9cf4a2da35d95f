//! The workspace as it stands keeps the layering `cargo xtask check-arch` enforces (the breaches
//! it must catch are its unit tests).

mod common;

use common::*;

#[test]
fn every_crate_edge_of_the_workspace_points_down() {
    let o = xtask(&repo_root(), &["check-arch"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("every edge points down"), "{}", stdout(&o));
}

/// A long function breaks the invariant on purpose: check-arch names its file, line and length,
/// and a `Long because` line in its doc comment is what lets it stand.
#[test]
fn a_long_function_without_a_reason_fails_the_check() {
    let dir = tempfile::TempDir::new().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"spindle-core\"\nversion = \"0.0.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    let body = "    let _ = 1;\n".repeat(110);
    let long = format!("/// Adds.\npub fn long() {{\n{body}}}\n");
    std::fs::write(root.join("src/lib.rs"), &long).unwrap();

    let o = xtask(root, &["check-arch"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("src/lib.rs:2: `fn long` is 112 lines, over 100"), "{}", stderr(&o));

    std::fs::write(root.join("src/lib.rs"), long.replace("/// Adds.", "/// Long because it is.")).unwrap();
    let o = xtask(root, &["check-arch"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}
