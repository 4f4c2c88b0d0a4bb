// ttrend.cc -- leak-trend test program for rpprof (testdata/t-trend).
//
// Runs 12 "ticks" (1..12).  In every tick each allocation shape below does
// its part of the work, then the program writes one heap profile (profile N
// after tick N), so a series of 12 profiles shows six allocation sites with
// six different shapes over time.  Each shape is its own noinline function,
// i.e. its own allocation site:
//
//   steady_leak      24 x 4 KiB kept every tick                -> growing
//   late_leak        10 x 16 KiB kept every tick from tick 7   -> new
//   cache_fill       a 160-entry cache of 8 KiB entries, 40 inserted per
//                    tick: full after tick 4, then evicts as it inserts
//                                                              -> saturating
//   release_buffer   24 x 64 KiB in tick 1, 2 freed per tick after
//                                                              -> shrinking
//   jitter_pool      90..110 x 6 KiB, reallocated every tick (fixed-seed
//                    generator): +-10% around 600 KiB          -> steady
//   startup_scratch  8 x 32 KiB in ticks 1..3, all freed in tick 5 -> gone
//
// Built twice from this file (see build.sh):
//   ttrend    (-ltcmalloc_and_profiler)
//     ttrend dumps PREFIX    HeapProfilerStart(PREFIX), HeapProfilerDump per
//                            tick: PREFIX.0001.heap .. PREFIX.0012.heap
//     ttrend sample PREFIX   the ticks in a std::thread; after each tick the
//                            text of MallocExtension::GetHeapSample is written
//                            to PREFIX.0001.heap .. PREFIX.0012.heap
//   ttrend-je (-DTTREND_JEMALLOC, -ljemalloc)
//     MALLOC_CONF=prof:true,prof_prefix:P,lg_prof_interval:24,prof_final:true
//     ttrend-je jemalloc     after each tick, small malloc/free pairs
//                            (tick_churn) until jemalloc has written its next
//                            interval dump P.<pid>.<seq>.i<n>.heap; after the
//                            last tick one prof.dump (.m0), one dump on a new
//                            peak of mapped memory (prof.gdump: .u0), and the
//                            final dump at exit (.f)
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <unistd.h>

#ifdef TTREND_JEMALLOC
#include <jemalloc/jemalloc.h>
#else
#include <gperftools/heap-profiler.h>
#include <gperftools/malloc_extension.h>
#endif

static const int kTicks = 12;

// ---- growing: the same amount kept every tick ----
static const int kSteadyPerTick = 24;
static const size_t kSteadySize = 4096;
static void* g_steady[kTicks * kSteadyPerTick];
static int g_n_steady;

__attribute__((noinline)) void steady_leak(int tick) {
    (void)tick;
    for (int i = 0; i < kSteadyPerTick; i++) {
        void* p = malloc(kSteadySize);
        memset(p, 's', kSteadySize);
        g_steady[g_n_steady++] = p;
    }
}

// ---- new: a leak that starts halfway ----
static const int kLateFrom = kTicks / 2 + 1;
static const int kLatePerTick = 10;
static const size_t kLateSize = 16384;
static void* g_late[kTicks * kLatePerTick];
static int g_n_late;

__attribute__((noinline)) void late_leak(int tick) {
    if (tick < kLateFrom) return;
    for (int i = 0; i < kLatePerTick; i++) {
        void* p = malloc(kLateSize);
        memset(p, 'l', kLateSize);
        g_late[g_n_late++] = p;
    }
}

// ---- saturating: a cache that fills, then evicts as much as it inserts ----
static const int kCacheCapacity = 160;
static const int kCachePerTick = 40;
static const size_t kCacheEntry = 8192;
static void* g_cache[kCacheCapacity];
static int g_cache_next, g_cache_count;

__attribute__((noinline)) void cache_fill(int tick) {
    for (int i = 0; i < kCachePerTick; i++) {
        if (g_cache_count == kCacheCapacity) {
            free(g_cache[g_cache_next]);  // evict the oldest entry
        } else {
            g_cache_count++;
        }
        void* p = malloc(kCacheEntry);
        memset(p, 'a' + tick, kCacheEntry);
        g_cache[g_cache_next] = p;
        g_cache_next = (g_cache_next + 1) % kCacheCapacity;
    }
}

// ---- shrinking: a big buffer released step by step ----
static const int kReleaseChunks = 24;
static const int kReleasePerTick = 2;
static const size_t kReleaseChunk = 65536;
static void* g_release[kReleaseChunks];
static int g_n_release;

__attribute__((noinline)) void release_buffer(int tick) {
    if (tick == 1) {
        for (int i = 0; i < kReleaseChunks; i++) {
            void* p = malloc(kReleaseChunk);
            memset(p, 'r', kReleaseChunk);
            g_release[g_n_release++] = p;
        }
        return;
    }
    for (int i = 0; i < kReleasePerTick && g_n_release > 0; i++) free(g_release[--g_n_release]);
}

// ---- steady: +-10% around a constant, no trend ----
static const int kJitterMean = 100;
static const int kJitterSpread = 10;
static const size_t kJitterSize = 6144;
static void* g_jitter[kJitterMean + kJitterSpread];
static int g_n_jitter;
static uint32_t g_seed = 20240615u;

// A fixed linear congruential generator: the same counts on every machine.
static uint32_t next_random() {
    g_seed = g_seed * 1103515245u + 12345u;
    return g_seed >> 16;
}

__attribute__((noinline)) void jitter_pool(int tick) {
    (void)tick;
    for (int i = 0; i < g_n_jitter; i++) free(g_jitter[i]);
    g_n_jitter = kJitterMean - kJitterSpread + (int)(next_random() % (2 * kJitterSpread + 1));
    for (int i = 0; i < g_n_jitter; i++) {
        void* p = malloc(kJitterSize);
        memset(p, 'j', kJitterSize);
        g_jitter[i] = p;
    }
}

// ---- gone: allocated early, completely freed before the end ----
static const int kScratchTicks = 3;
static const int kScratchFreeTick = 5;
static const int kScratchPerTick = 8;
static const size_t kScratchSize = 32768;
static void* g_scratch[kScratchTicks * kScratchPerTick];
static int g_n_scratch;

__attribute__((noinline)) void startup_scratch(int tick) {
    if (tick <= kScratchTicks) {
        for (int i = 0; i < kScratchPerTick; i++) {
            void* p = malloc(kScratchSize);
            memset(p, 'x', kScratchSize);
            g_scratch[g_n_scratch++] = p;
        }
    } else if (tick == kScratchFreeTick) {
        while (g_n_scratch > 0) free(g_scratch[--g_n_scratch]);
    }
}

__attribute__((noinline)) static void run_tick(int tick) {
    steady_leak(tick);
    late_leak(tick);
    cache_fill(tick);
    release_buffer(tick);
    jitter_pool(tick);
    startup_scratch(tick);
}

// What the sites hold after a tick (the exact in-use bytes of an unsampled profile).
static void report(int tick) {
    printf("tick %2d: steady_leak %zu late_leak %zu cache_fill %zu release_buffer %zu "
           "jitter_pool %zu startup_scratch %zu\n",
           tick, g_n_steady * kSteadySize, g_n_late * kLateSize, g_cache_count * kCacheEntry,
           g_n_release * kReleaseChunk, g_n_jitter * kJitterSize, g_n_scratch * kScratchSize);
    fflush(stdout);
}

#ifdef TTREND_JEMALLOC

// After a tick: allocate and free small blocks until jemalloc has written the
// interval dump of this tick.  lg_prof_interval is far above what a tick
// allocates, so the only interval dumps are the ones these loops cause, one
// per tick, and each is written inside one of the mallocs below.
static void* volatile g_churn_sink;

__attribute__((noinline)) void tick_churn(const char* prefix, int tick) {
    char name[4096];
    // Only interval dumps have been written so far: the global sequence
    // number equals the interval number, tick - 1.
    snprintf(name, sizeof name, "%s.%d.%d.i%d.heap", prefix, (int)getpid(), tick - 1, tick - 1);
    for (long i = 0; i < 1L << 20; i++) {
        void* p = malloc(1024);
        memset(p, 'c', 1024);
        g_churn_sink = p;  // volatile: gcc may not drop the malloc/free pair
        free(p);
        if (access(name, F_OK) == 0) {
            printf("tick %2d: %s after %ld churn blocks\n", tick, name, i + 1);
            return;
        }
    }
    fprintf(stderr, "no interval dump %s (is MALLOC_CONF=prof:true,lg_prof_interval:24 set?)\n",
            name);
    exit(1);
}

static int run_jemalloc() {
    const char* prefix = nullptr;
    size_t sz = sizeof prefix;
    if (mallctl("opt.prof_prefix", &prefix, &sz, nullptr, 0) != 0 || prefix == nullptr) {
        fprintf(stderr, "opt.prof_prefix: jemalloc without profiling?\n");
        return 1;
    }
    std::string pre = prefix;  // copied: the ticks allocate
    for (int t = 1; t <= kTicks; t++) {
        run_tick(t);
        report(t);
        tick_churn(pre.c_str(), t);
    }
    // One explicit dump with jemalloc's own name: <prefix>.<pid>.<seq>.m0.heap.
    if (mallctl("prof.dump", nullptr, nullptr, nullptr, 0) != 0) {
        fprintf(stderr, "prof.dump failed\n");
        return 1;
    }
    // One dump on a new peak of mapped memory: <prefix>.<pid>.<seq>.u0.heap.
    bool on = true, off = false;
    if (mallctl("prof.gdump", nullptr, nullptr, &on, sizeof on) != 0) {
        fprintf(stderr, "prof.gdump failed\n");
        return 1;
    }
    void* peak = malloc(8u << 20);  // under the 16 MiB interval: no extra .i dump
    mallctl("prof.gdump", nullptr, nullptr, &off, sizeof off);
    memset(peak, 'p', 4096);
    g_churn_sink = peak;
    free(peak);
    printf("done; final dump (.f) at exit\n");
    return 0;  // prof_final:true writes <prefix>.<pid>.<seq>.f.heap
}

#else

static int write_text(const std::string& path, const std::string& s) {
    FILE* f = fopen(path.c_str(), "w");
    if (!f) {
        perror(path.c_str());
        return 1;
    }
    fwrite(s.data(), 1, s.size(), f);
    return fclose(f) == 0 ? 0 : 1;
}

static int run_dumps(const char* prefix) {
    HeapProfilerStart(prefix);
    for (int t = 1; t <= kTicks; t++) {
        run_tick(t);
        report(t);
        char reason[32];
        snprintf(reason, sizeof reason, "tick %d", t);
        HeapProfilerDump(reason);
    }
    HeapProfilerStop();  // no "Exiting" dump
    return 0;
}

static int run_sample(const char* prefix) {
    int rc = 0;
    // tcmalloc 2.10 never samples the main thread's allocations (its sampler
    // is set up before TCMALLOC_SAMPLE_PARAMETER is read): work in a thread.
    std::thread worker([&] {
        for (int t = 1; t <= kTicks && rc == 0; t++) {
            run_tick(t);
            report(t);
            std::string heap;
            MallocExtension::instance()->GetHeapSample(&heap);
            char name[32];
            snprintf(name, sizeof name, ".%04d.heap", t);
            rc = write_text(prefix + std::string(name), heap);
        }
    });
    worker.join();
    return rc;
}

#endif

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
#ifdef TTREND_JEMALLOC
    if (strcmp(mode, "jemalloc") == 0) return run_jemalloc();
    fprintf(stderr, "usage: MALLOC_CONF=prof:true,... %s jemalloc\n", argv[0]);
#else
    if (argc > 2 && strcmp(mode, "dumps") == 0) return run_dumps(argv[2]);
    if (argc > 2 && strcmp(mode, "sample") == 0) return run_sample(argv[2]);
    fprintf(stderr, "usage: %s dumps PREFIX | TCMALLOC_SAMPLE_PARAMETER=N %s sample PREFIX\n",
            argv[0], argv[0]);
#endif
    return 2;
}
