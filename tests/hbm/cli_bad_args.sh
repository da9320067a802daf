#!/bin/sh
# usage: cli_bad_args.sh MXCOSIM CONFIG
# Bad `mxcosim hbm` arguments end at once with exit code 2 and a message
# naming the flag (or the trace file and line) at fault.
m=$1 cfg=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
expect() {  # expect MESSAGE-PATTERN ARGS...: exit 2 and the message (ARGS with --config $cfg unless they give one)
  want=$1
  shift
  case " $* " in
    *" --config "*) ;;
    *) set -- --config "$cfg" "$@" ;;
  esac
  out=$(timeout 60 "$m" hbm "$@" 2>&1)
  rc=$?
  if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -Fq -- "$want"; then
    echo "cli_bad_args: '$*' gave exit $rc and: $out (wanted exit 2 and '$want')" >&2
    fail=1
  fi
}
expect "--stacks: expected 1 to 1024, got 0" --pattern seq --stacks 0
expect "--stacks: expected 1 to 1024, got 268435456" --pattern seq --stacks 268435456
expect "--stacks: Argument" --pattern seq --stacks -5
# A misspelt option: the nearest one within two edits, or the one it begins, is suggested.
expect "does not exist (did you mean --pattern?)" --patern seq
expect "does not exist (did you mean --refresh-postpone?)" --pattern seq --refresh-post 3
expect "does not exist (did you mean --pattern?)" --PATTERN seq
# The option given the value the parser quotes, not an earlier one whose value is part of it.
expect "--stacks: Argument" --pattern seq --outstanding 5 --stacks -5
expect "--refresh-postpone: expected 0 to 7, got 8" --pattern seq --refresh-postpone 8
# Per-bank refresh is never postponed: a count for it would look applied, on
# the command line or in the same config file. An all-bank config's own count
# (the preset's 7) is no error under --refresh per_bank, nor is 0, nor a count for an
# all-bank refresh that overrides a per-bank config.
expect "--refresh-postpone 3: refresh is per-bank (--refresh per_bank), which is never postponed" \
  --pattern seq --requests 10 --refresh per_bank --refresh-postpone 3
sed 's/refresh: all_bank/refresh: per_bank/' "$cfg" > "$dir/per_bank_postponed.yaml"
expect "per_bank_postponed.yaml:" --config "$dir/per_bank_postponed.yaml" --pattern seq --requests 10
expect "field 'controller.refresh_postpone': 7 with refresh per_bank, which is never postponed" \
  --config "$dir/per_bank_postponed.yaml" --pattern seq --requests 10
expect "--refresh-postpone 3: refresh is none (--refresh none), which issues no refresh" \
  --pattern seq --requests 10 --refresh none --refresh-postpone 3
sed 's/refresh_postpone: 7/refresh_postpone: 0/' "$dir/per_bank_postponed.yaml" > "$dir/per_bank.yaml"
expect "--refresh-postpone 2: refresh is per-bank (controller.refresh: per_bank in $dir/per_bank.yaml)" \
  --config "$dir/per_bank.yaml" --pattern seq --requests 10 --refresh-postpone 2
accept() {  # accept ARGS...: a short run with ARGS succeeds
  if ! out=$(timeout 60 "$m" hbm "$@" --pattern seq --requests 10 2>&1); then
    echo "cli_bad_args: '$*' was refused: $out" >&2
    fail=1
  fi
}
accept --config "$cfg" --refresh per_bank
accept --config "$cfg" --refresh per_bank --refresh-postpone 0
accept --config "$dir/per_bank.yaml"
accept --config "$dir/per_bank.yaml" --refresh all_bank --refresh-postpone 3
expect "--outstanding: Argument" --pattern seq --outstanding=many
# The bad value names its option even where an earlier option's value is part of it.
expect "--outstanding: Argument" --pattern seq --requests 4 --outstanding 4294967296
# Values past their option's type are refused, not wrapped (2^64 + 2^63 read as 2^63 before).
expect "--seed: Argument" --pattern seq --requests 4 --seed 27670116110564327424
expect "--requests: Argument" --pattern seq --requests 0x10000000000000010
# A decimal value with text after its number is refused, not read up to the number.
expect "--write-ratio: Argument" --pattern mix --requests 4 --write-ratio 0.5x
expect "--write-ratio: Argument" --pattern mix --requests 4 --write-ratio 0,5
expect "--size 4294967295: hbm: request 0 of 4294967295 bytes needs at least" --pattern mix --size 4294967295
printf '0x40 READ 0\n0xffffffffffffffff READ 9\n' > "$dir/top.trace"
expect "$dir/top.trace:2: field address" --trace "$dir/top.trace"
printf '0x40 READ 18446744073709551\n' > "$dir/late.trace"
expect "$dir/late.trace:1: field cycle: 18446744073709551 is too large" --trace "$dir/late.trace"
printf '0x40 READ 99999999999999999999999\n' > "$dir/huge.trace"
expect "$dir/huge.trace:1: field cycle: 99999999999999999999999 is too large" --trace "$dir/huge.trace"
printf '0x1FFFFFFFFFFFFFFFF READ 1\n' > "$dir/wide.trace"
expect "$dir/wide.trace:1: field address: '0x1FFFFFFFFFFFFFFFF' is past 2^64" --trace "$dir/wide.trace"
printf '0x40 READ 1\r0x80 READ 2\r' > "$dir/cr.trace"
expect "are the file's line endings CR only?" --trace "$dir/cr.trace"
expect "--requests: must be > 0" --pattern seq --requests 0
expect "--outstanding: must be > 0" --pattern seq --outstanding 0
expect "--stride: must be > 0" --pattern stride --stride 0
expect "--write-ratio: must be in [0, 1]" --pattern mix --write-ratio 2
: > "$dir/empty.trace"
expect "$dir/empty.trace: holds no requests" --trace "$dir/empty.trace"
# Output files: a path that cannot be written is found before the run, and
# a write that fails (a full disk) is an error, not a silent exit 0.
expect "--json $dir/none/out.json: folder '$dir/none' does not exist" --pattern seq --json "$dir/none/out.json"
expect "--json $dir: is a directory" --pattern seq --json "$dir"
expect "/dev/full: writing failed" --pattern seq --requests 10 --json /dev/full
expect "unexpected argument 'stray'" --pattern seq stray
# The table printed to a full disk is lost: an error, not exit 0.
out=$(timeout 60 "$m" hbm --config "$cfg" --pattern seq --requests 10 2>&1 >/dev/full)
if [ $? -ne 2 ] || ! printf '%s\n' "$out" | grep -Fq "writing standard output failed"; then
  echo "cli_bad_args: a table written to /dev/full gave: $out" >&2
  fail=1
fi
# A request no queue can take names the trace line, or the pattern's options, it came from.
printf '# header\n0x0 READ 0\n0x4000 READ 10\n0x10 READ 20\n' > "$dir/unaligned.trace"
expect "$dir/unaligned.trace:4: hbm: request 2 needs 33 bursts in pseudo-channel 0" --trace "$dir/unaligned.trace" --size 16384
expect "--pattern stride request 1 at 0x64 of --size 16384: hbm: request 1 needs 33 bursts" --pattern stride --stride 100 --size 16384
# The refresh timings are checked for the mode the run uses (--refresh).
sed 's/RFC: 260ns/RFC: 3850/' "$cfg" > "$dir/rfc.yaml"
expect "rfc.yaml:" --pattern seq --requests 10 --config "$dir/rfc.yaml"
if ! timeout 60 "$m" hbm --config "$dir/rfc.yaml" --refresh none --pattern seq --requests 10 >/dev/null 2>&1; then
  echo "cli_bad_args: tRFC refused with --refresh none" >&2
  fail=1
fi
# Options the chosen source does not read would look applied: refused.
printf '0x40 READ 0\n' > "$dir/one.trace"
expect "--write-ratio is an option of --pattern, not --trace" --trace "$dir/one.trace" --write-ratio 0.5
expect "--seed is an option of --pattern, not --trace" --trace "$dir/one.trace" --seed 5
expect "--trace-format is an option of --trace, not --pattern" --pattern seq --trace-format dramsim3
expect "--stride is an option of --pattern stride, not random" --pattern random --stride 128
expect "--write-ratio: --pattern chase makes loads only" --pattern chase --write-ratio 0.5
# --seed is the exception: accepted with every pattern, also seq and stride without writes, which draw
# nothing at random. A regression suite's seeds give each test of a group its --seed, and
# regress/nightly.yaml runs seq and stride with seeds 1 and 2.
for pattern in seq stride random chase mix; do
  if ! out=$(timeout 60 "$m" hbm --config "$cfg" --pattern "$pattern" --requests 10 --seed 2 2>&1); then
    echo "cli_bad_args: --seed was refused with --pattern $pattern: $out" >&2
    fail=1
  fi
done
# An output naming an input file would overwrite it: refused, the input intact.
printf '0x40 READ 0\n' > "$dir/keep.trace"
expect "--json names '$dir/keep.trace', the file --trace reads" --trace "$dir/keep.trace" --json "$dir/keep.trace"
if [ "$(cat "$dir/keep.trace")" != "0x40 READ 0" ]; then
  echo "cli_bad_args: the trace was overwritten" >&2
  fail=1
fi
cp "$cfg" "$dir/keep.yaml"
out=$(timeout 60 "$m" hbm --config "$dir/keep.yaml" --pattern seq --json "$dir/./keep.yaml" 2>&1)
if [ $? -ne 2 ] || ! printf '%s\n' "$out" | grep -Fq -- "the file --config reads" || ! cmp -s "$cfg" "$dir/keep.yaml"; then
  echo "cli_bad_args: --json naming the config gave: $out" >&2
  fail=1
fi
# A config in another encoding than UTF-8 is refused at its line; a file
# name that is not UTF-8 is fine, and the results JSON carries it with the
# byte replaced (the run's results were lost to a JSON error before).
sed 's/^  name: .*/  name: HBM2-\xb5s/' "$cfg" > "$dir/latin1.yaml"
line=$(grep -n '^  name: ' "$cfg" | head -1 | cut -d: -f1)
out=$(timeout 60 "$m" hbm --config "$dir/latin1.yaml" --pattern seq --requests 10 2>&1)
if [ $? -ne 2 ] || [ "$out" != "mxcosim hbm: error: $dir/latin1.yaml:$line: not UTF-8 text (byte 0xB5 in column 14); save the file as UTF-8" ]; then
  echo "cli_bad_args: a Latin-1 config gave: $out" >&2
  fail=1
fi
odd="$dir/$(printf 'odd\377name').yaml"
cp "$cfg" "$odd"
if ! timeout 60 "$m" hbm --config "$odd" --pattern seq --requests 10 --json "$dir/odd.json" >/dev/null 2>&1 ||
  ! python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["config"]; sys.exit(not c.endswith("odd\ufffdname.yaml"))' \
    "$dir/odd.json"; then
  echo "cli_bad_args: a config whose name is not UTF-8 gave no JSON naming it" >&2
  fail=1
fi
# An option given twice: the parser kept the last silently.
expect "--requests given 2 times ('10', then '20'): give it once" --pattern seq --requests 10 --requests 20
[ $fail -eq 0 ] && echo "cli_bad_args: ok"
exit $fail
