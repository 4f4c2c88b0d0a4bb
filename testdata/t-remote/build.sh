#!/usr/bin/env bash
# Builds the remote-profile test server (testdata/t-remote). tests/remote.rs builds it the
# same way into its own directory; this script is for running it by hand:
#   TCMALLOC_SAMPLE_PARAMETER=4096 ./tremote 9002 &
#   rpprof --text localhost:9002/pprof/heap
# Needs g++ and libgoogle-perftools-dev (tcmalloc and the CPU profiler).
set -euo pipefail
cd "$(dirname "$0")"
g++ -O1 -g -fno-omit-frame-pointer -pthread -rdynamic -o tremote tremote.cc -ltcmalloc_and_profiler
echo "built $(pwd)/tremote"
