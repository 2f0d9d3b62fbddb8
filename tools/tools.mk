# SPDX-License-Identifier: GPL-2.0
# Command-line tools: tools/ordoctl (built next to its sources' folder).
ORDOCTL_SRCS := $(wildcard tools/ctl/*.c)
TOOLS := tools/ordoctl

tools/ordoctl: $(ORDOCTL_SRCS) $(wildcard tools/ctl/*.h) $(BUILD)/lib/libordo.a $(CTL_EXTRA_DEPS)
	$(CC) $(USER_CFLAGS) -Itools/ctl -Ibench -o $@ $(ORDOCTL_SRCS) $(CTL_EXTRA_SRCS) $(BUILD)/lib/libordo.a
