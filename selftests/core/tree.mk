# SPDX-License-Identifier: GPL-2.0
# B-link tree, node pool and node layout: unit and differential tests.
# Included by selftests/core/Makefile from the repository root.

TREE_CORE_SRCS := kmod/core/node.c kmod/core/pool.c kmod/core/tree.c kmod/core/extent.c
TREE_CORE_HDRS := selftests/core/core_test.h kmod/core/compat.h kmod/core/node.h kmod/core/pool.h \
	kmod/core/tree.h kmod/core/extent.h uapi/linux/ordo_node.h

CORE_TESTS += $(BUILD)/core/tree_test $(BUILD)/core/tree_diff

$(BUILD)/core/tree_test: selftests/core/tree_test.c $(TREE_CORE_SRCS) \
		$(TREE_CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(TREE_CORE_SRCS) $(CORE_LDFLAGS)

$(BUILD)/core/tree_diff: selftests/core/tree_diff.c $(TREE_CORE_SRCS) \
		$(TREE_CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(TREE_CORE_SRCS) $(CORE_LDFLAGS)
