# SPDX-License-Identifier: GPL-2.0
#
# ordo - user entry point.  `make` builds the module (against Debian's 6.1
# headers, never `uname -r`), the shim, ordoctl, the selftests and the
# benchmarks; `make check` runs every test; `make demo` shows ordo working.

KVER ?= $(shell . tools/vm/kernel.sh && ordo_kver)
KDIR ?= /usr/src/linux-headers-$(KVER)
BUILD := build
SRCTAR := /usr/src/linux-source-6.1.tar.xz
KSFT := $(BUILD)/ksft
KSFT_HDR := $(KSFT)/kselftest_harness.h
CHECKPATCH := $(KSFT)/scripts/checkpatch.pl

CC ?= gcc
WARN := -Wall -Wextra -Werror
USER_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Wno-unused-parameter -Iuapi -Ilibshim -Ikmod/core
CORE_CC := $(CC)
CORE_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Ikmod/core -Iuapi -Ilibshim -isystem $(KSFT)
CORE_LDFLAGS := -fsanitize=address,undefined -lpthread
BENCH_CC := $(CC)
BENCH_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Ikmod/core -Iuapi -Ilibshim -Ibench
CORE_TESTS :=
BENCH_BINS :=
BENCH_RESULTS :=
SELFTESTS :=

.PHONY: all module user deps check check-debug stress demo bench lint install clean help
all: module user

help:
	@echo "make          build module, shim, ordoctl, selftests, benchmarks"
	@echo "make deps     install missing Debian packages"
	@echo "make check    install, build and run every test"
	@echo "make check-debug  the guest suite under a KASAN/lockdep/kmemleak"
	@echo "              kernel, built once into /var/cache/ordo"
	@echo "make stress   long linearizability runs of libordo in the guest"
	@echo "make fuzz     libFuzzer on every decoder, FUZZ_SECONDS each (600)"
	@echo "make demo     boot the guest and show ordo working"
	@echo "make bench    run the benchmarks, results in bench/results/"
	@echo "make lint     checkpatch, sparse and W=1 on kmod/ and uapi/"
	@echo "make install  libordo, its headers and .pc, ordoctl and its man page"
	@echo "              into \$$(DESTDIR)\$$(PREFIX) (PREFIX=/usr/local)"

deps:
	@tools/deps

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run make deps"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

$(KSFT_HDR):
	@mkdir -p $(KSFT)
	tar -xJf $(SRCTAR) -C $(KSFT) --strip-components=4 \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h

$(CHECKPATCH):
	@mkdir -p $(KSFT)
	tar -xJf $(SRCTAR) -C $(KSFT) --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch

include libshim/shim.mk
include tools/tools.mk
include libshim/install.mk
include selftests/core/Makefile
include selftests/ordo/selftests.mk
include selftests/ordo/stress.mk
include selftests/fuzz/fuzz.mk
include bench/bench.mk

user: $(SHIM_LIBS) $(TOOLS) $(CORE_TESTS) $(SELFTESTS) $(BENCH_BINS)

lint: $(CHECKPATCH)
	tools/lint "$(KDIR)"

check: deps
	@$(MAKE) --no-print-directory all fuzzers $(CHECKPATCH)
	@FUZZ_BINS="$(FUZZ_BINS)" tools/check "$(KDIR)" $(CORE_TESTS)

# Not part of check: the debug kernel takes long to build and the suite
# runs several times slower under it (Documentation/testing.rst).
check-debug: deps
	@$(MAKE) --no-print-directory all
	@tools/check-debug

DEMO_KEYS ?= 1000000
DEMO_SECONDS ?= 10

# The guest prints the demo and then its JSON report between markers:
# shown without the JSON, which becomes the chart in build/demo/.
demo: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)/demo
	@{ tools/vmrun --mem 3G --timeout 1500 -- tools/demo $(DEMO_KEYS) \
		$(DEMO_SECONDS); \
	   echo $$? > $(BUILD)/demo/status; } | tee $(BUILD)/demo/demo.log | \
		sed -u '/^--- ycsb.json begin/,/^--- ycsb.json end/d'
	@sed -n '/^--- ycsb.json begin/,/^--- ycsb.json end/p' \
		$(BUILD)/demo/demo.log | sed '1d;$$d' > $(BUILD)/demo/ycsb.json
	@test "$$(cat $(BUILD)/demo/status)" = 0
	@$(firstword $(wildcard /usr/bin/python3) python3) bench/ycsb_plot.py \
		$(BUILD)/demo/ycsb.json $(BUILD)/demo
	@echo; echo "charts: $(BUILD)/demo/ycsb_throughput.png $(BUILD)/demo/ycsb_latency_cdf.png"

bench: $(BENCH_RESULTS)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
