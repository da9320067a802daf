#!/usr/bin/env bash
# Runs a suite on a Slurm cluster: a job array of N shards, then one merge
# step that builds one database and one report. Prints the two job ids.
#   regress/slurm/submit.sh SUITE OUTROOT N [BASELINE_REV]
# OUTROOT must be on a file system every node sees. The tests run in the
# folder this script is run from (as `mxcosim regress` run by hand runs them
# in its own), so the suite's relative paths (configs/...) resolve there: it
# must be on a shared file system too. MXCOSIM names the binary (default:
# mxcosim on PATH); extra sbatch options go in SBATCH_ARGS.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 SUITE OUTROOT N [BASELINE_REV]" >&2
  exit 2
fi
suite=$(realpath "$1") root=$(realpath -m "$2") shards=$3 baseline=${4:-}
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: N must be a positive integer, got '$shards'" >&2
  exit 2
fi
here=$(dirname "$(realpath "$0")")
workdir=$PWD
rev=$(git -C "$(dirname "$suite")" rev-parse HEAD 2>/dev/null || echo unknown)
label="slurm-$(date -u +%Y-%m-%dT%H%M%S)"
mkdir -p "$root"
# Each task's log goes to OUTROOT whatever folder the task runs in.
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_ARGS:-} --chdir="$workdir" --output="$root/mxcosim-regress-%A_%a.out" \
  --array=1-"$shards" \
  "$here/shard.sbatch" "$suite" "$root" "$shards" "$label" "$rev")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --chdir="$root" --output="$root/mxcosim-regress-merge-%j.out" \
  --dependency=afterany:"$array" \
  "$here/merge.sbatch" "$root" "$baseline")
merge=${merge%%;*}
echo "array $array"
echo "merge $merge"
