#!/bin/sh
# usage: serve_exit_status.sh MXCOSIM CONFIG
# `serve --sessions 1` exits 0 when its session ended well (a run that
# connected and passed) and 1 when it failed (a peer that sent garbage in
# place of its HELLO).
mx=$1; config=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
start() {  # start NAME: a server of one session on $dir/NAME.sock, its pid in $pid
  "$mx" serve "$config" --listen "unix:$dir/$1.sock" --sessions 1 > "$dir/$1.log" 2>&1 &
  pid=$!
  i=0
  while [ ! -S "$dir/$1.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  [ -S "$dir/$1.sock" ] && return
  echo "serve_exit_status: no socket after 10 s" >&2
  cat "$dir/$1.log"
  kill $pid
  exit 1
}
start good
"$mx" run "$config" --connect "unix:$dir/good.sock" --m 8 --k 8 --n 8 > "$dir/run.log" 2>&1; rc=$?
[ $rc -eq 0 ] || { echo "serve_exit_status: the connected run exited $rc" >&2; cat "$dir/run.log"; fail=1; }
wait $pid; rc=$?
if [ $rc -ne 0 ]; then
  echo "serve_exit_status: a server whose session ended well exited $rc, expected 0" >&2
  cat "$dir/good.log"
  fail=1
fi
start bad
python3 - "$dir/bad.sock" <<'PY' || fail=1
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"GET / HTTP/1.0\r\n\r\n" * 16)
s.close()
PY
wait $pid; rc=$?
[ $rc -eq 1 ] || { echo "serve_exit_status: a server whose session failed exited $rc, expected 1" >&2; fail=1; }
cat "$dir/bad.log"
[ $fail -eq 0 ] && echo "serve_exit_status: ok"
exit $fail
