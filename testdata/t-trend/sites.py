#!/usr/bin/env python3
"""Per-dump values of the t-trend allocation sites, as the reference tools report them.

Reads series.tsv (series, position, file, mtime), expected.tsv (function, class) and, for
every dump, refs/<file>/<tool>.text-bytes.out (--text --show_bytes) and
<tool>.inuse_objects.out (--text --inuse_objects), where <tool> is google-pprof, or jeprof
for the jemalloc series.  Writes sites.tsv:

    series  position  file  function  inuse_bytes  inuse_objects

one row per dump and site of expected.tsv (0 when the tool prints no row for it: a site
not yet allocated, or with nothing in use) plus one row with function "(total)" (the
"Total:" line).  Prints a markdown table per series (for README.md) on stdout.

Checks that the unsampled series (hprof) equals what the program itself says it holds
after each tick (run-dumps.stdout): exit status 1 when not.

usage: python3 sites.py        (in the case directory)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROW = re.compile(r"^\s*(-?\d+)\s+-?[\d.]+%\s+-?[\d.]+%\s+-?\d+\s+-?[\d.]+%\s+(.*)$")
TOTAL = re.compile(r"^Total: (-?\d+) (?:B|objects)$")


def tsv(name):
    lines = open(os.path.join(HERE, name)).read().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if l]


def flat_values(path):
    """{function: flat value} and the total of one --text report with integer values."""
    values, total = {}, None
    for line in open(path, encoding="latin-1"):
        line = line.rstrip("\n")
        m = TOTAL.match(line)
        if m:
            total = int(m.group(1))
            continue
        m = ROW.match(line)
        if m:
            values[m.group(2)] = int(m.group(1))
    if total is None:
        sys.exit(f"{path}: no Total line")
    return values, total


def main():
    os.chdir(HERE)
    series = tsv("series.tsv")
    sites = [r["function"] for r in tsv("expected.tsv")]
    rows, table = [], {}
    for s in series:
        tool = "jeprof" if s["series"] == "jemalloc" else "google-pprof"
        refs = os.path.join("refs", s["file"])
        b, btotal = flat_values(os.path.join(refs, f"{tool}.text-bytes.out"))
        o, ototal = flat_values(os.path.join(refs, f"{tool}.inuse_objects.out"))
        for f in sites:
            rows.append((s["series"], s["position"], s["file"], f, b.get(f, 0), o.get(f, 0)))
        rows.append((s["series"], s["position"], s["file"], "(total)", btotal, ototal))
        table.setdefault(s["series"], []).append(
            (s["position"], s["file"], btotal, [b.get(f, 0) for f in sites]))
    with open("sites.tsv", "w") as out:
        out.write("series\tposition\tfile\tfunction\tinuse_bytes\tinuse_objects\n")
        for r in rows:
            out.write("\t".join(str(x) for x in r) + "\n")

    # The program's own account of the unsampled series.
    bad = 0
    said = {}
    for line in open("run-dumps.stdout"):
        m = re.match(r"^tick\s+(\d+): (.*)$", line)
        if m:
            f = m.group(2).split()
            said[int(m.group(1))] = {f[i]: int(f[i + 1]) for i in range(0, len(f), 2)}
    for position, _file, _total, values in table["hprof"]:
        want = said.get(int(position), {})
        for f, v in zip(sites, values):
            if want.get(f) != v:
                print(f"hprof dump {position}: {f} is {v} B, the program says {want.get(f)}",
                      file=sys.stderr)
                bad = 1

    for name, dumps in table.items():
        print(f"\n{name}:\n")
        print("| # | file | Total | " + " | ".join(sites) + " |")
        print("|---:|---|---:|" + "---:|" * len(sites))
        for position, file, total, values in dumps:
            print(f"| {position} | {file} | {total} | " + " | ".join(str(v) for v in values) + " |")
    return bad


if __name__ == "__main__":
    sys.exit(main())
