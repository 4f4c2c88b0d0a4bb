#!/bin/sh
# Copies seed inputs from testdata/ into fuzz/corpus/<target>/ (not committed).
# Usage: fuzz/seed.sh   (from anywhere)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
td="$here/../testdata"
c="$here/corpus"
mkdir -p "$c/heap_text" "$c/jemalloc" "$c/cpu_binary" "$c/contention" "$c/symbolized_raw" \
    "$c/memory_map" "$c/any_profile" "$c/elf_symbolize" "$c/demangle" "$c/report"

seed() { # seed <target> <file>...
    t=$1; shift
    for f in "$@"; do
        [ -f "$f" ] || continue
        cp "$f" "$c/$t/$(echo "$f" | sed "s|^$td/||; s|/|_|g")"
    done
}

seed heap_text "$td"/t-heap/*.heap "$td"/t-heap/theap.heapv2 "$td"/t-heap/theap.growth \
    "$td"/t-rust/*.heap
seed jemalloc "$td"/t-jemalloc/*.heap
seed cpu_binary "$td"/t-cpu/*.prof "$td"/t-stripped/*.prof
seed contention "$td"/t-contention/tcont.contention "$td"/t-contention/tcont.contentionz
seed symbolized_raw "$td"/t-*/refs/*/google-pprof.raw.out
for t in heap_text jemalloc cpu_binary contention symbolized_raw; do
    cp "$c/$t"/* "$c/any_profile/"
done
cp "$here"/seeds/any_profile/* "$c/any_profile/" 2>/dev/null || true
# report: a selector byte (report mode and options) in front of each profile.
mkdir -p "$c/report"
i=0
for f in "$td"/t-*/*.heap "$td"/t-heap/theap.heapv2 "$td"/t-heap/theap.growth "$td"/t-*/*.prof \
    "$td"/t-contention/tcont.contention* "$td"/t-*/refs/*/google-pprof.raw.out "$here"/seeds/any_profile/*; do
    [ -f "$f" ] || continue
    for sel in 000 011 022 043 104 145 206 227 350; do
        i=$((i + 1))
        { printf "\\$sel"; cat "$f"; } >"$c/report/seed-$i"
    done
done

# Memory maps: the map section of each text profile, the tail of each CPU profile.
for f in "$td"/t-heap/*.heap "$td"/t-rust/*.heap "$td"/t-jemalloc/*.heap; do
    sed -n '/^MAPPED_LIBRARIES:/,$p' "$f" | tail -n +2 >"$c/memory_map/$(basename "$f").maps"
done
for f in "$td"/t-cpu/*.prof "$td"/t-stripped/*.prof; do
    # The map is the text after the binary records: every line that looks like a mapping.
    LC_ALL=C grep -a '^[0-9a-f]*-[0-9a-f]* ' "$f" >"$c/memory_map/$(basename "$f").maps" || true
done
grep -v '^[0-9a-f]*-' "$td"/t-contention/tcont.contention | grep -v ' @ ' \
    >"$c/memory_map/tcont.vars" || true
printf 'build=/tmp/b\n00400000-00401000: $build/lib/x.so\n7f00-7f10 r-xp 0 fe:00 1 /lib/libc.so.6 (deleted)\n' \
    >"$c/memory_map/vars.maps"

# Programs: the small ELF files (the big ones only slow the fuzzer down).
seed elf_symbolize "$td"/t-stripped/tstrip "$td"/t-stripped/tstrip.debug \
    "$td"/t-cpu/libtwork.so "$td"/t-cpu/libtplugin.so "$td"/t-cpu/tcpu-pie "$td"/t-cpu/tcpu-nopie \
    "$td"/t-jemalloc/tje

# Names: every mangled name of the demangler crate's tables, one file each (the first 2000
# of each).
for tbl in pairs libiberty; do
    grep -v '^#' "$here/../crates/demangle/testdata/$tbl.txt" | cut -f1 | head -n 2000 | awk -v d="$c/demangle" -v t="$tbl" \
        '{ f = sprintf("%s/%s-%05d", d, t, NR); printf "%s", $0 > f; close(f) }'
done
for t in "$c"/*; do
    echo "$(basename "$t"): $(ls "$t" | wc -l) seeds"
done
