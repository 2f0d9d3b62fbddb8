# SPDX-License-Identifier: GPL-2.0
# Benchmarks: each fragment bench/*.mk adds binaries to BENCH_BINS and
# result files (bench/results/*) to BENCH_RESULTS.
-include $(filter-out bench/bench.mk,$(wildcard bench/*.mk))
