#!/usr/bin/env bash
# Builds the Python example plugin (build.sh) and runs its tests: the exports natively in
# CPython against the contract's generated bindings, then the built component in wasmtime
# (wasmtime's Python package, from the venv scripts/install-test-tools.sh makes), within
# spindle's default per-call limits.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash examples/plugins-py/build.sh
PYTHONDONTWRITEBYTECODE=1 target/test-tools/pyvenv/bin/python -m unittest discover \
    -s examples/plugins-py/tests -t examples/plugins-py/tests
