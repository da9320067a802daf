#!/bin/sh
# usage: cli_trace.sh MXCOSIM CONFIG
# `mxcosim hbm --trace` as a user runs it: a trace runs to its end (past the
# 100 000 requests a pattern makes by default), --requests caps it,
# --refresh-postpone overrides the preset, and a bad line stops the run
# with exit code 2 and the file and line named, the requests before it
# run to completion and reported. Also a short pattern run's
# warning about refreshes still owed.
mxcosim=$1; config=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_trace: $*" >&2; exit 1; }

awk 'BEGIN { for (i = 0; i < 120000; i++) printf "0x%x READ %d\n", i * 64, i }' > "$tmp/t.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/t.trace" 2>&1) || fail "whole trace: exit $?: $out"
printf '%s\n' "$out" | grep -Eq "requests +120000 \(120000 reads" || fail "whole trace: $out"

# The preset postpones refreshes that fall due while bursts are queued;
# --refresh-postpone 0 refreshes at every due cycle instead.
printf '%s\n' "$out" | grep -Eq "refreshes +[0-9]+ .*, [1-9][0-9]* postponed" || fail "postponed: $out"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/t.trace" --refresh-postpone 0 2>&1) || fail "0 owed: exit $?: $out"
printf '%s\n' "$out" | grep -E "refreshes +[0-9]+" | grep -q postponed && fail "0 owed: $out"

out=$("$mxcosim" hbm --config "$config" --trace "$tmp/t.trace" --requests 1000 2>&1) || fail "capped: exit $?: $out"
printf '%s\n' "$out" | grep -Eq "requests +1000 \(1000 reads" || fail "capped: $out"
# 20 000 sequential 256 B reads take about 20 us, five tREFI: the refreshes
# postponed meanwhile are mostly still owed at the end, and the run says it
# under-counts refresh. With none postponed there is nothing to say.
out=$("$mxcosim" hbm --config "$config" --pattern seq --requests 20000 2>&1) || fail "short: exit $?: $out"
printf '%s\n' "$out" | grep -Fq "refreshes due were postponed and not yet issued" || fail "owed at the end: $out"
out=$("$mxcosim" hbm --config "$config" --pattern seq --requests 20000 --refresh-postpone 0 2>&1) ||
  fail "short, 0 owed: exit $?: $out"
printf '%s\n' "$out" | grep -Fq "not yet issued" && fail "short, 0 owed: $out"
# The same reads from a trace offered all at once (cycle 0): its advice is a longer trace.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "0x%x READ 0\n", i * 256 }' > "$tmp/burst.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/burst.trace" --size 256 2>&1) || fail "short trace: exit $?: $out"
printf '%s\n' "$out" | grep -Fq "under-counts refresh (a longer trace" || fail "short trace: $out"
# Cut short by --requests, the advice is more of them.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "0x%x READ 0\n", i * 256 }' > "$tmp/long.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/long.trace" --size 256 --requests 20000 2>&1) ||
  fail "cut trace: exit $?: $out"
printf '%s\n' "$out" | grep -Fq "under-counts refresh (more --requests" || fail "cut trace: $out"

# Lines whose cycle goes back: run in file order, with a warning counting them.
printf '0x40 READ 10\n0x80 READ 5\n' > "$tmp/back1.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/back1.trace" 2>&1 >/dev/null) || fail "back1: exit $?: $out"
printf '%s\n' "$out" | grep -Fq "back1.trace: line 2 has a cycle before an earlier line's; it was issued" || fail "back1: $out"
printf '0x40 READ 10\n0x80 READ 5\n0xc0 READ 3\n' > "$tmp/back2.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/back2.trace" 2>&1 >/dev/null) || fail "back2: exit $?: $out"
printf '%s\n' "$out" | grep -Fq "back2.trace: 2 lines (the first at line 2) have a cycle before" || fail "back2: $out"

printf '0x40 READ 1\n0x80 FETCH 2\n' > "$tmp/bad.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/bad.trace" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "bad trace: exit $rc, expected 2: $out"
printf '%s\n' "$out" | grep -Fq "$tmp/bad.trace:2: field command" || fail "bad trace: $out"
# The request before the bad line ran: its results are printed and written, with the error.
printf '%s\n' "$out" | grep -Eq "requests +1 \(1 reads" || fail "bad trace, results kept: $out"
printf '%s\n' "$out" | grep -Fq "the results above are those of the 1 requests before it" || fail "bad trace: $out"
"$mxcosim" hbm --config "$config" --trace "$tmp/bad.trace" --json "$tmp/bad.json" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "bad trace with --json: exit $rc, expected 2"
json=$(tr -d ' \n' <"$tmp/bad.json")
printf '%s' "$json" | grep -Fq "\"error\":\"$tmp/bad.trace:2:fieldcommand" || fail "bad trace JSON: no error: $json"
printf '%s' "$json" | grep -Fq '"requests":1,' || fail "bad trace JSON: requests: $json"
# A bad first line leaves nothing to run: the error alone, no results.
printf '0x80 FETCH 2\n0x40 READ 1\n' > "$tmp/bad1.trace"
out=$("$mxcosim" hbm --config "$config" --trace "$tmp/bad1.trace" --json "$tmp/bad1.json" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "bad first line: exit $rc, expected 2: $out"
printf '%s\n' "$out" | grep -Fq "$tmp/bad1.trace:1: field command" || fail "bad first line: $out"
[ -e "$tmp/bad1.json" ] && fail "bad first line: a JSON was written"
echo "cli_trace: ok"
