#!/bin/bash
# t-trend: series of heap profiles for the leak-trend report (issue 15), one
# program (ttrend.cc) with six allocation shapes, written three ways:
#   (1) 12 tcmalloc heap profiler dumps (HeapProfilerDump per tick), exact
#   (2) 12 GetHeapSample texts (heap_v2, TCMALLOC_SAMPLE_PARAMETER=8192), noisy
#   (3) jemalloc: 12 interval dumps (.i0-.i11) + .m0 + .u0 + .f, sampled
# then mtimes in series order, references (google-pprof; jeprof for jemalloc),
# series.tsv and sites.tsv.
source "$(dirname "$0")/../common.sh"
begin_case t-trend
copy_in ttrend.cc expected.tsv sites.py

g++ -O2 -g -fno-omit-frame-pointer -o ttrend ttrend.cc -ltcmalloc_and_profiler
g++ -DTTREND_JEMALLOC -O2 -g -fno-omit-frame-pointer -o ttrend-je ttrend.cc -ljemalloc

# (1) HeapProfilerStart/HeapProfilerDump in the program; no automatic dumps.
HEAP_PROFILE_ALLOCATION_INTERVAL=0 HEAP_PROFILE_INUSE_INTERVAL=0 \
    ./ttrend dumps ttrend.hprof > run-dumps.stdout 2> run-dumps.stderr
# (2) GetHeapSample after every tick, written as ttrend.sample.NNNN.heap.
TCMALLOC_SAMPLE_PARAMETER=8192 \
    ./ttrend sample ttrend.sample > run-sample.stdout 2> run-sample.stderr
# (3) jemalloc names its own files: ttrend-je.<pid>.<seq>.<kind><n>.heap.
MALLOC_CONF=prof:true,prof_prefix:ttrend-je,lg_prof_sample:14,lg_prof_interval:24,prof_final:true \
    ./ttrend-je jemalloc > run-jemalloc.stdout 2> run-jemalloc.stderr

hprof=(); sample=(); je=()
for n in $(seq 1 12); do
    hprof+=("$(printf 'ttrend.hprof.%04d.heap' "$n")")
    sample+=("$(printf 'ttrend.sample.%04d.heap' "$n")")
done
# jemalloc: in sequence-number order (the third field), which is the order written.
mapfile -t je < <(ls ttrend-je.*.heap | sort -t. -k3,3n)
ls "${hprof[@]}" "${sample[@]}" > /dev/null
[ ! -e ttrend.hprof.0013.heap ] && [ ! -e ttrend.sample.0013.heap ] \
    || { echo "more than 12 dumps" >&2; exit 1; }
kinds=$(printf '%s\n' "${je[@]}" | sed -E 's/^ttrend-je\.[0-9]+\.[0-9]+\.([a-z])[0-9]*\.heap$/\1/' | tr -d '\n')
[ "$kinds" = iiiiiiiiiiiimuf ] || { echo "unexpected jemalloc dumps: ${je[*]}" >&2; exit 1; }

# mtimes in series order, 10 minutes apart from 2025-03-01 12:00:00 UTC
# (git does not keep them: tests that need them set them from series.tsv).
T0=1740830400
printf 'series\tposition\tfile\tmtime\n' > series.tsv
stamp() {   # stamp SERIES FILE...
    local s=$1 i=0 f t
    shift
    for f in "$@"; do
        i=$((i + 1))
        t=$((T0 + (i - 1) * 600))
        touch -d "@$t" "$f"
        printf '%s\t%d\t%s\t%d\n' "$s" "$i" "$f" "$t" >> series.tsv
    done
}
stamp hprof "${hprof[@]}"
stamp sample "${sample[@]}"
stamp jemalloc "${je[@]}"

# profiles.tsv: every dump; the base column names the first dump of the series
# for the last one (and for the last jemalloc interval dump).
je_first=${je[0]}
je_last_i=${je[11]}
je_final=${je[14]}
heap_rows() {   # heap_rows FILE...: the last one has the first as its base
    local f first=$1 last=${*: -1}
    for f in "$@"; do
        if [ "$f" = "$last" ]; then profile_row heap ttrend "$f" "$first"; else profile_row heap ttrend "$f"; fi
    done
}
heap_rows "${hprof[@]}"
heap_rows "${sample[@]}"
for f in "${je[@]}"; do
    base=""
    { [ "$f" = "$je_last_i" ] || [ "$f" = "$je_final" ]; } && base=$je_first
    profile_row jemalloc ttrend-je "$f" "$base"
done

# base_refs TOOL BINARY FIRST LAST: --base=FIRST reports of LAST.
base_refs() {
    local tool=$1 bin=$2 first=$3 last=$4
    ref "$tool" "$last" base               "$bin" --text "--base=$first"
    ref "$tool" "$last" base-bytes         "$bin" --text --show_bytes "--base=$first"
    ref "$tool" "$last" base-inuse_objects "$bin" --text --inuse_objects "--base=$first"
    ref "$tool" "$last" base-lines         "$bin" --text --lines "--base=$first"
    ref "$tool" "$last" base-alloc_space-bytes "$bin" --text --alloc_space --show_bytes "--base=$first"
}
# trend_refs TOOL BINARY FILE...: per dump --text --show_bytes and --inuse_objects;
# --text of the first and the last; the base_refs of the last.
trend_refs() {
    local tool=$1 bin=$2 f
    shift 2
    local first=$1 last=${*: -1}
    for f in "$@"; do
        ref "$tool" "$f" text-bytes    "$bin" --text --show_bytes
        ref "$tool" "$f" inuse_objects "$bin" --text --inuse_objects
    done
    ref "$tool" "$first" text "$bin" --text
    ref "$tool" "$last"  text "$bin" --text
    base_refs "$tool" "$bin" "$first" "$last"
}
trend_refs google-pprof ttrend "${hprof[@]}"
trend_refs google-pprof ttrend "${sample[@]}"
trend_refs jeprof ttrend-je "${je[@]}"
ref jeprof "$je_last_i" text ttrend-je --text
base_refs jeprof ttrend-je "$je_first" "$je_last_i"

# sites.tsv from the references (and the README tables, on stderr); checks the
# unsampled series against the program's own account (run-dumps.stdout).
python3 sites.py >&2
finish_case ttrend.cc expected.tsv sites.py
