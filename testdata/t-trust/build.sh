#!/bin/bash
# t-trust: profiles that used to give hex frames without a word, wrong names, or nothing at
# all (issue 17), written by gperftools' and jemalloc's own profilers:
#   ttrust-stripped.prof  CPU; hot static functions of a stripped library (libtsecret.so)
#   ttrust-dlclose.prof   CPU; most samples in libtplug.so, dlclose()d before the map was written
#   ttrust-killed.prof    CPU; the process killed (SIGKILL) while profiling: complete records,
#                         no end-of-data record, no memory map
#   ttrust-cut.prof       CPU; the process ran out of file space (ulimit -f 16): the file ends
#                         in the middle of a record
#   ttrust-cut.0001.heap  HEAPPROFILE dump cut the same way (ulimit -f 4), in the middle of a line
#   ttrust.growth         GetHeapGrowthStacks with the short "start-end: path" memory map
#   tjenew.0001.heap      jemalloc, C++ operator new (newImpl in the stripped libjemalloc.so.2)
# References: google-pprof --text (and --collapsed) on the complete profiles, jeprof on tjenew.
source "$(dirname "$0")/../common.sh"
begin_case t-trust
copy_in tsecret.c tplug.c ttrust.cc tjenew.cc

CFLAGS=(-O1 -g -fno-omit-frame-pointer)
gcc "${CFLAGS[@]}" -fPIC -fno-toplevel-reorder -shared -o libtsecret.so tsecret.c
strip --strip-all libtsecret.so
gcc "${CFLAGS[@]}" -fPIC -shared -o libtplug.so tplug.c
g++ "${CFLAGS[@]}" -o ttrust ttrust.cc -L. -ltsecret -Wl,-rpath,'$ORIGIN' -ldl \
    -Wl,--no-as-needed -ltcmalloc_and_profiler -Wl,--as-needed
g++ "${CFLAGS[@]}" -o tjenew tjenew.cc -ljemalloc

export CPUPROFILE_FREQUENCY=1000
./ttrust stripped "$RUN/ttrust-stripped.prof" > run-stripped.stdout 2> run-stripped.stderr
./ttrust dlclose "$RUN/ttrust-dlclose.prof" "$RUN/libtplug.so" > run-dlclose.stdout 2> run-dlclose.stderr
# Killed after 3 s of a 60 s run: whatever ProfilerFlush wrote by then.
./ttrust flushing "$RUN/ttrust-killed.prof" 60 > run-killed.stdout 2> run-killed.stderr &
pid=$!
sleep 3
kill -KILL $pid
wait $pid || true
# No more than 16 KiB of file: the write that passes it is cut, and SIGXFSZ ends the process.
( ulimit -f 16; exec ./ttrust flushing "$RUN/ttrust-cut.prof" 60 ) > run-cut.stdout 2> run-cut.stderr || true
( ulimit -f 4; HEAPPROFILE="$RUN/ttrust-cut" exec ./ttrust heap ) > run-heap.stdout 2> run-heap.stderr || true
./ttrust shortmap "$RUN/ttrust.growth" > run-shortmap.stdout 2> run-shortmap.stderr
MALLOC_CONF=prof:true,lg_prof_sample:10 ./tjenew "$RUN/tjenew.0001.heap" > run-jenew.stdout 2> run-jenew.stderr

# The cuts must be real cuts.
[ "$(stat -c %s ttrust-cut.prof)" = 16384 ] || { echo "ttrust-cut.prof is not 16 KiB" >&2; exit 1; }
[ "$(stat -c %s ttrust-cut.0001.heap)" = 4096 ] || { echo "ttrust-cut.0001.heap is not 4 KiB" >&2; exit 1; }

profile_row cpu ttrust ttrust-stripped.prof
profile_row cpu ttrust ttrust-dlclose.prof
profile_row cpu ttrust ttrust-killed.prof
profile_row cpu ttrust ttrust-cut.prof
profile_row heap ttrust ttrust-cut.0001.heap
profile_row heap ttrust ttrust.growth
profile_row jemalloc tjenew tjenew.0001.heap

for p in ttrust-stripped.prof ttrust-dlclose.prof ttrust.growth; do
    ref google-pprof $p text ttrust --text
    ref google-pprof $p collapsed ttrust --collapsed
done
ref jeprof tjenew.0001.heap text tjenew --text
ref jeprof tjenew.0001.heap collapsed tjenew --collapsed

finish_case tsecret.c tplug.c ttrust.cc tjenew.cc
