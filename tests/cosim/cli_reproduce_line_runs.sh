#!/bin/sh
# usage: cli_reproduce_line_runs.sh MXCOSIM
# A failing run's "reproduce:" line is a shell command that runs the same run: an output name
# holding characters the shell treats specially ('(' and ';') is quoted, and the command
# writes the same results file again.
m=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
name='r(1);x.json'
"$m" run --m 4 --k 4 --n 8 --inject-fault 3 --no-fail-wave --json "$name" >out 2>&1
[ $? -eq 1 ] || { echo "cli_reproduce_line_runs: expected exit 1" >&2; cat out >&2; exit 1; }
line=$(sed -n 's/^  reproduce: //p' out)
[ -n "$line" ] || { echo "cli_reproduce_line_runs: no reproduce line" >&2; cat out >&2; exit 1; }
mv "$name" first.json
PATH="$(dirname "$m"):$PATH" sh -c "$line" >again 2>&1
rc=$?
if [ $rc -ne 1 ] || ! cmp -s first.json "$name"; then
  echo "cli_reproduce_line_runs: '$line' gave exit $rc (wanted 1) and results $(ls)" >&2
  cat again >&2
  exit 1
fi
