# SPDX-License-Identifier: GPL-2.0
# libordo's GET of a long value (one more READ, of the whole extent) and
# hostile extent references, natively, over a pool built by the real tree.
# Included by selftests/core/Makefile from the repository root.

CORE_TESTS += $(BUILD)/core/shim_extent_test

$(BUILD)/core/shim_extent_test: selftests/core/shim_extent_test.c $(SHIM_READ_SRCS) \
		$(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(SHIM_READ_SRCS) $(CORE_LDFLAGS) -lrdmacm -libverbs
