#!/usr/bin/env bash
# Times `rpprof --text` against `google-pprof --text` and Go pprof `-text` on the same program
# and profile, and the addr2line crate's own tool (`addr2line -f -i -C`, installed with
# `cargo install addr2line --features bin`) resolving the profile's unique addresses in the
# program; prints wall time, peak memory and rpprof's ratio to each.
#
# usage: scripts/compare-speed.sh [PROGRAM PROFILE]
#   default: the shared corpus's large CPU case, /tmp/rpprof-corpus/large (regenerate its
#   binary first with ../shared/corpus/large/regenerate.sh)
# environment: GOOGLE_PPROF (default google-pprof), GO_PPROF (default /opt/anchors/bin/pprof
#   or pprof), ADDR2LINE_CRATE (default addr2line-crate, then ~/.cargo/bin/addr2line),
#   SKIP=<comma list of tools to skip: google-pprof,go-pprof,addr2line>
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prog=${1:-/tmp/rpprof-corpus/large/src/large}
prof=${2:-/tmp/rpprof-corpus/large/large-cpu.prof}
skip=",${SKIP:-},"
[ -f "$prog" ] && [ -f "$prof" ] || { echo "need PROGRAM and PROFILE (missing $prog or $prof)" >&2; exit 2; }

(cd "$here" && cargo build --release -q --bin rpprof --example file-addrs) || exit 2
rpprof=$here/target/release/rpprof
gpprof=${GOOGLE_PPROF:-google-pprof}
gopprof=${GO_PPROF:-$( [ -x /opt/anchors/bin/pprof ] && echo /opt/anchors/bin/pprof || echo pprof)}
a2l=${ADDR2LINE_CRATE:-$(command -v addr2line-crate || echo "$HOME/.cargo/bin/addr2line")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD... : prints "NAME seconds peak_kB" and keeps stdout in $tmp/NAME.out
run() {
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    local rc=$?
    if [ $rc -ne 0 ]; then echo "$name: failed ($rc): $(tail -1 "$tmp/$name.err")" >&2; return 1; fi
    read -r secs kb <"$tmp/$name.time"
    printf '%-14s %8.2f s %9d kB\n' "$name" "$secs" "$kb"
    echo "$secs $kb" >"$tmp/$name.res"
}

echo "program: $prog"
echo "profile: $prof"
run rpprof "$rpprof" --text "$prog" "$prof"
case $skip in *,google-pprof,*) ;; *) command -v "$gpprof" >/dev/null && run google-pprof "$gpprof" --text "$prog" "$prof" ;; esac
case $skip in *,go-pprof,*) ;; *) [ -x "$gopprof" ] || command -v "$gopprof" >/dev/null && run go-pprof "$gopprof" -text "$prog" "$prof" ;; esac
case $skip in *,addr2line,*) ;; *)
    if [ -x "$a2l" ]; then
        "$here/target/release/examples/file-addrs" "$prog" "$prof" >"$tmp/addrs"
        echo "($(wc -l <"$tmp/addrs") unique addresses in the program for addr2line)"
        run addr2line "$a2l" -f -i -C -e "$prog" <"$tmp/addrs" 2>/dev/null || \
            { /usr/bin/time -f "%e %M" -o "$tmp/addr2line.time" "$a2l" -f -i -C -e "$prog" <"$tmp/addrs" >/dev/null 2>&1 &&
              read -r s k <"$tmp/addr2line.time" && printf '%-14s %8.2f s %9d kB\n' addr2line "$s" "$k" && echo "$s $k" >"$tmp/addr2line.res"; }
    fi ;;
esac

read -r rs rk <"$tmp/rpprof.res"
for t in google-pprof go-pprof addr2line; do
    [ -f "$tmp/$t.res" ] || continue
    read -r s k <"$tmp/$t.res"
    awk -v t="$t" -v s="$s" -v k="$k" -v rs="$rs" -v rk="$rk" \
        'BEGIN { printf "rpprof vs %-13s %6.1fx faster, %5.2fx the peak memory\n", t, (rs > 0 ? s / rs : 0), (k > 0 ? rk / k : 0) }'
done
