#!/bin/sh
# usage: cli_wave.sh MXCOSIM
# The waveform of a run: the same file byte for byte from the same command
# (no wall-clock date in its header), and times in picoseconds as its
# timescale says: at 500 MHz cycle c of the run has its rising edge at
# (reset + c) x 2000 + 1000 ps, reset = rows + cols + 4 cycles.
m=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
for f in a b; do
  "$m" run --clock-mhz 500 --m 8 --k 8 --n 8 --wave "$dir/$f.fst" --json "$dir/$f.json" >/dev/null || exit 1
done
cmp -s "$dir/a.fst" "$dir/b.fst" || { echo "cli_wave: two runs gave different waveforms" >&2; exit 1; }
python3 - "$dir/a.fst" "$dir/a.json" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
cycles = json.load(open(sys.argv[2]))["rtl_cycles"]
reset = 4 + 4 + 4
end = struct.unpack(">Q", d[17:25])[0]  # header block: type, length, start time, end time
want = (reset + cycles - 1) * 2000 + 1000
ok = d[0] == 0 and d[73] == 244 and end == want and d[202:224] == b"reproducible (mxcosim)"
if not ok:
    print("cli_wave: timescale byte", d[73], "end", end, "want", want, "date", d[202:230], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
