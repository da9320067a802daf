#!/bin/sh
# usage: cli_expect.sh EXIT_CODE REGEX COMMAND...
# Runs COMMAND; passes when it exits with EXIT_CODE and its combined output
# matches the extended regular expression REGEX.
want=$1; pattern=$2; shift 2
out=$("$@" 2>&1); got=$?
echo "$out"
if [ "$got" -ne "$want" ]; then echo "cli_expect: exit code $got, expected $want" >&2; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then echo "cli_expect: output does not match /$pattern/" >&2; exit 1; fi
