#!/bin/bash
# Records what google-pprof (jeprof) prints for each transcript of transcripts.tsv, driven
# through a pipe: refs/<name>.out (standard output) and refs/<name>.err.
#
# Each case is copied into a private real directory (google-pprof resolves the program with
# abs_path: through a symbolic link it prints hex) whose profiles name it in their memory
# maps instead of /tmp/rpprof-corpus/<case>; the sources stay where the DWARF says, under
# /tmp/rpprof-corpus/<case> (linked to testdata/<case> when absent). Needs google-perftools,
# libjemalloc-dev, graphviz and binutils (disasm).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
testdata=$(dirname "$here")
work=$(mktemp -d /tmp/rpprof-shell-refs.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p /tmp/rpprof-corpus "$here/refs"
while IFS=$'\t' read -r name case tool transcript args extra; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    [ -e "/tmp/rpprof-corpus/$case" ] || ln -s "$testdata/$case" "/tmp/rpprof-corpus/$case"
    dir="$work/$name/$case"
    mkdir -p "$dir"
    cp -a "$testdata/$case"/. "$dir"/
    # Profiles name the private copy.
    for f in "$dir"/*.heap "$dir"/*.prof "$dir"/*.heapv2 "$dir"/*.growth; do
        [ -f "$f" ] || continue
        python3 - "$f" "/tmp/rpprof-corpus/$case/" "$dir/" <<'PY'
import sys
p, a, b = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
d = open(p, 'rb').read()
open(p, 'wb').write(d.replace(a, b))
PY
    done
    read -r -a argv <<< "$args"
    ( cd "$dir" && env PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 "/usr/bin/$tool" --interactive "${argv[@]}" \
        < "$here/$transcript" > "$here/refs/$name.out" 2> "$here/refs/$name.err" ) || true
    echo "$name: $(wc -l < "$here/refs/$name.out") lines" >&2
done < "$here/transcripts.tsv"
