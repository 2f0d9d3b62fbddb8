# SPDX-License-Identifier: GPL-2.0
# Out-of-line values (kmod/core/extent.c and the tree's extent paths):
# lengths up to 1 MiB, the allocator's reuse and accounting, the reader's
# extent check against hostile and torn copies.
# Included by selftests/core/Makefile from the repository root.

EXTENT_CORE_SRCS := kmod/core/node.c kmod/core/pool.c kmod/core/tree.c kmod/core/extent.c
EXTENT_CORE_HDRS := selftests/core/core_test.h kmod/core/compat.h kmod/core/node.h kmod/core/pool.h \
	kmod/core/tree.h kmod/core/extent.h uapi/linux/ordo_node.h

CORE_TESTS += $(BUILD)/core/extent_test

$(BUILD)/core/extent_test: selftests/core/extent_test.c $(EXTENT_CORE_SRCS) \
		$(EXTENT_CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(EXTENT_CORE_SRCS) $(CORE_LDFLAGS)
