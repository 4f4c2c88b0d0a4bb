#!/usr/bin/env python3
"""Selects a compact, representative set of demangling test vectors.

Reads `mangled<TAB>demangled` pairs (from demangle-harvest.py) and keeps, shortest
first, every pair that shows something not yet kept: a trigram of the mangled name's
"skeleton" (source names replaced by a placeholder, so that only the mangling grammar
counts), a construct of the output (lambda, ABI tag, clone suffix, thunk, ...), or a new
kind of failure.  Then adds a random sample of the rest up to the wanted count.  Output
is sorted and de-duplicated, and stays under a size budget.

Usage: demangle-select.py [--count N] [--max-bytes B] [--seed S] PAIRS.tsv... > out.tsv

(The demangler crate's test vectors, crates/demangle/testdata/pairs.txt, were chosen so.)
"""
import argparse
import random
import re

OUTPUT_TOKENS = [
    "{lambda", "{unnamed type#", "[abi:", "[clone ", "decltype", "...", "operator",
    "vtable for", "VTT for", "typeinfo for", "typeinfo name for", "typeinfo fn for",
    "guard variable", "non-virtual thunk", "virtual thunk", "covariant return thunk",
    "construction vtable", "TLS init", "TLS wrapper", "reference temporary",
    "transaction clone", "hidden alias", "(anonymous namespace)", "std::string",
    "std::istream", "std::ostream", "std::iostream", "std::allocator", "std::basic_string",
    "(*)", "(&)", "(&&)", "::*", "restrict", "volatile", " &&", " &", "noexcept", "throw",
    "sizeof", "alignof", "true", "false", "{parm#", "auto:", "$T", "$N", "{default arg#",
    "string literal", "global constructors keyed to", "global destructors keyed to",
    "__vector", "_Complex", "transaction_safe", "decltype(nullptr)", "char8_t", "char16_t",
    "char32_t", "_Float", "bfloat16", "__int128", "__float128", "wchar_t", "{closure#",
    "{shim:", "dyn ", "for<", "extern \"", "unsafe ", " as ", "::<", "'", "[", "(...",
    "...)", "new ", "delete", "this", "::~", "template parameter object", "initializer for",
    "@", "#", "(char)", "(unsigned char)", "ul", "ll", "u>", "l>", "->", "*mut ", "*const ",
    "&mut ", "fn(", "[clone .cold]", "[clone .part.", "[clone .isra.", "[clone .constprop.",
    "[clone .lto_priv.", "static_cast", "dynamic_cast", "const_cast", "reinterpret_cast",
    "::operator", "operator()", "operator new", "operator delete", "operator\"\"",
    "operator<", "operator>>", "co_await", "<=>", ", >", ", )", "<, ", "(, ", ", , ",
]

CLONE_RE = re.compile(r"(\.[a-z_][a-z0-9_]*)?(\.[0-9]+)*$")


def skeleton(m):
    """The mangled name with each <length><identifier> replaced by 'N'."""
    out = []
    i = 0
    n = len(m)
    while i < n:
        c = m[i]
        if c.isdigit() and (i == 0 or not m[i - 1] in "STL_" or m[i - 1] == "_"):
            j = i
            while j < n and m[j].isdigit():
                j += 1
            length = int(m[i:j])
            if 0 < length <= n - j:
                out.append("N")
                i = j + length
                continue
            out.append("9")
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def features(m, d):
    f = set()
    body = m.lstrip(".$").split("@", 1)[0]
    sk = skeleton(body)
    for k in range(len(sk) - 2):
        f.add("t:" + sk[k : k + 3])
    f.add("start:" + sk[:4])
    f.add("end:" + sk[-3:])
    if "@" in m:
        f.add("version:" + ("@@" if "@@" in m else "@"))
    if m[:1] in ".$":
        f.add("prefix:" + m[:1])
    for tok in OUTPUT_TOKENS:
        if tok in d:
            f.add("o:" + tok)
    if m == d:
        f.add("failed:" + sk[:3])
    for esc in re.findall(r"\$[A-Za-z0-9]+\$|\.\.", body):
        f.add("escape:" + esc)
    suffix = re.search(r"\.[a-z_][a-z0-9_.]*$", body)
    if suffix:
        f.add("suffix:" + re.sub(r"[0-9]+", "9", suffix.group(0)))
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=4000)
    ap.add_argument("--max-bytes", type=int, default=900_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    pairs = {}
    for f in a.files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                line = line.rstrip("\n")
                if "\t" not in line:
                    continue
                m, d = line.split("\t", 1)
                pairs.setdefault(m, d)
    items = sorted(pairs.items(), key=lambda p: (len(p[0]) + len(p[1]), p[0]))
    seen = set()
    chosen = {}
    size = 0
    # First the constructs of the output and the special forms, then the grammar trigrams,
    # each time shortest first.
    for phase in ("special", "trigram"):
        budget = a.max_bytes * (0.3 if phase == "special" else 0.8)
        for m, d in items:
            if m in chosen:
                continue
            f = features(m, d)
            if phase == "special":
                f = {x for x in f if not x.startswith(("t:", "start:", "end:"))}
            new = f - seen
            if not new:
                continue
            line_len = len(m) + len(d) + 2
            if size + line_len > budget or line_len > 8000:
                continue
            seen |= f
            chosen[m] = d
            size += line_len
    rest = [p for p in items if p[0] not in chosen]
    random.Random(a.seed).shuffle(rest)
    for m, d in rest:
        if len(chosen) >= a.count:
            break
        line_len = len(m) + len(d) + 2
        if size + line_len > a.max_bytes or line_len > 2000:
            continue
        chosen[m] = d
        size += line_len
    for m in sorted(chosen):
        print(f"{m}\t{chosen[m]}")


if __name__ == "__main__":
    main()
