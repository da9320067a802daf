#!/bin/sh
# usage: cli_sweep_past_a_bad_point.sh MXCOSIM
# A sweep point the workload cannot take (an MLP on a 4x8 array) is an error
# row with empty results, and the sweep goes on: the 8x8 point after it runs
# and reads as the same point run on its own does. The whole sweep was thrown
# away, the points before the bad one included.
m=$1
shape="--workload mlp --m 16 --k 16 --hidden 16 --n 16 --hbm ideal"
# shellcheck disable=SC2086
out=$("$m" model --sweep --sweep-sizes 4x8,8x8 $shape 2>&1)
rc=$?
echo "$out"
# shellcheck disable=SC2086
alone=$("$m" model --rows 8 --cols 8 $shape) || { echo "cli_sweep: the 8x8 point alone failed: $alone" >&2; exit 1; }
cycles=$(printf '%s\n' "$alone" | sed -n 's/^cycles \([0-9][0-9]*\) .*/\1/p')
[ -n "$cycles" ] || { echo "cli_sweep: no cycles in the 8x8 point's output: $alone" >&2; exit 1; }
fail=0
[ $rc -eq 1 ] || { echo "cli_sweep: exit code $rc, expected 1" >&2; fail=1; }
printf '%s\n' "$out" | grep -q '^model,mlp,16,16,16,bf16,1,,4,8,1000,ideal,45,,,,,,,error,16,$' ||
  { echo "cli_sweep: no error row for 4x8" >&2; fail=1; }
printf '%s\n' "$out" | grep -q "^model,mlp,16,16,16,bf16,1,,8,8,1000,ideal,45,$cycles,.*,ok,16,\$" ||
  { echo "cli_sweep: no ok row for 8x8 of $cycles cycles, as the point run alone" >&2; fail=1; }
printf '%s\n' "$out" | grep -q '4x8 1000 MHz ideal ici 45: error: mlp: the array needs rows == cols' ||
  { echo "cli_sweep: the bad point's error is not said" >&2; fail=1; }
exit $fail
