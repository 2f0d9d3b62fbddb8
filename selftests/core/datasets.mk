# SPDX-License-Identifier: GPL-2.0
# The benchmarks' key sets (bench/datasets.c) and the learned model trained
# over each of them.  Included by selftests/core/Makefile from the root.

DATASETS_TEST_SRCS := bench/datasets.c kmod/core/model_predict.c \
	kmod/core/model_train.c kmod/core/model_region.c
DATASETS_TEST_HDRS := bench/datasets.h kmod/core/compat.h kmod/core/model.h \
	uapi/linux/ordo_model.h $(wildcard libshim/core_user.h)

CORE_TESTS += $(BUILD)/core/datasets_test

$(BUILD)/core/datasets_test: selftests/core/datasets_test.c \
		$(DATASETS_TEST_SRCS) $(DATASETS_TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Ibench -o $@ $< $(DATASETS_TEST_SRCS) \
		$(CORE_LDFLAGS) -lm
