#!/bin/sh
# usage: cli_no_data.sh MXCOSIM CONFIG SANITIZED
# `mxcosim hbm` keeps no request data: 100 000 requests, half of them 256 B
# writes scattered over 1 GiB, must run within 120 MiB of address space. A
# backing store would take a 4 KiB page per page written, about 180 MiB
# here. Sanitizer builds reserve far more address space: skipped (77).
[ "$3" = "ON" ] && { echo "cli_no_data: skipped in a sanitizer build"; exit 77; }
ulimit -v 122880 || { echo "cli_no_data: cannot limit the address space"; exit 77; }
out=$("$1" hbm --config "$2" --pattern mix --requests 100000 2>&1) || {
  echo "cli_no_data: mxcosim hbm failed within 120 MiB: $out" >&2
  exit 1
}
printf '%s\n' "$out" | grep -Eq "requests +100000 " || { echo "cli_no_data: $out" >&2; exit 1; }
echo "cli_no_data: ok"
