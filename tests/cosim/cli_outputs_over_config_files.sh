#!/bin/sh
# usage: cli_outputs_over_config_files.sh MXCOSIM CONFIGS
# The HBM preset and the fabric a system config refers to are inputs of the
# run: an output naming one is refused (exit 2) and the file is left as it was.
m=$1; configs=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$configs/hbm/hbm2.yaml" "$dir/h.yaml" && cp "$configs/ici/ring4.yaml" "$dir/r.yaml" || exit 1
printf 'system:\n  chips: 2\n  memory:\n    kind: hbm\n    config: h.yaml\n  fabric:\n    config: r.yaml\n' \
  >"$dir/s.yaml"
check() {  # FILE OPTION WHAT
  cp "$dir/$1" "$dir/before"
  out=$("$m" run "$dir/s.yaml" --m 4 --k 4 --n 4 "$2" "$dir/sub/../$1" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || { echo "$2 over $1: exit $rc, expected 2: $out" >&2; exit 1; }
  echo "$out" | grep -qF "$1', $3: writing it would overwrite the input" ||
    { echo "$2 over $1: unexpected message: $out" >&2; exit 1; }
  cmp -s "$dir/$1" "$dir/before" || { echo "$2 over $1: the file changed" >&2; exit 1; }
}
mkdir "$dir/sub"
check h.yaml --json "the HBM preset the config reads (system.memory.config)"
check r.yaml --trace "the fabric the config reads (system.fabric.config)"
check h.yaml --wave "the HBM preset the config reads (system.memory.config)"
# Elsewhere the same run writes its results.
"$m" run "$dir/s.yaml" --m 4 --k 4 --n 4 --json "$dir/out.json" >/dev/null || { echo "the run fails" >&2; exit 1; }
exit 0
