#!/usr/bin/env bash
# Start-up cost of `rpprof --text`: wall time and peak memory on the shared corpus's large
# heap v1, heap_v2 and CPU profiles and on testdata's small heap profiles, for one or more
# rpprof binaries side by side (e.g. main's and a branch's), each the fastest of REPEAT runs.
#
# usage: scripts/startup-bench.sh [RPPROF...]
#   default: this checkout's target/release/rpprof (built first)
# environment: REPEAT=<runs per case and binary, the fastest is kept; default 3>,
#   CASES=<regex: only the cases whose name matches>,
#   LARGE=<the large corpus folder; default /tmp/rpprof-corpus/large>
#
# Every binary's output is compared with the first one's: a difference is reported (the
# numbers mean nothing if the answers differ).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repeat=${REPEAT:-3}
large=${LARGE:-/tmp/rpprof-corpus/large}
only=${CASES:-.}
if [ $# -eq 0 ]; then
    (cd "$here" && cargo build --release -q --bin rpprof) || exit 2
    set -- "$here/target/release/rpprof"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name program profile
cases=(
    "large-heap-v1 $large/src/large $large/large.hprof.0002.heap"
    "large-heap_v2 $large/src/large $large/large-heapv2.prof"
    "large-cpu $large/src/large $large/large-cpu.prof"
    "small-heap-v1 $here/testdata/t-heap/theap $here/testdata/t-heap/theap.hprof.0003.heap"
    "small-heap_v2 $here/testdata/t-heap/theap $here/testdata/t-heap/theap.heapv2"
)

printf '%-15s' case
for b in "$@"; do printf ' | %-28s' "$(basename "$b")"; done
echo
for c in "${cases[@]}"; do
    read -r name prog prof <<<"$c"
    [[ $name =~ $only ]] || continue
    if [ ! -f "$prog" ] || [ ! -f "$prof" ]; then
        echo "$name: SKIPPED (missing $prog or $prof)"
        continue
    fi
    printf '%-15s' "$name"
    i=0
    for b in "$@"; do
        best="" bestkb=0
        for ((r = 0; r < repeat; r++)); do
            /usr/bin/time -f "%e %M" -o "$tmp/time" "$b" --text "$prog" "$prof" \
                >"$tmp/out.$i" 2>"$tmp/err.$i" </dev/null
            read -r secs kb <"$tmp/time"
            if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
                best=$secs
            fi
            [ "$kb" -gt "$bestkb" ] && bestkb=$kb
        done
        same=""
        if [ $i -gt 0 ] && ! cmp -s "$tmp/out.0" "$tmp/out.$i"; then same=" DIFFERS"; fi
        printf ' | %6.2f s %8d kB%s' "$best" "$bestkb" "$same"
        i=$((i + 1))
    done
    echo
done
