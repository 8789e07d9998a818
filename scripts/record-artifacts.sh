#!/usr/bin/env bash
# Usage: scripts/record-artifacts.sh OUTDIR
#
# Compiles every example, bench program and test/gpu program with
# `vmapc compile --target=cpu,cuda` (the build's vmapc, ./build or
# $BUILD_DIR) into OUTDIR/NAME.vmapc and writes OUTDIR/SHA256SUMS: the
# record a change that must not change the compiler's output is checked
# against (`cd OUTDIR && sha256sum -c SHA256SUMS` after recompiling into the
# same names). A program that does not compile for both targets is recorded
# with --target=cpu and listed in OUTDIR/cpu-only.txt; a file that is no
# program (a lit test's RUN lines around split files) in not-programs.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:?usage: record-artifacts.sh OUTDIR}
mkdir -p "$out"
: >"$out/cpu-only.txt"
: >"$out/not-programs.txt"
cd "$root"
for program in examples/*.arr bench/*.arr bench/programs/*.arr test/gpu/*.arr; do
  name=$(echo "${program%.arr}" | tr / _)
  if ! "$build/bin/vmapc" compile --target=cpu,cuda "$program" \
      -o "$out/$name.vmapc" 2>/dev/null; then
    if "$build/bin/vmapc" compile --target=cpu "$program" \
        -o "$out/$name.vmapc" 2>/dev/null; then
      echo "$program" >>"$out/cpu-only.txt"
    else
      echo "$program" >>"$out/not-programs.txt" # a lit test's driver file
    fi
  fi
done
(cd "$out" && sha256sum -- *.vmapc >SHA256SUMS)
echo "recorded $(wc -l <"$out/SHA256SUMS") artifacts in $out"
