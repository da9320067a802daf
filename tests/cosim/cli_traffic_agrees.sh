#!/bin/sh
# usage: cli_traffic_agrees.sh MXCOSIM
# The HBM traffic of one workload is the same number of bytes whichever way
# it is computed: the co-simulation (memory side), the performance model
# (the tile's AXI port) and the closed-form model. Partial rows (C rows of
# 16 B on a 4x4 tile, H rows of an MLP) are written as whole beats.
m=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
traffic() {  # traffic FILE: "read write" bytes of a --json result
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["hbm_read_bytes"], d["hbm_write_bytes"])' "$1"
}
check() {  # check LABEL RUN_ARGS -- MODEL_ARGS
  label=$1
  shift
  run_args=""
  while [ "$1" != "--" ]; do run_args="$run_args $1"; shift; done
  shift
  # shellcheck disable=SC2086
  "$m" run $run_args --json "$dir/run.json" >/dev/null 2>&1 || { echo "$label: run failed" >&2; fail=1; return; }
  "$m" model "$@" --hbm ideal --json "$dir/model.json" >/dev/null 2>&1 || { echo "$label: model failed" >&2; fail=1; return; }
  r=$(traffic "$dir/run.json") p=$(traffic "$dir/model.json")
  if [ "$r" != "$p" ]; then
    echo "$label: run moved $r bytes (read write), model $p" >&2
    fail=1
  fi
}
check "gemm 16x16x16 int8 on 4x4" --m 16 --k 16 --n 16 -- --rows 4 --cols 4 --m 16 --k 16 --n 16 --dtype int8
check "gemm analytic" --m 16 --k 16 --n 16 -- --analytic --rows 4 --cols 4 --m 16 --k 16 --n 16 --dtype int8
check "mlp on 8x8" --rows 8 --cols 8 --workload mlp --m 64 --k 32 --hidden 48 --n 16 --dtype int8 -- \
  --rows 8 --cols 8 --workload mlp --m 64 --k 32 --hidden 48 --n 16 --dtype int8
check "mlp analytic, bf16 on 8x8" --rows 8 --cols 8 --workload mlp --m 64 --k 32 --hidden 48 --n 16 --dtype bf16 -- \
  --analytic --rows 8 --cols 8 --workload mlp --m 64 --k 32 --hidden 48 --n 16 --dtype bf16
[ $fail -eq 0 ] && echo "cli_traffic_agrees: ok"
exit $fail
