#!/usr/bin/env bash
# Installs the Debian packages qgpu builds and runs with, and only those that are missing,
# then the llama.cpp reference engine the parity tests use (npm, node-llama-cpp pinned in
# tests/llamacpp/package-lock.json). Idempotent: when everything is present it changes
# nothing and runs neither apt-get nor npm.
# --no-llamacpp: the Debian packages only (what building and running qgpu needs; the demo
# uses this, so it needs no Node.js). Runs as root directly; otherwise through sudo.
set -euo pipefail

with_llamacpp=1
for arg in "$@"; do
  case "$arg" in
    --no-llamacpp) with_llamacpp=0 ;;
    *) echo "install-deps: unknown argument '$arg' (expected --no-llamacpp)" >&2; exit 2 ;;
  esac
done

packages=(
  g++ cmake ninja-build
  lld  # the linker of the dev and asan presets (a third of ld.bfd's time)
  libgtest-dev libgmock-dev
  libfmt-dev nlohmann-json3-dev libcli11-dev
  libicu-dev  # the tokenizer's Unicode: NFC normalization and character classes
  libcurl4-openssl-dev  # `qgpu build` downloads a base from the Hugging Face hub
  libncurses-dev tmux  # `qgpu chat`'s terminal front end; its tests drive it in tmux
  clang  # compiles CUDA kernels to PTX (its NVPTX backend; qgpu finds clang-19/16/15/14 too) and the asan preset
  # the qgpu Python module (python/, built and tested in the dev preset) for Debian's python3:
  # its headers, pybind11's headers and CMake config, and numpy and pytest for the module and its tests
  python3-dev python3-pybind11 python3-numpy python3-pytest
  chromium  # headless: tests/viewer_test.cpp loads the residual-stream viewer page (host/viewer.h) and checks its DOM
)

# The llama.cpp reference engine (prebuilt CPU build in node-llama-cpp); needs Node.js 20+.
# Its prebuilt binaries are optional dependencies, one package a platform and GPU backend,
# and npm installs every one this OS may run (CUDA, Vulkan, arm: 650 of 730 MB). The tests
# run llama.cpp on the CPU only (getLlama({gpu: false})), so the optional ones are left out
# and this machine's CPU package is added at the version the lockfile pins: about 83 MB.
install_llamacpp() {
  local dir=tests/llamacpp platform
  [ "$with_llamacpp" = 1 ] || return 0
  case "$(uname -m)" in
    x86_64) platform=linux-x64 ;;
    aarch64) platform=linux-arm64 ;;
    *) echo "install-deps: no prebuilt llama.cpp for $(uname -m); the llama.cpp tests will skip" >&2; return ;;
  esac
  if [ -f $dir/node_modules/node-llama-cpp/package.json ] && [ -f $dir/node_modules/@node-llama-cpp/$platform/package.json ]; then
    echo "install-deps: node-llama-cpp present"
    return
  fi
  command -v npm >/dev/null || { echo "install-deps: npm not found; install Node.js 20 and npm" >&2; exit 1; }
  local version
  version=$(node -p "require('./$dir/package-lock.json').packages['node_modules/node-llama-cpp'].version")
  echo "install-deps: npm ci --prefix $dir (node-llama-cpp $version without its optional binaries)"
  npm ci --prefix $dir --ignore-scripts --no-audit --no-fund --omit=optional
  echo "install-deps: npm install @node-llama-cpp/$platform@$version (llama.cpp's CPU build)"
  npm install --prefix $dir --ignore-scripts --no-audit --no-fund --no-save --omit=optional "@node-llama-cpp/$platform@$version"
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also lists removed-but-not-purged packages; require "install ok installed".
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present (${packages[*]})"
  install_llamacpp
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi

echo "install-deps: missing ${missing[*]}"
echo "install-deps: apt-get update"
"${as_root[@]}" apt-get update -q
echo "install-deps: apt-get install ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done"
install_llamacpp
