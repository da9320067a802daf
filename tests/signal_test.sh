# Sourced by the command-line tests that stop a long run with a signal, with
# `test_name` set to the test's name for its messages. Gives $dir (removed at exit,
# with the process in $pid killed if it still runs), fail MESSAGE, and
# wait_for CONDITION SECONDS (polls every 0.1 s). A script's background job
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
