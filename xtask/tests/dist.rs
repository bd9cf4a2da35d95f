//! `cargo xtask dist`'s arguments: every problem said at once, exit status 2, nothing built or
//! written. (What a real dist writes is checked by the root package's tests/dist.rs.)

mod common;

use common::*;

#[test]
fn bad_arguments_are_all_reported_and_nothing_is_written() {
    let dir = tempfile::TempDir::new().unwrap();
    let out = dir.path().join("out");
    let o = xtask(
        dir.path(),
        &[
            "dist",
            "--target",
            "sparc-sun-solaris",
            "--profile",
            "fast",
            "--bogus",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for expected in
        ["unknown argument `--bogus`", "unknown target `sparc-sun-solaris`", "unknown profile `fast`"]
    {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    assert!(!out.exists(), "nothing written");

    let o = xtask(dir.path(), &["dist", "--target"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`--target` needs a target triple"), "{}", stderr(&o));
}
