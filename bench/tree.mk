# SPDX-License-Identifier: GPL-2.0
# B-link tree vs JudyL microbenchmark (native, single thread).

BENCH_TREE_SRCS := kmod/core/node.c kmod/core/pool.c kmod/core/tree.c kmod/core/extent.c
BENCH_TREE_HDRS := kmod/core/compat.h kmod/core/node.h kmod/core/pool.h \
	kmod/core/tree.h uapi/linux/ordo_node.h

BENCH_BINS += $(BUILD)/bench/tree_bench
BENCH_RESULTS += bench/results/tree.json

$(BUILD)/bench/tree_bench: bench/tree_bench.c $(BENCH_TREE_SRCS) \
		$(BENCH_TREE_HDRS)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< $(BENCH_TREE_SRCS) -lJudy -lpthread

bench/results/tree.json: $(BUILD)/bench/tree_bench
	@mkdir -p $(dir $@)
	$< --json > $@.tmp && mv $@.tmp $@

# Value sizes of issue #12, at the default geometry and at the largest one.
BENCH_RESULTS += bench/results/tree_values.json bench/results/tree_values_255.json

bench/results/tree_values.json: $(BUILD)/bench/tree_bench
	@mkdir -p $(dir $@)
	$< --keys 1000000 --value-size 8,100,1000 --json > $@.tmp && mv $@.tmp $@

bench/results/tree_values_255.json: $(BUILD)/bench/tree_bench
	@mkdir -p $(dir $@)
	$< --keys 100000 --slots 255 --value-size 8,1024 --json > $@.tmp && \
		mv $@.tmp $@
