#!/bin/sh
# usage: cli_csv_reproducible.sh MXCOSIM CONFIG_DIR
# The same command writes the same CSV: the collective CSV has no wall-time
# column (the table keeps `wall_s`, the JSON `wall_seconds`), and two runs of
# a collective, or of a traffic point, print identical files.
m=$1 cfgs=$2
fail=0
dir=$(mktemp -d) || exit 1
for i in 1 2; do
  timeout 120 "$m" ici --config "$cfgs/torus4x4.yaml" --collective allreduce --algorithm dim --bytes 64KiB,1MiB \
    --csv --json "$dir/coll$i.json" >"$dir/coll$i.csv" || {
    echo "cli_csv_reproducible: collective exit $?" >&2
    fail=1
  }
  timeout 120 "$m" ici --config "$cfgs/torus4x4.yaml" --traffic uniform --load 0.2 --seed 7 --csv \
    >"$dir/traffic$i.csv" 2>/dev/null || { echo "cli_csv_reproducible: traffic exit $?" >&2; fail=1; }
done
[ "$(head -n 1 "$dir/coll1.csv")" = "bytes,time_ns,bound_time_ns,bound/time,GB/s_per_chip" ] || {
  echo "cli_csv_reproducible: collective CSV header $(head -n 1 "$dir/coll1.csv")" >&2
  fail=1
}
# A header and one row per size.
[ "$(wc -l <"$dir/coll1.csv")" -eq 3 ] || { echo "cli_csv_reproducible: collective CSV rows" >&2; fail=1; }
cmp -s "$dir/coll1.csv" "$dir/coll2.csv" || { echo "cli_csv_reproducible: collective CSVs differ" >&2; fail=1; }
[ "$(wc -l <"$dir/traffic1.csv")" -eq 2 ] || { echo "cli_csv_reproducible: traffic CSV rows" >&2; fail=1; }
cmp -s "$dir/traffic1.csv" "$dir/traffic2.csv" || { echo "cli_csv_reproducible: traffic CSVs differ" >&2; fail=1; }
# The JSON keeps each size's wall time, and the table its column.
for i in 1 2; do
  [ "$(tr -d ' \n' <"$dir/coll$i.json" | grep -o '"wall_seconds":' | wc -l)" -eq 3 ] || {
    echo "cli_csv_reproducible: JSON $i lacks wall_seconds" >&2
    fail=1
  }
done
timeout 120 "$m" ici --config "$cfgs/torus4x4.yaml" --collective allreduce --algorithm dim --bytes 64KiB \
  >"$dir/table.txt" || { echo "cli_csv_reproducible: table exit $?" >&2; fail=1; }
grep -q 'GB/s_per_chip  wall_s$' "$dir/table.txt" || {
  echo "cli_csv_reproducible: table $(cat "$dir/table.txt")" >&2
  fail=1
}
rm -rf "$dir"
[ $fail -eq 0 ] && echo "cli_csv_reproducible: ok"
exit $fail
