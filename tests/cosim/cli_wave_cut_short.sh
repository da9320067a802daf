#!/bin/sh
# usage: cli_wave_cut_short.sh MXCOSIM PROGRAM
# A waveform whose writes fail (here past a file-size limit set by prlimit,
# its signal ignored, so that writes fail as on a full file system) is
# closed cut short by the FST writer without a word: the run says so,
# removes the file and exits 2, its results (summary, --json) standing. A
# failing run's failure waveform cut short is said and the run exits 1.
m=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); prog=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "cli_wave_cut_short: $*" >&2; cat "$dir/out" >&2; exit 1; }

# Limits from below the value changes' size to above the whole file's:
# each run exits 2 with its results, naming the waveform and leaving no
# part of it, whether the writes failed during the run (the bus error) or
# at the close; at least one limit must reach the close.
at_close=0
for limit in 8192 12288 16384 18432 20480 22528; do
  rm -f "$dir/r.json"
  (trap '' XFSZ; exec prlimit --fsize=$limit "$m" run --program "$prog" --wave "$dir/w.fst" --json "$dir/r.json") \
    >"$dir/out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "limit $limit: exit $rc, expected 2"
  [ ! -e "$dir/w.fst" ] && [ ! -e "$dir/w.fst.hier" ] || fail "limit $limit: the partial waveform is left"
  if grep -Eq "waveform $dir/w.fst came out incomplete: its hierarchy block at byte [0-9]+ does not unpack" \
       "$dir/out"; then
    at_close=$((at_close + 1))
    grep -q '^PASS ' "$dir/out" || fail "limit $limit: no summary"
    grep -q '"status": "pass"' "$dir/r.json" || fail "limit $limit: no results JSON"
  else
    grep -q "writing the waveform '$dir/w.fst' failed (bus error" "$dir/out" || fail "limit $limit: no error"
  fi
done
[ "$at_close" -gt 0 ] || fail "no limit made the writes fail at the close"

# The same run whole: no error.
"$m" run --program "$prog" --wave "$dir/w.fst" >"$dir/out" 2>&1 || fail "a whole waveform fails"
grep -q "waveform: $dir/w.fst" "$dir/out" || fail "the whole waveform is not named"

(cd "$dir" && trap '' XFSZ && exec prlimit --fsize=20480 "$m" run --m 8 --k 8 --n 8 --inject-fault 3) >"$dir/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "failing run: exit $rc, expected 1"
grep -Eq "failure waveform: not written \(.*mxcosim-fail-seed1.fst came out incomplete" "$dir/out" ||
  fail "failing run: the cut-short failure waveform is not said"
[ ! -e "$dir/mxcosim-fail-seed1.fst" ] || fail "failing run: the partial failure waveform is left"
exit 0
