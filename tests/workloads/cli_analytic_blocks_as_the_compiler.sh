#!/bin/sh
# usage: cli_analytic_blocks_as_the_compiler.sh MXCOSIM
# With --acc-rows or --sp-rows the closed form blocks M as the compiler does
# on that scratchpad and those accumulators, so it reads B once per M block
# as the compiled program does: its HBM bytes are the performance model's.
# The options were taken and ignored (B read once, all of M in one block).
m=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
traffic() {  # traffic FILE: "read write" bytes of a --json result
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["hbm_read_bytes"], d["hbm_write_bytes"])' "$1"
}
check() {  # check LABEL ARGS...: the same machine and workload on both models
  label=$1
  shift
  "$m" model "$@" --hbm ideal --json "$dir/model.json" >/dev/null 2>&1 ||
    { echo "$label: model failed" >&2; fail=1; return; }
  "$m" model --analytic "$@" --hbm ideal --json "$dir/analytic.json" >/dev/null 2>&1 ||
    { echo "$label: analytic failed" >&2; fail=1; return; }
  p=$(traffic "$dir/model.json") a=$(traffic "$dir/analytic.json")
  if [ "$p" != "$a" ]; then
    echo "$label: the model moved $p bytes (read write), the closed form $a" >&2
    fail=1
  fi
}
# 16 accumulator rows: M = 64 in 4 blocks.
check "gemm, --acc-rows 16" --rows 8 --cols 8 --m 64 --k 32 --n 16 --dtype int8 --acc-rows 16
# 64 scratchpad rows on 8 rows: (64 - 16) / 3 = 16-row blocks.
check "gemm, --sp-rows 64" --rows 8 --cols 8 --m 64 --k 32 --n 16 --dtype bf16 --sp-rows 64
check "mlp, --acc-rows 8" --rows 8 --cols 8 --workload mlp --m 40 --k 32 --hidden 48 --n 16 --dtype int8 --acc-rows 8
[ $fail -eq 0 ] && echo "cli_analytic_blocks_as_the_compiler: ok"
exit $fail
