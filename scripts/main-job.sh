#!/usr/bin/env bash
# README command (a): installs what is missing, builds, and runs the main
# job: 1-nearest-neighbour classification of the UCI handwritten digits
# through the runtime, with the memory plan and the median time of 10 runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/build.sh
./build/examples/knn_digits
