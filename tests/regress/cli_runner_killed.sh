#!/bin/sh
# usage: cli_runner_killed.sh MXCOSIM
# The tests of `mxcosim regress` end with their runner: killed outright
# (SIGKILL, which it cannot catch) it left them running, orphaned, writing
# into the folders its next run reuses. A hangup (SIGHUP, its terminal
# closed) stops it as SIGTERM does: exit 130, the run resumable.
m=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cat >"$dir/long.yaml" <<'SUITE'
suite: long
timeout: 600
groups:
  - {name: big, args: {m: 256, k: 256, n: 256}, seeds: [1, 2]}
SUITE
tests() { pgrep -f "$dir/out/tests" >/dev/null; }
wait_for() {  # CONDITION SECONDS: polls every 0.1 s
  i=0
  while [ "$i" -lt "$(($2 * 10))" ]; do eval "$1" && return 0; sleep 0.1; i=$((i + 1)); done
  return 1
}
# A runner started with SIGHUP ignored (this script under nohup) keeps it
# ignored, as nohup asks: the hangup is then not this script's to check.
sigs="KILL HUP"
ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
[ -n "$ignored" ] && [ $((0x$ignored & 1)) -eq 1 ] && sigs=KILL
for sig in $sigs; do
  rm -rf "$dir/out"
  "$m" regress "$dir/long.yaml" --out "$dir/out" -j 2 --no-report --no-progress >"$dir/log" 2>&1 &
  runner=$!
  wait_for tests 30 || { echo "SIG$sig: no test started" >&2; cat "$dir/log" >&2; exit 1; }
  kill -s "$sig" "$runner"
  wait "$runner"
  rc=$?
  wait_for '! tests' 10 || { echo "SIG$sig: the tests outlived the runner" >&2; pkill -KILL -f "$dir/out/tests"; exit 1; }
  if [ "$sig" = HUP ]; then
    [ "$rc" -eq 130 ] || { echo "SIGHUP: exit $rc, expected 130" >&2; cat "$dir/log" >&2; exit 1; }
    grep -q "interrupted: run the same command again to resume" "$dir/log" ||
      { echo "SIGHUP: not said interrupted" >&2; cat "$dir/log" >&2; exit 1; }
  fi
done
exit 0
