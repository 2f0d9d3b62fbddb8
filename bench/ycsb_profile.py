# SPDX-License-Identifier: GPL-2.0
"""Summarise a perf report (stdin: "--sort dso,sym" lines) of one ordo-bench
window: ops/s from the bench's JSON, then CPU microseconds per operation on
both vCPUs by who spent them, and the top symbols.  Used by ycsb_profile.sh.
Usage: ycsb_profile.py BENCH_JSON SECONDS_RECORDED"""
import json
import sys

IDLE = {"native_safe_halt", "default_idle", "acpi_idle_do_entry",
        "cpuidle_enter_state", "do_idle", "mwait_idle"}
VCPUS = 2


def who(dso, sym):
    if dso != "[kernel.kallsyms]":
        return "bench+libordo"
    if sym in IDLE:
        return "idle"
    if sym.startswith(("rxe_", "crc32", "__rxe", "rxe")):
        return "rxe"
    if sym.startswith(("ordo_", "descend", "leaf_", "node_")):
        return "ordo.ko"
    return "kernel"


def main():
    r = json.load(open(sys.argv[1]))["runs"][0]
    secs = float(sys.argv[2])
    ops = r["ops_per_sec"]
    rows, share = [], {}
    for line in sys.stdin:
        f = line.split()
        if len(f) < 4 or not f[0].endswith("%"):
            continue
        pct, dso, sym = float(f[0][:-1]), f[1], f[3]
        rows.append((pct, dso, sym))
        share[who(dso, sym)] = share.get(who(dso, sym), 0) + pct
    print(f"ops/s {ops:.0f}  reads/op {r['reads_per_op']:.3f}  "
          f"rpcs/op {r['rpcs_per_op']:.3f}  bytes/op {r['bytes_per_op']:.0f}")
    # Percentages are of both vCPUs' samples over the recorded seconds.
    us = {k: v / 100 * VCPUS * 1e6 / ops for k, v in share.items()}
    busy = sum(v for k, v in us.items() if k != "idle")
    print(f"cpu us/op: busy {busy:.1f} = " + ", ".join(
        f"{k} {us[k]:.1f}" for k in
        ("bench+libordo", "rxe", "ordo.ko", "kernel") if k in us) +
        f"; idle {us.get('idle', 0):.1f} "
        f"({share.get('idle', 0):.0f}% of both vCPUs)")
    for pct, dso, sym in sorted(rows, reverse=True)[:12]:
        print(f"  {pct:6.2f}%  {dso:22s} {sym}")


main()
