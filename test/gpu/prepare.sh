#!/usr/bin/env bash
# Compiles, on a machine with LLVM/MLIR (this one), everything that
# test/gpu/check.sh runs on the GPU machine, where there is no compiler:
# every program of test/gpu/checks.txt and of bench/programs.py, with
# `vmapc compile --target=cpu,cuda`, into one folder of artifacts
# (default build/gpu-artifacts, a few MiB) that travels to the GPU machine
# with the working tree (docs/gpu.md, "Running it"). The bench's inputs are
# generated there (bench/gpu_bench.py): at 65536 examples they are GiBs.
#
#   bash test/gpu/prepare.sh [--allow-cpu-only]
#
# It builds `vmapc` first if the build tree is older than the sources
# (ninja, under the shared build lock). When `vmapc compile` has no
# --target option yet, it stops with a message, unless --allow-cpu-only
# (then the artifacts have CPU code only: check.sh's CPU path can use them,
# a GPU cannot). A program whose cpu,cuda compile fails is reported (exit 1)
# and kept as far as it compiles: as two artifacts (--target=cuda in
# ARTIFACTS, --target=cpu in ARTIFACTS/cpu/, which CPU devices prefer), or
# for the CPU alone (the GPU run then says "no CUDA code" for it). Writes
# ARTIFACTS/prepared.txt: the commit, the compiler's version, the targets,
# the split and CPU-only programs and each artifact's size, which check.sh
# prints.
#
# Environment: BUILD (default <repo>/build), ARTIFACTS (default
# $BUILD/gpu-artifacts), JOBS (2).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ARTIFACTS=${ARTIFACTS:-$BUILD/gpu-artifacts}
VMAPC=$BUILD/bin/vmapc
ALLOW_CPU_ONLY=0
for arg in "$@"; do
  case $arg in
    --allow-cpu-only) ALLOW_CPU_ONLY=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "prepare.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

if [[ -f $BUILD/build.ninja ]]; then
  LOCK=()
  command -v flock >/dev/null && LOCK=(flock /tmp/vmapc-build.lock)
  "${LOCK[@]}" ninja -C "$BUILD" -j"${JOBS:-2}" vmapc >/dev/null ||
    { echo "prepare.sh: building vmapc failed (ninja -C $BUILD vmapc)" >&2; exit 1; }
fi
[[ -x $VMAPC ]] || { echo "prepare.sh: no $VMAPC; build first (bash scripts/build.sh)" >&2; exit 1; }

if "$VMAPC" compile --help 2>&1 | grep -q -- '--target'; then
  TARGET_FLAGS=("--target=cpu,cuda")
  TARGETS=cpu,cuda
elif ((ALLOW_CPU_ONLY)); then
  TARGET_FLAGS=()
  TARGETS=cpu
  echo "prepare.sh: vmapc compile has no --target yet: CPU-only artifacts" \
       "(--allow-cpu-only); a GPU has nothing to run in them"
else
  echo "prepare.sh: vmapc compile has no --target option: it cannot make CUDA" \
       "code yet. --allow-cpu-only makes CPU-only artifacts (for check.sh's CPU path)." >&2
  exit 1
fi

# The programs: the first column of checks.txt and the bench's .arr files.
mapfile -t programs < <(
  {
    grep -v '^[[:space:]]*#' "$ROOT/test/gpu/checks.txt" | awk 'NF { print $1 }'
    python3 - "$ROOT" <<'PY'
import os, sys
root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "bench"))
import programs as P
for p in P.PROGRAMS:
    print(os.path.relpath(P.arr_path(p), root))
PY
  } | awk '!seen[$0]++')

# One artifact per file name: two programs with one name would overwrite.
dup=$(for p in "${programs[@]}"; do basename "$p" .arr; done | sort | uniq -d)
[[ -z $dup ]] || { echo "prepare.sh: two programs named $dup.arr" >&2; exit 1; }

rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
failed=()
split=()
cpu_only=()
mkdir -p "$ARTIFACTS/cpu"
for p in "${programs[@]}"; do
  name=$(basename "$p" .arr)
  out=$ARTIFACTS/$name.vmapc
  if "$VMAPC" compile "${TARGET_FLAGS[@]}" "$ROOT/$p" -o "$out" 2>"$out.log"; then
    printf 'ok    %-40s %8d bytes\n' "$p" "$(stat -c %s "$out")"
  else
    echo "FAIL  $p:"; sed 's/^/      /' "$out.log"
    failed+=("$p")
    # Keep whatever compiles, so that the rest of the program's checks run:
    # the CUDA code alone in $out and the CPU code in cpu/ (a CPU device
    # loads cpu/NAME.vmapc when it exists), else the CPU code alone in $out
    # (the GPU run then says "no CUDA code" for it).
    if ((${#TARGET_FLAGS[@]})); then
      if "$VMAPC" compile --target=cuda "$ROOT/$p" -o "$out" 2>/dev/null &&
         "$VMAPC" compile --target=cpu "$ROOT/$p" -o "$ARTIFACTS/cpu/$name.vmapc" 2>/dev/null; then
        echo "      (compiled as two artifacts: --target=cuda, and --target=cpu in cpu/)"
        split+=("$name")
      elif "$VMAPC" compile --target=cpu "$ROOT/$p" -o "$out" 2>/dev/null; then
        echo "      (compiled for the CPU only)"
        cpu_only+=("$name")
      else
        rm -f "$out"
      fi
    fi
  fi
  rm -f "$out.log"
done

bytes=$(du -sb "$ARTIFACTS" | cut -f1)
{
  echo "commit:   $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')"
  echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "targets:  $TARGETS"
  ((${#split[@]} == 0)) || echo "split:    ${split[*]} (cpu,cuda failed: CUDA code alone, CPU code in cpu/)"
  ((${#cpu_only[@]} == 0)) || echo "cpu only: ${cpu_only[*]} (their CUDA compile failed)"
  echo "compiler: $("$VMAPC" --version | tr '\n' ' ' | sed 's/  */ /g')"
  echo "bytes:    $bytes"
  for f in "$ARTIFACTS"/*.vmapc "$ARTIFACTS"/cpu/*.vmapc; do
    [[ -f $f ]] && printf '  %-28s %8d\n' "${f#"$ARTIFACTS"/}" "$(stat -c %s "$f")"
  done
} >"$ARTIFACTS/prepared.txt"

echo "prepare.sh: ${#programs[@]} programs, ${#failed[@]} failed" \
     "(${#split[@]} split into a CUDA and a CPU artifact, ${#cpu_only[@]} for the CPU only);" \
     "$ARTIFACTS holds" \
     "$((bytes / 1024)) KiB (targets $TARGETS)"
if ((bytes > 48 * 1024 * 1024)); then
  echo "prepare.sh: the artifacts pass 48 MiB: too much to travel (64 MiB in all)" >&2
  exit 1
fi
((${#failed[@]} == 0)) || exit 1
