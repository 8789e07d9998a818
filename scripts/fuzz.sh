#!/usr/bin/env bash
# Usage: scripts/fuzz.sh [SECONDS] [NAME...]
#
# Builds the libFuzzer harnesses (scripts/build-sanitized.sh: clang-22, ASan +
# UBSan, in ./build-asan or $BUILD_DIR) and runs each named one (default: all
# five) for SECONDS (default 60), one after the other, on one core. Each run
# starts from the corpus in the tree (fuzz/corpus/NAME), the seeds the build
# generates (BUILD/fuzz/seeds/NAME) and what earlier runs kept
# (BUILD/fuzz/work/NAME/corpus, where new inputs go). Prints per fuzzer the
# executions, coverage and findings; a finding (crash, sanitizer report,
# timeout, leak, out-of-memory) is saved as BUILD/fuzz/work/NAME/findings/*
# and makes the script exit 1. Reproduce one with BUILD/fuzz/NAME FILE.
#
# FUZZ_PARALLEL=N runs N of them at a time (CI: 2, one per core). Extra
# libFuzzer flags: FUZZ_FLAGS="-use_value_profile=1 ...".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-asan}
seconds=${1:-60}
shift || true
names=("$@")
((${#names[@]})) || names=(artifact_reader_fuzzer artifact_run_fuzzer
                           artifact_edit_fuzzer npy_reader_fuzzer
                           arr_frontend_fuzzer)

mkdir -p "$build"
BUILD_DIR=$build bash "$root/scripts/build-sanitized.sh" >"$build/fuzz-build.log" 2>&1 ||
  { tail -30 "$build/fuzz-build.log"; exit 1; }

# Per harness: the input size limit and the dictionary.
declare -A maxLen=([artifact_reader_fuzzer]=65536 [artifact_run_fuzzer]=1024
                   [artifact_edit_fuzzer]=25
                   [npy_reader_fuzzer]=4096 [arr_frontend_fuzzer]=4096)
declare -A dict=([arr_frontend_fuzzer]=$root/fuzz/arr.dict
                 [npy_reader_fuzzer]=$root/fuzz/npy.dict)

# ASan's stack frames are about 8x larger than release frames (a 999-deep
# expression chain needs 2-4 MiB in the release build, 16-32 MiB under ASan
# at -O1): 64 MiB here is what the release build's 8 MiB is, so the front
# end's depth limits, sized for release, hold.
ulimit -s 65536 2>/dev/null || echo "warning: cannot raise the stack limit to 64 MiB"
# Manual poisoning off: see scripts/test-sanitized.sh (a BumpPtrAllocator
# shared by instrumented code and the uninstrumented libMLIR).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Runs one fuzzer; its summary goes to WORK/summary.
fuzz_one() {
  local name=$1 bin=$build/fuzz/$1 work=$build/fuzz/work/$1
  mkdir -p "$work/corpus" "$work/findings"
  if [[ ! -x $bin ]]; then
    echo "$name: no such fuzzer ($bin)" >"$work/summary"
    return 1
  fi
  local flags=(-max_total_time="$seconds" -max_len="${maxLen[$name]:-4096}"
               -timeout=25 -rss_limit_mb=4096 -print_final_stats=1
               -artifact_prefix="$work/findings/")
  [[ -n ${dict[$name]:-} ]] && flags+=(-dict="${dict[$name]}")
  local before after t0 rc execs cov
  before=$(ls "$work/findings" | wc -l)
  t0=$(date +%s)
  # libFuzzer refuses a corpus directory that does not exist.
  local dirs=("$work/corpus")
  [[ -d $root/fuzz/corpus/$name ]] && dirs+=("$root/fuzz/corpus/$name")
  [[ -d $build/fuzz/seeds/$name ]] && dirs+=("$build/fuzz/seeds/$name")
  # shellcheck disable=SC2086
  "$bin" "${flags[@]}" ${FUZZ_FLAGS:-} "${dirs[@]}" >"$work/last.log" 2>&1
  rc=$?
  after=$(ls "$work/findings" | wc -l)
  execs=$(grep -o "stat::number_of_executed_units: [0-9]*" "$work/last.log" | grep -o "[0-9]*$")
  cov=$(grep -E "^#[0-9]+" "$work/last.log" | tail -1 | grep -oE "cov: [0-9]+ ft: [0-9]+ corp: [0-9]+")
  {
    echo "$name: ${execs:-?} executions in $(( $(date +%s) - t0 )) s, ${cov:-no coverage line}, $((after - before)) new finding(s), exit $rc"
    if ((rc != 0 || after > before)); then
      grep -E "ERROR|runtime error|Test unit written|_fuzzer: " "$work/last.log" | head -20
      echo "   full log: $work/last.log"
    fi
  } >"$work/summary"
  ((rc == 0 && after == before))
}

# FUZZ_PARALLEL=N runs N fuzzers at a time (default 1: one core).
parallel=${FUZZ_PARALLEL:-1}
status=0
pids=()
for name in "${names[@]}"; do
  fuzz_one "$name" &
  pids+=($!)
  if ((${#pids[@]} >= parallel)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
for name in "${names[@]}"; do
  cat "$build/fuzz/work/$name/summary"
done
exit $status
