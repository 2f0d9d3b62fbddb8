#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest (make bench/results/ycsb_sets.json): the learned
# model end to end on every key set of bench/datasets.c, each in a fresh
# store (the module loaded again): KEYS keys, YCSB C uniform (learned and
# rpc), then D latest and the append workload (learned), whose inserts
# the trainer follows.  After the runs, the tree's and the model's sysfs
# figures.  Prints a table, then the JSON between marker lines (the
# guest's files do not outlive it).
# Usage: bench/ycsb_sets.sh [KEYS [SECONDS]]
cd "$(dirname "$0")/.." || exit 1
keys=${1:-200000}
secs=${2:-5}
sets="linear noised uniform lognormal maplike osm fb timeseries books"
sys=/sys/class/misc/ordo
rc=0

# One sysfs figure as a JSON member.
member() {
	printf '"%s": %s' "$2" "$(cat "$sys/$1/$2")"
}

first=1
echo "{\"bench\": \"ordo-bench per key set\", \"keys\": $keys, \"seconds\": $secs, \"sets\": {" > /tmp/sets.json
for set in $sets; do
	if grep -q '^ordo ' /proc/modules; then
		rmmod ordo || exit 1
	fi
	insmod kmod/ordo.ko || exit 1
	build/bench/ordo-bench -s rdma://192.0.2.1 --keys "$keys" \
		--key-dist "$set" --threads 1 --depth 8 --seconds "$secs" \
		--warmup 1 --json="/tmp/ycsb_$set.json" \
		--run c:uniform:learned,rpc \
		--run d:latest:learned \
		--run append:latest:learned || rc=1
	node=$(tools/ordoctl -s rdma://192.0.2.1 stats |
	       awk '$1 == "node_size" { print $2 }')
	[ "$first" = 1 ] || echo "," >> /tmp/sets.json
	first=0
	{
		printf '"%s": {"node_size": %s, ' "$set" "${node:-0}"
		for f in keys leaves inner_nodes leaves_retired; do
			member stats $f
			printf ', '
		done
		for f in sub_models model_bytes tt_bytes full_trains retrains; do
			member model $f
			printf ', '
		done
		printf '"ycsb": '
		cat "/tmp/ycsb_$set.json"
		printf '}'
	} >> /tmp/sets.json
done
echo "}}" >> /tmp/sets.json
echo "--- ycsb_sets.json begin"
cat /tmp/sets.json
echo "--- ycsb_sets.json end"
exit $rc
