#!/usr/bin/env python3
"""Writes addresses.tsv: binutils addr2line's answers for every address of every testdata
profile that falls in a case's own ELF files (programs, their shared libraries, the stripped
program's debug file), for tests/addresses.rs.

    python3 testdata/addresses.py   # needs binutils, and a release build of the examples

Each row: file (relative to testdata/) <TAB> file address (hex) <TAB> then, for every frame
`addr2line -f -i -C` prints (innermost first), function <TAB> file:line.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FILE_ADDRS = os.path.join(ROOT, "target", "release", "examples", "file-addrs")


def main():
    if not os.path.exists(FILE_ADDRS):
        sys.exit("build the examples first: cargo build --release --examples")
    wanted = {}
    for case in sorted(os.listdir(HERE)):
        tsv = os.path.join(HERE, case, "profiles.tsv")
        if not os.path.isfile(tsv) or case in ("t-dwz", "t-split"):
            # Files binutils misreads (dwz) or reads in part (split DWARF): binutils'
            # answers for the same code as it reads it whole are in t-dwz/before-dwz.tsv.gz
            # and t-split/plain-answers.tsv.gz.
            continue
        for row in open(tsv).read().splitlines():
            fields = row.split("\t")
            if len(fields) < 3:
                continue
            prog, prof = fields[1], fields[2]
            out = subprocess.run([FILE_ADDRS, "--all", "--lib_prefix=.", "./" + prog, prof],
                                 cwd=os.path.join(HERE, case), capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                path, vma = line.split("\t")
                if path.startswith("/"):
                    continue  # a system library: not the project's, differs between machines
                rel = os.path.normpath(os.path.join(case, path))
                wanted.setdefault(rel, set()).add(int(vma, 16))
    rows = []
    for rel, vmas in sorted(wanted.items()):
        vmas = sorted(vmas)
        out = subprocess.run(["addr2line", "-f", "-i", "-C", "-a", "-e", os.path.join(HERE, rel)],
                             input="".join(f"{v:x}\n" for v in vmas), capture_output=True,
                             text=True, check=True).stdout.splitlines()
        i = 0
        for v in vmas:
            assert out[i] == f"0x{v:016x}", (rel, out[i])
            i += 1
            frames = []
            while i < len(out) and not (out[i].startswith("0x") and len(out[i]) == 18):
                frames += [out[i], out[i + 1]]
                i += 2
            rows.append("\t".join([rel, f"{v:x}"] + frames))
    with open(os.path.join(HERE, "addresses.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print(f"{len(rows)} addresses in {len(wanted)} files")


if __name__ == "__main__":
    main()
