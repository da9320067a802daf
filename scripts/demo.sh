#!/usr/bin/env bash
# The first command of the README: installs what is missing, builds, and runs
# the default co-simulation (a 16x16x16 int8 GEMM on a 4x4 RTL array).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh --target mxcosim
build/app/mxcosim run --rows 4 --cols 4 --m 16 --k 16 --n 16 --seed 1 --json build/demo-results.json
