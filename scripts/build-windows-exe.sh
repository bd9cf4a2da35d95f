#!/usr/bin/env bash
# Cross-builds spindle.exe (x86_64-pc-windows-gnu, debug) and readies Wine to run it, for
# tests/wine.rs:
# - the exe, into <target>/x86_64-pc-windows-gnu/debug/;
# - beside it, the test-only bcryptprimitives.dll of tests/wine/ (Wine 8.0 lacks the DLL that
#   Rust's standard library takes its random numbers from; see the C file);
# - a Wine prefix of its own under <target>/wine-prefix, made once here (about 6 s) so that the
#   tests' parallel first runs do not race to create it.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-target}
out="$target_dir/x86_64-pc-windows-gnu/debug"
rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1 || rustup target add x86_64-pc-windows-gnu
cargo build -p spindle --bin spindle --target x86_64-pc-windows-gnu --locked
x86_64-w64-mingw32-gcc -shared -O2 -Wall -Werror -o "$out/bcryptprimitives.dll" \
    tests/wine/bcryptprimitives.c tests/wine/bcryptprimitives.def -ladvapi32

export WINEPREFIX
WINEPREFIX="$(cd "$target_dir" && pwd)/wine-prefix"
export WINEDEBUG=-all
# The smoke test: the exe starts and prints its version.
wine "$out/spindle.exe" --version
