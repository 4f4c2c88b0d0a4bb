#!/usr/bin/env bash
# Compares rpprof's demangler (the rpprof-demangle crate, crates/demangle) with binutils' on
# real ELF files.
#
#   scripts/demangle-diff.sh [--max N] [FILE...]
#
# Harvests (mangled, demangled) pairs with nm (scripts/demangle-harvest.py) from the
# given files, or, without files, from the default sources of each group below, and
# reports per group and per kind of name (C++, Rust legacy, Rust v0) how many rpprof
# demangles exactly as binutils does, with the first differences and the time taken
# (through crates/demangle/examples/demangle.rs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
max=10
if [[ "${1:-}" == "--max" ]]; then max="$2"; shift 2; fi

cargo build --quiet --release -p rpprof-demangle --example demangle --manifest-path "$root/Cargo.toml"
bin="$root/target/release/examples/demangle"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

check() { # label tsv
    local label="$1" tsv="$2"
    [[ -s "$tsv" ]] || { echo "== $label: no pairs"; return; }
    echo "== $label"
    "$bin" --check --max "$max" < "$tsv"
    # Per kind of name (the mangled name after any leading '.'/'$').
    awk -F'\t' -v d="$tmp" '{
        m = $1; sub(/^[.$]+/, "", m)
        if (m ~ /^_R/) k = "rust-v0"
        else if (m ~ /^_ZN.*17h[0-9a-f]+E/) k = "rust-legacy"
        else k = "c++"
        print > (d "/kind-" k ".tsv")
    }' "$tsv"
    for k in c++ rust-legacy rust-v0; do
        if [[ -s "$tmp/kind-$k.tsv" ]]; then
            printf '   %-12s ' "$k:"
            "$bin" --check --max 0 < "$tmp/kind-$k.tsv" | tail -1
        fi
        rm -f "$tmp/kind-$k.tsv"
    done
}

harvest() { # out files...
    local out="$1"; shift
    python3 "$here/demangle-harvest.py" "$@" > "$out"
}

if [[ $# -gt 0 ]]; then
    harvest "$tmp/given.tsv" "$@"
    check "given files" "$tmp/given.tsv"
    exit 0
fi

shopt -s nullglob
libdir=/usr/lib/x86_64-linux-gnu
stdcxx=( "$libdir"/libstdc++.so.6* "$libdir"/debug/libstdc++* )
others=()
for f in "$libdir"/*.so* /usr/lib/debug/.build-id/*/*.debug; do
    case "$f" in *libstdc++*) ;; *) others+=("$f") ;; esac
done
corpus=()
for f in /work/shared/corpus/*/* /tmp/rpprof-corpus/large/src/large; do
    [[ -f "$f" ]] && head -c 4 "$f" 2>/dev/null | grep -q ELF && corpus+=("$f")
done
harvest "$tmp/stdcxx.tsv" "${stdcxx[@]}"
check "libstdc++ (${#stdcxx[@]} files)" "$tmp/stdcxx.tsv"
harvest "$tmp/others.tsv" "${others[@]}"
check "other system libraries (${#others[@]} files)" "$tmp/others.tsv"
harvest "$tmp/corpus.tsv" "${corpus[@]}"
check "corpus binaries (${#corpus[@]} files)" "$tmp/corpus.tsv"
