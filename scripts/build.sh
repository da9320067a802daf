#!/usr/bin/env bash
# Configures and builds mxcosim into build/ (or $MXCOSIM_BUILD_DIR).
# Usage: scripts/build.sh [--sanitize] [cmake --build arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

# Paths inside the checkout are hashed relative to it, so a clone in another
# folder reuses the compiler cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

build_dir=${MXCOSIM_BUILD_DIR:-build}
cmake_args=()
if [[ ${1:-} == --sanitize ]]; then
  shift
  build_dir=${MXCOSIM_BUILD_DIR:-build-asan}
  cmake_args+=(-DMXCOSIM_SANITIZE=ON)
fi
generator=()
command -v ninja >/dev/null && [[ ! -f $build_dir/CMakeCache.txt ]] && generator=(-G Ninja)

cmake -S . -B "$build_dir" "${generator[@]}" "${cmake_args[@]}" ${MXCOSIM_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$(nproc)" "$@"
