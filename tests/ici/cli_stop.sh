#!/bin/sh
# usage: cli_stop.sh MXCOSIM CONFIG_DIR
# A long `mxcosim ici` sweep that the user stops (Ctrl-C: SIGINT; SIGTERM
# the same) abandons the point or size running, whose measurement is not
# complete, and keeps the ones before it: their table rows are printed and
# the JSON written with `error` naming where it stopped, a line on stderr
# says so, and the command exits 130. Each sweep's first point or size runs
# in a fraction of a second, its second for many seconds: the signal is sent
# once the progress line shows the second running.
m=$1 cfgs=$2
test_name=cli_ici_stop
. "$(dirname "$0")/../signal_test.sh"
# stop NAME SIGNAL RUNNING ARGS...: runs `mxcosim ici ARGS` until its progress line names RUNNING, then
# sends SIGNAL; the exit code must be 130. Leaves $dir/NAME.out, .err and .json.
stop() {
  name=$1 sig=$2 running=$3
  shift 3
  stop_when "$name" "$sig" "$running" "$m" ici "$@" --progress --json "$dir/$name.json"
  [ -f "$dir/$name.json" ] || fail "$name: no JSON: $err"
}

# Traffic: loads 0.001, 0.451 and 0.901; the first of 20 000 packets or so, the second of millions.
stop traffic INT "load 0.451 (2 of 3)" --config "$cfgs/torus4x4.yaml" --traffic uniform --sweep 0.001:0.901:0.45 \
  --measure-ns 5e7
why="stopped by a signal (SIGINT) during load 0.451 (point 2 of 3); the point before it is complete"
grep -Fq "\"error\": \"$why\"" "$dir/traffic.json" || fail "traffic: JSON error: $(cat "$dir/traffic.json")"
[ "$(grep -c '"offered_load":' "$dir/traffic.json")" -eq 1 ] || fail "traffic: JSON points: $(cat "$dir/traffic.json")"
grep -q '"offered_load": 0.001,' "$dir/traffic.json" || fail "traffic: JSON point: $(cat "$dir/traffic.json")"
# The table: its title, header and the one complete row, with packets measured.
[ "$(wc -l <"$dir/traffic.out")" -eq 3 ] || fail "traffic: table: $(cat "$dir/traffic.out")"
tail -n 1 "$dir/traffic.out" | grep -Eq '^ *0\.001 +0\.001 +[0-9.]+ +[0-9.]+ +[1-9][0-9]* +no +no$' ||
  fail "traffic: table row: $(cat "$dir/traffic.out")"
said="mxcosim ici: $why: the results above are theirs (also in $dir/traffic.json)"
tr '\r' '\n' <"$dir/traffic.err" | grep -Fxq "$said" ||
  fail "traffic: stderr: $(tr '\r' '\n' <"$dir/traffic.err")"

# Collectives: 64 KiB, then 64 GiB (minutes), stopped by SIGTERM.
stop collective TERM "bytes (2 of 2)" --config "$cfgs/torus4x4.yaml" --collective allreduce --bytes 64KiB,64GiB --csv
why="stopped by a signal (SIGTERM) during 68719476736 bytes (size 2 of 2); the size before it is complete"
grep -Fq "\"error\": \"$why\"" "$dir/collective.json" || fail "collective: JSON error: $(cat "$dir/collective.json")"
[ "$(grep -c '"bytes":' "$dir/collective.json")" -eq 1 ] || fail "collective: JSON sizes: $(cat "$dir/collective.json")"
grep -q '"bytes": 65536,' "$dir/collective.json" || fail "collective: JSON size: $(cat "$dir/collective.json")"
grep -q '"time_ns": [1-9]' "$dir/collective.json" || fail "collective: JSON time: $(cat "$dir/collective.json")"
[ "$(wc -l <"$dir/collective.out")" -eq 2 ] || fail "collective: CSV: $(cat "$dir/collective.out")"
tail -n 1 "$dir/collective.out" | grep -Eq '^65536,[0-9.]+,' || fail "collective: CSV row: $(cat "$dir/collective.out")"
said="mxcosim ici: $why: the results above are theirs (also in $dir/collective.json)"
tr '\r' '\n' <"$dir/collective.err" | grep -Fxq "$said" ||
  fail "collective: stderr: $(tr '\r' '\n' <"$dir/collective.err")"
echo "cli_ici_stop: ok"
