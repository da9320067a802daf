#!/bin/sh
# usage: cli_long_run_warning.sh MXCOSIM CONFIG_DIR
# A run announced as long says how long, from its own size at the rates the
# warning names: 1 to 6 million synthetic packet-hops a second (so N million
# packet-hops take N / 6 to N / 1 seconds), 10 to 20 million collective wire
# packets. The runs are stopped once the warning is out.
m=$1 cfgs=$2
fail=0
dir=$(mktemp -d) || exit 1
# check NAME FILE UNITS_PER_S_LOW UNITS_PER_S_HIGH: the warning's estimate against its packet count.
check() {
  line=$(grep '^warning: about' "$2")
  [ -n "$line" ] || { echo "cli_long_run_warning: $1: no warning in $(cat "$2")" >&2; fail=1; return; }
  printf '%s\n' "$line" | awk -v lo_rate="$3" -v hi_rate="$4" -v name="$1" '
    function secs(v, unit) { return unit == "hours" ? v * 3600 : unit == "minutes" ? v * 60 : v }
    {
      millions = $3
      if (!match($0, /: about [0-9.]+( [a-z]+)? to [0-9.]+ [a-z]+ at /)) { print name ": no estimate: " $0; exit 1 }
      n = split(substr($0, RSTART + 8, RLENGTH - 12), w, " ")
      if (n == 4) { lo = secs(w[1], w[4]); hi = secs(w[3], w[4]) } else { lo = secs(w[1], w[2]); hi = secs(w[4], w[5]) }
      want_lo = millions * 1e6 / hi_rate; want_hi = millions * 1e6 / lo_rate
      if (lo < want_lo * 0.95 || lo > want_lo * 1.05 || hi < want_hi * 0.95 || hi > want_hi * 1.05) {
        print name ": " lo " to " hi " s, expected " want_lo " to " want_hi ": " $0; exit 1
      }
    }' >&2 || fail=1
}
# 16x16 at load 0.5 for a simulated second: hours, not "some minutes".
timeout 2 "$m" ici --config "$cfgs/torus16x16.yaml" --traffic uniform --load 0.5 --measure-ns 1e9 \
  >/dev/null 2>"$dir/traffic.txt"
grep -q ' hours at 1 to 6 million a second$' "$dir/traffic.txt" || {
  echo "cli_long_run_warning: traffic: $(cat "$dir/traffic.txt")" >&2
  fail=1
}
check traffic "$dir/traffic.txt" 1e6 6e6
# The packet-hops: load x chips x (warm-up + window + drain) / slot x mean hops. 16x16 at load 0.5: the
# warm-up 20 us, the window 1e9 ns, a drain of the longest path's 16 hops (16 x 1000 ns + 24 ns of
# serialisation), a slot of 1024 B over 4 links of 45 GB/s, and a mean of 4 hops per ring of 16, 8 in
# all, 8.03 over the 255 other chips (the warning's sample says 8.0).
grep -q "million packet-hops to simulate (1 loads x 256 chips over --warmup-ns + --measure-ns 1.00002e+09 and a drain of 16024 ns, 8.0 hops a packet)" "$dir/traffic.txt" || {
  echo "cli_long_run_warning: traffic terms: $(cat "$dir/traffic.txt")" >&2
  fail=1
}
want=$(awk 'BEGIN { printf "%.0f", 0.5 * 256 * (20000 + 1e9 + 16024) / (1024 / (4 * 45e9) * 1e9) * 8.03 / 1e6 }')
got=$(sed -n 's/^warning: about \([0-9]*\) million packet-hops.*/\1/p' "$dir/traffic.txt")
[ "$got" -ge $((want * 99 / 100)) ] && [ "$got" -le $((want * 101 / 100)) ] || {
  echo "cli_long_run_warning: $got million packet-hops, wanted about $want" >&2
  fail=1
}
# A 64 GiB all-reduce on 4x4x4: minutes.
timeout 2 "$m" ici --config "$cfgs/torus4x4x4.yaml" --collective all-reduce --bytes 64GiB \
  >/dev/null 2>"$dir/collective.txt"
grep -q ' minutes at 10 to 20 million a second; ' "$dir/collective.txt" || {
  echo "cli_long_run_warning: collective: $(cat "$dir/collective.txt")" >&2
  fail=1
}
check collective "$dir/collective.txt" 10e6 20e6
rm -rf "$dir"
[ $fail -eq 0 ] && echo "cli_long_run_warning: ok"
exit $fail
