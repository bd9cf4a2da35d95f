#!/usr/bin/env bash
# Every check CI runs, in the order a developer wants to hear about failures:
# formatting, lints, the wasm32-wasip2 builds (spindle-core, the rule plugins), then every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# spindle-core must stay pure enough to build for WASI 0.2 (the plugin SDK reuses it).
rustup target add wasm32-wasip2 >/dev/null 2>&1 || rustup target add wasm32-wasip2

echo "== cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path examples/plugins/Cargo.toml --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --manifest-path examples/plugins/Cargo.toml --all-targets --locked -- -D warnings
echo "== spindle-core for wasm32-wasip2"
cargo build -p spindle-core --target wasm32-wasip2 --locked
echo "== rule plugins (the SDK's real path: components the tests load)"
bash scripts/build-plugins.sh
echo "== tests"
bash scripts/install-test-tools.sh
cargo test --manifest-path examples/plugins/Cargo.toml --locked
cargo test --workspace --locked
