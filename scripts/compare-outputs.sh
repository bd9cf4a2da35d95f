#!/usr/bin/env bash
# Whether two spindle binaries write the same bytes for every bundled example: each example
# checked in every report format, planned in every plan format, the examples diffed pairwise, and
# `spindle explain` of every rule. A refactor must leave all of it byte-identical (issue #26's
# bar); run it with the binary of the main it branched from and the binary it builds:
#
#   cp target/debug/spindle /tmp/spindle-before    # on main, before the change
#   cargo build --bin spindle && scripts/compare-outputs.sh /tmp/spindle-before target/debug/spindle
#
# Prints each output that differs, with the first lines of the difference, and exits 1 if any
# did; stdout, stderr and the exit status all count.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 2 ]] || { echo "usage: $0 OLD_SPINDLE NEW_SPINDLE" >&2; exit 2; }
old=$1 new=$2
# A pinned date: the run's start time is in the JSON and SARIF reports.
export SPINDLE_TODAY=2026-11-30
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

values() { # the --format values of subcommand $1, as clap lists them when given a wrong one
    "$new" "$1" --format '?' 2>&1 | sed -n 's/.*\[possible values: \(.*\)\]/\1/p' | tr -d ','
}

runs=()
examples=(examples/azure-storage-spaces examples/hdd-raid-shared-spindles examples/linux-xfs-md
          examples/win2003-aligned examples/win2003-sector63)
for ex in "${examples[@]}"; do
    for f in $(values check); do runs+=("check $ex --format $f"); done
    for f in $(values plan); do runs+=("plan $ex --format $f"); done
done
runs+=("check examples --pack examples/packs/acme-production.toml --format json")
for f in $(values diff); do
    runs+=("diff examples/win2003-sector63 examples/win2003-aligned --format $f")
done
for code in $(ls rules/tests/fixtures); do
    runs+=("explain $code")
done

differ=0
for i in "${!runs[@]}"; do
    # shellcheck disable=SC2086 # each run is words, none with a space
    "$old" ${runs[i]} >"$work/old.out" 2>"$work/old.err"; echo "exit $?" >>"$work/old.err"
    "$new" ${runs[i]} >"$work/new.out" 2>"$work/new.err"; echo "exit $?" >>"$work/new.err"
    for s in out err; do
        if ! cmp -s "$work/old.$s" "$work/new.$s"; then
            differ=$((differ + 1))
            echo "== spindle ${runs[i]}: std$s differs"
            diff "$work/old.$s" "$work/new.$s" | head -20
        fi
    done
done
echo "compare-outputs: ${#runs[@]} runs, $differ outputs differ"
(( differ == 0 ))
