#!/usr/bin/env bash
# README command (b): installs what is missing, builds, runs every test (lit +
# FileCheck, GoogleTest through CTest) and ends with one line
# "N passed, M failed, K skipped". Exits non-zero if any test failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cd "$root"
bash scripts/install-deps.sh || exit 1
bash scripts/build.sh || exit 1

results=$(mktemp -d)
/usr/lib/llvm-22/bin/lit -sv "$build/test" --xunit-xml-output="$results/lit.xml"
ctest --test-dir "$build" -j2 --output-on-failure --output-junit "$results/ctest.xml"
python3 "$root/scripts/summarize-tests.py" "$results/lit.xml" "$results/ctest.xml"
