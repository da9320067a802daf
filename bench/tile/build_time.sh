#!/usr/bin/env bash
# Times verilating and compiling the MXU tile at one size, from scratch and
# without ccache: bench/tile/build_time.sh 32x32 [build-dir]
set -euo pipefail
size=${1:?usage: build_time.sh ROWSxCOLS [build-dir]}
dir=${2:-/tmp/mxcosim-build-$size}
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir"
start=$(date +%s)
CCACHE_DISABLE=1 cmake -S "$src" -B "$dir" -G Ninja -DMXCOSIM_RTL_SIZES="$size" -DMXCOSIM_BUILD_TESTS=OFF \
  -DMXCOSIM_BUILD_BENCH=OFF >/dev/null
verilated=$(date +%s)
CCACHE_DISABLE=1 cmake --build "$dir" -j "$(nproc)" --target mxcosim_rtl >/dev/null
done_at=$(date +%s)
echo "size $size: verilate $((verilated - start)) s, compile $((done_at - verilated)) s, total $((done_at - start)) s"
