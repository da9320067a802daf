#!/bin/sh
# usage: run_server_killed.sh MXCOSIM
# A run over a server that dies mid-run (kill -9: no goodbye) fails with the transport's error
# (exit 2) and has no results: an earlier run's --json of the same name is removed, so that it
# cannot pass for this one's (it was left in place, saying "pass").
mx=$1
dir=$(mktemp -d) || exit 1
trap 'kill -9 $server $client 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "run_server_killed: $*" >&2; cat "$dir/out" "$dir/err" >&2; exit 1; }
"$mx" serve --listen "unix:$dir/s.sock" > "$dir/log" 2>&1 &
server=$!
i=0
while [ ! -S "$dir/s.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$dir/s.sock" ] || fail "no socket after 10 s"
echo '{"status": "pass"}' > "$dir/r.json"
"$mx" run --connect "unix:$dir/s.sock" --m 256 --k 256 --n 256 --progress --json "$dir/r.json" \
  > "$dir/out" 2> "$dir/err" &
client=$!
i=0
until grep -q "instructions" "$dir/err"; do
  i=$((i + 1))
  [ $i -le 200 ] || fail "no progress line in 20 s"
  kill -0 $client 2>/dev/null || fail "the run ended before the server was killed"
  sleep 0.1
done
kill -9 $server
wait $client
rc=$?
client=
[ $rc -eq 2 ] || fail "exit $rc, expected 2"
grep -q "error: transport" "$dir/err" || fail "no transport error"
[ ! -e "$dir/r.json" ] || fail "the earlier run's r.json was left: $(cat "$dir/r.json")"
grep -q "no results: $dir/r.json (an earlier run's) removed" "$dir/out" || fail "no line saying r.json was removed"
exit 0
