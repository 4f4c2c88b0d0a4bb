# common.sh -- helpers sourced by testdata/<case>/build.sh.
#
# A case is compiled and run in the real directory /tmp/rpprof-corpus/<case>/
# (so every path inside the profiles and the DWARF is /tmp/rpprof-corpus/<case>/...),
# the reference tools are run there with relative paths and --lib_prefix=.,
# and the result is copied back into testdata/<case>/.
#
# Needs (Debian 12): gcc g++ binutils google-perftools libgoogle-perftools-dev
# libjemalloc-dev graphviz libc6-dbg perl python3 xz-utils dwz (+ cargo for t-rust).

set -euo pipefail
export LC_ALL=C

TESTDATA="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUNROOT=/tmp/rpprof-corpus
# Every reference command runs with this environment (perl hash order fixed).
REFENV=(env PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 LC_ALL=C)

# begin_case NAME: fresh real directory $RUN=/tmp/rpprof-corpus/NAME, cd into it.
begin_case() {
    CASE=$1
    SRC="$TESTDATA/$CASE"
    RUN="$RUNROOT/$CASE"
    mkdir -p "$RUNROOT"
    if [ -L "$RUN" ]; then
        rm -f "$RUN"                      # a compare.py symlink: drop the link only
    fi
    if [ -e "$RUN" ]; then
        if [ "$(realpath "$RUN")" = "$(realpath "$SRC")" ]; then
            echo "refusing: $RUN is the source directory" >&2; exit 1
        fi
        rm -rf "$RUN"
    fi
    mkdir "$RUN"
    cd "$RUN"
    mkdir refs
    printf 'profile\toutput\texit\tseconds\tcommand\n' > refs/INDEX.tsv
    : > profiles.tsv
    echo "== $CASE: building in $RUN" >&2
}

# copy_in FILE...: copy source files (relative to testdata/<case>) into $RUN.
copy_in() {
    local f
    for f in "$@"; do
        mkdir -p "$RUN/$(dirname "$f")"
        cp -a "$SRC/$f" "$RUN/$f"
    done
}

# profile_row KIND BINARY PROFILE [BASE]: one line of profiles.tsv (relative names).
profile_row() {
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >> "$RUN/profiles.tsv"
}

# quote one argument the way shlex.split (compare.py) reads it back.
_q() {
    if [[ $1 =~ ^[-A-Za-z0-9_./=:,+@%]+$ ]]; then
        printf '%s' "$1"
    else
        printf "'%s'" "${1//\'/\'\\\'\'}"
    fi
}

# ref TOOL PROFILE OUTPUT BINARY [FLAG...]
#   runs: /usr/bin/TOOL FLAG... --lib_prefix=. ./BINARY PROFILE   (in $RUN)
#   stdout -> refs/PROFILE/TOOL.OUTPUT.out, stderr -> .err, row in refs/INDEX.tsv
ref() {
    local tool=$1 prof=$2 out=$3 bin=$4
    shift 4
    local cmd=("/usr/bin/$tool" "$@" "--lib_prefix=." "./$bin" "$prof")
    local dir="$RUN/refs/$prof" name="$tool.$out"
    mkdir -p "$dir"
    local t0 t1 rc line a
    t0=$(date +%s.%N)
    set +e
    ( cd "$RUN" && "${REFENV[@]}" "${cmd[@]}" > "$dir/$name.out" 2> "$dir/$name.err" < /dev/null )
    rc=$?
    set -e
    t1=$(date +%s.%N)
    line=""
    for a in "${cmd[@]}"; do line+="${line:+ }$(_q "$a")"; done
    printf '%s\t%s\t%s\t%s\t%s\n' "$prof" "$name" "$rc" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')" "$line" >> "$RUN/refs/INDEX.tsv"
    printf '  %-28s %-34s exit %s\n' "$prof" "$name" "$rc" >&2
}

# heap_refs TOOL BINARY PROFILE [BASE]  -- the google-pprof heap mode set.
#   $FOCUS / $IGNORE: regexps for the text-focus / text-ignore rows.
heap_refs() {
    local tool=$1 bin=$2 p=$3 base=${4:-}
    common_refs "$tool" "$bin" "$p"
    ref "$tool" "$p" inuse_objects           "$bin" --text --inuse_objects
    ref "$tool" "$p" alloc_space             "$bin" --text --alloc_space
    ref "$tool" "$p" alloc_objects           "$bin" --text --alloc_objects
    ref "$tool" "$p" alloc_space-bytes       "$bin" --text --alloc_space --show_bytes
    ref "$tool" "$p" collapsed-inuse_objects "$bin" --collapsed --inuse_objects
    if [ -n "$base" ]; then
        ref "$tool" "$p" base           "$bin" --text "--base=$base"
        ref "$tool" "$p" base-bytes     "$bin" --text --show_bytes "--base=$base"
        ref "$tool" "$p" base-collapsed "$bin" --collapsed "--base=$base"
    fi
}

# common_refs TOOL BINARY PROFILE -- modes valid for every profile kind.
common_refs() {
    local tool=$1 bin=$2 p=$3
    ref "$tool" "$p" text                "$bin" --text
    ref "$tool" "$p" text-lines          "$bin" --text --lines
    ref "$tool" "$p" text-addresses      "$bin" --text --addresses
    ref "$tool" "$p" text-files          "$bin" --text --files
    ref "$tool" "$p" text-cum            "$bin" --text --cum
    ref "$tool" "$p" text-bytes          "$bin" --text --show_bytes
    ref "$tool" "$p" collapsed           "$bin" --collapsed
    ref "$tool" "$p" raw                 "$bin" --raw
    ref "$tool" "$p" dot                 "$bin" --dot
    ref "$tool" "$p" callgrind           "$bin" --callgrind
    ref "$tool" "$p" stacks              "$bin" --text --stacks
    ref "$tool" "$p" svg                 "$bin" --svg
    ref "$tool" "$p" text-focus          "$bin" --text "--focus=$FOCUS"
    ref "$tool" "$p" text-ignore         "$bin" --text "--ignore=$IGNORE"
    ref "$tool" "$p" text-no_strip_temp  "$bin" --text --no_strip_temp
    ref "$tool" "$p" text-show_addresses "$bin" --text --show_addresses
}

# cpu_refs TOOL BINARY PROFILE
cpu_refs() {
    common_refs "$@"
}

# addr2line_answers PROGRAM NAME: binutils' answers (addr2line -f -i -C) for every
# instruction of PROGRAM, as rows of testdata/addresses.tsv (NAME, the address, then
# function and file:line of each frame), for tests/addresses.rs.
addr2line_answers() {
    objdump -d --no-show-raw-insn "$1" | sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/\1/p' |
        addr2line -a -f -i -C -e "$1" | python3 -c '
import sys
rows, cur = [], None
for line in sys.stdin.read().splitlines():
    if line.startswith("0x") and len(line) == 18:
        cur = [sys.argv[1], line[2:].lstrip("0") or "0"]
        rows.append(cur)
    else:
        cur.append(line)
for r in rows:
    print("\t".join(r))
' "$2"
}

# finish_case KEEP...: replace the generated files of testdata/<case> by those of $RUN.
#   KEEP: files/dirs of testdata/<case> that are hand-written (README.md, build.sh, sources).
finish_case() {
    local keep=(README.md build.sh "$@") f k skip
    # compress big reference outputs, over 128 KiB (compare.py reads <name>.out.xz;
    # `xz -dk` restores the exact bytes)
    find "$RUN/refs" -name '*.out' -size +128k -exec xz -9 -f {} \;
    shopt -s dotglob nullglob
    for f in "$SRC"/*; do
        skip=0
        for k in "${keep[@]}"; do [ "$(basename "$f")" = "$k" ] && skip=1; done
        [ $skip = 1 ] || rm -rf "$f"
    done
    for f in "$RUN"/*; do
        skip=0
        for k in "${keep[@]}"; do [ "$(basename "$f")" = "$k" ] && skip=1; done
        [ $skip = 1 ] || cp -a "$f" "$SRC/"
    done
    shopt -u dotglob nullglob
    echo "== $CASE: done ($(du -sh "$SRC" | cut -f1))" >&2
}
