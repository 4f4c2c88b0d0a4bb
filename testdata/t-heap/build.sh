#!/bin/bash
# t-heap: build theap, run it under HEAPPROFILE (3 dumps) and with
# TCMALLOC_SAMPLE_PARAMETER (heap_v2 sample + growth stacks), capture google-pprof references.
source "$(dirname "$0")/../common.sh"
begin_case t-heap
copy_in theap.cc

g++ -O2 -g -fno-omit-frame-pointer -o theap theap.cc -ltcmalloc_and_profiler

# (a) three HEAPPROFILE dumps: 2 by allocation interval + 1 at exit
HEAPPROFILE=$RUN/theap.hprof HEAP_PROFILE_ALLOCATION_INTERVAL=4000000 \
    ./theap dumps > run-dumps.stdout 2> run-dumps.stderr
# (b) + (c) GetHeapSample / GetHeapGrowthStacks, written by the program itself
TCMALLOC_SAMPLE_PARAMETER=8192 \
    ./theap sample theap.heapv2 theap.growth > run-sample.stdout 2> run-sample.stderr

ls theap.hprof.0001.heap theap.hprof.0002.heap theap.hprof.0003.heap > /dev/null
[ ! -e theap.hprof.0004.heap ] || { echo "more than 3 dumps" >&2; exit 1; }

profile_row heap theap theap.hprof.0001.heap
profile_row heap theap theap.hprof.0002.heap theap.hprof.0001.heap
profile_row heap theap theap.hprof.0003.heap theap.hprof.0001.heap
profile_row heap theap theap.heapv2
profile_row heap theap theap.growth

FOCUS='index::grow'
IGNORE='Slab'
heap_refs google-pprof theap theap.hprof.0001.heap
heap_refs google-pprof theap theap.hprof.0002.heap theap.hprof.0001.heap
heap_refs google-pprof theap theap.hprof.0003.heap theap.hprof.0001.heap
heap_refs google-pprof theap theap.heapv2
heap_refs google-pprof theap theap.growth

# --list with names that have no overloads: pprof orders same-named routines by hash
ref google-pprof theap.heapv2 list-some theap '--list=one_round|grow|raster'
ref google-pprof theap.heapv2 disasm-some theap '--disasm=one_round|grow|raster'

# A copy stripped as distributions and production builds ship programs, its symbols and
# DWARF in a separate file found through its .gnu_debuglink, and the last dump with its map
# naming that copy (the profile it would have written): google-pprof's nm finds no _fini
# in the stripped file, so it names inlined code after the innermost function alone.
objcopy --only-keep-debug theap theap-stripped.debug
objcopy --strip-all theap theap-stripped.tmp
objcopy --add-gnu-debuglink=theap-stripped.debug theap-stripped.tmp theap-stripped
rm theap-stripped.tmp
sed 's#/t-heap/theap$#/t-heap/theap-stripped#' theap.hprof.0003.heap > theap-stripped.0003.heap
ref google-pprof theap-stripped.0003.heap text theap-stripped --text
ref google-pprof theap-stripped.0003.heap text-lines theap-stripped --text --lines
ref google-pprof theap-stripped.0003.heap text-cum theap-stripped --text --cum
finish_case theap.cc
