#!/usr/bin/env bash
# Installs the Debian packages vtac builds and tests with. Idempotent: when every
# package is already present it prints nothing and touches nothing.
#
# The packages vtac needs are required: without them the script fails. The ARM cross tools
# only serve tests/e2e/compile/arm_qemu.test, which is skipped (saying why) without them, so
# they are installed where the mirrors allow and a failure there is a warning, never a
# failed set-up.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache
  antlr4 libantlr4-runtime-dev
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev libdlpack-dev
  libcli11-dev libspdlog-dev catch2 libzip-dev zlib1g-dev libzstd-dev libffi-dev
  python3-numpy  # samples/models/gen_resnet18_vta.py and its e2e test (/usr/bin/python3)
)
# tests/e2e/compile/arm_qemu.test: the VTA runtime + simulator cross-built for the PYNQ board
# (armhf) and run under qemu-arm ...
cross_packages=(gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user)
# ... linking the armhf libraries they need (libLLVM, spdlog and their dependencies), unpacked
# into armhf_root (tests/e2e/compile/lit.cfg.py looks there), not installed: a multiarch install
# must match the amd64 packages' versions exactly, which mirrors do not always offer. The cross
# toolchain brings the C and C++ libraries.
armhf_root=/opt/vtac-armhf
armhf_packages=(libllvm19:armhf libspdlog1.10:armhf)
armhf_from_toolchain='^(libc6|libgcc-s1|libstdc\+\+6|gcc-12-base):armhf$'

missing_of() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(missing_of "${packages[@]}")
mapfile -t missing_cross < <(missing_of "${cross_packages[@]}")
[ ${#missing[@]} -eq 0 ] && [ ${#missing_cross[@]} -eq 0 ] && [ -e "$armhf_root/.unpacked" ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=false
if [ ${#missing[@]} -ne 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  updated=true
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

warn_cross() { echo "install-deps: warning: $1; tests/e2e/compile/arm_qemu.test will be skipped" >&2; }

if [ ${#missing_cross[@]} -ne 0 ]; then
  echo "install-deps: installing ${missing_cross[*]}"
  { $updated || $sudo apt-get update -qq; } &&
    $sudo apt-get install -y -qq --no-install-recommends "${missing_cross[@]}" >/dev/null ||
    warn_cross "could not install ${missing_cross[*]}"
fi

# Every step checked by hand: `set -e` does not apply inside a function called before `||`.
unpack_armhf() {
  local added=false work names ok=true
  if ! dpkg --print-foreign-architectures | grep -qx armhf; then
    $sudo dpkg --add-architecture armhf || return 1  # for apt to know the armhf packages
    added=true
  fi
  # An index that fails to download (a mirror mid-sync) is not fatal: the download says.
  $sudo apt-get update -qq >/dev/null 2>&1 || true
  work=$(mktemp -d) || ok=false
  if $ok; then
    names=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
        --no-enhances "${armhf_packages[@]}" | grep -E '^[^ ].*:armhf$' | grep -Ev "$armhf_from_toolchain" | sort -u)
    [ -n "$names" ] && (cd "$work" && apt-get download -qq $names >/dev/null 2>&1) || ok=false
  fi
  if $ok; then  # unpacked aside, then moved into place: never a half-filled armhf_root
    mkdir "$work/root" || ok=false
    for deb in "$work"/*.deb; do $ok && { dpkg -x "$deb" "$work/root" || ok=false; }; done
  fi
  if $ok; then
    touch "$work/root/.unpacked" && $sudo rm -rf "$armhf_root" && $sudo mkdir -p "$(dirname "$armhf_root")" &&
      $sudo mv "$work/root" "$armhf_root" || ok=false
  fi
  rm -rf "$work"
  # The architecture served the download only: later apt-get updates must not depend on its index.
  if $added; then
    $sudo dpkg --remove-architecture armhf && $sudo apt-get update -qq >/dev/null 2>&1 || true
  fi
  $ok
}

if [ ! -e "$armhf_root/.unpacked" ]; then
  echo "install-deps: unpacking ${armhf_packages[*]} and their dependencies into $armhf_root"
  unpack_armhf || warn_cross "could not unpack the armhf libraries into $armhf_root"
fi
exit 0
