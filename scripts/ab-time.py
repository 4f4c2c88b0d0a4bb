#!/usr/bin/env python3
"""Times commands in alternation: A, B, A, B, ... so that the machine's drift over minutes
(10-30% here) falls on every command alike. Prints each command's median and fastest wall
time and the median of its differences with the first command, run by run.

usage: scripts/ab-time.py N 'COMMAND A' 'COMMAND B' [...]
(each command is split like a shell line, without a shell; output goes to /dev/null)
"""
import shlex
import statistics
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    n = int(sys.argv[1])
    cmds = [shlex.split(c) for c in sys.argv[2:]]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    for c in cmds:  # a first run each: caches filled
        subprocess.run(c, **quiet)
    times = [[] for _ in cmds]
    for _ in range(n):
        for k, c in enumerate(cmds):
            t = time.perf_counter()
            subprocess.run(c, **quiet)
            times[k].append((time.perf_counter() - t) * 1000)
    for k, c in enumerate(cmds):
        diff = statistics.median(a - b for a, b in zip(times[k], times[0]))
        print(
            "%8.2f ms median %8.2f ms fastest %+7.2f ms paired with the first  %s"
            % (statistics.median(times[k]), min(times[k]), diff, " ".join(c))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
