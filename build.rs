//! Names the build in `spindle --version`: the target triple cargo builds for, and the commit
//! when the release tooling says which (`cargo xtask dist` sets `SPINDLE_COMMIT`). A plain
//! `cargo build` does not ask git: watching `.git` would rebuild and relink the whole binary on
//! every commit, and a commit read once and then left stale would be worse than none.
fn main() {
    println!("cargo:rerun-if-env-changed=SPINDLE_COMMIT");
    println!("cargo:rustc-env=SPINDLE_TARGET={}", std::env::var("TARGET").unwrap_or_default());
}
