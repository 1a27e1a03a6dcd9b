#!/usr/bin/env bash
# Installs the Debian packages vtac builds and tests with. Idempotent: when every
# package is already present it prints nothing and touches nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache
  antlr4 libantlr4-runtime-dev
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev libdlpack-dev
  libcli11-dev libspdlog-dev catch2 libzip-dev zlib1g-dev libzstd-dev libffi-dev
  python3-numpy  # samples/models/gen_resnet18_vta.py and its e2e test (/usr/bin/python3)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
