#!/usr/bin/env bash
# --trend at scale: N heap dumps of the shared corpus's large program (50,000 functions, 54 MB
# of DWARF) in one `rpprof --trend`, against one `rpprof --text` of one dump and against N
# separate `--text` runs (what a script looping over the dumps would cost).
#
# The dumps are synthetic variations of the corpus's two HEAPPROFILE dumps, written by
# scripts/trend-series.py: the same stacks and memory map, values that grow, jitter or stay
# put per record and per dump.
#
#     scripts/trend-bench.sh [RPPROF] [N]      # defaults: target/release/rpprof, 100
#
# REPEAT (3) runs of each single command, the fastest wall time kept; the N separate runs are
# timed once (SEPARATE=0 skips them). LARGE is the corpus case (/tmp/rpprof-corpus/large).
# rpprof's symbol cache is a folder of the script's own: "cold" runs start with it empty,
# "warm" ones with the entries of a run before; the separate runs start with it empty, as a
# script looping over new dumps would (each dump's addresses differ: the program's entry
# misses, the libraries' hit).
set -euo pipefail
cd "$(dirname "$0")/.."
rpprof=${1:-target/release/rpprof}
n=${2:-100}
repeat=${REPEAT:-3}
large=${LARGE:-/tmp/rpprof-corpus/large}
prog=$large/src/large
for f in "$rpprof" "$prog" "$large/large.hprof.0001.heap" "$large/large.hprof.0002.heap"; do
    [ -e "$f" ] || { echo "trend-bench: $f is missing (see ../shared/corpus/large/README.md)" >&2; exit 1; }
done
rpprof=$(realpath "$rpprof")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PYTHONHASHSEED=0 python3 scripts/trend-series.py "$dir" "$n" \
    "$large/large.hprof.0001.heap" "$large/large.hprof.0002.heap"
dumps=("$dir"/series.*.heap)
export XDG_CACHE_HOME=$dir/cache

now() { date +%s.%N; }
# The fastest of $repeat runs of "$@" (output discarded), in seconds; the peak memory of the
# last run in MB when /usr/bin/time is there.
best() {
    local b="" t0 t1 t
    for _ in $(seq "$repeat"); do
        [ "${COLD:-0}" = 1 ] && rm -rf "$XDG_CACHE_HOME"
        t0=$(now)
        "$@" >/dev/null 2>&1
        t1=$(now)
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
    done
    local mem=""
    if [ -x /usr/bin/time ]; then
        [ "${COLD:-0}" = 1 ] && rm -rf "$XDG_CACHE_HOME"
        mem=$(/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1)
        mem=$(printf ", peak %d MB" $((mem / 1024)))
    fi
    printf "%.2f s%s" "$b" "$mem"
    echo "$b" >"$dir/last"
}

echo "rpprof: $rpprof; $n dumps of $prog in $dir"
for kind in cold warm; do
    [ $kind = cold ] && c=1 || c=0
    one=$(COLD=$c best "$rpprof" --text "$prog" "${dumps[0]}"); t_one=$(cat "$dir/last")
    printf "%-34s %s\n" "one dump, --text, $kind:" "$one"
    trend=$(COLD=$c best "$rpprof" --trend "$prog" "${dumps[@]}"); t_trend=$(cat "$dir/last")
    printf "%-34s %s (%.1fx one --text)\n" "$n dumps, --trend, $kind:" "$trend" "$(echo "$t_trend / $t_one" | bc -l)"
done
csv=$(best "$rpprof" --trend --csv "$prog" "${dumps[@]}")
printf "%-34s %s\n" "$n dumps, --trend --csv, warm:" "$csv"
if [ "${SEPARATE:-1}" != 0 ]; then
    rm -rf "$XDG_CACHE_HOME"
    t0=$(now)
    for d in "${dumps[@]}"; do "$rpprof" --text "$prog" "$d" >/dev/null 2>&1; done
    t1=$(now)
    t_sep=$(echo "$t1 - $t0" | bc -l)
    printf "%-34s %.2f s (%.1fx the warm --trend; the cache empty at the first)\n" "$n separate --text runs:" "$t_sep" "$(echo "$t_sep / $t_trend" | bc -l)"
fi
for kind in cold warm; do
    echo "stages of --trend, $kind (--debug):"
    [ $kind = cold ] && rm -rf "$XDG_CACHE_HOME"
    "$rpprof" --debug --trend "$prog" "${dumps[@]}" 2>&1 >/dev/null | grep '^rpprof:' | sed 's/^/  /'
done
