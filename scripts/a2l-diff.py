#!/usr/bin/env python3
"""Development check: compare rpprof's addr2line emulation with binutils' addr2line.

usage: a2l-diff.py BINARY [--addrs FILE | --sample N] [--no-inline] [--show N]
Addresses are file virtual addresses (hex). With --sample N, every Nth byte of the
executable sections is tried.
"""
import argparse, subprocess, sys, os

HERE = os.path.dirname(os.path.abspath(__file__))
A2L = os.path.join(HERE, "..", "target", "release", "examples", "a2l")

def blocks(text):
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("0x") and len(line) == 18 and all(c in "0123456789abcdef" for c in line[2:]):
            cur = int(line, 16)
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out

def text_ranges(binary):
    r = subprocess.run(["objdump", "-h", binary], capture_output=True, text=True).stdout.splitlines()
    ranges = []
    for i, l in enumerate(r):
        x = l.split()
        if len(x) >= 7 and x[0].isdigit() and i + 1 < len(r) and "CODE" in r[i + 1]:
            ranges.append((int(x[3], 16), int(x[2], 16)))
    return ranges

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--addrs")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--no-inline", action="store_true")
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--raw", action="store_true", help="compare mangled names (no -C)")
    a = ap.parse_args()
    addrs = []
    if a.addrs:
        addrs = [int(l.strip().replace("0x", ""), 16) for l in open(a.addrs) if l.strip()]
    if a.sample:
        for start, size in text_ranges(a.binary):
            addrs.extend(range(start, start + size, a.sample))
    inp = "".join("%x\n" % x for x in addrs)
    flags = ["-a", "-f"] + ([] if a.raw else ["-C"]) + ([] if a.no_inline else ["-i"])
    ref = subprocess.run(["addr2line"] + flags + ["-e", a.binary], input=inp, capture_output=True, text=True).stdout
    mine = subprocess.run([A2L, "-a"] + (["-r"] if a.raw else []) + ([] if a.no_inline else ["-i"]) + [a.binary], input=inp, capture_output=True, text=True).stdout
    rb, mb = blocks(ref), blocks(mine)
    bad = fixed = 0
    for x in addrs:
        r, m = rb.get(x), mb.get(x)
        if r == m:
            continue
        # rpprof names an inlined function without a linkage name by its DWARF name where
        # binutils repeats the name of the symbol holding the address (a documented fix).
        if r and m and len(r) == len(m) and len(r) >= 4 and r[1:] == m[1:] and r[0] in r[2::2]:
            fixed += 1
            continue
        bad += 1
        if bad <= a.show:
            print("0x%x\n  binutils: %s\n  rpprof:   %s" % (x, r, m))
    print("%d/%d addresses identical, %d differ only by the inlined-name fix, %d differ"
          % (len(addrs) - bad - fixed, len(addrs), fixed, bad))
    return 1 if bad else 0

sys.exit(main())
