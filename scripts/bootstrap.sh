#!/usr/bin/env bash
# Installs the Debian 12 packages PTO-JIT builds against, only those that are missing.
# Idempotent and non-interactive: a machine that has everything returns at once.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config
  llvm-16-dev liblld-16-dev libzstd-dev libedit-dev zlib1g-dev libtinfo-dev libxml2-dev libffi-dev
  libboost-dev libboost-context1.74-dev libtbb-dev doctest-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libxxhash-dev libbenchmark-dev libopenblas-dev
  chromium   # headless check of pto report's HTML
  libopenmpi-dev openmpi-bin   # pto sweep / tune sharded over MPI ranks
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
