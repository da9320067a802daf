#!/bin/sh
# usage: serve_stop.sh MXCOSIM CONFIG [twice]
# A server told to stop (SIGTERM, as a job scheduler or `kill` sends) stops
# accepting, removes its socket file and exits 0 with a line saying why.
# With "twice" the request comes twice at once, as GNU timeout sends it (to
# the server, then to its process group): still one request, the same end.
mx=$1; config=$2; mode=${3:-once}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$mx" serve "$config" --listen "unix:$dir/s.sock" > "$dir/log" 2>&1 &
pid=$!
i=0
while [ ! -S "$dir/s.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -S "$dir/s.sock" ]; then echo "serve_stop: no socket after 10 s" >&2; cat "$dir/log"; kill $pid; exit 1; fi
kill -TERM $pid
if [ "$mode" = twice ]; then kill -TERM $pid 2>/dev/null; fi
wait $pid; rc=$?
cat "$dir/log"
if [ $rc -ne 0 ]; then echo "serve_stop: exit code $rc, expected 0" >&2; exit 1; fi
if [ -e "$dir/s.sock" ]; then echo "serve_stop: the socket file is still there" >&2; exit 1; fi
grep -q "stopped by a signal (SIGTERM)" "$dir/log" || { echo "serve_stop: no line saying why it stopped" >&2; exit 1; }
