#!/bin/sh
# usage: serve_stop.sh MXCOSIM CONFIG
# A server told to stop (SIGTERM, as a job scheduler or `kill` sends) stops
# accepting, removes its socket file and exits 0 with a line saying why.
mx=$1; config=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$mx" serve "$config" --listen "unix:$dir/s.sock" > "$dir/log" 2>&1 &
pid=$!
i=0
while [ ! -S "$dir/s.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -S "$dir/s.sock" ]; then echo "serve_stop: no socket after 10 s" >&2; cat "$dir/log"; kill $pid; exit 1; fi
kill -TERM $pid
wait $pid; rc=$?
cat "$dir/log"
if [ $rc -ne 0 ]; then echo "serve_stop: exit code $rc, expected 0" >&2; exit 1; fi
if [ -e "$dir/s.sock" ]; then echo "serve_stop: the socket file is still there" >&2; exit 1; fi
grep -q "stopped by a signal" "$dir/log" || { echo "serve_stop: no line saying why it stopped" >&2; exit 1; }
