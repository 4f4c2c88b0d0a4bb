#!/usr/bin/env python3
"""Harvests (mangled, demangled) name pairs from ELF files with binutils' nm.

For each file, `nm -n` and `nm -n --demangle` (and the same with `-D`) list
the same symbols in the same order, so pairing their lines gives what
binutils' demangler (bfd_demangle with DMGL_PARAMS | DMGL_ANSI) prints for
each name.  Prints tab-separated `mangled<TAB>demangled` lines, de-duplicated,
for every name that binutils changed or that looks mangled (`_Z`, `_R`,
`_GLOBAL_`, after any leading `.`/`$`), so that names binutils leaves alone
are checked too.

Usage: demangle-harvest.py FILE... > pairs.tsv
"""
import subprocess
import sys


def nm_names(args, path):
    try:
        out = subprocess.run(
            ["nm"] + args + [path],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
        ).stdout
    except OSError:
        return []
    names = []
    width = None
    for raw in out.split(b"\n"):
        if not raw:
            continue
        line = raw.decode("utf-8", "surrogateescape")
        if " " not in line:
            # An archive member's header ("foo.o:").
            continue
        if width is None:
            if line.startswith(" "):
                # An undefined symbol: the address column is blank.
                width = len(line) - len(line.lstrip(" ")) - 1
            else:
                width = line.find(" ")
        if len(line) < width + 3:
            names.append(None)
            continue
        names.append(line[width + 3 :])
    return names


def looks_mangled(name):
    body = name.lstrip(".$")
    return body.startswith(("_Z", "_R", "_GLOBAL_"))


def pairs_of(path):
    for extra in ([], ["-D"]):
        mangled = nm_names(["-n"] + extra, path)
        demangled = nm_names(["-n", "--demangle"] + extra, path)
        if len(mangled) != len(demangled):
            print(f"warning: {path}: line counts differ", file=sys.stderr)
            continue
        for m, d in zip(mangled, demangled):
            if m is None or d is None or "\t" in m or "\t" in d:
                continue
            if m != d or looks_mangled(m):
                yield m, d


def main():
    seen = set()
    out = sys.stdout
    for path in sys.argv[1:]:
        for m, d in pairs_of(path):
            if m in seen:
                continue
            seen.add(m)
            out.write(f"{m}\t{d}\n".encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


if __name__ == "__main__":
    main()
