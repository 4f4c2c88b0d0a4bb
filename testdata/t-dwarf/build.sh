#!/bin/bash
# t-dwarf: small programs whose DWARF has a shape tests/addresses.rs checks (no profiles).
# Built in place, in /tmp/rpprof-corpus/t-dwarf like the other cases so that the paths in
# the DWARF match theirs.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)"
run=/tmp/rpprof-corpus/t-dwarf
rm -rf "$run" && mkdir -p "$run" && cd "$run"
cp "$src/nested.c" "$src/local.cc" "$src/lambda.cc" .
gcc -O0 -g -o nested nested.c
g++ -O1 -g -o local local.cc
g++ -O2 -g -o lambda lambda.cc
./nested 3 > /dev/null
./local 3 > /dev/null
./lambda 3 > /dev/null
cp nested local lambda "$src/"
echo "t-dwarf: built nested, local, lambda" >&2
