#!/usr/bin/env bash
# Times the web UI's pages as a browser asks for them: serves one program and profile with
# `rpprof --http`, then fetches each page REPEAT times with curl and prints, per page, the
# first visit (which makes what the session keeps: the stacks, the translation of the
# addresses at the page's granularity) and the median of the later ones, to the first byte
# and to the last, with the page's size.
#
#   scripts/web-speed.sh [PROGRAM PROFILE [PAGE...]]
#
# Default: the shared corpus's large program and CPU profile (155,893 addresses, whose flame
# graph page is 8 MB; regenerate the binary with ../shared/corpus/large/regenerate.sh) and the
# pages flamegraph (the default page) at each granularity, top, text and peek. RPPROF=<binary>
# times another build, REPEAT=n (5) visits per page. The browser's own time (parsing the page,
# drawing the flame graph) is not in these numbers.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rpprof=${RPPROF:-$here/target/release/rpprof}
prog=${1:-/tmp/rpprof-corpus/large/src/large}
prof=${2:-/tmp/rpprof-corpus/large/large-cpu.prof}
shift $(($# < 2 ? $# : 2))
pages=("$@")
if [ ${#pages[@]} -eq 0 ]; then
    pages=(flamegraph 'flamegraph?g=lines' 'flamegraph?g=files' 'flamegraph?g=addresses' top text 'peek?f=main')
fi
repeat=${REPEAT:-5}
[ -x "$rpprof" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
# A warm symbol cache of its own: the pages' time, not the symbolizer's.
export XDG_CACHE_HOME=$tmp/cache
"$rpprof" --no_browser --http=127.0.0.1:0 "$prog" "$prof" 2>"$tmp/err" &
server=$!
url=
for _ in $(seq 600); do
    url=$(sed -n 's/^Serving web UI on \(http:[^ ]*\).*/\1/p' "$tmp/err")
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$tmp/err" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start" >&2; exit 1; }
url=${url%/}
printf '%-28s %12s %12s %12s %12s %10s\n' page "first: byte" "first: end" "later: byte" "later: end" size
for page in "${pages[@]}"; do
    : > "$tmp/times"
    for i in $(seq "$repeat"); do
        curl -s -o /dev/null -w '%{time_starttransfer} %{time_total} %{size_download}\n' \
            "$url/ui/$page" >> "$tmp/times"
    done
    python3 - "$page" "$tmp/times" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
first, later = rows[0], rows[1:] or rows[:1]
med = lambda k: statistics.median(r[k] for r in later)
print("%-28s %10.3f s %10.3f s %10.3f s %10.3f s %7.1f MB" % (
    sys.argv[1], first[0], first[1], med(0), med(1), first[2] / 1e6))
EOF
done
