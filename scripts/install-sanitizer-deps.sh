#!/usr/bin/env bash
# Installs what the sanitized build and the fuzzers need on Debian 12 (as
# root), skipping what is there: clang 22, lld 22 and the compiler-rt
# runtimes (ASan, UBSan, libFuzzer), from the same security suite as LLVM 22.
# Used by CI and scripts/build-sanitized.sh's users; the README's two
# commands do not need it.
set -euo pipefail

packages=(clang-22 lld-22 libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-sanitizer-deps: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "install-sanitizer-deps: all packages present"
fi
