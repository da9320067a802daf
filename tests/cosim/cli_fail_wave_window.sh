#!/bin/sh
# usage: cli_fail_wave_window.sh MXCOSIM CONFIGS
# A multi-chip run's data check is stamped at the run's end, after the other
# tiles and the fabric's drain; the failure waveform shows chip 0's tile 0,
# so its window ends with that tile's last cycle: it stood past it, and the
# file held no cycle of the range it named.
m=$1 cfgs=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && "$m" run "$cfgs/chip2x2_rtl.yaml" --split k --inject-fault 3 --wave-window 100 --json "$dir/x.json") \
  >"$dir/out" 2>&1
[ $? -eq 1 ] || { echo "cli_fail_wave_window: expected exit 1" >&2; cat "$dir/out" >&2; exit 1; }
python3 - "$dir/out" "$dir/x.json" "$dir/mxcosim-fail-seed1.fst" <<'PY'
import json, re, struct, sys
out = open(sys.argv[1]).read()
m = re.search(r"failure waveform \(cycles (\d+)\.\.(\d+)\)", out)
tile0 = json.load(open(sys.argv[2]))["tiles"][0]
first, last = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
d = open(sys.argv[3], "rb").read()
start, end = struct.unpack(">QQ", d[9:25])  # header block: type, length, start time, end time (ps)
ok = m and tile0["name"] == "dut.chip0.tile0" and first <= tile0["cycles"] <= last and last - first <= 116 and end > start
if not ok:
    print("cli_fail_wave_window: range", m and m.groups(), "tile 0", tile0["name"], tile0["cycles"],
          "waveform", start, end, file=sys.stderr)
    print(out, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
