# SPDX-License-Identifier: GPL-2.0
# libordo's engine on scripted backends, natively: shim_fail_test (a
# connection that fails inside a step's own synchronous call, synchronous
# calls among asynchronous requests) and shim_hostile_test (a server that
# lies).  Included by selftests/core/Makefile from the repository root.

SHIM_ENGINE_SRCS := libshim/ordo.c libshim/batch.c libshim/local.c \
	libshim/read.c \
	libshim/cache.c libshim/walk_cache.c libshim/extent.c libshim/decode.c \
	libshim/rdma.c libshim/rdma_conn.c libshim/rdma_raw.c \
	libshim/rdma_long.c libshim/raw_read.c \
	kmod/core/node.c kmod/core/model_predict.c
SHIM_ENGINE_TESTS := $(BUILD)/core/shim_fail_test $(BUILD)/core/shim_hostile_test

CORE_TESTS += $(SHIM_ENGINE_TESTS)

$(SHIM_ENGINE_TESTS): $(BUILD)/core/%: selftests/core/%.c $(SHIM_ENGINE_SRCS) \
		$(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h \
			   selftests/core/core_test.h)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(SHIM_ENGINE_SRCS) $(CORE_LDFLAGS) -lrdmacm -libverbs
