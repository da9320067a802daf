#!/bin/sh
# usage: in_temp_dir.sh COMMAND...
# Runs COMMAND in a new empty folder, removed once it ends, and exits with its
# code. The files a command writes where it runs (a failing run's waveform,
# outputs given as bare names) are then its test's alone: two tests running at
# once under ctest -j never write one file, and none reads a file left by an
# earlier run.
dir=$(mktemp -d) || exit 1
cd "$dir" || exit 1
"$@"
rc=$?
cd / && rm -rf "$dir"
exit $rc
