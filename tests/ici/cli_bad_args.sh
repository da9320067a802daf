#!/bin/sh
# usage: cli_bad_args.sh MXCOSIM CONFIG_DIR
# Bad `mxcosim ici` arguments end at once with exit code 2 and a message
# naming the option at fault; ranges that would run away are refused or cut
# where they end.
m=$1 cfgs=$2
ring=$cfgs/ring4.yaml
fail=0
expect() {  # expect MESSAGE-PATTERN ARGS...: exit 2 and the message
  want=$1
  shift
  out=$(timeout 60 "$m" ici "$@" 2>&1)
  rc=$?
  if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -Fq -- "$want"; then
    echo "cli_bad_args: '$*' gave exit $rc and: $out (wanted exit 2 and '$want')" >&2
    fail=1
  fi
}
column() {  # column N ARGS...: field N of the CSV rows of a run that must pass
  n=$1
  shift
  out=$(timeout 60 "$m" ici "$@" --csv 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "cli_bad_args: '$*' gave exit $rc and: $out" >&2
    fail=1
  fi
  printf '%s\n' "$out" | tail -n +2 | cut -d, -f"$n" | tr '\n' ' '
}
same() {  # same GOT WANT WHAT
  if [ "$1" != "$2" ]; then
    echo "cli_bad_args: $3 gave '$1', wanted '$2'" >&2
    fail=1
  fi
}
# --bytes LO:HI: the sizes stop at the last power below HI, never wrapping
# around 2^64 (a factor of 2^63 once went 2, 0, 0, ... until memory ran out).
same "$(column 1 --config "$ring" --model analytic --collective allreduce --bytes 2:4 --bytes-factor 9223372036854775808)" \
  "2 " "--bytes 2:4 --bytes-factor 2^63"
same "$(column 1 --config "$ring" --model analytic --collective allreduce --bytes 3:64GiB --bytes-factor 6148914691236517206)" \
  "3 " "--bytes 3:64GiB --bytes-factor 6148914691236517206"
same "$(column 1 --config "$ring" --model analytic --collective allreduce --bytes 1KiB:5KiB --bytes-factor 2)" \
  "1024 2048 4096 " "--bytes 1KiB:5KiB --bytes-factor 2"
expect "--bytes-factor must be >= 2" --collective allreduce --bytes 1:4 --bytes-factor 1 --config "$ring"
# A list's empty entry is a typo, not a size to skip; a factor with no range steps nothing.
expect "--bytes: an empty size in ',1KiB'" --collective allreduce --bytes ,1KiB --config "$ring"
expect "--bytes: an empty size in '1KiB,'" --collective allreduce --bytes 1KiB, --config "$ring"
expect "--bytes: an empty size in '1KiB,,2KiB'" --collective allreduce --bytes 1KiB,,2KiB --config "$ring"
expect "--bytes-factor steps a range of --bytes (LO:HI), and --bytes '1KiB,4KiB' is no range" --collective allreduce \
  --bytes 1KiB,4KiB --bytes-factor 8 --config "$ring"
expect "--bytes: more than 1000 sizes" --collective allreduce --config "$ring" --model analytic \
  --bytes "$(seq -s, 1 1001)"
# --sweep: the number of loads is known before any is made.
expect "--sweep: '0.1:1:1e-12' gives more than 10000 loads" --traffic uniform --sweep 0.1:1:1e-12 --config "$ring"
same "$(column 1 --config "$ring" --traffic uniform --sweep 0.1:0.1:1e-300 --measure-ns 1000)" "0.100 " \
  "--sweep 0.1:0.1:1e-300"
same "$(column 1 --config "$ring" --traffic uniform --sweep 0.05:0.25:0.1 --measure-ns 1000)" "0.050 0.150 0.250 " \
  "--sweep 0.05:0.25:0.1"
expect "--sweep: expected LO:HI:STEP" --traffic uniform --sweep 0.1:0.3:inf --config "$ring"
# --packet-bytes: 0 made every slot last no time; a window shorter than one
# slot measured nothing and reported the nominal load.
expect "--packet-bytes: must be at least 1" --traffic uniform --packet-bytes 0 --config "$ring"
expect "--measure-ns 1000 is shorter than one packet slot: 47721858.833 ns for 4294967295 B (--packet-bytes) over 2 links of 45 GB/s (ici.link.bandwidth_gbps" \
  --traffic uniform --packet-bytes 4294967295 --measure-ns 1000 --config "$ring"
# --load below 2^-64 (no trial can succeed) ends with nothing measured.
same "$(column 3 --config "$ring" --traffic uniform --load 1e-30)" "n/a " "--load 1e-30: latency"
same "$(column 5 --config "$ring" --traffic uniform --load 1e-30)" "0 " "--load 1e-30: packets"
expect "--load: must be in (0, 1], got 0" --traffic uniform --load 0 --config "$ring"
# A saturated point whose measured packets all stayed in the fabric has no
# latency (it printed 0.0): n/a in the table, null in JSON.
mesh=$cfgs/mesh3x3_q1.yaml
row=$(timeout 60 "$m" ici --config "$mesh" --traffic transpose --load 0.5 --csv | tail -n 1)
same "$(printf '%s' "$row" | cut -d, -f3,4,6)" "n/a,n/a,yes" "transpose 0.5 on mesh3x3_q1"
same "$(printf '%s' "$row" | cut -d, -f5 | grep -c '^[1-9]')" "1" "transpose 0.5 on mesh3x3_q1: measured packets"
# transpose on a ring: every chip is its own transpose (it ran and sent nothing).
expect "traffic: transpose needs at least two dimensions larger than 1" --traffic transpose --config "$ring"
# The time options stop at one simulated second (1e12 ns would have run for days).
expect "--measure-ns must be in [0, 1e9]" --traffic uniform --measure-ns 1e10 --config "$ring"
expect "--drain-ns must be in [0, 1e9]" --traffic uniform --drain-ns 2e9 --config "$ring"
expect "--warmup-ns must be in [0, 1e9]" --traffic uniform --warmup-ns 2e9 --config "$ring"
# An option given twice: the parser kept the last silently.
expect "--load given 2 times ('0.1', then '0.2'): give it once" --traffic uniform --load 0.1 --config "$ring" --load 0.2
# The table printed to a full disk is lost: an error, not exit 0.
out=$(timeout 60 "$m" ici --config "$ring" --model analytic --collective allreduce --bytes 1KiB 2>&1 >/dev/full)
rc=$?
if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "^mxcosim ici: error: writing standard output failed"; then
  echo "cli_bad_args: a table written to /dev/full gave exit $rc and: $out" >&2
  fail=1
fi
# --model named the config field ("field 'model'"), not the option.
expect "--model: must be torus or analytic, got 'foo'" --traffic uniform --model foo --config "$ring"
# The other mode's options would be ignored: refused, naming the mode.
expect "--load is an option of --traffic" --config "$ring" --collective allreduce --load 0.5
expect "--bytes is an option of --collective" --config "$ring" --traffic uniform --bytes 1KiB
expect "--hotspot-chip is an option of --traffic hotspot" --config "$ring" --traffic uniform --hotspot-chip 1
expect "--hotspot-chip 4: not a chip of the 4-chip topology (0..3)" --config "$ring" --traffic hotspot --hotspot-chip 4
# --json naming the config would overwrite it: refused, the config intact.
dir=$(mktemp -d) || exit 1
cp "$ring" "$dir/ring.yaml"
expect "--json names '$dir/ring.yaml', the file --config reads" --config "$dir/ring.yaml" --collective allreduce \
  --bytes 1KiB --json "$dir/ring.yaml"
cmp -s "$ring" "$dir/ring.yaml" || { echo "cli_bad_args: the config was overwritten" >&2; fail=1; }
# A fabric of one chip has no data to move: said by the config's field, not by the model.
sed 's/dims: \[4\]/dims: [1]/' "$ring" >"$dir/one.yaml"
expect "one.yaml: field 'ici.topology.dims': 1 ring has one chip; --collective needs at least 2" \
  --config "$dir/one.yaml" --collective allreduce
expect "one.yaml: field 'ici.topology.dims': 1 ring has one chip; --traffic needs at least 2" \
  --config "$dir/one.yaml" --traffic uniform
rm -rf "$dir"
[ $fail -eq 0 ] && echo "cli_bad_args: ok"
exit $fail
