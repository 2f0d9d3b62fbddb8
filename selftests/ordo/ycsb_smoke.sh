#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ordo-bench's own accounting (TAP), on a small static store over the
# guest's RDMA server: a learned GET is exactly one round trip and no RPC
# (client counters and the server's sysfs RPC count), and one READ but
# for the keys of an undecided fence-code tie, whose adjacent leaves come
# in the same batch (Documentation/model.rst; at most 1% here), rpc mode
# does no READ, raw-read sends no RPC; the write workloads, scans, append
# and redis run without errors; the JSON parses and has every field.
# Counts, not times: one second per mode, and at least 200 operations
# (--min-ops), so that E's 5% of inserts occur (all but surely: 0.95^200
# is 4e-5) even where a scan takes seconds (the debug kernel).
# Leaves the store empty (--cleanup).  Needs build/bench/ordo-bench.
cd "$(dirname "$0")/../.." || exit 1
bench=build/bench/ordo-bench
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

if [ ! -x "$bench" ]; then
	echo "ok 1 - ordo-bench smoke # SKIP $bench is not built"
	echo "1..1"
	exit 0
fi
"$bench" -s rdma://192.0.2.1 --keys 5000 --seconds 1 --warmup 0.3 \
	--min-ops 200 --threads 1 --depth 4 --quiet --cleanup --json="$out" \
	--run c:uniform:learned,rpc,raw-read,walk,model-only,redis \
	--run d::learned,rpc --run e::learned --run f:zipfian:learned \
	--run append::learned 2>&1 | sed 's/^/# /'
rc=${PIPESTATUS[0]}

python3 - "$out" "$rc" <<'PY'
import json, sys

n = 0
fail = 0
def tap(ok, name, detail=""):
    global n, fail
    n += 1
    if ok:
        print(f"ok {n} - {name}")
    else:
        fail = 1
        print(f"not ok {n} - {name}" + (f" ({detail})" if detail else ""))

tap(sys.argv[2] == "0", "ordo-bench exits 0", f"status {sys.argv[2]}")
try:
    doc = json.load(open(sys.argv[1]))
    runs = doc["runs"]
    tap(True, "the JSON report parses")
except Exception as e:
    tap(False, "the JSON report parses", repr(e))
    print(f"1..{n}")
    sys.exit(1)

fields = ["ops_per_sec", "p50_us", "p99_us", "p999_us", "reads_per_op",
          "bytes_per_op", "round_trips_per_op", "rpcs_per_op",
          "fallback_rate", "speculative_rate", "client_cache_bytes", "mode",
          "workload", "dist", "keys", "value_size", "threads", "depth",
          "ops", "errors", "server", "fallback_timeline", "latency_cdf",
          "ratio_vs_first"]
tap(len(runs) == 11, "one report per mode run", f"{len(runs)} runs")
for r in runs:
    name = f"{r.get('workload')} {r.get('dist')} {r.get('mode')}"
    missing = [f for f in fields if f not in r]
    tap(not missing, f"[{name}] every field", f"missing {missing}")
    tap(r.get("errors") == 0 and r.get("ops", 0) > 0,
        f"[{name}] operations done without errors",
        f"ops {r.get('ops')}, errors {r.get('errors')}, "
        f"first {r.get('first_error')}")

def run(w, m):
    return next(r for r in runs if r["workload"] == w and r["mode"] == m)

c = run("c", "learned")
srv = c["server"] or {}
tap(c["round_trips_per_op"] == 1 and 1 <= c["reads_per_op"] <= 1.01,
    "learned: exactly one round trip and one READ per GET (ties aside)",
    f"{c['round_trips_per_op']} round trips, {c['reads_per_op']} READs")
tap(c["rpcs_per_op"] == 0 and srv.get("rpcs_per_op") == 0,
    "learned: no RPC per GET (client and server counters)",
    f"client {c['rpcs_per_op']}, server {srv.get('rpcs_per_op')}")
tap(c["fallback_rate"] == 0 and c["gets"] == c["ops"],
    "learned: no fallback; every operation a GET")
r = run("c", "rpc")
tap(r["reads_per_op"] == 0 and r["rpcs_per_op"] == 1 and
    (r["server"] or {}).get("rpcs_per_op") == 1,
    "rpc: no READ, one RPC per GET (server agrees)",
    f"{r['reads_per_op']} READs, {r['rpcs_per_op']} RPCs")
r = run("c", "raw-read")
tap(r["rpcs_per_op"] == 0 and r["reads_per_op"] == 1 and
    abs(r["bytes_per_op"] - c["bytes_per_op"] / c["reads_per_op"]) < 0.5,
    "raw-read: no RPC; one READ of the size of a learned GET's READs",
    f"{r['rpcs_per_op']} RPCs, {r['bytes_per_op']} vs "
    f"{c['bytes_per_op']} B in {c['reads_per_op']} READs")
r = run("c", "redis")
tap(r["reads_per_op"] == 0 and r["rpcs_per_op"] == 1,
    "redis: one command per GET, no READ")
r = run("e", "learned")
tap(r["scans"] > 0 and r["writes"] > 0, "e: scans and inserts ran")
r = run("append", "learned")
tap(r["writes"] > 0 and r["not_found"] == 0,
    "append: inserts ran; reads of recent keys found them",
    f"{r['writes']} writes, {r['not_found']} not found")
print(f"1..{n}")
sys.exit(fail)
PY
