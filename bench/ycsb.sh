#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest (make bench): the reference comparison of
# Documentation/benchmarking.rst in one ordo-bench invocation against one
# loaded store.  Prints the tables, then the JSON report between marker
# lines (the guest's files do not outlive it).
# Usage: bench/ycsb.sh [KEYS [SECONDS]]
cd "$(dirname "$0")/.." || exit 1
keys=${1:-1000000}
secs=${2:-5}
json=/tmp/ycsb.json
set -x
build/bench/ordo-bench -s rdma://192.0.2.1 --keys "$keys" \
	--key-dist lognormal --threads 1 --depth 8 --seconds "$secs" \
	--warmup 1 --json="$json" \
	--run c:uniform:learned,model-only,walk,walk@256K,rpc,raw-read,redis \
	--run c:zipfian:learned,rpc \
	--run d:latest:learned,rpc \
	--run e:uniform:learned,rpc \
	--run a:uniform:learned,rpc \
	--run append:latest:learned,rpc
rc=$?
{ set +x; } 2>/dev/null
echo "--- ycsb.json begin"
cat "$json"
echo "--- ycsb.json end"
exit $rc
