#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the vmrun guest: build/bench/kernel_model once per dataset, each on
# a freshly inserted ordo.ko, and prints {"keys": N, "datasets": [...]}.
cd "$(dirname "$0")/.." || exit 1
n=${1:-1000000}
printf '{"bench": "kernel_model", "keys": %s, "datasets": [\n' "$n"
sep=
for d in linear noised uniform lognormal maplike osm fb timeseries books; do
	rmmod ordo && insmod kmod/ordo.ko || exit 1
	out=$(build/bench/kernel_model "$d" "$n") || exit 1
	printf '%s%s\n' "$sep" "$out"
	sep=,
done
echo ']}'
