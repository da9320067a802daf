#!/bin/sh
# usage: cli_trace_error_keeps_results.sh MXCOSIM   (in a folder of its own: in_temp_dir.sh)
# A timeline that cannot be written (a full disk) after a run that finished loses the timeline,
# not the run: the summary and --json come first, then the error. A run that passed exits 2
# (its output failed); a run that failed keeps its exit 1, so that it is filed as the failure
# it is, not as bad input.
mx=$1
fail() { echo "cli_trace_error_keeps_results: $*" >&2; exit 1; }
# check EXIT SUMMARY STATUS ELEMENTS ARGS...: the run's exit code, summary line, r.json status and elements checked.
check() {
  want=$1 summary_re=$2 status=$3 elements=$4
  shift 4
  rm -f r.json
  "$mx" run "$@" --trace /dev/full --json r.json --no-fail-wave >out.txt 2>&1
  rc=$?
  cat out.txt
  [ "$rc" -eq "$want" ] || fail "$*: exit code $rc, expected $want"
  summary=$(grep -n "$summary_re" out.txt | cut -d: -f1)
  error=$(grep -n "error: cannot write trace file '/dev/full': .*the run's results above stand" out.txt | cut -d: -f1)
  [ -n "$summary" ] || fail "$*: no summary"
  [ -n "$error" ] || fail "$*: no trace error"
  [ "$summary" -lt "$error" ] || fail "$*: the error came before the summary"
  grep -q "timeline: not written whole" out.txt || fail "$*: the summary names the timeline as written"
  python3 -c "
import json, sys
r = json.load(open('r.json'))
sys.exit(0 if r['status'] == '$status' and r['elements_checked'] == $elements else 1)" ||
    fail "$*: r.json is not the run's results"
}
# The 4x4x4 GEMM passes: 16 elements checked; the timeline's error decides the exit, 2.
check 2 "^PASS  cycles" pass 16 --m 4 --k 4 --n 4
# The default 16x16x16 GEMM with element 5 of its result flipped fails: 256 elements checked,
# exit 1 as without --trace.
check 1 "^FAIL  cycles" fail 256 --inject-fault 5
