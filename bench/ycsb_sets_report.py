#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table of bench/results/ycsb_sets.json (bench/ycsb_sets.sh): the
learned model end to end on every key set, as issue #11 asks for it."""
import json
import sys


def run(s, workload, mode):
    for r in s["ycsb"]["runs"]:
        if r["workload"] == workload and r["mode"] == mode:
            return r
    raise KeyError(f"{workload}/{mode}")


def main(path):
    d = json.load(open(path))
    print(f"ordo-bench per key set: {d['keys']} keys loaded, "
          f"{d['seconds']} s a run, one fresh store per set")
    print("cache: libordo's memory after YCSB C (cacheKiB), per key and "
          "against the tree's inner-node bytes; READ/op and RT/op: YCSB C "
          "learned; fb: reads that fell back to an RPC; trains: full "
          "trainings and sub-model retrainings during D and append")
    print(f"{'set':<11}{'keys':>9}{'leaves':>8}{'subs':>7}{'B/key':>7}"
          f"{'%inner':>7}{'READ/op':>8}{'RT/op':>7}{'fb C':>7}{'fb D':>7}"
          f"{'fb app':>7}{'trains':>8}{'retrains':>9}{'C x rpc':>8}")
    for name, s in d["sets"].items():
        c, rpc = run(s, "c", "learned"), run(s, "c", "rpc")
        dl, ap = run(s, "d", "learned"), run(s, "append", "learned")
        span = max(1, 4096 // s["node_size"])
        inner = s["inner_nodes"] * span * s["node_size"]
        cache = c["client_cache_bytes"]
        trains = dl["server"]["full_trains"] + ap["server"]["full_trains"]
        retrains = dl["server"]["retrains"] + ap["server"]["retrains"]
        print(f"{name:<11}{c['keys']:>9}{s['leaves']:>8}{s['sub_models']:>7}"
              f"{cache / c['keys']:>7.3f}{100 * cache / inner:>7.1f}"
              f"{c['reads_per_op']:>8.4f}{c['round_trips_per_op']:>7.3f}"
              f"{100 * c['fallback_rate']:>6.2f}%"
              f"{100 * dl['fallback_rate']:>6.2f}%"
              f"{100 * ap['fallback_rate']:>6.2f}%"
              f"{trains:>8}{retrains:>9}"
              f"{c['ops_per_sec'] / rpc['ops_per_sec']:>7.2f}x")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else
         "bench/results/ycsb_sets.json")
