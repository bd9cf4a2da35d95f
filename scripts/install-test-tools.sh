#!/usr/bin/env bash
# Installs what the tests need beyond Rust, only when something is missing (apt-get;
# Debian/Ubuntu). Idempotent and quiet when all is there:
# - the partitioning and formatting tools the image and Linux-collector tests build disks with;
# - loop devices and mounting (losetup, partx, mount) for the Linux collector's loop test;
# - script (a terminal for the password-prompt test);
# - mingw, the linker the Windows collector is cross-built with;
# - cmark-gfm, the CommonMark + GFM parser GitHub renders Markdown with (the Markdown report's
#   tests), and headless Chromium (the HTML report's tests: it loads, draws and prints the page);
# - npm, and with it Microsoft's SARIF Multitool (the npm package @microsoft/sarif-multitool,
#   pinned) under target/test-tools/, where tests/support/src/multitool.rs looks for it;
# - the real consumers the CI-format tests read reports with (tests/ci_formats.rs): xmllint
#   (libxml2-utils) and Python's junitparser (pip, into the user's site-packages: works as root
#   in CI and without sudo on a laptop);
# - componentize-py and wasmtime's Python package, both pinned, in a venv under
#   target/test-tools/pyvenv: examples/plugins/python/build.sh builds the Python example plugin with
#   the one, and its smoke test runs the component with the other;
# - the real parsers `spindle plan`'s scripts are held to (tests/plan.rs): shellcheck (apt),
#   and, pinned in a venv under target/test-tools/parsers, sqlfluff (T-SQL dialect) and the
#   tree-sitter PowerShell grammar;
# - Wine (wine, wine64), which runs the cross-built spindle.exe in tests/wine.rs;
# - for `cargo xtask dist` and tests/dist.rs: musl-gcc (the static Linux build's C parts), `file`
#   and `readelf` (is it static?), and cargo-cyclonedx, pinned, under target/test-tools/cargo
#   (the SBOMs).
# - check-jsonschema (SchemaStore's GitHub workflow and GitLab CI schemas are in its package) and
#   kubernetes-validate (each Kubernetes version's OpenAPI schemas are in its package), pinned, in
#   the venv under target/test-tools/pyvenv: tests/recipes.rs holds docs/recipes to them, offline.
# - mdbook, pinned, under target/test-tools/cargo: xtask/tests/book.rs builds the manual (docs/)
#   with it.
set -euo pipefail
cd "$(dirname "$0")/.."

MULTITOOL_VERSION=5.7.0
COMPONENTIZE_PY_VERSION=0.25.1
WASMTIME_PY_VERSION=50.0.1
SQLFLUFF_VERSION=4.5.0
TREE_SITTER_VERSION=0.26.1
TREE_SITTER_POWERSHELL_VERSION=0.26.4
CARGO_CYCLONEDX_VERSION=0.5.9
MDBOOK_VERSION=0.4.52
CHECK_JSONSCHEMA_VERSION=0.39.0
KUBERNETES_VALIDATE_VERSION=1.37.0

# tool:package
tools=(sfdisk:fdisk fdisk:fdisk sgdisk:gdisk mkntfs:ntfs-3g ntfsinfo:ntfs-3g mkfs.xfs:xfsprogs
    xfs_db:xfsprogs mke2fs:e2fsprogs mkfs.ext4:e2fsprogs dumpe2fs:e2fsprogs parted:parted
    qemu-img:qemu-utils losetup:mount mount:mount umount:mount partx:util-linux findmnt:util-linux
    blockdev:util-linux script:bsdutils x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 npm:npm
    cmark-gfm:cmark-gfm chromium:chromium xmllint:libxml2-utils shellcheck:shellcheck wine:wine
    musl-gcc:musl-tools file:file readelf:binutils)

missing=()
for t in "${tools[@]}"; do
    tool=${t%%:*} pkg=${t#*:}
    if ! PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1; then
        [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
    fi
done
# Wine runs the cross-built spindle.exe (tests/wine.rs); Debian's `wine` is only the launcher,
# the 64-bit loader is the `wine64` package.
[[ -x /usr/lib/wine/wine64 ]] || missing+=(wine64)
# Debian's python3 makes a venv (below) only with python3-venv (its ensurepip).
python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [[ ${#missing[@]} -gt 0 ]]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-test-tools: missing ${missing[*]} and no apt-get; install them by hand" >&2
        exit 1
    fi
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    echo "install-test-tools: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! python3 -c 'import junitparser' >/dev/null 2>&1; then
    echo "install-test-tools: installing junitparser (pip --user)"
    python3 -m pip install --user --quiet --disable-pip-version-check junitparser 2>/dev/null \
        || python3 -m pip install --user --quiet --disable-pip-version-check --break-system-packages junitparser
fi

# The SARIF Multitool: a self-contained .NET program in a per-platform npm package. Its
# postinstall only marks it executable, which newer npm versions skip unless allowed, so that is
# done here.
tools_dir=target/test-tools
case "$(uname -s)" in
    Linux) platform=linux ;;
    Darwin) platform=darwin ;;
    *) platform=win32 ;;
esac
multitool="$tools_dir/node_modules/@microsoft/sarif-multitool-$platform/Sarif.Multitool"
installed="$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' \
    "$tools_dir/node_modules/@microsoft/sarif-multitool-$platform/package.json" 2>/dev/null || true)"
if [[ ! -f "$multitool" || "$installed" != "$MULTITOOL_VERSION" ]]; then
    echo "install-test-tools: installing @microsoft/sarif-multitool@$MULTITOOL_VERSION into $tools_dir"
    mkdir -p "$tools_dir"
    npm install --prefix "$tools_dir" --no-audit --no-fund --loglevel=error \
        "@microsoft/sarif-multitool@$MULTITOOL_VERSION" >/dev/null
fi
[[ -x "$multitool" ]] || chmod u+x "$multitool"

# Pinned Python packages in a venv of the test tools (made when missing), installed when the
# versions there are not the ones wanted: `pip_into VENV PACKAGE==VERSION...`.
pip_into() {
    local venv=$1
    shift
    local installed
    installed="$("$venv/bin/python" - "$@" 2>/dev/null <<'PY' || true
import sys
from importlib.metadata import version
print(" ".join(r.split("==")[0] + "==" + version(r.split("==")[0]) for r in sys.argv[1:]))
PY
)"
    if [[ "$installed" != "$*" ]]; then
        echo "install-test-tools: installing $* into $venv"
        [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    fi
}

# The Python plugin's tools, in a venv of their own: no system or user site-packages to clash
# with; and in the same venv, the validators of the CI recipes (docs/recipes).
pip_into "$tools_dir/pyvenv" "componentize-py==$COMPONENTIZE_PY_VERSION" "wasmtime==$WASMTIME_PY_VERSION" \
    "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
# The parsers of the change plan's scripts, in a venv of their own.
pip_into "$tools_dir/parsers" "sqlfluff==$SQLFLUFF_VERSION" "tree-sitter==$TREE_SITTER_VERSION" \
    "tree-sitter-powershell==$TREE_SITTER_POWERSHELL_VERSION"

# cargo-cyclonedx, which `cargo xtask dist` writes the SBOMs with (about 2 minutes to build).
cyclonedx="$tools_dir/cargo/bin/cargo-cyclonedx"
if [[ "$("$cyclonedx" cyclonedx --version 2>/dev/null)" != *" $CARGO_CYCLONEDX_VERSION" ]]; then
    echo "install-test-tools: installing cargo-cyclonedx $CARGO_CYCLONEDX_VERSION into $tools_dir/cargo"
    cargo install --quiet --locked --root "$tools_dir/cargo" cargo-cyclonedx --version "$CARGO_CYCLONEDX_VERSION"
fi

# mdbook, which builds the manual (about a minute to build; no default features: no server, no
# file watcher, only the HTML book).
mdbook="$tools_dir/cargo/bin/mdbook"
if [[ "$("$mdbook" --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]]; then
    echo "install-test-tools: installing mdbook $MDBOOK_VERSION into $tools_dir/cargo"
    cargo install --quiet --locked --no-default-features --root "$tools_dir/cargo" mdbook --version "$MDBOOK_VERSION"
fi
