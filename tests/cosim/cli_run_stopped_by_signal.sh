#!/bin/sh
# usage: cli_run_stopped_by_signal.sh MXCOSIM INT|TERM|TRACE
# A long run stopped by SIGINT (Ctrl-C) or SIGTERM (a job's scancel) once its progress line
# shows it running: it keeps what it has. It exits 130, prints its summary, writes --json
# with `error` naming the signal and saying where it stopped the run, and closes its --wave file whole: the
# FST header's end time is the last cycle the results give, (reset + cycles - 1) x 2000 +
# 1000 ps at 500 MHz, reset = rows + cols + 4 = 12 cycles (cli_wave.sh), where a process
# killed outright leaves no results and a header never finished. Without --wave, a run
# stopped by a signal makes no failure waveform (nothing failed) and writes its --trace
# timeline up to the stop whole. TRACE: SIGTERM once the run
# has finished and its timeline (--trace, written after the run) is being written: the results
# stand (PASS, --json), the timeline is not waited for, its partial file is removed, exit 130.
mx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); sig=$2
dir=$(mktemp -d) || exit 1
trap 'kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "cli_run_stopped_by_signal SIG$sig: $*" >&2; cat "$dir/out" "$dir/err" >&2; exit 1; }

# A shell starts a background job of a script with SIGINT ignored, and a command keeps an
# ignored signal ignored (nohup): the run gets SIGINT's default back, as at a terminal.
start() {
  : >"$dir/err"
  (cd "$dir" && exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$mx" run --clock-mhz 500 --m 256 --k 256 --n 256 --progress \
    --json r.json "$@") >"$dir/out" 2>"$dir/err" &
  pid=$!
  i=0
  until grep -q "instructions" "$dir/err"; do
    i=$((i + 1))
    [ "$i" -le 200 ] || fail "no progress line in 20 s"
    kill -0 "$pid" 2>/dev/null || fail "the run ended before the signal"
    sleep 0.1
  done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" -eq 130 ] || fail "exit $rc, expected 130"
  grep -q "^FAIL  cycles [0-9]" "$dir/out" || fail "no summary"
  grep -q "^  error: stopped by a signal (SIG$sig) at [0-9]* ps, before the run finished: " "$dir/out" ||
    fail "the summary does not say the run was stopped by a signal"
}

check_json() {
  python3 - "$dir/r.json" "SIG$sig" <<'PY' || fail "r.json is not the results of a run stopped by a signal"
import json, re, sys
r = json.load(open(sys.argv[1]))
m = re.match(r"stopped by a signal \(" + sys.argv[2] + r"\) at (\d+) ps, before the run finished: "
             r"(\d+) of (\d+) instructions completed",
             r["error"])
ok = (m and r["status"] == "fail" and int(m.group(1)) == round(r["sim_time_ns"] * 1000)
      and int(m.group(2)) < int(m.group(3)) == r["instructions"] and "cycle_error_percent" not in r
      and not r["timing"]["compared"] and r["rtl_cycles"] > 0)
if not ok:
    print(json.dumps({k: r.get(k) for k in ("status", "error", "sim_time_ns", "instructions", "rtl_cycles")}),
          file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

if [ "$sig" = TRACE ]; then
  sig=TERM
  (cd "$dir" && exec "$mx" run --clock-mhz 500 --m 256 --k 256 --n 256 --json r.json --trace t.json.gz) \
    >"$dir/out" 2>"$dir/err" &
  pid=$!
  i=0
  until [ -e "$dir/t.json.gz" ]; do  # opened once the run has finished
    i=$((i + 1))
    [ "$i" -le 600 ] || fail "no timeline started in 30 s"
    kill -0 "$pid" 2>/dev/null || fail "the run ended before the signal"
    sleep 0.05
  done
  kill -s TERM "$pid"
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" -eq 130 ] || fail "exit $rc, expected 130"
  grep -q "^PASS  cycles [0-9]" "$dir/out" || fail "no summary of the finished run"
  grep -q "trace file 't.json.gz' not written whole: stopped by a signal; the partial file is removed" "$dir/err" ||
    fail "no error saying the timeline was cut short"
  [ ! -e "$dir/t.json.gz" ] || fail "the partial timeline was left"
  python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['status'] != 'pass')" "$dir/r.json" ||
    fail "r.json is not the finished run's results"
elif [ "$sig" = INT ]; then
  start --wave w.fst
  check_json
  grep -q "^  waveform: w.fst$" "$dir/out" || fail "the waveform is not named as written"
  python3 - "$dir/w.fst" "$dir/r.json" <<'PY' || fail "w.fst is not closed whole at the run's last cycle"
import json, struct, sys
d = open(sys.argv[1], "rb").read()
cycles = json.load(open(sys.argv[2]))["rtl_cycles"]
end = struct.unpack(">Q", d[17:25])[0]  # header block: type, length, start time, end time
want = (12 + cycles - 1) * 2000 + 1000
if not (d[0] == 0 and end == want):
    print("header type", d[0], "end", end, "want", want, file=sys.stderr)
    sys.exit(1)
PY
else
  start --trace t.json
  check_json
  grep -q "^  failure waveform: none (a signal (SIG$sig) stopped the run, no failure did)$" "$dir/out" ||
    fail "no line saying why no failure waveform"
  # The timeline up to the stop, whole (the signal that stopped the run once cut it too).
  python3 - "$dir/t.json" "$dir/r.json" <<'PY' || fail "t.json is not the stopped run's whole timeline"
import json, sys
t = json.load(open(sys.argv[1]))
stop_us = json.load(open(sys.argv[2]))["sim_time_ns"] / 1000
events = t["traceEvents"] if isinstance(t, dict) else t
times = [e["ts"] for e in events if "ts" in e]
sys.exit(0 if len(events) > 10000 and times and max(times) <= stop_us + 1 else 1)
PY
  [ -z "$(ls "$dir" | grep '\.fst')" ] || fail "a failure waveform was written"
fi
exit 0
