#!/usr/bin/env bash
# The second command of the README: installs what is missing, builds
# everything, and runs every test. `--sanitize` does the same in an
# ASan+UBSan build (build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_dir=build
if [[ ${1:-} == --sanitize ]]; then
  build_dir=${MXCOSIM_BUILD_DIR:-build-asan}
  ./scripts/build.sh --sanitize
else
  build_dir=${MXCOSIM_BUILD_DIR:-build}
  ./scripts/build.sh
fi
ctest --test-dir "$build_dir" -j "$(nproc)" --output-on-failure
