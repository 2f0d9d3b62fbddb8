# SPDX-License-Identifier: GPL-2.0
# The learned model as ordo.ko trains it, measured in the vmrun guest
# (TCG: keep KERNEL_BENCH_KEYS modest; the native bench covers 10M keys).
KERNEL_BENCH_KEYS ?= 1000000
BENCH_KERNEL_SRCS := bench/datasets.c kmod/core/model_predict.c kmod/core/node.c

BENCH_BINS += $(BUILD)/bench/kernel_model
BENCH_RESULTS += bench/results/kernel_model.json bench/results/kernel_model.png

$(BUILD)/bench/kernel_model: bench/kernel_model.c $(BENCH_KERNEL_SRCS) \
		$(wildcard uapi/linux/*.h) kmod/core/model.h kmod/core/node.h
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -Ilibshim -o $@ $< $(BENCH_KERNEL_SRCS) -lm

bench/results/kernel_model.json: $(BUILD)/bench/kernel_model bench/kernel_model.sh module
	@mkdir -p $(dir $@)
	tools/vmrun --mem 3G --timeout 3000 -- bench/kernel_model.sh $(KERNEL_BENCH_KEYS) > $@.tmp
	python3 -m json.tool $@.tmp > /dev/null && mv $@.tmp $@

bench/results/kernel_model.png: bench/results/kernel_model.json bench/kernel_plot.py
	$(firstword $(wildcard /usr/bin/python3) python3) bench/kernel_plot.py $< $@
