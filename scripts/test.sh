#!/usr/bin/env bash
# README command (b): installs what is missing, builds, runs every test (lit +
# FileCheck, GoogleTest through CTest) and ends with one line
# "N passed, M failed, K skipped". Exits non-zero if any test failed. The
# Python package (python/) is installed into python3 from this build tree
# (only the binding compiles; with CI set, warnings in it are errors) and its
# pytest tests run too; where pip cannot install it (no network), they are
# skipped with a message.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cd "$root"
bash scripts/install-deps.sh || exit 1
bash scripts/build.sh || exit 1

results=$(mktemp -d)
/usr/lib/llvm-22/bin/lit -sv "$build/test" --xunit-xml-output="$results/lit.xml"
ctest --test-dir "$build" -j2 --output-on-failure --output-junit "$results/ctest.xml"

reports=("$results/lit.xml" "$results/ctest.xml")
pip_args=(--quiet -Ccmake.define.VMAPC_BUILD_DIR="$build"
          -Ccmake.define.VMAPC_PYTHON_WERROR="${CI:+ON}" "$root/python" pytest)
if python3 -m pip install "${pip_args[@]}" >"$results/pip.log" 2>&1 ||
   python3 -m pip install --break-system-packages "${pip_args[@]}" \
     >"$results/pip.log" 2>&1; then
  (cd "$root" && VMAPC_BIN_DIR="$build/bin" python3 -m pytest -q python/tests \
     -p no:cacheprovider \
     --junitxml="$results/pytest.xml")
  reports+=("$results/pytest.xml")
else
  echo "python: pip install ./python failed; its tests are skipped:"
  tail -20 "$results/pip.log"
  [[ -n "${CI:-}" ]] && reports+=("$results/pytest.xml") # missing: a failure
fi
python3 "$root/scripts/summarize-tests.py" "${reports[@]}"
