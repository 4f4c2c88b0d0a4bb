#!/usr/bin/env python3
"""Writes a synthetic series of tcmalloc heap dumps for the --trend benchmark
(scripts/trend-bench.sh): N dumps named <prefix>.NNNN.heap made from one or more real dumps
of a program (taken in turn), their stacks and memory map unchanged, their values changed
per record and per dump so that every shape of --trend is there: a quarter of the records
grow by a fixed step per dump, a quarter jitter by up to 10% around their value, the rest
stay as they are.

    trend-series.py OUT_DIR N DUMP [DUMP...]
"""
import os
import re
import sys

RECORD = re.compile(rb"^(\s*)(\d+):\s*(\d+) \[\s*(\d+):\s*(\d+)\] @(.*)$")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, n, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    texts = [open(p, "rb").read().split(b"\n") for p in sources]
    for k in range(1, n + 1):
        lines = texts[(k - 1) % len(texts)]
        res = []
        for i, line in enumerate(lines):
            m = RECORD.match(line)
            if not m or i == 0:
                res.append(line)
                continue
            n1, b1, n2, b2 = (int(m.group(j)) for j in range(2, 6))
            shape = hash(m.group(6)) % 4
            if shape == 0:  # grows
                f = 1.0 + k / 20.0
            elif shape == 1:  # jitters, a fixed pseudo-random factor per record and dump
                f = 0.9 + 0.2 * (((i * 2654435761 + k * 40503) >> 7) % 1000) / 1000.0
            else:
                f = 1.0
            n1s = max(1, int(n1 * f)) if n1 else 0
            b1s = int(b1 * f)
            res.append(b"%s%d: %d [%d: %d] @%s" % (m.group(1), n1s, b1s, max(n2, n1s), max(b2, b1s), m.group(6)))
        with open(os.path.join(out, "series.%04d.heap" % k), "wb") as f:
            f.write(b"\n".join(res))


if __name__ == "__main__":
    main()
