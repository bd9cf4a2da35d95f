#!/usr/bin/env bash
# Tools the Linux collector's tests drive (hostfacts/tests/linux_loop.rs, linux_live.rs):
# sfdisk (fdisk), mkfs.xfs (xfsprogs), mkfs.ext4 (e2fsprogs), losetup/partx/mount/findmnt/
# blockdev (util-linux, mount). Idempotent: apt-get runs only when a tool is missing.
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0

declare -A pkg=(
  [sfdisk]=fdisk [mkfs.xfs]=xfsprogs [mkfs.ext4]=e2fsprogs
  [losetup]=mount [partx]=util-linux [findmnt]=util-linux [blockdev]=util-linux
  [mount]=mount [umount]=mount
)
missing=()
for tool in "${!pkg[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${pkg[$tool]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "== installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
