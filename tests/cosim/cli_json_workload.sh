#!/bin/sh
# usage: cli_json_workload.sh MXCOSIM PROGRAM
# `run --json` says what ran: an MLP's hidden size beside m, k and n; a
# program by its file, without the GEMM shape options it did not use.
m=$1 program=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$m" run --workload mlp --m 4 --k 4 --n 4 --hidden 8 --json "$dir/mlp.json" >/dev/null || exit 1
"$m" run --program "$program" --json "$dir/program.json" >/dev/null || exit 1
python3 - "$dir/mlp.json" "$dir/program.json" "$program" <<'PY'
import json, sys
mlp = json.load(open(sys.argv[1]))["workload"]
prog = json.load(open(sys.argv[2]))["workload"]
ok = mlp["kind"] == "mlp" and mlp["hidden"] == 8 and mlp["n"] == 4 and mlp["description"] == "mlp 4x4x8x4 int8"
ok = ok and prog == {"kind": "program", "description": "program " + sys.argv[3], "file": sys.argv[3]}
if not ok:
    print("cli_json_workload: mlp", mlp, "program", prog, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
