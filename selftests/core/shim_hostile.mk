# SPDX-License-Identifier: GPL-2.0
# libordo against a server that lies, natively: replies to no call, a
# model read again with another layout, a header that would size an
# allocation, SCAN replies that do not move on, accept replies out of
# range.  Included by selftests/core/Makefile from the repository root.

SHIM_HOSTILE_SRCS := libshim/ordo.c libshim/local.c libshim/read.c \
	libshim/cache.c libshim/walk_cache.c libshim/extent.c libshim/decode.c \
	libshim/rdma.c libshim/rdma_conn.c libshim/rdma_raw.c \
	libshim/rdma_long.c libshim/raw_read.c \
	kmod/core/node.c kmod/core/model_predict.c

CORE_TESTS += $(BUILD)/core/shim_hostile_test

$(BUILD)/core/shim_hostile_test: selftests/core/shim_hostile_test.c \
		$(SHIM_HOSTILE_SRCS) \
		$(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(SHIM_HOSTILE_SRCS) $(CORE_LDFLAGS) -lrdmacm -libverbs
