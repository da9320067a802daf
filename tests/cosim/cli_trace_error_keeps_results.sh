#!/bin/sh
# usage: cli_trace_error_keeps_results.sh MXCOSIM   (in a folder of its own: in_temp_dir.sh)
# A timeline that cannot be written (a full disk) after a run that finished loses the timeline,
# not the run: the summary and --json come first, then the error, exit 2.
mx=$1
fail() { echo "cli_trace_error_keeps_results: $*" >&2; exit 1; }
"$mx" run --m 4 --k 4 --n 4 --trace /dev/full --json r.json >out.txt 2>&1
rc=$?
cat out.txt
[ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
summary=$(grep -n "^PASS  cycles" out.txt | cut -d: -f1)
error=$(grep -n "error: cannot write trace file '/dev/full': .*the run's results above stand" out.txt | cut -d: -f1)
[ -n "$summary" ] || fail "no summary"
[ -n "$error" ] || fail "no trace error"
[ "$summary" -lt "$error" ] || fail "the error came before the summary"
grep -q "timeline: not written whole" out.txt || fail "the summary names the timeline as written"
# The results of the 4x4x4 GEMM: 16 elements checked, a pass.
python3 -c "
import json, sys
r = json.load(open('r.json'))
sys.exit(0 if r['status'] == 'pass' and r['elements_checked'] == 16 else 1)" || fail "r.json is not the run's results"
