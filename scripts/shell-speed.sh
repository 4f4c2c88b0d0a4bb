#!/usr/bin/env bash
# Times rpprof's interactive shell on one program and profile: the load (read and symbolize),
# then each command of a session that switches the report's granularity, focus, ignore, sort
# and (heap profiles) value column, driven through a pipe with --debug.
#
#   scripts/shell-speed.sh [PROGRAM PROFILE [COMMANDS_FILE]]
#
# Default: the shared corpus's large program and CPU profile (155,893 addresses; regenerate the
# binary with ../shared/corpus/large/regenerate.sh). Prints each command's time, the load, the
# sum of the commands after the first, and that sum over the load; REPEAT=n runs n sessions
# and prints the median of each number.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rpprof=${RPPROF:-$here/target/release/rpprof}
prog=${1:-/tmp/rpprof-corpus/large/src/large}
prof=${2:-/tmp/rpprof-corpus/large/large-cpu.prof}
repeat=${REPEAT:-5}
[ -x "$rpprof" ] || { echo "build first: cargo build --release" >&2; exit 1; }
commands=$(mktemp)
trap 'rm -f "$commands"' EXIT
if [ -n "${3:-}" ]; then
    cp "$3" "$commands"
else
    # Fifteen reports after the first; names of the large program (lg::mNNN::fNNNNN).
    cat > "$commands" <<'CMDS'
top
top --cum
top30
granularity=lines
top
granularity=files
top
granularity=addresses
top
granularity=functions
top
focus=lg::m00
top
top --cum
focus=
ignore=lg::m01
top
ignore=
top -lg::m02
top lg::m03
granularity=lines
top --cum
granularity=functions
cum=true
top
cum=false
text5
CMDS
    # A heap profile has four value columns: switch them too.
    if head -c 64 "$prof" | grep -q "heap profile"; then
        cat >> "$commands" <<'CMDS'
sample_index=alloc_space
top
sample_index=inuse_objects
top
sample_index=alloc_objects
top
sample_index=inuse_space
top
CMDS
    fi
fi
for ((r = 1; r <= repeat; r++)); do
    "$rpprof" --interactive --debug "$prog" "$prof" < "$commands" 2> "$commands.err.$r" > /dev/null
done
python3 - "$commands" "$repeat" <<'PY'
import re, statistics, sys
base, repeat = sys.argv[1], int(sys.argv[2])
runs = []
for r in range(1, repeat + 1):
    text = open(f"{base}.err.{r}").read()
    load = sum(float(m) for m in re.findall(r"rpprof: (?:read profiles|symbolize \d+ addresses): ([0-9.]+) s", text))
    cmds = [(c, float(t)) for c, t in re.findall(r'rpprof: command "(.*)": ([0-9.]+) s', text)]
    runs.append((load, cmds))
med = statistics.median
names = [c for c, _ in runs[0][1]]
reports = [i for i, c in enumerate(names) if c and "=" not in c]
print(f"{'command':<28} {'median ms':>10}")
for i, c in enumerate(names):
    print(f"{c:<28} {med(r[1][i][1] for r in runs) * 1e3:>10.1f}")
load = med(r[0] for r in runs)
first = reports[0]
after = med(sum(t for _, t in r[1][first + 1:]) for r in runs)
n = len([i for i in reports if i > first])
print(f"\nload (read + symbolize): {load * 1e3:.0f} ms")
print(f"first report: {med(r[1][first][1] for r in runs) * 1e3:.0f} ms")
print(f"{n} reports after the first (and the option lines between them): {after * 1e3:.0f} ms "
      f"= {after / load:.2f} x the load; median of {len(runs)} sessions")
PY
rm -f "$commands".err.*
