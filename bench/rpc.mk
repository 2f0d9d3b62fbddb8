# SPDX-License-Identifier: GPL-2.0
# The RPC path's throughput (bench/rpc.sh) in the vmrun guest: one
# connection at depth 1 and 16, four connections at depth 1 and 16.
# `make bench-rpc` measures this tree into build/bench/rpc.txt and
# bench/results/rpc_now.json; bench/results/rpc.json holds the before/after
# comparison of issue #10 (Documentation/benchmarking.rst, "The RPC path").
RPC_ROUNDS ?= 3
RPC_SECONDS ?= 5

.PHONY: bench-rpc
bench-rpc: $(YCSB_BIN) module bench/rpc.sh bench/rpc_report.py
	@mkdir -p $(BUILD)/bench
	tools/vmrun --timeout 3000 -- bench/rpc.sh 100000 \
		$(RPC_SECONDS) $(RPC_ROUNDS) | tee $(BUILD)/bench/rpc.log
	grep -- '^--- rpc' $(BUILD)/bench/rpc.log > $(BUILD)/bench/rpc.txt
	python3 bench/rpc_report.py $(BUILD)/bench/rpc.txt > bench/results/rpc_now.json
