# SPDX-License-Identifier: GPL-2.0
# libFuzzer targets of every decoder of untrusted bytes, built with
# Debian's clang (-fsanitize=fuzzer,address,undefined).  Included by the
# top-level Makefile; `make fuzzers` builds them, `make fuzz` runs each for
# FUZZ_SECONDS, `make check` for 30 s (tools/fuzz).  Seed corpora are in
# selftests/fuzz/corpus/<target>/ (`make fuzz-seeds` regenerates them),
# crash inputs replayed as regression tests in selftests/fuzz/crashes/.

FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARN) -Wno-unused-parameter \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Ikmod/core -Iuapi -Ilibshim -Iselftests/fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := ioctl rpc reply node model read table extent
FUZZ_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_DEPS := selftests/fuzz/fuzz.h selftests/fuzz/fuzz_seal.h $(wildcard kmod/core/*.h libshim/decode.h \
	libshim/core_user.h uapi/linux/*.h)
# The decoders each target runs: the same sources the module and libordo
# build, never a copy.
FUZZ_SRCS_ioctl := kmod/core/cmd.c
FUZZ_SRCS_rpc := kmod/core/wire.c libshim/decode.c kmod/core/node.c \
	kmod/core/model_predict.c
FUZZ_SRCS_reply := libshim/decode.c kmod/core/node.c kmod/core/model_predict.c
FUZZ_SRCS_node := $(FUZZ_SRCS_reply)
FUZZ_SRCS_model := $(FUZZ_SRCS_reply)
FUZZ_SRCS_read := $(FUZZ_SRCS_reply)
FUZZ_SRCS_table := $(FUZZ_SRCS_reply)
FUZZ_SRCS_extent := libshim/extent.c kmod/core/node.c

.PHONY: fuzzers fuzz fuzz-seeds
fuzzers: $(FUZZ_BINS)

.SECONDEXPANSION:
$(BUILD)/fuzz/fuzz_%: selftests/fuzz/fuzz_%.c $$(FUZZ_SRCS_$$*) $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRCS_$*)

fuzz: deps
	@$(MAKE) --no-print-directory fuzzers
	@tools/fuzz $(FUZZ_SECONDS) $(FUZZ_BINS)

# Seeds from the real encoders: a tree, a trained model and its region,
# requests and replies (selftests/fuzz/seeds.c).
$(BUILD)/fuzz/seeds: selftests/fuzz/seeds.c $(TREE_CORE_SRCS) \
		$(MODEL_CORE_SRCS) kmod/core/wire.c kmod/core/wire_table.c \
		$(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g $(WARN) -Wno-unused-parameter -Ikmod/core \
		-Iuapi -Ilibshim -Iselftests/fuzz -Iselftests/core -o $@ $< $(TREE_CORE_SRCS) \
		$(MODEL_CORE_SRCS) kmod/core/wire.c kmod/core/wire_table.c \
		-lpthread

fuzz-seeds: $(BUILD)/fuzz/seeds
	rm -rf selftests/fuzz/corpus
	$(BUILD)/fuzz/seeds selftests/fuzz/corpus
