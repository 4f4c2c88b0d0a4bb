#!/bin/bash
# t-stripped: CPU profile of a binary stripped of DWARF and symbols, whose debug
# info is in tstrip.debug (found through .gnu_debuglink); google-pprof references.
source "$(dirname "$0")/../common.sh"
begin_case t-stripped
copy_in tstrip.c

gcc -O1 -g -fno-omit-frame-pointer -o tstrip tstrip.c -Wl,--no-as-needed -lprofiler -Wl,--as-needed
objcopy --only-keep-debug tstrip tstrip.debug
strip --strip-debug --strip-unneeded tstrip
objcopy --add-gnu-debuglink=tstrip.debug tstrip

CPUPROFILE=$RUN/tstrip.prof CPUPROFILE_FREQUENCY=1000 ./tstrip 350 > run.stdout 2> run.stderr

profile_row cpu tstrip tstrip.prof

FOCUS='kmp_'
IGNORE='insertion_sort'
cpu_refs google-pprof tstrip tstrip.prof

finish_case tstrip.c
