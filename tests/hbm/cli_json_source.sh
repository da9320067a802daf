#!/bin/sh
# usage: cli_json_source.sh MXCOSIM CONFIG
# `mxcosim hbm --json` records what made the run: `source` (the pattern and
# its options, the seed where the pattern draws random numbers, or the trace)
# and `overrides` (the config settings the command line replaced). Each value
# is the option given, or its documented default, and two runs that differ in
# one option differ in its field.
m=$1 cfg=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
# run NAME ARGS...: a run with ARGS writing $dir/NAME.json
run() {
  name=$1
  shift
  if ! out=$(timeout 60 "$m" hbm --config "$cfg" --requests 300 --outstanding 8 "$@" --json "$dir/$name.json" 2>&1)
  then
    echo "cli_json_source: '$*' failed: $out" >&2
    fail=1
  fi
}
# check NAME FIELD JSON: the run's FIELD is JSON exactly (keys in any order)
check() {
  if ! python3 -c '
import json, sys
got = json.load(open(sys.argv[1]))[sys.argv[2]]
want = json.loads(sys.argv[3])
if got != want:
    sys.exit("%s: %s is %s, wanted %s" % (sys.argv[1], sys.argv[2], json.dumps(got, sort_keys=True),
                                         json.dumps(want, sort_keys=True)))
' "$dir/$1.json" "$2" "$3"; then
    fail=1
  fi
}
run random1 --pattern random --seed 1
run random5 --pattern random --seed 5
check random1 source '{"pattern": "random", "requests": 300, "size": 256, "footprint": 1073741824,
  "write_ratio": 0.0, "seed": 1}'
check random5 source '{"pattern": "random", "requests": 300, "size": 256, "footprint": 1073741824,
  "write_ratio": 0.0, "seed": 5}'
check random1 overrides '{}'
check random1 outstanding 8
# seq draws nothing at random: no seed recorded.
run seq_open --pattern seq --size 128 --footprint 65536 --page-policy open --refresh none
run seq_closed --pattern seq --size 128 --footprint 65536 --page-policy closed --refresh none
check seq_open source '{"pattern": "seq", "requests": 300, "size": 128, "footprint": 65536, "write_ratio": 0.0}'
check seq_open overrides '{"page_policy": "open", "refresh": "none"}'
check seq_closed overrides '{"page_policy": "closed", "refresh": "none"}'
run seq_small --pattern seq --footprint 4096
check seq_small source '{"pattern": "seq", "requests": 300, "size": 256, "footprint": 4096, "write_ratio": 0.0}'
# With writes drawn, stride reads its seed; mix takes 0.5 writes by default.
run stride --pattern stride --stride 512 --write-ratio 0.25 --seed 3
check stride source '{"pattern": "stride", "requests": 300, "size": 256, "footprint": 1073741824, "stride": 512,
  "write_ratio": 0.25, "seed": 3}'
run mix --pattern mix --size 64
check mix source '{"pattern": "mix", "requests": 300, "size": 64, "footprint": 1073741824, "write_ratio": 0.5,
  "seed": 1}'
run chase --pattern chase --stacks 2 --refresh-postpone 3 --check-timing
check chase source '{"pattern": "chase", "requests": 300, "size": 256, "footprint": 1073741824, "write_ratio": 0.0,
  "seed": 1}'
check chase overrides '{"stacks": 2, "refresh_postpone": 3, "check_timing": true}'
# A trace: its file and format as given, 64 B requests by default, no limit (null) without --requests.
printf '0x40 READ 0\n0x80 WRITE 4\n0xc0 READ 8\n' > "$dir/three.trace"
if ! timeout 60 "$m" hbm --config "$cfg" --trace "$dir/three.trace" --json "$dir/trace_all.json" >/dev/null 2>&1 ||
  ! timeout 60 "$m" hbm --config "$cfg" --trace "$dir/three.trace" --trace-format dramsim3 --requests 2 --size 32 \
    --json "$dir/trace_two.json" >/dev/null 2>&1; then
  echo "cli_json_source: a trace run failed" >&2
  fail=1
fi
check trace_all source "{\"trace\": \"$dir/three.trace\", \"trace_format\": \"auto\", \"size\": 64, \"requests\": null}"
check trace_two source \
  "{\"trace\": \"$dir/three.trace\", \"trace_format\": \"dramsim3\", \"size\": 32, \"requests\": 2}"
check trace_two requests 2
[ $fail -eq 0 ] && echo "cli_json_source: ok"
exit $fail
