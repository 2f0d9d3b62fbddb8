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

# Issue #11's figures end to end: the learned model on every key set of
# bench/datasets.c, one fresh store each (bench/ycsb_sets.sh; about 20
# minutes at 1M keys here).  Not part of `make bench`'s default set:
# `make bench/results/ycsb_sets.txt`.
YCSB_SETS_KEYS ?= 1000000
YCSB_SETS_SECONDS ?= 5
bench/results/ycsb_sets.json: $(YCSB_BIN) tools/ordoctl bench/ycsb_sets.sh \
		module
	@mkdir -p $(dir $@) $(BUILD)/bench
	tools/vmrun --mem 3G --timeout 3500 -- bench/ycsb_sets.sh \
		$(YCSB_SETS_KEYS) $(YCSB_SETS_SECONDS) | \
		tee $(BUILD)/bench/ycsb_sets.log
	sed -n '/^--- ycsb_sets.json begin/,/^--- ycsb_sets.json end/p' \
		$(BUILD)/bench/ycsb_sets.log | sed '1d;$$d' > $@.tmp
	python3 -m json.tool $@.tmp > /dev/null && mv $@.tmp $@

bench/results/ycsb_sets.txt: bench/results/ycsb_sets.json \
		bench/ycsb_sets_report.py
	$(YCSB_PYTHON) bench/ycsb_sets_report.py $< > $@

# Issue #12's figures: GETs of 1 KiB values (a leaf read in parts), and of
# 100-byte values in the same 1 KiB slots (a GET reads the value's length,
# not the slot), on a store loaded with value_size=1024; and of values out
# of line (4 KiB and 64 KiB on the default geometry: the key block, then
# the extent).  Not part of `make bench`'s default set; `make
# bench/results/value_1k.json` and so on.
# value_64k_writes.json: YCSB A over 64 KiB values (each update a staged
# upload, Documentation/client.rst "Long values").
# $(1) bytes, $(2) name, $(3) module parameters, $(4) keys, $(5) runs
# (write $(,) for a comma in them).
, := ,
VALUE_RUN = tools/vmrun --mem 3G --timeout 3000 $(3) \
	-- bench/value_size.sh $(4) 5 $(1) $(5) | tee $(BUILD)/bench/$(2).log && \
	sed -n '/^--- value_size.json begin/,/^--- value_size.json end/p' \
		$(BUILD)/bench/$(2).log | sed '1d;$$d' > $@.tmp && \
	sed '/^--- value_size.json begin/,$$d' $(BUILD)/bench/$(2).log \
		> bench/results/$(2).txt && \
	python3 -m json.tool $@.tmp > /dev/null && mv $@.tmp $@

bench/results/value_1k.json: $(YCSB_BIN) bench/value_size.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	$(call VALUE_RUN,1024,value_1k,--module-params value_size=1024,200000)

bench/results/value_1k_100b.json: $(YCSB_BIN) bench/value_size.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	$(call VALUE_RUN,100,value_1k_100b,--module-params value_size=1024,200000)

bench/results/value_4k.json: $(YCSB_BIN) bench/value_size.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	$(call VALUE_RUN,4096,value_4k,,20000)

bench/results/value_64k.json: $(YCSB_BIN) bench/value_size.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	$(call VALUE_RUN,65536,value_64k,,2000)

bench/results/value_64k_writes.json: $(YCSB_BIN) bench/value_size.sh module
	@mkdir -p $(dir $@) $(BUILD)/bench
	$(call VALUE_RUN,65536,value_64k_writes,,2000,a:uniform:learned$(,)rpc)
