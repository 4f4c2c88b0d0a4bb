#!/bin/bash
# t-dwz: a heap profile of a program and a shared library whose DWARF went through
# `dwz -m` (as Debian's and Fedora's debug packages do): the entries both share, among
# them the inline functions' names, live in a third file named by .gnu_debugaltlink.
# The references are google-pprof's on the same binaries *before* dwz (binutils 2.40
# loses the functions of the first unit it reads that refers into the common file; see
# README.md): rpprof must give the same answers from the processed files.
source "$(dirname "$0")/../common.sh"
begin_case t-dwz
copy_in tdwz.h tdwz.cc tdwz_more.cc libtdwz.cc

CXXFLAGS=(-O2 -g -fno-omit-frame-pointer)
g++ "${CXXFLAGS[@]}" -fPIC -shared -o libtdwz.so libtdwz.cc
g++ "${CXXFLAGS[@]}" -o tdwz tdwz.cc tdwz_more.cc -L. -ltdwz -Wl,-rpath,'$ORIGIN' -ltcmalloc_and_profiler

HEAPPROFILE=$RUN/tdwz.hprof ./tdwz 4000 > run.stdout 2> run.stderr
ls tdwz.hprof.0001.heap > /dev/null
[ ! -e tdwz.hprof.0002.heap ] || { echo "more than 1 dump" >&2; exit 1; }
profile_row heap tdwz tdwz.hprof.0001.heap

FOCUS='fill_library_table'
IGNORE='fill_program_table'
heap_refs google-pprof tdwz tdwz.hprof.0001.heap
ref google-pprof tdwz.hprof.0001.heap list-put tdwz '--list=Table::put'

# binutils' answers for every instruction of both files, before dwz (tests/addresses.rs:
# the processed files must give them): file, address, then function and file:line of each
# frame, as testdata/addresses.tsv; gzip'ed (2.3 MB of long C++ names, 34 kB).
for f in tdwz libtdwz.so; do
    addr2line_answers "$f" "t-dwz/$f"
done | gzip -9n > before-dwz.tsv.gz

# Now the files as a distribution ships them: shared entries moved into tdwz.dwz (named
# relatively, found next to the files), and the library's debug info in a separate file
# (found through .gnu_debuglink) that carries the link to tdwz.dwz.
dwz -m tdwz.dwz -M tdwz.dwz tdwz libtdwz.so
objcopy --only-keep-debug libtdwz.so libtdwz.so.debug
strip --strip-debug libtdwz.so
objcopy --add-gnu-debuglink=libtdwz.so.debug libtdwz.so
readelf --string-dump=.gnu_debugaltlink tdwz libtdwz.so.debug | grep -q tdwz.dwz

finish_case tdwz.h tdwz.cc tdwz_more.cc libtdwz.cc
