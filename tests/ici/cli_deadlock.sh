#!/bin/sh
# usage: cli_deadlock.sh MXCOSIM
# A collective that deadlocks (an 8-ring without datelines, one VC, one-packet
# buffers) is the model's verdict, as for traffic: exit 1, said on stderr,
# and recorded in the JSON (deadlocked, no time, the messages injected). It once exited 2, the code
# of bad input, and wrote no JSON.
m=$1
fail=0
dir=$(mktemp -d) || exit 1
cat >"$dir/nodl.yaml" <<'YAML'
ici:
  name: nodl_r8
  model: torus
  topology:
    dims: [8]
    wrap: true
  router:
    vcs_per_class: 1
    buffer_bytes_per_vc: 4160
    injection_queue: 4
    datelines: false
YAML
err=$(timeout 60 "$m" ici --config "$dir/nodl.yaml" --collective alltoall --algorithm ring --bytes 1MiB \
  --json "$dir/out.json" 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 1 ]; then
  echo "cli_deadlock: exit $rc, wanted 1: $err" >&2
  fail=1
fi
printf '%s\n' "$err" | grep -q "deadlocked at 1 of 1 sizes" || { echo "cli_deadlock: stderr: $err" >&2; fail=1; }
tr -d ' \n' <"$dir/out.json" | grep -q '"deadlocked":true' || { echo "cli_deadlock: JSON lacks deadlocked" >&2; fail=1; }
tr -d ' \n' <"$dir/out.json" | grep -q '"time_ns":null' || { echo "cli_deadlock: JSON has a time" >&2; fail=1; }
# The messages injected before it: at least one from each of the 8 chips (it said 0).
n=$(tr -d ' \n' <"$dir/out.json" | sed -n 's/.*"messages":\([0-9]*\).*/\1/p')
[ "${n:-0}" -ge 8 ] || { echo "cli_deadlock: JSON messages '$n', wanted the messages injected" >&2; fail=1; }
# With datelines the same collective completes: exit 0, not deadlocked.
sed 's/datelines: false/datelines: true/' "$dir/nodl.yaml" >"$dir/dl.yaml"
timeout 60 "$m" ici --config "$dir/dl.yaml" --collective alltoall --algorithm ring --bytes 1MiB \
  --json "$dir/out2.json" >/dev/null 2>&1 || { echo "cli_deadlock: with datelines it failed" >&2; fail=1; }
tr -d ' \n' <"$dir/out2.json" | grep -q '"deadlocked":false' || { echo "cli_deadlock: JSON lacks false" >&2; fail=1; }
rm -rf "$dir"
[ $fail -eq 0 ] && echo "cli_deadlock: ok"
exit $fail
