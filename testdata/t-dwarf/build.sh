#!/bin/bash
# t-dwarf: small programs whose DWARF has a shape tests/addresses.rs checks (no profiles).
# Built in place, in /tmp/rpprof-corpus/t-dwarf like the other cases so that the paths in
# the DWARF match theirs.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)"
run=/tmp/rpprof-corpus/t-dwarf
rm -rf "$run" && mkdir -p "$run" && cd "$run"
cp "$src/nested.c" "$src/local.cc" "$src/lambda.cc" "$src/gcsections.c" "$src/gcdead.c" "$src/gcinline.c" .
gcc -O0 -g -o nested nested.c
g++ -O1 -g -o local local.cc
g++ -O2 -g -o lambda lambda.cc
# The same with link-time optimization: GCC's LTO units refer to the entries of the units
# of the first compilation.
g++ -O1 -g -flto -o local-lto local.cc
g++ -O2 -g -flto -o lambda-lto lambda.cc
# Functions and a whole unit (gcdead.c) discarded by the linker: their DWARF stays, at
# address 0 (DWARF 4: a unit's .debug_ranges entries at 1).
for v in 4 5; do
    gcc -O1 -g -gdwarf-$v -fPIE -pie -ffunction-sections -Wl,--gc-sections \
        -o gcsections-dwarf$v gcdead.c gcsections.c
    ./gcsections-dwarf$v 3 > /dev/null
done
gcc -O2 -g -gdwarf-5 -fPIE -pie -ffunction-sections -Wl,--gc-sections -o gcinline gcinline.c
./gcinline 3 > /dev/null
./nested 3 > /dev/null
./local 3 > /dev/null
./lambda 3 > /dev/null
cp nested local lambda local-lto lambda-lto gcsections-dwarf4 gcsections-dwarf5 gcinline "$src/"
echo "t-dwarf: built nested, local, lambda, local-lto, lambda-lto, gcsections-dwarf4, gcsections-dwarf5, gcinline" >&2
