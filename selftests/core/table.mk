# SPDX-License-Identifier: GPL-2.0
# The region table: the server's builder (kmod/core/wire_table.c) against
# the client's decoder (libshim/decode.c), torn copies and lying servers.
# Included by selftests/core/Makefile from the repository root.

TABLE_TEST_SRCS := kmod/core/wire_table.c kmod/core/node.c libshim/decode.c \
	kmod/core/model_predict.c
TABLE_TEST_HDRS := selftests/core/core_test.h kmod/core/compat.h \
	kmod/core/wire_table.h kmod/core/node.h libshim/decode.h \
	uapi/linux/ordo_wire.h $(wildcard libshim/core_user.h)

CORE_TESTS += $(BUILD)/core/table_test

$(BUILD)/core/table_test: selftests/core/table_test.c $(TABLE_TEST_SRCS) \
		$(TABLE_TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(TABLE_TEST_SRCS) $(CORE_LDFLAGS)
