#!/bin/bash
# Rebuild every case of the rpprof test data: compile and run each program in
# /tmp/rpprof-corpus/<case>/, capture the google-pprof / jeprof references and
# copy everything back here, then rewrite SYSTEM-LIBS.md / system-libs.sha256.
#
# Needs (Debian 12 package names; the versions used are in README.md):
#   gcc g++ binutils libc6-dev libc6-dbg google-perftools libgoogle-perftools-dev
#   libjemalloc-dev graphviz perl python3 xz-utils dwz, and cargo/rustc for t-rust.
# The profiled runs are timing-dependent (CPU samples, contention, addresses),
# so regenerated profiles and references differ from the committed ones; the
# case READMEs quote numbers of the committed run.
#
# usage: ./regenerate.sh [case...]      (default: all cases, in this order)
set -euo pipefail
cd "$(dirname "$0")"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(t-heap t-cpu t-jemalloc t-contention t-stripped t-rust t-trend t-trust t-dwarf t-dwz t-split)
for c in "${cases[@]}"; do
    "./$c/build.sh"
done
python3 system-libs.py
echo "regenerated: ${cases[*]}"
