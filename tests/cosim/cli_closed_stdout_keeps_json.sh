#!/bin/sh
# usage: cli_closed_stdout_keeps_json.sh MXCOSIM   (in a folder of its own: in_temp_dir.sh)
# A standard output whose reader has gone (`mxcosim run ... | head -1`): every write to it fails
# (here from the first: the pipe's read end is closed before the run starts), the --json file
# is written all the same, and the run says so with exit 2 where it would have exited 0.
python3 - "$1" <<'PY'
import json, os, subprocess, sys
r, w = os.pipe()
os.close(r)
# subprocess gives the child SIGPIPE's default action, as a shell does.
p = subprocess.run([sys.argv[1], "run", "--m", "4", "--k", "4", "--n", "4", "--json", "r.json"],
                   stdout=w, stderr=subprocess.PIPE, text=True)
os.close(w)
print(p.stderr, end="")
def fail(why):
    print("cli_closed_stdout_keeps_json: " + why, file=sys.stderr)
    sys.exit(1)
if p.returncode != 2:
    fail("exit status %d, expected 2" % p.returncode)
if "writing standard output failed" not in p.stderr:
    fail("the failed output is not said")
if not os.path.exists("r.json"):
    fail("r.json not written")
res = json.load(open("r.json"))
if res["status"] != "pass" or res["elements_checked"] != 16:
    fail("r.json is not the run's results")
PY
