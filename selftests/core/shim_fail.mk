# SPDX-License-Identifier: GPL-2.0
# libordo's engine with the RDMA backend's failure handling, natively: a
# connection that fails inside a step's own synchronous call.
# Included by selftests/core/Makefile from the repository root.

SHIM_FAIL_SRCS := libshim/ordo.c libshim/local.c libshim/read.c \
	libshim/cache.c libshim/walk_cache.c libshim/extent.c libshim/decode.c \
	libshim/rdma.c libshim/rdma_conn.c libshim/rdma_raw.c \
	libshim/rdma_long.c libshim/raw_read.c \
	kmod/core/node.c kmod/core/model_predict.c

CORE_TESTS += $(BUILD)/core/shim_fail_test

$(BUILD)/core/shim_fail_test: selftests/core/shim_fail_test.c $(SHIM_FAIL_SRCS) \
		$(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(SHIM_FAIL_SRCS) $(CORE_LDFLAGS) -lrdmacm -libverbs
