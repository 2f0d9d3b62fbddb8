#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest (make bench-rpc): RPC throughput of the server's
# request path, YCSB C in libordo's rpc mode with one connection at depth
# 1 and 16 and with four connections at depth 1 and 16, against one loaded
# store (Documentation/benchmarking.rst, "The RPC path").  Prints each
# run's ops/s as a line "--- rpc THREADS DEPTH OPS".
# Usage: bench/rpc.sh [KEYS [SECONDS [ROUNDS]]]
cd "$(dirname "$0")/.." || exit 1
keys=${1:-100000}
secs=${2:-5}
rounds=${3:-1}
bench=build/bench/ordo-bench
rc=0
$bench -s rdma://192.0.2.1 --keys "$keys" --workload c --mode rpc \
	--seconds 1 --warmup 0 >/dev/null || exit 1
for round in $(seq "$rounds"); do
	for cfg in 1:1 1:16 4:1 4:16; do
		t=${cfg%:*}
		d=${cfg#*:}
		out=/tmp/rpc-$t-$d.json
		$bench -s rdma://192.0.2.1 --keys "$keys" --no-load \
			--workload c --dist uniform --mode rpc --threads "$t" \
			--depth "$d" --seconds "$secs" --warmup 1 \
			--json="$out" >/dev/null || rc=1
		ops=$(grep -o '"ops_per_sec": [0-9.]*' "$out" | head -1 |
		      cut -d' ' -f2)
		echo "--- rpc $t $d ${ops:-0} round $round"
	done
done
exit $rc
