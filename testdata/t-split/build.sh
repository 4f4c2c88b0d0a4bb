#!/bin/bash
# t-split: a heap profile of a program built with -gsplit-dwarf: its functions and
# inlined frames are in the units' .dwo files, which binutils 2.40 does not read. The
# references are google-pprof's on the same program built without -gsplit-dwarf (the
# same code and data, checked here), which rpprof must give from the split build.
source "$(dirname "$0")/../common.sh"
begin_case t-split
copy_in tsplit.h tsplit.cc tsplit_index.cc

CXXFLAGS=(-O2 -g -fno-omit-frame-pointer)
UNITS=(tsplit tsplit_index)
for u in "${UNITS[@]}"; do g++ "${CXXFLAGS[@]}" -c -o "plain_$u.o" "$u.cc"; done
g++ -o tsplit.plain plain_tsplit.o plain_tsplit_index.o -ltcmalloc_and_profiler
for u in "${UNITS[@]}"; do g++ "${CXXFLAGS[@]}" -gsplit-dwarf -c "$u.cc"; done
g++ -o tsplit tsplit.o tsplit_index.o -ltcmalloc_and_profiler
ls tsplit.dwo tsplit_index.dwo > /dev/null
for sec in .text .rodata .data .eh_frame; do
    cmp <(objcopy -O binary --only-section=$sec tsplit /dev/stdout) \
        <(objcopy -O binary --only-section=$sec tsplit.plain /dev/stdout)
done

HEAPPROFILE=$RUN/tsplit.hprof ./tsplit 3000 > run.stdout 2> run.stderr
ls tsplit.hprof.0001.heap > /dev/null
[ ! -e tsplit.hprof.0002.heap ] || { echo "more than 1 dump" >&2; exit 1; }
profile_row heap tsplit tsplit.hprof.0001.heap

# The references, of the build binutils reads whole, under the split build's name.
mv tsplit tsplit.split
cp tsplit.plain tsplit
FOCUS='build_index'
IGNORE='Index::add'
heap_refs google-pprof tsplit tsplit.hprof.0001.heap
ref google-pprof tsplit.hprof.0001.heap list-add tsplit '--list=Index::add'
# binutils' answers for every instruction (tests/addresses.rs asks them of the split
# build), gzip'ed.
addr2line_answers tsplit t-split/tsplit | gzip -9n > plain-answers.tsv.gz
mv tsplit.split tsplit
# What google-pprof prints for the split build (README): names from the symbol table.
"${REFENV[@]}" /usr/bin/google-pprof --text --lines --lib_prefix=. ./tsplit tsplit.hprof.0001.heap \
    > google-pprof-on-split.txt 2> /dev/null

# The program as copied off the build machine: its units' compilation directory (where
# their .dwo files are looked for) is one that does not exist here.
for u in "${UNITS[@]}"; do
    g++ "${CXXFLAGS[@]}" -gsplit-dwarf -fdebug-prefix-map="$RUN=/nonexistent/t-split" \
        -c -o "moved_$u.o" "$u.cc"
done
g++ -o tsplit-moved moved_tsplit.o moved_tsplit_index.o -ltcmalloc_and_profiler
# The same again in the GNU DWARF 4 form of split DWARF, with its .dwo files packed by
# dwp into tsplit-packed.dwp, as such programs are shipped (binutils' dwp indexes DWARF 5
# units under id 0, and LLVM 14's llvm-dwp did not finish on these files).
# binutils' answers for it are those of the same build without split DWARF
# (plain4-answers.tsv.gz; DWARF 4 and 5 line tables differ where binutils misreads a
# DWARF 5 file number).
PACKED=(-gdwarf-4 -fdebug-prefix-map="$RUN=/nonexistent/t-split-packed")
for u in "${UNITS[@]}"; do
    g++ "${CXXFLAGS[@]}" "${PACKED[@]}" -gsplit-dwarf -c -o "packed_$u.o" "$u.cc"
    g++ "${CXXFLAGS[@]}" "${PACKED[@]}" -c -o "plain4_$u.o" "$u.cc"
done
g++ -o tsplit-packed packed_tsplit.o packed_tsplit_index.o -ltcmalloc_and_profiler
g++ -o tsplit.plain4 plain4_tsplit.o plain4_tsplit_index.o -ltcmalloc_and_profiler
dwp -o tsplit-packed.dwp packed_tsplit.dwo packed_tsplit_index.dwo
for p in tsplit-packed tsplit.plain4; do
    cmp <(objcopy -O binary --only-section=.text tsplit /dev/stdout) \
        <(objcopy -O binary --only-section=.text $p /dev/stdout)
done
addr2line_answers tsplit.plain4 t-split/tsplit-packed | gzip -9n > plain4-answers.tsv.gz
rm -f ./*.o moved_*.dwo packed_*.dwo tsplit.plain tsplit.plain4

finish_case tsplit.h tsplit.cc tsplit_index.cc
