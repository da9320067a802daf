#!/bin/sh
# usage: cli_stop.sh MXCOSIM CONFIG
# A long `mxcosim hbm` run that the user stops (Ctrl-C: SIGINT; SIGTERM the
# same) keeps what it has: no request is offered after the signal, the ones
# in flight complete, the summary is printed and the JSON written with
# `error` saying after how many requests it stopped, a line on stderr says
# the results are those of the requests completed before the stop, and the
# command exits 130.
m=$1 cfg=$2
test_name=cli_hbm_stop
. "$(dirname "$0")/../signal_test.sh"
total=1000000000  # half an hour and more: only a signal ends it within the test
for sig in INT TERM; do
  # The first progress line comes a second into the run, at a multiple of 65536 requests completed.
  stop_when "SIG$sig" "$sig" "M requests/s" "$m" hbm --config "$cfg" --pattern random --requests $total \
    --progress --json "$dir/SIG$sig.json"
  [ -f "$dir/SIG$sig.json" ] || fail "SIG$sig: no JSON: $err"
  json=$(tr -d ' \n' <"$dir/SIG$sig.json")
  n=$(sed -n "s/^ *\"error\": \"stopped by a signal (SIG$sig) after \([0-9]*\) requests\",\$/\1/p" "$dir/SIG$sig.json")
  [ -n "$n" ] || fail "SIG$sig: no error naming the stop in the JSON: $json"
  # At least the requests counted by the progress line, far fewer than asked for.
  [ "$n" -ge 65536 ] && [ "$n" -lt $total ] || fail "SIG$sig: stopped after $n requests"
  printf '%s' "$json" | grep -q "\"requests\":$n," || fail "SIG$sig: JSON requests is not $n: $json"
  grep -Eq "^  requests +$n \($n reads, 0 writes\)" "$dir/SIG$sig.out" || fail "SIG$sig: summary: $(cat "$dir/SIG$sig.out")"
  grep -q "^  read bandwidth " "$dir/SIG$sig.out" || fail "SIG$sig: summary: $(cat "$dir/SIG$sig.out")"
  said="stopped by a signal (SIG$sig) after $n requests (the results above are those of the $n requests completed"
  printf '%s\n' "$err" | grep -Fq "$said before the stop, also in $dir/SIG$sig.json)" || fail "SIG$sig: stderr: $err"
done
echo "cli_hbm_stop: ok"
