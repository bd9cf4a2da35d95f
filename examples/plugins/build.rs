//! The build script of every plugin here (each Cargo.toml says `build = "../build.rs"`): an
//! 8 MiB linear memory from the start, so that a call's facts and its rules' data fit without
//! `memory.grow`, a host call that also changes page tables (see plugins-sdk/README.md).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=--initial-memory=8388608");
    }
}
