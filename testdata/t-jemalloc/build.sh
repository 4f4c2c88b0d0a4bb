#!/bin/bash
# t-jemalloc: jemalloc heap profiles (3 mallctl("prof.dump") dumps from a 3-thread
# program); references with jeprof (google-pprof cannot read the format).
source "$(dirname "$0")/../common.sh"
begin_case t-jemalloc
copy_in tje.c

gcc -O1 -g -fno-omit-frame-pointer -o tje tje.c -ljemalloc -lpthread
MALLOC_CONF=prof:true,lg_prof_sample:12 ./tje "$RUN" > run.stdout 2> run.stderr

profile_row jemalloc tje tje.0001.heap
profile_row jemalloc tje tje.0002.heap tje.0001.heap
profile_row jemalloc tje tje.0003.heap tje.0001.heap

FOCUS='lex_tokens'
IGNORE='cache_fill'
for p in tje.0001.heap tje.0002.heap tje.0003.heap; do
    base=""
    [ $p = tje.0001.heap ] || base=tje.0001.heap
    heap_refs jeprof tje $p $base
    ref jeprof $p text-thread-all       tje --text '--thread=*'
    ref jeprof $p text-thread-1         tje --text --thread=1
    ref jeprof $p collapsed-thread-1    tje --collapsed --thread=1
    ref jeprof $p text-retain           tje --text '--retain=lex_tokens|grow_block'
    ref jeprof $p text-exclude          tje --text --exclude=new_token
done
# google-pprof takes the format for a CPU profile and fails; kept to show it.
ref google-pprof tje.0003.heap text tje --text

ref jeprof tje.0003.heap list tje --list=.
ref jeprof tje.0003.heap disasm-some tje '--disasm=grow|work'
ref jeprof tje.0003.heap list-thread-2 tje --list=. --thread=2
ref jeprof tje.0003.heap disasm-thread-1 tje --disasm=grow --thread=1
finish_case tje.c
