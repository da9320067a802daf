#!/bin/sh
# usage: cli_json_before_fail_wave.sh MXCOSIM   (in a folder of its own: in_temp_dir.sh)
# A failing run flushes its summary and writes --json before the failure waveform's re-run, so
# a job stopped meanwhile (a time limit) keeps them. --json is a FIFO here: the run blocks
# writing it until it is read, which shows what the run had done by then.
mx=$1
fail() { echo "cli_json_before_fail_wave: $*" >&2; cat out.txt; kill "$pid" 2>/dev/null; exit 1; }
mkfifo r.json || exit 1
: >out.txt  # there before the loop below looks, whichever of the two starts first
"$mx" run --m 4 --k 4 --n 8 --inject-fault 5 --json r.json >out.txt 2>&1 &
pid=$!
i=0
until grep -q "utilization" out.txt; do
  i=$((i + 1))
  [ "$i" -le 1200 ] || fail "no summary in 120 s while the results file waits to be read"
  sleep 0.1
done
sleep 0.5
[ ! -e mxcosim-fail-seed1.fst ] || fail "the failure waveform was written before the results file"
cat r.json >got.json
wait "$pid"
rc=$?
cat out.txt
[ "$rc" -eq 1 ] || { echo "exit status $rc, expected 1" >&2; exit 1; }
python3 -c "
import json, sys
r = json.load(open('got.json'))
sys.exit(0 if r['status'] == 'fail' and r['mismatch_count'] == 1 else 1)" ||
  { echo "got.json: not the run's results" >&2; exit 1; }
grep -q "failure waveform (cycles [0-9]*\.\.[0-9]*): mxcosim-fail-seed1.fst" out.txt ||
  { echo "no failure waveform" >&2; exit 1; }
test -s mxcosim-fail-seed1.fst || { echo "mxcosim-fail-seed1.fst is empty" >&2; exit 1; }
