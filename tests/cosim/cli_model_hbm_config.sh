#!/bin/sh
# usage: cli_model_hbm_config.sh MXCOSIM PRESETS_DIR
# `mxcosim model --json` records the memory file a preset name resolved to
# (config.hbm_config) beside the name (config.hbm): configs/hbm/NAME.yaml in
# the working directory first, then under $MXCOSIM_ROOT, then PRESETS_DIR;
# a path as given; "" for the ideal memory.
m=$1 presets=$2
fail=0
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/here/configs/hbm" "$dir/root/configs/hbm" "$dir/empty"
cp "$presets/hbm3.yaml" "$dir/here/configs/hbm/hbm3.yaml"
cp "$presets/hbm3.yaml" "$dir/root/configs/hbm/hbm3.yaml"
# expect WORKDIR ROOT HBM WANTED: a run in WORKDIR (MXCOSIM_ROOT=ROOT, unset when empty) with --hbm HBM
# records hbm HBM and hbm_config WANTED.
expect() {
  if ! (
    cd "$1" || exit 1
    if [ -n "$2" ]; then export MXCOSIM_ROOT="$2"; else unset MXCOSIM_ROOT; fi
    timeout 60 "$m" model --rows 4 --cols 4 --m 8 --k 8 --n 8 --hbm "$3" --json "$dir/out.json" >/dev/null 2>&1
  ); then
    echo "cli_model_hbm_config: --hbm $3 in $1 (root '$2') failed" >&2
    fail=1
    return
  fi
  got=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["config"]
print(c["hbm"])
print(c.get("hbm_config"))' "$dir/out.json")
  want=$(printf '%s\n%s' "$3" "$4")
  if [ "$got" != "$want" ]; then
    echo "cli_model_hbm_config: --hbm $3 in $1 (root '$2') recorded '$got', wanted '$want'" >&2
    fail=1
  fi
}
# One name, three files: the working directory's, the root's, the built-in one.
expect "$dir/here" "$dir/root" hbm3 configs/hbm/hbm3.yaml
expect "$dir/empty" "$dir/root" hbm3 "$dir/root/configs/hbm/hbm3.yaml"
expect "$dir/empty" "" hbm3 "$presets/hbm3.yaml"
expect "$dir/empty" "" "$dir/root/configs/hbm/hbm3.yaml" "$dir/root/configs/hbm/hbm3.yaml"
expect "$dir/empty" "" ideal ""
[ $fail -eq 0 ] && echo "cli_model_hbm_config: ok"
exit $fail
