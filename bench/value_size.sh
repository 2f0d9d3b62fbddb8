#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest, ordo.ko loaded with value_size=1024 (make
# bench/results/value_1k.json): YCSB C over 1 KiB values, learned, walk
# and RPC, for the bytes and round trips a GET costs when a leaf is read
# in parts (Documentation/client.rst).  Prints the tables, then the JSON
# report between marker lines.
# Usage: bench/value_size.sh [KEYS [SECONDS]]
cd "$(dirname "$0")/.." || exit 1
keys=${1:-200000}
secs=${2:-5}
json=/tmp/value_1k.json
set -x
build/bench/ordo-bench -s rdma://192.0.2.1 --keys "$keys" \
	--key-dist lognormal --value-size 1024 --threads 1 --depth 8 \
	--seconds "$secs" --warmup 1 --json="$json" \
	--run c:uniform:learned,walk,rpc
rc=$?
{ set +x; } 2>/dev/null
echo "--- value_1k.json begin"
cat "$json"
echo "--- value_1k.json end"
exit $rc
