#!/usr/bin/env bash
# Builds the Python example plugin (build.sh) and runs its tests: the exports natively in
# CPython against the contract's generated bindings; the built component in wasmtime (wasmtime's
# Python package, from the venv scripts/install-test-tools.sh makes) within spindle's default
# per-call limits; and, when scripts/build-plugins.sh has built it, the Rust acme pack beside it
# on the same facts (test_parity.py; skipped, and said so, when it is not built).
set -euo pipefail
cd "$(dirname "$0")/../../.."

bash examples/plugins/python/build.sh
PYTHONDONTWRITEBYTECODE=1 target/test-tools/pyvenv/bin/python -m unittest discover -v \
    -s examples/plugins/python/tests -t examples/plugins/python/tests
