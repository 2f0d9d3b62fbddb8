# SPDX-License-Identifier: GPL-2.0
# Retirement of empty leaves (ordo_tree_retire_empty() in kmod/core/tree.c):
# deterministic shapes, stale TT entries, node reuse and a concurrent run.
# Included by selftests/core/Makefile from the repository root.

RETIRE_CORE_SRCS := kmod/core/node.c kmod/core/pool.c kmod/core/tree.c kmod/core/extent.c
RETIRE_CORE_HDRS := selftests/core/core_test.h kmod/core/compat.h kmod/core/node.h kmod/core/pool.h \
	kmod/core/tree.h uapi/linux/ordo_node.h uapi/linux/ordo_model.h \
	$(wildcard libshim/core_user.h)

CORE_TESTS += $(BUILD)/core/retire_test

$(BUILD)/core/retire_test: selftests/core/retire_test.c $(RETIRE_CORE_SRCS) \
		$(RETIRE_CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(RETIRE_CORE_SRCS) $(CORE_LDFLAGS)
