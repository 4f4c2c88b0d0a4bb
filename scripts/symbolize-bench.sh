#!/usr/bin/env bash
# What a `--text` report costs from start to end, for rpprof with an empty symbol cache
# (cold), with the cache of a first run (warm), for google-pprof and for Go pprof, on the
# shared corpus's large CPU, heap v1 and heap_v2 profiles, on testdata's small profiles, and
# on generated CPU profiles of the large program with 1x, 4x and 16x as many unique addresses
# (how the cost grows). Prints wall time (fastest run) and peak memory (largest seen), the
# ratios, and checks that the cold and warm reports are the same and that google-pprof
# really named the program's functions (through a symbolic link to the folder it prints
# addresses, and is fast).
#
# usage: scripts/symbolize-bench.sh [CASES-REGEX]
# environment: REPEAT=<rpprof runs per case and kind, fastest kept; default 5>,
#   SLOW_REPEAT=<google-pprof and Go pprof runs; default 1>,
#   GOOGLE_PPROF (default google-pprof), GO_PPROF (default pprof on PATH; Debian 12's Go
#   1.19 `go tool pprof` is too slow: build a current google/pprof, see README),
#   SKIP=<comma list: google-pprof,go-pprof>, GROWTH_BASE=<unique addresses at 1x; 20000>
#
# The corpus's folders under /tmp/rpprof-corpus are symbolic links; the profiles name the
# programs by their /tmp/rpprof-corpus paths, and google-pprof resolves the program's path
# through links before comparing, so the script replaces each link it needs by a copy of
# the folder (the tests work with either).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
only=${1:-.}
repeat=${REPEAT:-5}
slow=${SLOW_REPEAT:-1}
skip=",${SKIP:-},"
gpprof=${GOOGLE_PPROF:-google-pprof}
gopprof=${GO_PPROF:-pprof}
base=${GROWTH_BASE:-20000}
(cd "$here" && cargo build --release -q --bin rpprof) || exit 2
rpprof=$here/target/release/rpprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=/tmp/rpprof-corpus
mkdir -p "$runs"

# real CASE SOURCE: /tmp/rpprof-corpus/CASE as a real folder holding SOURCE's files.
real() {
    local at=$runs/$1
    if [ -L "$at" ] || [ ! -e "$at" ]; then
        rm -f "$at"
        cp -a "$2" "$at.tmp.$$" && mv "$at.tmp.$$" "$at" || return 1
        echo "(replaced the link $at by a copy of $2)" >&2
    fi
}
shared=$here/../shared/corpus
[ -d "$shared/large" ] && real large "$shared/large"
real t-heap "$here/testdata/t-heap"
real t-cpu "$here/testdata/t-cpu"
if [ ! -x "$runs/large/src/large" ]; then
    echo "the large program is missing: run ../shared/corpus/large/regenerate.sh" >&2
    exit 2
fi

# Generated CPU profiles of the large program: N unique addresses in its functions, in
# stacks of 8, with the memory map of the recorded profile.
gen() {
    python3 - "$runs/large/src/large" "$runs/large/large-cpu.prof" "$1" "$2" <<'EOF'
import random, struct, subprocess, sys
prog, ref, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
data = open(ref, 'rb').read()
words = struct.unpack_from('<%dQ' % (len(data) // 8), data)
i = 5
while not (words[i] == 0 and words[i + 1] == 1 and words[i + 2] == 0):
    i += 2 + words[i + 1]
maps = data[(i + 3) * 8:]
# Where the program is mapped, and its functions (file addresses, sizes).
line = next(l for l in maps.decode().splitlines() if l.endswith('/src/large') and ' r-xp ' in l)
start, off = int(line.split('-')[0], 16), int(line.split()[2], 16)
seg = subprocess.run(['readelf', '-lW', prog], capture_output=True, text=True).stdout
load = [l.split() for l in seg.splitlines() if l.strip().startswith('LOAD')]
# The executable segment: file offset -> virtual address.
x = next(f for f in load if 'E' in f[6:])
voff, vaddr = int(x[1], 16), int(x[2], 16)
syms = []
for l in subprocess.run(['nm', '-S', '--defined-only', prog], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 4 and f[2] in 'tT' and int(f[1], 16) > 1:
        syms.append((int(f[0], 16), int(f[1], 16)))
rnd = random.Random(20261124)
addrs = set()
while len(addrs) < n:
    a, size = rnd.choice(syms)
    vma = a + rnd.randrange(1, size)
    addrs.add(start + (vma - vaddr + voff) - off)
addrs = sorted(addrs)
rnd.shuffle(addrs)
body = [0, 3, 0, 10000, 0]
for k in range(0, len(addrs), 8):
    stack = addrs[k:k + 8]
    body += [1 + k % 7, len(stack)] + stack
body += [0, 1, 0]
open(out, 'wb').write(struct.pack('<%dQ' % len(body), *body) + maps)
EOF
}

# name program profile [rpprof options]
cases=(
    "large-cpu $runs/large/src/large $runs/large/large-cpu.prof"
    "large-heap-v1 $runs/large/src/large $runs/large/large.hprof.0002.heap"
    "large-heap_v2 $runs/large/src/large $runs/large/large-heapv2.prof"
    "small-cpu $runs/t-cpu/tcpu-pie $runs/t-cpu/tcpu-pie.prof"
    "small-heap-v1 $runs/t-heap/theap $runs/t-heap/theap.hprof.0003.heap"
    "small-heap_v2 $runs/t-heap/theap $runs/t-heap/theap.heapv2"
)
for k in 1 4 16; do
    name=growth-${k}x
    [[ $name =~ $only ]] || continue
    gen $((k * base)) "$tmp/$name.prof" || exit 2
    cases+=("$name $runs/large/src/large $tmp/$name.prof")
done

# measure NAME RUNS [--fresh-cache] CMD...: fastest wall time (bash's clock, around
# /usr/bin/time) and largest peak memory (/usr/bin/time).
measure() {
    local name=$1 n=$2 fresh=0 i secs kb best="" bestkb=0
    shift 2
    if [ "$1" = --fresh-cache ]; then fresh=1; shift; fi
    for ((i = 0; i < n; i++)); do
        [ $fresh = 1 ] && rm -rf "$tmp/cache"
        local t0=$EPOCHREALTIME
        XDG_CACHE_HOME=$tmp/cache /usr/bin/time -f "%M" -o "$tmp/time" "$@" \
            >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || {
            echo "$name failed: $(tail -1 "$tmp/$name.err")" >&2
            echo "- -" >"$tmp/$name.res"
            return
        }
        local t1=$EPOCHREALTIME
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        read -r kb <"$tmp/time"
        if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$secs; fi
        [ "$kb" -gt "$bestkb" ] && bestkb=$kb
    done
    echo "$best $((bestkb / 1024))" >"$tmp/$name.res"
}

cell() { read -r s m <"$tmp/$1.res"; printf '%7s s %5s MB' "$s" "$m"; }
ratio() {
    read -r a _ <"$tmp/$1.res"
    read -r b _ <"$tmp/$2.res"
    awk -v a="$a" -v b="$b" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.1fx", a / b }'
}

printf '%-14s | %-18s | %-18s | %-18s | %-18s | %8s | %8s | %8s | %s\n' case "rpprof cold" "rpprof warm" \
    google-pprof "Go pprof" "gp/cold" "go/cold" "cold/warm" notes
for c in "${cases[@]}"; do
    read -r name prog prof <<<"$c"
    [[ $name =~ $only ]] || continue
    opts=()
    [[ $name == small-cpu ]] && opts=(--lib_prefix="$runs/t-cpu")
    notes=""
    measure cold "$repeat" --fresh-cache "$rpprof" "${opts[@]}" --text "$prog" "$prof"
    rm -rf "$tmp/cache"
    XDG_CACHE_HOME=$tmp/cache "$rpprof" "${opts[@]}" --text "$prog" "$prof" >/dev/null 2>&1 </dev/null
    measure warm "$repeat" "$rpprof" "${opts[@]}" --text "$prog" "$prof"
    cmp -s "$tmp/cold.out" "$tmp/warm.out" || notes+=" WARM-DIFFERS"
    echo "- -" >"$tmp/gp.res"
    echo "- -" >"$tmp/go.res"
    if [[ $skip != *,google-pprof,* ]] && command -v "$gpprof" >/dev/null; then
        measure gp "$slow" "$gpprof" --text "$prog" "$prof"
        # A symbolized report names functions: count the rows that stay addresses.
        hex=$(grep -cE ' 0x[0-9a-f]{6,}$' "$tmp/gp.out")
        [ "$hex" -gt 0 ] && notes+=" google-pprof: $hex rows in hex (rpprof: $(grep -cE ' 0x[0-9a-f]{6,}$' "$tmp/cold.out"))"
    fi
    if [[ $skip != *,go-pprof,* ]] && command -v "$gopprof" >/dev/null; then
        measure go "$slow" "$gopprof" -text "$prog" "$prof"
    fi
    printf '%-14s | %s | %s | %s | %s | %8s | %8s | %8s |%s\n' "$name" "$(cell cold)" "$(cell warm)" \
        "$(cell gp)" "$(cell go)" "$(ratio gp cold)" "$(ratio go cold)" "$(ratio cold warm)" "$notes"
done
