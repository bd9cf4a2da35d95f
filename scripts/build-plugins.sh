#!/usr/bin/env bash
# Builds the guest crates of examples/plugins/ (the acme, parity and hostile rule plugins, contract
# 0.2.0) and examples/plugins/v0-1/ (parity again, contract 0.1.0) as WASI 0.2
# components and prints the path of each .wasm, one a line (cargo's output goes to stderr). Next
# to each FILE.wasm it writes FILE.wasm.sha256, the hex digest a pack's `sha256` takes.
#
# examples/plugins/ is a workspace of its own with its own Cargo.lock: `--locked` fails when the lock
# is stale instead of updating it (run the cargo command without it, then commit the lock).
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target add wasm32-wasip2 >/dev/null 2>&1 || rustup target add wasm32-wasip2

# Panic locations embed source paths: map the checkout and cargo's home to fixed names so no
# builder's paths end up in the components. (The bytes still depend on the checkout's location:
# cargo hashes path dependencies' paths into symbol names, which reorders code. The same sources
# in the same folder rebuild to the same bytes; a pack's sha256 is therefore computed, see the
# .sha256 files below, not written by hand for a build made elsewhere.)
repo="$(pwd -P)"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
export CARGO_ENCODED_RUSTFLAGS="--remap-path-prefix=$repo=/spindle"$'\x1f'"--remap-path-prefix=$cargo_home=/cargo"
unset RUSTFLAGS

# The components' place is fixed, whatever CARGO_TARGET_DIR the caller has set.
target_dir=examples/plugins/target
cargo build --release --target wasm32-wasip2 --manifest-path examples/plugins/Cargo.toml --locked \
    --target-dir "$target_dir" >&2
# The parity plugin again, against contract 0.1.0: a workspace of its own (see its Cargo.toml).
cargo build --release --target wasm32-wasip2 --manifest-path examples/plugins/v0-1/Cargo.toml --locked \
    --target-dir "$target_dir" >&2

out=$target_dir/wasm32-wasip2/release
for name in acme_rules parity_rules hostile_rules parity_v0_1_rules; do
    wasm="$out/$name.wasm"
    # A WASI 0.2 component starts with `\0asm` and the component layer's version 0x0d 0x00 0x01 0x00
    # (a core module has 0x01 0x00 0x00 0x00 there).
    if [[ "$(head -c 8 "$wasm" | od -An -tx1 | tr -d ' \n')" != "0061736d0d000100" ]]; then
        echo "build-plugins: $wasm is not a WebAssembly component" >&2
        exit 1
    fi
    # For packs that pin the plugin: `sha256 = "…"` is the first word of this file.
    sha256sum "$wasm" | cut -d' ' -f1 > "$wasm.sha256"
    echo "$wasm"
done
