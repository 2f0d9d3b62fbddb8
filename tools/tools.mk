# SPDX-License-Identifier: GPL-2.0
# Command-line tools: tools/ordoctl (built next to its sources' folder), and
# the example programs of Documentation/examples/ in build/examples/ (the
# guest's ordoctl.sh runs them).  ordoctl load shares the benchmarks' seeded
# key-set generators.  Both link libordo.a, so also what libordo links
# (LIBORDO_LIBS_PRIVATE of libshim/install.mk, the list libordo.pc gives).
ORDOCTL_SRCS := $(wildcard tools/ctl/*.c) bench/datasets.c
EXAMPLES := $(patsubst Documentation/examples/%.c,$(BUILD)/examples/%,\
	$(wildcard Documentation/examples/*.c))
TOOLS := tools/ordoctl $(EXAMPLES)

tools/ordoctl: $(ORDOCTL_SRCS) $(wildcard tools/ctl/*.h) bench/datasets.h $(BUILD)/lib/libordo.a
	$(CC) $(USER_CFLAGS) -Itools/ctl -Ibench -o $@ $(ORDOCTL_SRCS) \
		$(BUILD)/lib/libordo.a $(LIBORDO_LIBS_PRIVATE) -lm

$(BUILD)/examples/%: Documentation/examples/%.c libshim/ordo.h $(BUILD)/lib/libordo.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(BUILD)/lib/libordo.a $(LIBORDO_LIBS_PRIVATE)
