#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest (make bench-profile): where the CPU goes during
# YCSB C uniform GETs, mode by mode, against one loaded store.  Under TCG
# the NIC is rxe, software on the same two vCPUs as the bench and the
# module, so the split below says whether a mode is bound by CPU (and
# whose) or by latency (idle vCPUs).  perf samples both vCPUs inside each
# timed window only: recording starts once the bench has built its key set
# and finished warming up.
# Usage: bench/ycsb_profile.sh [KEYS [SECONDS [MODES]]]
cd "$(dirname "$0")/.." || exit 1
keys=${1:-1000000}
secs=${2:-6}
modes=${3:-learned raw-read walk walk@256K rpc}
warm=2
bench=(build/bench/ordo-bench -s rdma://192.0.2.1 --keys "$keys"
       --key-dist lognormal --threads 1 --depth 8 --workload c
       --dist uniform --warmup "$warm")

"${bench[@]}" --mode learned --seconds 1 --quiet --json=/tmp/load.json \
	>/dev/null || exit 1
for mode in $modes; do
	echo "=== $mode"
	"${bench[@]}" --no-load --mode "$mode" --seconds "$secs" \
		--json=/tmp/bench.json >/dev/null 2>/tmp/bench.err &
	pid=$!
	# The run's start line comes after the key set is built.
	until grep -q " $mode \.\.\.$" /tmp/bench.err; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep "$warm"
	perf record -a -e cpu-clock -F 997 -o /tmp/perf.data -- \
		sleep $((secs - 1)) 2>/dev/null
	wait "$pid" || { cat /tmp/bench.err; exit 1; }
	perf report -i /tmp/perf.data --stdio --sort dso,sym \
		--percent-limit 0 2>/dev/null | grep -v '^#' | grep -v '^$' |
	python3 bench/ycsb_profile.py /tmp/bench.json $((secs - 1))
done
