#!/bin/sh
# usage: cli_fail_wave_window.sh MXCOSIM CONFIGS
# The failure waveform shows chip 0's tile 0 around the first mismatch. A
# data mismatch is stamped with the write that left it (here C[0][3]'s, long
# before tile 0 ends): the window holds that write's cycle, not the run's
# end, where a flipped element was once stamped. It never reaches past the
# tile's last cycle (a mismatch no write covers is stamped at the run's end,
# after the other tiles and the fabric's drain): the file holds every cycle
# of the range it names.
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
r = json.load(open(sys.argv[2]))
tile0 = r["tiles"][0]
at = r["mismatches"][0]["time_ps"] // r["config"]["tile_period_ps"]  # the first mismatch's cycle
first, last = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
d = open(sys.argv[3], "rb").read()
start, end = struct.unpack(">QQ", d[9:25])  # header block: type, length, start time, end time (ps)
ok = (m and tile0["name"] == "dut.chip0.tile0" and r["mismatches"][0]["id"].startswith("chip0.C[0][3] ")
      and first <= at <= last <= tile0["cycles"] + 16 and at + 100 < tile0["cycles"] and last - first <= 116
      and end > start
      # The re-run stops just past the window: the file still reaches the window's last cycle,
      # whose inputs are (reset + cycle) periods in (reset: rows + cols + 4 cycles).
      and end >= (r["config"]["rows"] + r["config"]["cols"] + 4 + last) * r["config"]["tile_period_ps"])
if not ok:
    print("cli_fail_wave_window: range", m and m.groups(), "mismatch cycle", at, "tile 0", tile0["name"],
          tile0["cycles"], "waveform", start, end, file=sys.stderr)
    print(out, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
