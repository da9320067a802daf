# Sourced by the command-line tests that stop a long run with a signal, with
# `test_name` set to the test's name for its messages. Gives $dir (removed at exit,
# with the process in $pid killed if it still runs), fail MESSAGE,
# wait_for CONDITION SECONDS (polls every 0.1 s) and stop_when (below). A script's background job
# starts with SIGINT ignored, and a command keeps an ignored signal ignored
# (as nohup asks): the tests start it through env --default-signal=INT, as a
# terminal's Ctrl-C finds it; without that env the test is skipped (77).
dir=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "$test_name: $*" >&2; exit 1; }
env --default-signal=INT true 2>/dev/null || { echo "$test_name: env --default-signal is needed" >&2; exit 77; }
wait_for() {
  i=0
  while [ "$i" -lt "$(($2 * 10))" ]; do eval "$1" && return 0; sleep 0.1; i=$((i + 1)); done
  return 1
}
# stop_when LABEL SIGNAL TEXT COMMAND...: runs COMMAND, its output in $dir/LABEL.out and
# .err, until its standard error shows TEXT (a progress line), then sends SIGNAL; it must
# end within 30 s with exit 130. Sets $err, the standard error with its progress lines.
stop_when() {
  label=$1 sig=$2 text=$3
  shift 3
  env --default-signal=INT "$@" >"$dir/$label.out" 2>"$dir/$label.err" &
  pid=$!
  wait_for "grep -Fq '$text' '$dir/$label.err' 2>/dev/null" 60 ||
    fail "$label: no progress line with '$text': $(cat "$dir/$label.err")"
  kill -s "$sig" "$pid"
  wait_for "! kill -0 $pid 2>/dev/null" 30 || fail "$label: still running 30 s after SIG$sig"
  wait "$pid"
  rc=$?
  pid=
  err=$(tr '\r' '\n' <"$dir/$label.err")
  [ "$rc" -eq 130 ] || fail "$label: exit $rc, expected 130: $err"
}
