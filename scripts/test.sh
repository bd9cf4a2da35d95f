#!/usr/bin/env bash
# Every check CI runs, in the order a developer wants to hear about failures:
# formatting, lints, the cross builds (spindle-core for wasm32-wasip2, the Windows collector and
# spindle.exe for x86_64-pc-windows-gnu, the static Linux release packaging, the rule plugins),
# then every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage says when it started and how much disk is left, and the run ends with the time each
# stage took, longest first, so a CI log tells what each costs and where to cut.
stage_names=() stage_starts=()
stage() {
    stage_names+=("$*") stage_starts+=("$SECONDS")
    echo "== $* (at ${SECONDS} s, $(df -Ph . | awk 'NR == 2 { print $4 }') free)"
}
stage_times() {
    local status=$? i end
    echo "== done (at ${SECONDS} s, exit status $status); seconds per stage, longest first:"
    for i in "${!stage_names[@]}"; do
        end=${stage_starts[i + 1]:-$SECONDS}
        printf '%6d  %s\n' "$((end - stage_starts[i]))" "${stage_names[i]%%:*}"
    done | sort -rn
}
trap stage_times EXIT

# The full test tier: a test whose tool, root or artifact is missing fails rather than skips
# (tests/support/src/tier.rs), on a developer's machine as in CI.
export SPINDLE_REQUIRE_ALL=1

# CI builds each crate once: incremental compilation's caches (a third of target/debug) would
# only fill its disk, which a run once exhausted.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# On a machine short of disk (CI, or under 40 GiB free), what a finished stage built and no later
# stage reads is removed: the cross builds' intermediates, the fuzz crates' lint build. A
# developer's machine keeps them, so that the next run starts warm.
short_of_disk() {
    [[ -n "${CI:-}" ]] || (( $(df -Pk . | awk 'NR == 2 { print $4 }') < 40 * 1024 * 1024 ))
}
prune() {
    if short_of_disk; then
        rm -rf "$@"
    fi
}

# spindle-core must stay pure enough to build for WASI 0.2 (the plugin SDK reuses it).
rustup target add wasm32-wasip2 >/dev/null 2>&1 || rustup target add wasm32-wasip2

# The tools the tests drive (disk-image tools, loop devices, mingw, musl-gcc, Wine, cmark-gfm,
# Chromium, the SARIF Multitool, cargo-cyclonedx, ...), when missing.
stage "test tools (scripts/install-test-tools.sh)"
bash scripts/install-test-tools.sh

stage "cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path examples/plugins/Cargo.toml --all -- --check
stage "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --manifest-path examples/plugins/Cargo.toml --all-targets --locked -- -D warnings
cargo clippy --manifest-path examples/plugins/v0-1/Cargo.toml --all-targets --locked -- -D warnings
# The SDK's 0.1.0 build (its tests are written against 0.2.0; examples/plugins/v0-1 tests 0.1.0).
cargo clippy -p spindle-plugin-sdk --features contract-0-1 --locked -- -D warnings
stage "spindle-core for wasm32-wasip2 (with packs, and as plugin guests take it: without)"
cargo build -p spindle-core --target wasm32-wasip2 --locked
cargo clippy -p spindle-core --no-default-features --target wasm32-wasip2 --locked -- -D warnings
prune target/wasm32-wasip2
stage "Windows (x86_64-pc-windows-gnu): the WMI collector cross-built with mingw, the binary linted"
rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1 || rustup target add x86_64-pc-windows-gnu
# Clippy type-checks the collector's tests for Windows too; nothing runs them there, and the exe
# below links the collector itself, so a separate Windows build of them would only cost time.
cargo clippy -p spindle-collectors --target x86_64-pc-windows-gnu --all-targets --locked -- -D warnings
# The whole binary with Windows integrated authentication (tiberius' winauth), linted.
cargo clippy -p spindle --bin spindle --target x86_64-pc-windows-gnu --locked -- -D warnings
stage "spindle.exe built and started under Wine (tests/wine.rs runs it against the Linux build)"
bash scripts/build-windows-exe.sh
export SPINDLE_REQUIRE_WINE=1
# tests/wine.rs needs spindle.exe, the shim beside it and the Wine prefix, nothing else.
prune target/x86_64-pc-windows-gnu/debug/{deps,build,.fingerprint,incremental,examples}
stage "the release artifacts, quickly: cargo xtask dist --profile dev for the static Linux build (tests/dist.rs checks them)"
rustup target add x86_64-unknown-linux-musl >/dev/null 2>&1 || rustup target add x86_64-unknown-linux-musl
PATH="$PWD/target/test-tools/cargo/bin:$PATH" cargo xtask dist --profile dev --target x86_64-unknown-linux-musl
export SPINDLE_REQUIRE_DIST=1
# tests/dist.rs reads the archives in target/artifacts, not the build behind them.
prune target/x86_64-unknown-linux-musl
stage "fuzz targets (built by cargo-fuzz on nightly; linted here on stable so they cannot rot)"
cargo fmt --manifest-path fuzz/Cargo.toml --all -- --check
CARGO_TARGET_DIR=target/fuzz-check cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --locked -- -D warnings
prune target/fuzz-check
stage "rule plugins (the SDK's real path: components the tests load)"
bash scripts/build-plugins.sh
stage "the Python example plugin (componentize-py): its own tests, natively and as a component"
bash examples/plugins/python/test.sh
stage "tests"
cargo test --manifest-path examples/plugins/Cargo.toml --locked
cargo test --manifest-path examples/plugins/v0-1/Cargo.toml --locked
cargo test --workspace --locked
