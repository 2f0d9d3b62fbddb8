#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/rpc.sh output (lines "--- rpc THREADS DEPTH OPS round R") to
JSON: the median ops/s of each configuration over the rounds, and with a
second input (the same runs on an older tree) the before/after ratios.
Usage: rpc_report.py AFTER.txt [BEFORE.txt] [--before-label L] [--after-label L]
"""
import json
import statistics
import sys


def parse(path):
    runs = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 5 and w[0] == '---' and w[1] == 'rpc':
                runs.setdefault((int(w[2]), int(w[3])), []).append(float(w[4]))
    return runs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    labels = {'after': 'this tree', 'before': 'before'}
    for a in sys.argv[1:]:
        if a.startswith('--before-label='):
            labels['before'] = a.split('=', 1)[1]
        if a.startswith('--after-label='):
            labels['after'] = a.split('=', 1)[1]
    if not args:
        sys.exit(__doc__)
    after = parse(args[0])
    before = parse(args[1]) if len(args) > 1 else {}
    out = {
        'benchmark': 'rpc-path',
        'workload': 'YCSB C, uniform, 100000 keys, libordo rpc mode',
        'guest': 'vmrun: QEMU TCG, 2 vCPUs, rxe on ordo0',
        'after_label': labels['after'],
        'before_label': labels['before'] if before else None,
        'runs': [],
    }
    for key in sorted(after):
        t, d = key
        r = {'connections': t, 'depth': d,
             'ops_per_sec': round(statistics.median(after[key]), 1),
             'rounds': after[key]}
        if key in before:
            b = statistics.median(before[key])
            r['before_ops_per_sec'] = round(b, 1)
            r['before_rounds'] = before[key]
            r['ratio'] = round(r['ops_per_sec'] / b, 2) if b else None
        out['runs'].append(r)
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
