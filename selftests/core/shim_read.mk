# SPDX-License-Identifier: GPL-2.0
# libordo's GET of a large leaf (key block, then the one value), natively,
# over a pool built by the real tree.
# Included by selftests/core/Makefile from the repository root.

SHIM_READ_SRCS := libshim/ordo.c libshim/local.c libshim/read.c \
	libshim/cache.c libshim/walk_cache.c libshim/extent.c libshim/decode.c \
	libshim/rdma.c libshim/rdma_conn.c libshim/rdma_raw.c \
	libshim/rdma_long.c libshim/raw_read.c \
	kmod/core/node.c kmod/core/pool.c kmod/core/tree.c kmod/core/extent.c \
	kmod/core/model_predict.c

CORE_TESTS += $(BUILD)/core/shim_read_test

$(BUILD)/core/shim_read_test: selftests/core/shim_read_test.c $(SHIM_READ_SRCS) \
		$(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(SHIM_READ_SRCS) $(CORE_LDFLAGS) -lrdmacm -libverbs
