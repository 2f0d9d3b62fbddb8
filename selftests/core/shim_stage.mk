# SPDX-License-Identifier: GPL-2.0
# shim_stage_test: libordo's long-value uploads against a scripted server,
# natively.  The test includes libshim/rdma.c and fakes rdma_conn.c, so
# both stay out of its source list.  Included by selftests/core/Makefile
# from the repository root (after shim_engine.mk, whose list it trims).

SHIM_STAGE_SRCS := $(filter-out libshim/rdma.c libshim/rdma_conn.c,\
	$(SHIM_ENGINE_SRCS))

CORE_TESTS += $(BUILD)/core/shim_stage_test

$(BUILD)/core/shim_stage_test: selftests/core/shim_stage_test.c \
		$(SHIM_STAGE_SRCS) libshim/rdma.c \
		$(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h \
			   selftests/core/core_test.h)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(SHIM_STAGE_SRCS) $(CORE_LDFLAGS) -lrdmacm -libverbs
