#!/bin/bash
# t-rust: a cargo project (no dependencies) built twice -- default (legacy) symbol
# mangling and -Csymbol-mangling-version=v0 -- and run with tcmalloc preloaded
# under HEAPPROFILE; google-pprof references.  Needs cargo/rustc (1.95 was used).
source "$(dirname "$0")/../common.sh"
begin_case t-rust
copy_in Cargo.toml src/main.rs

TARGET=/tmp/rpprof-build/t-rust          # cargo's target dir, outside the case
rm -rf "$TARGET"
RUSTFLAGS="-Cforce-frame-pointers=yes" \
    CARGO_TARGET_DIR=$TARGET/legacy cargo build --release --offline --quiet
# v0 build without debug info (symbols only: 0.4 MB instead of 2.3 MB)
RUSTFLAGS="-Cforce-frame-pointers=yes -Csymbol-mangling-version=v0" CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_TARGET_DIR=$TARGET/v0 cargo build --release --offline --quiet
cp $TARGET/legacy/release/trust trust
cp $TARGET/v0/release/trust trust-v0

TCMALLOC=/usr/lib/x86_64-linux-gnu/libtcmalloc_and_profiler.so.4
# legacy build: 2 dumps every 3,000,000 bytes allocated + 1 at exit
LD_PRELOAD=$TCMALLOC HEAPPROFILE=$RUN/trust.hprof HEAP_PROFILE_ALLOCATION_INTERVAL=3000000 \
    ./trust 1000 > run.stdout 2> run.stderr
# v0 build: only the dump at exit
LD_PRELOAD=$TCMALLOC HEAPPROFILE=$RUN/trust-v0.hprof HEAP_PROFILE_ALLOCATION_INTERVAL=1000000000 \
    ./trust-v0 1000 > run-v0.stdout 2> run-v0.stderr
ls trust.hprof.0003.heap trust-v0.hprof.0001.heap > /dev/null
[ ! -e trust.hprof.0004.heap ] && [ ! -e trust-v0.hprof.0002.heap ] || { echo "unexpected dump count" >&2; exit 1; }

profile_row heap trust    trust.hprof.0001.heap
profile_row heap trust    trust.hprof.0002.heap trust.hprof.0001.heap
profile_row heap trust    trust.hprof.0003.heap trust.hprof.0001.heap
profile_row heap trust-v0 trust-v0.hprof.0001.heap

FOCUS='ingest'
IGNORE='make_document'
heap_refs google-pprof trust    trust.hprof.0001.heap
heap_refs google-pprof trust    trust.hprof.0002.heap trust.hprof.0001.heap
heap_refs google-pprof trust    trust.hprof.0003.heap trust.hprof.0001.heap
heap_refs google-pprof trust-v0 trust-v0.hprof.0001.heap

ref google-pprof trust.hprof.0003.heap list trust --list=.
ref google-pprof trust.hprof.0003.heap disasm-some trust '--disasm=grow|build'
finish_case Cargo.toml src
