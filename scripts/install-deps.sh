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
  # tests/e2e/compile/arm_qemu.test: the VTA runtime + simulator cross-built for the PYNQ
  # board (armhf) and run under qemu-arm.
  gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user
)
# ... and the armhf libraries they link (libLLVM, spdlog and what those need), unpacked into
# armhf_root (tests/e2e/compile/lit.cfg.py looks there), not installed: a multiarch install must
# match the amd64 packages' versions exactly, which mirrors do not always offer. The cross
# toolchain brings the C and C++ libraries.
armhf_root=/opt/vtac-armhf
armhf_packages=(libllvm19:armhf libspdlog1.10:armhf)
armhf_from_toolchain='^(libc6|libgcc-s1|libstdc\+\+6|gcc-12-base):armhf$'

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ -e "$armhf_root/.unpacked" ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -ne 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -e "$armhf_root/.unpacked" ]; then
  echo "install-deps: unpacking ${armhf_packages[*]} and their dependencies into $armhf_root"
  if ! dpkg --print-foreign-architectures | grep -qx armhf; then
    $sudo dpkg --add-architecture armhf  # for apt to know the armhf packages
    $sudo apt-get update -qq
  fi
  debs=$(mktemp -d)
  (cd "$debs" && apt-get download -qq $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "${armhf_packages[@]}" | grep -E '^[^ ].*:armhf$' | grep -Ev "$armhf_from_toolchain" |
      sort -u) >/dev/null)
  for deb in "$debs"/*.deb; do $sudo dpkg -x "$deb" "$armhf_root"; done
  $sudo touch "$armhf_root/.unpacked"
  rm -rf "$debs"
fi
