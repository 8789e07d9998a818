#!/usr/bin/env bash
# Installs what vmapc needs on Debian 12 (as root), skipping what is there:
# LLVM/MLIR 22 (security suite), CMake, Ninja, g++, GoogleTest, Google
# Benchmark, gzip, Open MPI 4.1 (vmapc-mpi-run and its test; the build
# leaves both out without it), rsvg-convert (librsvg2-bin: the test that
# renders `vmapc plan --svg`), libzstd-dev (LLVMSupport.a's zstd, for the
# statically linked driver) and lld (links that driver in ~3 s, GNU ld in
# ~18 s; tools/CMakeLists.txt). The CUDA 13 toolkit at /usr/local/cuda
# (ptxas) comes with the machine image; GPU tests need it, nothing else does.
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools cmake
          ninja-build g++ libgtest-dev libbenchmark-dev gzip python3
          libopenmpi-dev openmpi-bin librsvg2-bin libzstd-dev lld)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi
