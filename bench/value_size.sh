#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest (make bench/results/value_1k.json: ordo.ko
# loaded with value_size=1024): YCSB C over values of BYTES bytes (1 KiB
# by default; fewer than the slot holds in value_1k_100b.json; more, out
# of line, in value_4k.json and value_64k.json on the default geometry),
# learned, walk and RPC, for the bytes and round trips a GET costs when a
# leaf is read in parts or a value out of line (Documentation/client.rst).
# RUNS (ordo-bench --run) picks other workloads: YCSB A in
# value_64k_writes.json, whose updates upload 64 KiB in STAGE waves.
# Prints the tables, then the JSON report between marker lines.
# Usage: bench/value_size.sh [KEYS [SECONDS [BYTES [RUNS]]]]
cd "$(dirname "$0")/.." || exit 1
keys=${1:-200000}
secs=${2:-5}
bytes=${3:-1024}
runs=${4:-c:uniform:learned,walk,rpc}
json=/tmp/value_size.json
set -x
build/bench/ordo-bench -s rdma://192.0.2.1 --keys "$keys" \
	--key-dist lognormal --value-size "$bytes" --threads 1 --depth 8 \
	--seconds "$secs" --warmup 1 --json="$json" \
	--run "$runs"
rc=$?
{ set +x; } 2>/dev/null
echo "--- value_size.json begin"
cat "$json"
echo "--- value_size.json end"
exit $rc
