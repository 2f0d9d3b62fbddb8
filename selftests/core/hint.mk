# SPDX-License-Identifier: GPL-2.0
# Hinted UPDATE (kmod/core/tree_hint.c): unit and concurrency tests.
# Included by selftests/core/Makefile from the repository root.

HINT_CORE_SRCS := kmod/core/node.c kmod/core/pool.c kmod/core/tree.c kmod/core/extent.c \
	kmod/core/tree_hint.c
HINT_CORE_HDRS := selftests/core/core_test.h kmod/core/compat.h kmod/core/node.h kmod/core/pool.h \
	kmod/core/tree.h kmod/core/tree_hint.h uapi/linux/ordo_node.h

CORE_TESTS += $(BUILD)/core/hint_test

$(BUILD)/core/hint_test: selftests/core/hint_test.c $(HINT_CORE_SRCS) \
		$(HINT_CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(HINT_CORE_SRCS) $(CORE_LDFLAGS)
