# SPDX-License-Identifier: GPL-2.0
# conn-figures: MRs, slab memory and connect time per RDMA connection,
# measured in the vmrun guest (Documentation/admin.rst, "Sizing").
CONN_FIG_BIN := $(BUILD)/bench/conn-figures

BENCH_BINS += $(CONN_FIG_BIN)
BENCH_RESULTS += bench/results/conn.json

$(CONN_FIG_BIN): bench/conn_figures.c libshim/ordo.h $(BUILD)/lib/libordo.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(BUILD)/lib/libordo.a \
		$(LIBORDO_LIBS_PRIVATE)

bench/results/conn.json: $(CONN_FIG_BIN) module
	@mkdir -p $(dir $@)
	tools/vmrun --mem 3G --timeout 1800 -- $(CONN_FIG_BIN) \
		rdma://192.0.2.1 > $@.tmp
	python3 -m json.tool $@.tmp > /dev/null && mv $@.tmp $@
