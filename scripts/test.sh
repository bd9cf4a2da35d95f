#!/usr/bin/env bash
# Every check CI runs, in the order a developer wants to hear about failures:
# formatting, lints, the wasm32-wasip2 build of spindle-core, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# spindle-core must stay pure enough to build for WASI 0.2 (the plugin SDK reuses it).
rustup target add wasm32-wasip2 >/dev/null 2>&1 || rustup target add wasm32-wasip2

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== spindle-core for wasm32-wasip2"
cargo build -p spindle-core --target wasm32-wasip2 --locked
echo "== tests"
cargo test --workspace --locked
