# SPDX-License-Identifier: GPL-2.0
# kselftests of ordo.ko: built natively, run inside the vmrun guest by
# selftests/ordo/run_guest.  Every *_test.c here is one harness binary.
SELFTEST_SRCS := $(wildcard selftests/ordo/*_test.c)
SELFTESTS := $(SELFTEST_SRCS:selftests/ordo/%.c=$(BUILD)/selftests/%)
# Tests that read nodes themselves validate them with the core's code, and
# regenerate ordoctl load's key sets with the same generators.
SELFTEST_CORE := kmod/core/node.c kmod/core/model_predict.c bench/datasets.c
SELFTEST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Wno-sign-compare \
	-Wno-unused-parameter -Wno-misleading-indentation \
	-Iuapi -Ilibshim -Ikmod/core -I$(KSFT) -Iselftests/ordo -Ibench -pthread

$(BUILD)/selftests/%: selftests/ordo/%.c $(SELFTEST_CORE) $(wildcard selftests/ordo/*.h) $(wildcard uapi/linux/*.h) $(KSFT_HDR) $(BUILD)/lib/libordo.a
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_CORE) $(BUILD)/lib/libordo.a -luring -lpthread -lm -lrdmacm -libverbs
