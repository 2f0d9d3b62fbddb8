# SPDX-License-Identifier: GPL-2.0
# Command-line tools: tools/ordoctl (built next to its sources' folder).
# ordoctl load shares the benchmarks' seeded key-set generators.
ORDOCTL_SRCS := $(wildcard tools/ctl/*.c) bench/datasets.c
TOOLS := tools/ordoctl

tools/ordoctl: $(ORDOCTL_SRCS) $(wildcard tools/ctl/*.h) bench/datasets.h $(BUILD)/lib/libordo.a
	$(CC) $(USER_CFLAGS) -Itools/ctl -Ibench -o $@ $(ORDOCTL_SRCS) $(BUILD)/lib/libordo.a -lrdmacm -libverbs -lpthread -lm
