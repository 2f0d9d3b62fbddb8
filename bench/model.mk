# SPDX-License-Identifier: GPL-2.0
# Learned model: quality, size and speed on five generated datasets.
# `make bench-model` (or `make bench`) regenerates bench/results/model.json
# and bench/results/model_error.png; see Documentation/model.rst.

BENCH_MODEL_SRCS := bench/datasets.c kmod/core/model_predict.c \
	kmod/core/model_train.c kmod/core/model_region.c
BENCH_MODEL_HDRS := bench/datasets.h kmod/core/compat.h kmod/core/model.h \
	uapi/linux/ordo_model.h $(wildcard libshim/core_user.h)
# Debian's python3-matplotlib lives in the system interpreter.
MODEL_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

BENCH_BINS += $(BUILD)/bench/model_bench
BENCH_RESULTS += bench/results/model.json bench/results/model_error.png

$(BUILD)/bench/model_bench: bench/model_bench.c $(BENCH_MODEL_SRCS) \
		$(BENCH_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< $(BENCH_MODEL_SRCS) -lm

bench/results/model.json: $(BUILD)/bench/model_bench
	@mkdir -p $(dir $@)
	$< --json $@.tmp && mv $@.tmp $@

bench/results/model_error.png: bench/results/model.json bench/model_plot.py
	$(MODEL_PYTHON) bench/model_plot.py $< $@

# 100M keys of three sets, every 10th key evaluated (~25 minutes, 5.5 GB):
# not part of `make bench`, run by hand with `make bench-model-100m`.
bench/results/model_100m.json: $(BUILD)/bench/model_bench
	@mkdir -p $(dir $@)
	$< --keys 100000000 --dist uniform --dist books --dist osm --stride 10 \
		--appends 0 --json $@.tmp && mv $@.tmp $@

# The trainer's policy over the three insert streams (the bulk figures at
# 200K keys, the streams as in model.json: 1M keys onto 100K), on two
# sets: descending inserts cost thousands of full trainings (~12 minutes
# per set here; timeseries took over half an hour).
bench/results/model_streams.json: $(BUILD)/bench/model_bench
	@mkdir -p $(dir $@)
	$< --keys 200000 --dist uniform --dist lognormal --json $@.tmp && \
		mv $@.tmp $@

.PHONY: bench-model bench-model-100m bench-model-streams
bench-model: bench/results/model.json bench/results/model_error.png
bench-model-100m: bench/results/model_100m.json
bench-model-streams: bench/results/model_streams.json
