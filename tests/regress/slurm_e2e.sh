#!/usr/bin/env bash
# Runs regress/slurm/submit.sh against a real single-node Slurm that this
# script starts itself (slurmctld + slurmd, private config, loopback only)
# and checks the merged database and reports. Exits 77 (skipped) with the
# reason when Slurm cannot run here.
#   slurm_e2e.sh MXCOSIM SOURCE_DIR
set -uo pipefail
mx=$1 src=$2
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

for b in slurmctld slurmd sbatch squeue sinfo; do
  command -v "$b" >/dev/null 2>&1 || skip "$b is not installed (Debian: slurmctld slurmd slurm-client)"
done
[[ $(id -u) -eq 0 ]] || skip "starting slurmd needs root"

work=$(mktemp -d /tmp/mxcosim_slurm_XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  [[ -n ${MXCOSIM_KEEP_TEST_DIRS:-} ]] || rm -rf "$work"
}
trap cleanup EXIT

host=$(hostname -s)
base=$((20000 + ($$ % 20000)))
mkdir -p "$work/state" "$work/spool" "$work/out"
cat > "$work/slurm.conf" <<CONF
ClusterName=mxcosimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SrunPortRange=$((base + 2))-$((base + 40))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$work/slurmd.out" 2>&1 & pids+=($!)
up=""
for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null | head -1)
  if [[ $state == idle* ]]; then up=1; break; fi
  sleep 0.5
done
if [[ -z $up ]]; then
  skip "Slurm did not come up on this machine (node state '${state:-none}'); slurmctld: $(tail -3 "$work/slurmctld.log" "$work/slurmctld.out" 2>/dev/null | tr '\n' ' ' | cut -c1-400) slurmd: $(tail -3 "$work/slurmd.log" "$work/slurmd.out" 2>/dev/null | tr '\n' ' ' | cut -c1-400)"
fi

cat > "$work/suite.yaml" <<'YAML'
suite: slurmcheck
groups:
  - name: gemm
    args: {rows: 4, cols: 4, m: 8, k: 8, n: 8}
    seeds: [1, 2, 3, 4, 5]
  - name: flipped
    args: {rows: 4, cols: 4, m: 4, k: 4, n: 8, inject-fault: 3}
  # A path relative to the folder submit.sh runs in, as the shipped suites' configs/...
  - name: hbm
    command: hbm
    args: {config: configs/hbm/hbm3.yaml, requests: 200, pattern: seq}
YAML

export MXCOSIM=$mx
ids=$(cd "$src" && regress/slurm/submit.sh "$work/suite.yaml" "$work/out" 3) || fail "submit.sh failed: $ids"
echo "$ids"
merge=$(awk '/^merge/ {print $2}' <<<"$ids")
[[ -n $merge ]] || fail "no merge job id in: $ids"
for _ in $(seq 1 240); do
  [[ -z $(squeue -h 2>/dev/null) ]] && break
  sleep 0.5
done
[[ -z $(squeue -h 2>/dev/null) ]] || fail "jobs still queued after 120 s: $(squeue 2>&1)"

out=$work/out
for k in 1 2 3; do [[ -f $out/shard-$k/results.db ]] || fail "shard $k wrote no database; $(cat "$out"/*.out 2>/dev/null | tail -20)"; done
for f in results.db report.html junit.xml results.csv; do
  [[ -f $out/$f ]] || fail "merge step wrote no $f; $(cat "$out"/mxcosim-regress-merge-*.out 2>/dev/null)"
done
# 7 tests over 3 shards, one run, exactly the injected fault failed: the HBM test's
# relative config path resolved in the folder submit.sh was run from.
grep -q '<testsuite name="slurmcheck" tests="7" failures="1" errors="0" skipped="0"' "$out/junit.xml" ||
  fail "merged junit counts wrong: $(head -3 "$out/junit.xml"); $(grep -A2 '<error' "$out/junit.xml" | head -6)"
[[ $(grep -c '^slurmcheck,' "$out/results.csv") -eq 7 ]] || fail "merged CSV does not have 7 rows"
grep -q '^slurmcheck,[^,]*,slurm-[^,]*,hbm,pass,' "$out/results.csv" ||
  fail "the HBM test with a relative config did not pass"
# The tasks' logs go to OUTROOT, not to the folder the tasks run in.
[[ $(compgen -G "$out/mxcosim-regress-[0-9]*_[123].out" | wc -l) -eq 3 ]] || fail "no log of each task in $out"
[[ -z $(compgen -G "$src/mxcosim-regress-*.out") ]] || fail "a task's log was written in $src"
grep -q '^slurmcheck,[^,]*,slurm-[^,]*,flipped,fail,' "$out/results.csv" || fail "the fault test is not the failure"
"$mx" report --db "$out/results.db" --json "$work/check.json" >/dev/null || fail "report from merged db failed"
grep -q '"shard": "1/3,2/3,3/3"' "$work/check.json" || fail "merged run does not list the 3 shards"
echo "slurm end-to-end: 3 shards and the merge step ran on a single-node Slurm; merged results check out"
