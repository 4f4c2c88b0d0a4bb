#!/usr/bin/env python3
"""Markdown table of the profiles listed in <case>/profiles.tsv (for the case README).

usage: profstats.py CASE_DIR
Columns: file, format (from the header), bytes, records, unique stacks, totals.
"""
import os
import re
import struct
import sys


def heap_text(data):
    lines = data.decode("latin-1").split("\n")
    head = lines[0]
    recs, stacks, inuse_n, inuse_b, alloc_n, alloc_b = 0, set(), 0, 0, 0, 0
    rec = re.compile(r"^\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\]\s*@(.*)$")
    for l in lines[1:]:
        if l.startswith("MAPPED_LIBRARIES"):
            break
        m = rec.match(l)
        if m:
            recs += 1
            stacks.add(m.group(5).strip())
            inuse_n += int(m.group(1)); inuse_b += int(m.group(2))
            alloc_n += int(m.group(3)); alloc_b += int(m.group(4))
    kind = head.split("@")[-1].strip()
    return (f"heap text `@ {kind}`", recs, len(stacks),
            f"inuse {inuse_n} obj / {inuse_b} B; alloc {alloc_n} obj / {alloc_b} B")


def jemalloc(data):
    lines = data.decode("latin-1").split("\n")
    recs, stacks, objs, byts, threads = 0, 0, 0, 0, set()
    for l in lines:
        if l.startswith("MAPPED_LIBRARIES"):
            break
        if l.startswith("@"):
            stacks += 1
        m = re.match(r"^\s*t(\*|\d+): (\d+): (\d+) \[", l)
        if m and stacks:
            if m.group(1) == "*":
                recs += 1; objs += int(m.group(2)); byts += int(m.group(3))
            else:
                threads.add(m.group(1))
    return (f"jemalloc `{lines[0].strip()}`", recs, stacks,
            f"inuse {objs} obj / {byts} B; {len(threads)} threads with samples")


def contention(data):
    text = data.decode("latin-1")
    lines = text.split("\n")
    recs, stacks, delay, count = 0, set(), 0, 0
    for l in lines[1:]:
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+@(.*)$", l)
        if m:
            recs += 1; delay += int(m.group(1)); count += int(m.group(2))
            stacks.add(m.group(3).strip())
    return (f"contention `{lines[0].strip()}`", recs, len(stacks),
            f"{count} contentions, {delay} cycles delay")


def cpu(data):
    w = [struct.unpack_from("<Q", data, i)[0] for i in range(0, len(data) - 7, 8)]
    hdr = w[1]
    period = w[3]
    i = 2 + hdr
    recs, samples, stacks = 0, 0, set()
    while i + 1 < len(w):
        n, d = w[i], w[i + 1]
        if n == 0 and d == 1:
            break
        recs += 1; samples += n
        stacks.add(tuple(w[i + 2:i + 2 + d]))
        i += 2 + d
    return ("cpu legacy binary", recs, len(stacks), f"{samples} samples (period {period} us)")


def describe(path):
    data = open(path, "rb").read()
    if data.startswith(b"heap_v2/"):
        return jemalloc(data)
    if data.startswith(b"heap profile:") or data.startswith(b"heap "):
        return heap_text(data)
    if data.startswith(b"--- contention"):
        return contention(data)
    if data[:8] == b"\0" * 8:
        return cpu(data)
    return ("?", 0, 0, "")


def main():
    case = sys.argv[1]
    print("| file | format | bytes | records | unique stacks | totals | base for --base |")
    print("|---|---|---:|---:|---:|---|---|")
    for row in open(os.path.join(case, "profiles.tsv")).read().splitlines():
        kind, binary, prof, base = (row.split("\t") + [""] * 4)[:4]
        p = os.path.join(case, prof)
        fmt, recs, stacks, tot = describe(p)
        print(f"| {prof} | {fmt} | {os.path.getsize(p)} | {recs} | {stacks} | {tot} | {base} |")


if __name__ == "__main__":
    main()
