# SPDX-License-Identifier: GPL-2.0
# make stress: the linearizability checker (selftests/ordo/lincheck_test.c)
# run long in the guest.  First every backend, mode and cache case with
# STRESS_READS reads each under the default module parameters, then with
# STRESS_PARAMS2 (1000-byte values, which carry key and version in full,
# in 8-slot leaves, which split twice as often: 8,256-byte leaves, so a
# GET reads the key block and then its value); STRESS_PARAMS2= skips that.
# STRESS_ARGS adds lincheck options (e.g. --modes learned --seed 7).
# Logs: build/logs/stress.log and stress-2.log.
STRESS_READS ?= 1000000
STRESS_READS2 ?= 250000
STRESS_KEYS ?= 65536
STRESS_SECONDS ?= 1800
STRESS_TIMEOUT ?= 10800
STRESS_PARAMS2 ?= value_size=1000 leaf_slots=8
STRESS_ARGS ?=
STRESS_BIN := $(BUILD)/selftests/lincheck_test

stress: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)/logs
	@rm -f $(BUILD)/logs/stress.log $(BUILD)/logs/stress-2.log \
		$(BUILD)/logs/stress.rc $(BUILD)/logs/stress-2.rc
	@rc=0; \
	echo "== lincheck: $(STRESS_READS) reads per case, default module parameters"; \
	{ tools/vmrun --timeout $(STRESS_TIMEOUT) -- $(STRESS_BIN) \
		--reads $(STRESS_READS) --keys $(STRESS_KEYS) \
		--seconds $(STRESS_SECONDS) $(STRESS_ARGS); \
	  echo $$? > $(BUILD)/logs/stress.rc; } 2>&1 | tee $(BUILD)/logs/stress.log; \
	[ "$$(cat $(BUILD)/logs/stress.rc)" = 0 ] || rc=1; \
	if [ -n "$(STRESS_PARAMS2)" ]; then \
		echo "== lincheck: $(STRESS_READS2) reads per case, $(STRESS_PARAMS2)"; \
		{ tools/vmrun --timeout $(STRESS_TIMEOUT) \
			--module-params "$(STRESS_PARAMS2)" -- $(STRESS_BIN) \
			--reads $(STRESS_READS2) --keys $(STRESS_KEYS) \
			--seconds $(STRESS_SECONDS) --no-self-test $(STRESS_ARGS); \
		  echo $$? > $(BUILD)/logs/stress-2.rc; } 2>&1 | tee $(BUILD)/logs/stress-2.log; \
		[ "$$(cat $(BUILD)/logs/stress-2.rc)" = 0 ] || rc=1; \
	fi; \
	echo "== stress: $$(cat $(BUILD)/logs/stress*.log | grep -c '^ok [0-9]') ok, $$(cat $(BUILD)/logs/stress*.log | grep -c '^not ok') not ok"; \
	exit $$rc
