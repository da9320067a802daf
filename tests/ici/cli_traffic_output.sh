#!/bin/sh
# usage: cli_traffic_output.sh MXCOSIM CONFIG_DIR
# The traffic fields beside the original ones: `truncated` (a CSV and table
# column, and in the JSON with `refused_packets`), and for transpose, whose
# diagonal chips send nothing, an offered load over all chips (0.05 per
# sender x 12/16 on the 4x4 torus) with the given load kept as
# `offered_load_per_sender` and a note on stderr.
m=$1 cfgs=$2
fail=0
dir=$(mktemp -d) || exit 1
timeout 60 "$m" ici --config "$cfgs/torus4x4.yaml" --traffic transpose --load 0.05 --csv \
  --json "$dir/out.json" >"$dir/out.csv" 2>"$dir/err.txt" || { echo "cli_traffic_output: exit $?" >&2; fail=1; }
head -n 1 "$dir/out.csv" | grep -q ',saturated,truncated$' || { echo "cli_traffic_output: CSV header" >&2; fail=1; }
tail -n 1 "$dir/out.csv" | grep -q '^0\.038,0\.038,.*,no,no$' || {
  echo "cli_traffic_output: CSV row $(tail -n 1 "$dir/out.csv")" >&2
  fail=1
}
grep -q "12 of 16 chips send" "$dir/err.txt" || { echo "cli_traffic_output: stderr $(cat "$dir/err.txt")" >&2; fail=1; }
json=$(tr -d ' \n' <"$dir/out.json")
for want in '"offered_load_per_sender":0.05' '"truncated":false' '"refused_packets":0' '"sending_chips":12' \
  '"offered_load":0.0375'; do
  printf '%s' "$json" | grep -q "$want" || { echo "cli_traffic_output: JSON lacks $want" >&2; fail=1; }
done
rm -rf "$dir"
[ $fail -eq 0 ] && echo "cli_traffic_output: ok"
exit $fail
