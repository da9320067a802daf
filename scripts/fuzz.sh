#!/usr/bin/env bash
# Builds the parsers' fuzz targets (Clang's libFuzzer with ASan and UBSan)
# into build-fuzz/ and runs each for a while, seeded with the shipped files.
# Usage: scripts/fuzz.sh [--seconds N] [TARGET...]   (default: 60 s, every target)
# Each target's corpus grows in build-fuzz/corpus/TARGET; an input that
# breaks a rule (docs/fuzzing.md) is saved in build-fuzz/findings/TARGET/
# and makes the script exit 1 once every target has run.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [[ ${1:-} == --seconds ]]; then
  seconds=${2:-}
  shift $(($# >= 2 ? 2 : 1))
fi
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --seconds needs a whole number of seconds above 0" >&2; exit 2; }
all=(fuzz_hbm_config fuzz_hbm_trace fuzz_ici_config fuzz_program fuzz_system_config fuzz_suite)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (targets: ${all[*]})" >&2; exit 2; }
done

./scripts/install-deps.sh --fuzz
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
out=build-fuzz
generator=()
command -v ninja >/dev/null && [[ ! -f $out/CMakeCache.txt ]] && generator=(-G Ninja)
cmake -S . -B "$out" "${generator[@]}" -DMXCOSIM_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$out" -j "$(nproc)" --target "${targets[@]}"

# Seeds: the files users start from, and tests/fuzz/seeds (a trace of each
# format, plain and gzip, and the saved findings).
seed() {  # seed TARGET FILE...
  mkdir -p "$out/corpus/$1"
  local t=$1
  shift
  cp -n "$@" "$out/corpus/$t/" 2>/dev/null || true
}
seeds=tests/fuzz/seeds
seed fuzz_hbm_config configs/hbm/*.yaml bench/hbm/*.yaml $seeds/*.yaml
seed fuzz_ici_config configs/ici/*.yaml $seeds/*.yaml
seed fuzz_system_config configs/*.yaml $seeds/*.yaml
seed fuzz_program tests/programs/*.s
seed fuzz_suite regress/*.yaml $seeds/*.yaml
seed fuzz_hbm_trace $seeds/*.trace
gzip -c $seeds/dramsim3.trace >"$out/corpus/fuzz_hbm_trace/dramsim3.trace.gz"

status=0
for t in "${targets[@]}"; do
  mkdir -p "$out/findings/$t"
  # The YAML keys of the seeds as a dictionary: the mutations reach fields
  # beyond the first unknown-key error sooner.
  dict=()
  if [[ $t != fuzz_hbm_trace && $t != fuzz_program ]]; then
    grep -ohE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*:' "$out/corpus/$t"/* 2>/dev/null | tr -d ' ' | sort -u |
      sed 's/.*/"&"/' >"$out/$t.dict"
    dict=(-dict="$out/$t.dict")
  fi
  echo "== $t: ${seconds} s"
  if ! "$out/tests/fuzz/$t" "$out/corpus/$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$out/findings/$t/" -print_final_stats=1 \
      >"$out/$t.log" 2>&1; then
    echo "   FINDING: see $out/$t.log and $out/findings/$t/"
    status=1
  fi
  grep -E '^stat::(number_of_executed_units|new_units_added)' "$out/$t.log" | sed 's/^/   /' || true
done
exit $status
