#!/bin/bash
# t-contention: a C++ program with real lock contention writes its own contention
# profiles (brpc "--- contention" form and "--- contentionz 1 ---" form); google-pprof references.
source "$(dirname "$0")/../common.sh"
begin_case t-contention
copy_in tcont.cc

g++ -O2 -g -fno-omit-frame-pointer -o tcont tcont.cc -pthread
./tcont tcont.contention tcont.contentionz > run.stdout 2> run.stderr

profile_row contention tcont tcont.contention
profile_row contention tcont tcont.contentionz

FOCUS='handle'
IGNORE='auditor'
for p in tcont.contention tcont.contentionz; do
    ref google-pprof $p text                  tcont --text
    ref google-pprof $p text-contentions      tcont --text --contentions
    ref google-pprof $p text-mean_delay       tcont --text --mean_delay
    ref google-pprof $p text-lines            tcont --text --lines
    ref google-pprof $p text-addresses        tcont --text --addresses
    ref google-pprof $p text-files            tcont --text --files
    ref google-pprof $p text-cum              tcont --text --cum
    ref google-pprof $p text-focus            tcont --text "--focus=$FOCUS"
    ref google-pprof $p text-ignore           tcont --text "--ignore=$IGNORE"
    ref google-pprof $p collapsed             tcont --collapsed
    ref google-pprof $p collapsed-contentions tcont --collapsed --contentions
    ref google-pprof $p raw                   tcont --raw
    ref google-pprof $p dot                   tcont --dot
    ref google-pprof $p callgrind             tcont --callgrind
    ref google-pprof $p stacks                tcont --text --stacks
    ref google-pprof $p svg                   tcont --svg
done

ref google-pprof tcont.contention list tcont --list=.
finish_case tcont.cc
