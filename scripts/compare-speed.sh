#!/usr/bin/env bash
# Times `rpprof --text` against `google-pprof --text` and Go pprof `-text` on the same program
# and profile, and the addr2line crate's own tool (`addr2line -f -i -C`, installed with
# `cargo install addr2line --features bin`) resolving the profile's unique addresses in the
# program; prints wall time, peak memory and rpprof's ratio to each.
#
# Go pprof symbolizes with llvm-symbolizer when it finds one on PATH, and with binutils'
# addr2line otherwise; both are timed when llvm-symbolizer is installed ("go-pprof" is the
# llvm-symbolizer run, "go-pprof-binutils" the other).
#
# usage: scripts/compare-speed.sh [PROGRAM PROFILE]
#   default: the shared corpus's large CPU case, /tmp/rpprof-corpus/large (regenerate its
#   binary first with ../shared/corpus/large/regenerate.sh)
# environment: GOOGLE_PPROF (default google-pprof), GO_PPROF (default /opt/anchors/bin/pprof
#   or pprof), ADDR2LINE_CRATE (default addr2line-crate, then ~/.cargo/bin/addr2line),
#   SKIP=<comma list of tools to skip: google-pprof,go-pprof,go-pprof-binutils,addr2line>,
#   REPEAT=<runs of rpprof and addr2line, the fastest is kept; default 3>,
#   SLOW_REPEAT=<runs of google-pprof and Go pprof, the fastest is kept; default 1>
#
# rpprof runs REPEAT times before the other tools and REPEAT times after them, and its fastest
# run of all is compared: on a shared machine the speed drifts over the minutes the slow tools
# take, and both ends of the comparison should see the same machine.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prog=${1:-/tmp/rpprof-corpus/large/src/large}
prof=${2:-/tmp/rpprof-corpus/large/large-cpu.prof}
skip=",${SKIP:-},"
repeat=${REPEAT:-3}
slow=${SLOW_REPEAT:-1}
[ -f "$prog" ] && [ -f "$prof" ] || { echo "need PROGRAM and PROFILE (missing $prog or $prof)" >&2; exit 2; }

(cd "$here" && cargo build --release -q --bin rpprof --example file-addrs) || exit 2
rpprof=$here/target/release/rpprof
gpprof=${GOOGLE_PPROF:-google-pprof}
gopprof=${GO_PPROF:-$( [ -x /opt/anchors/bin/pprof ] && echo /opt/anchors/bin/pprof || echo pprof)}
a2l=${ADDR2LINE_CRATE:-$(command -v addr2line-crate || echo "$HOME/.cargo/bin/addr2line")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME RUNS CMD... : runs CMD RUNS times (standard input $STDIN, default /dev/null),
# prints "NAME seconds peak_kB" for the fastest run and keeps its stdout in $tmp/NAME.out
run() {
    local name=$1 runs=$2; shift 2
    local best="" bestkb=0 i secs kb
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -f "%e %M" -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" <"${STDIN:-/dev/null}"
        local rc=$?
        if [ $rc -ne 0 ]; then echo "$name: failed ($rc): $(tail -1 "$tmp/$name.err")" >&2; return 1; fi
        read -r secs kb <"$tmp/$name.time"
        if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$secs
        fi
        [ "$kb" -gt "$bestkb" ] && bestkb=$kb
    done
    printf '%-18s %8.2f s %9d kB\n' "$name" "$best" "$bestkb"
    echo "$best $bestkb" >"$tmp/$name.res"
}

skipped() { case $skip in *,"$1",*) return 0 ;; esac; return 1; }

echo "program: $prog"
echo "profile: $prof"
echo "(fastest of $repeat runs for addr2line, of 2x$repeat for rpprof (before and after the others), of $slow for google-pprof and Go pprof; peak memory is the largest seen)"
run rpprof "$repeat" "$rpprof" --text "$prog" "$prof"
if ! skipped google-pprof && command -v "$gpprof" >/dev/null; then
    run google-pprof "$slow" "$gpprof" --text "$prog" "$prof"
fi
if [ -x "$gopprof" ] || command -v "$gopprof" >/dev/null; then
    skipped go-pprof || run go-pprof "$slow" "$gopprof" -text "$prog" "$prof"
    if ! skipped go-pprof-binutils && command -v llvm-symbolizer >/dev/null; then
        # The same without llvm-symbolizer: a PATH holding only binutils' tools.
        mkdir -p "$tmp/bin"
        for t in addr2line nm objdump c++filt; do
            command -v "$t" >/dev/null && ln -sf "$(command -v "$t")" "$tmp/bin/$t"
        done
        run go-pprof-binutils "$slow" env PATH="$tmp/bin" "$gopprof" -text "$prog" "$prof"
    fi
fi
if ! skipped addr2line && [ -x "$a2l" ]; then
    "$here/target/release/examples/file-addrs" "$prog" "$prof" >"$tmp/addrs"
    echo "($(wc -l <"$tmp/addrs") unique addresses in the program for addr2line)"
    STDIN="$tmp/addrs" run addr2line "$repeat" "$a2l" -f -i -C -e "$prog"
fi

run rpprof-again "$repeat" "$rpprof" --text "$prog" "$prof"
read -r rs rk <"$tmp/rpprof.res"
read -r rs2 rk2 <"$tmp/rpprof-again.res"
rs=$(awk -v a="$rs" -v b="$rs2" 'BEGIN { print (b < a ? b : a) }')
[ "$rk2" -gt "$rk" ] && rk=$rk2
printf '%-18s %8.2f s %9d kB\n' "rpprof (fastest)" "$rs" "$rk"
for t in google-pprof go-pprof go-pprof-binutils addr2line; do
    [ -f "$tmp/$t.res" ] || continue
    read -r s k <"$tmp/$t.res"
    awk -v t="$t" -v s="$s" -v k="$k" -v rs="$rs" -v rk="$rk" \
        'BEGIN { printf "rpprof vs %-18s %6.1fx faster, %5.2fx the peak memory\n", t, (rs > 0 ? s / rs : 0), (k > 0 ? rk / k : 0) }'
done
