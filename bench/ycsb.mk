# SPDX-License-Identifier: GPL-2.0
# ordo-bench: YCSB A-F and append over libordo (every read mode), raw
# READs and redis (bench/ycsb/, Documentation/benchmarking.rst).  `make
# bench` runs the reference comparison in the vmrun guest into
# bench/results/ycsb.json and its charts.
YCSB_SRCS := $(wildcard bench/ycsb/*.c) bench/datasets.c
YCSB_BIN := $(BUILD)/bench/ordo-bench
YCSB_KEYS ?= 1000000
YCSB_SECONDS ?= 10
YCSB_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

BENCH_BINS += $(YCSB_BIN)
BENCH_RESULTS += bench/results/ycsb.json bench/results/ycsb_throughput.png

$(YCSB_BIN): $(YCSB_SRCS) $(wildcard bench/ycsb/*.h) bench/datasets.h \
		libshim/ordo.h libshim/ordo_raw.h $(BUILD)/lib/libordo.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Ibench -pthread -o $@ $(YCSB_SRCS) \
		$(BUILD)/lib/libordo.a $(LIBORDO_LIBS_PRIVATE) -lhiredis -lm

# The guest's output holds the tables (kept as ycsb.txt) and the JSON.
bench/results/ycsb.json: $(YCSB_BIN) bench/ycsb.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	tools/vmrun --mem 3G --timeout 3000 -- bench/ycsb.sh $(YCSB_KEYS) \
		$(YCSB_SECONDS) | tee $(BUILD)/bench/ycsb.log
	sed -n '/^--- ycsb.json begin/,/^--- ycsb.json end/p' \
		$(BUILD)/bench/ycsb.log | sed '1d;$$d' > $@.tmp
	sed '/^--- ycsb.json begin/,$$d' $(BUILD)/bench/ycsb.log > bench/results/ycsb.txt
	python3 -m json.tool $@.tmp > /dev/null && mv $@.tmp $@

bench/results/ycsb_throughput.png: bench/results/ycsb.json bench/ycsb_plot.py
	$(YCSB_PYTHON) bench/ycsb_plot.py $< bench/results

.PHONY: bench-ycsb
bench-ycsb: bench/results/ycsb.json bench/results/ycsb_throughput.png

# Issue #12's figure: GETs of 1 KiB values (a leaf read in parts), on a
# store loaded with value_size=1024.  Not part of `make bench`'s default
# set; `make bench/results/value_1k.json`.
bench/results/value_1k.json: $(YCSB_BIN) bench/value_size.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	tools/vmrun --mem 3G --timeout 3000 --module-params value_size=1024 \
		-- bench/value_size.sh | tee $(BUILD)/bench/value_1k.log
	sed -n '/^--- value_1k.json begin/,/^--- value_1k.json end/p' \
		$(BUILD)/bench/value_1k.log | sed '1d;$$d' > $@.tmp
	sed '/^--- value_1k.json begin/,$$d' $(BUILD)/bench/value_1k.log \
		> bench/results/value_1k.txt
	python3 -m json.tool $@.tmp > /dev/null && mv $@.tmp $@
