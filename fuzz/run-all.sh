#!/bin/sh
# Runs fuzz targets one after another (default: all), each for $SECONDS_EACH seconds
# (default 600), with debug assertions (integer overflow checks) on; logs in
# fuzz/logs/<target>.log.
set -u
cd "$(dirname "$0")"
mkdir -p logs
secs=${SECONDS_EACH:-600}
targets=${*:-any_profile heap_text cpu_binary memory_map jemalloc contention symbolized_raw demangle elf_symbolize}
for t in $targets; do
    extra=""
    [ "$t" = elf_symbolize ] && extra="-max_len=65536"
    echo "=== $t $(date -u +%FT%TZ)"
    cargo +nightly fuzz run -O -a "$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
        $extra >"logs/$t.log" 2>&1
    echo "=== $t exit $? $(date -u +%FT%TZ)"
    tail -n 3 "logs/$t.log"
done
