# SPDX-License-Identifier: GPL-2.0
# Learned model and translation table: property tests (TAP).
# Included by selftests/core/Makefile from the repository root.

MODEL_CORE_SRCS := kmod/core/model_predict.c kmod/core/model_train.c \
	kmod/core/model_region.c
MODEL_CORE_HDRS := kmod/core/compat.h kmod/core/model.h \
	uapi/linux/ordo_model.h $(wildcard libshim/core_user.h)

CORE_TESTS += $(BUILD)/core/model_test

$(BUILD)/core/model_test: selftests/core/model_test.c $(MODEL_CORE_SRCS) \
		$(MODEL_CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(MODEL_CORE_SRCS) $(CORE_LDFLAGS)
