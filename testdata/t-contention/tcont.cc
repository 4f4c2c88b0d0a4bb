// tcont.cc -- lock-contention profile test program for rpprof (testdata/t-contention).
//
// Four threads share a ledger, a statistics block and a sharded cache, all
// guarded by tcont::ProfiledMutex.  ProfiledMutex::lock() first tries the
// lock; when it is busy it measures the wait around pthread_mutex_lock and
// hands the wait to the in-process contention profiler, which takes the stack
// with backtrace() and aggregates delay and count per distinct stack.
//
// At exit two files are written (the text formats google-pprof reads):
//   OUT1  "--- contention" / "cycles/second=1000000000" / "<delay-ns> <count> @ <pcs>"
//         lines, then /proc/self/maps appended as is (the layout of brpc's
//         /pprof/contention files: delays already in nanoseconds)
//   OUT2  "--- contentionz 1 ---" with "cycles/second = <tsc rate>",
//         "sampling period = 2" and "ms since reset = <ms>" lines; only every
//         2nd contention of each thread is recorded, its delay in TSC cycles
//         (rdtsc); then /proc/self/maps.
//
//   tcont OUT1 OUT2
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <time.h>
#include <x86intrin.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tcont {

// ---------------------------------------------------------------- profiler
namespace profiler {

const int kMaxFrames = 32;
const int kSkippedFrames = 2;  // submit() and ProfiledMutex::lock(): always the same
const int kSamplingPeriod = 2;  // for the contentionz file

struct Site {
    int nframes;
    void* pcs[kMaxFrames];
    uint64_t delay_ns;   // file 1: every contention
    uint64_t count;
    uint64_t cycles;     // file 2: sampled contentions only
    uint64_t sampled;
};

static pthread_mutex_t g_table_lock = PTHREAD_MUTEX_INITIALIZER;  // never profiled
static std::vector<Site>* g_sites;
static thread_local unsigned t_contentions;

static uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// Records one contention with the current stack (frames of submit() and
// lock() dropped, as brpc drops its two profiler frames).
__attribute__((noinline)) void submit(uint64_t wait_ns, uint64_t wait_cycles) {
    void* raw[kMaxFrames + kSkippedFrames];
    int n = backtrace(raw, kMaxFrames + kSkippedFrames) - kSkippedFrames;
    if (n <= 0) return;
    const bool sampled = (++t_contentions % kSamplingPeriod) == 0;
    pthread_mutex_lock(&g_table_lock);
    Site* found = nullptr;
    for (Site& s : *g_sites) {
        if (s.nframes == n && memcmp(s.pcs, raw + kSkippedFrames, sizeof(void*) * n) == 0) {
            found = &s;
            break;
        }
    }
    if (!found) {
        g_sites->push_back(Site());
        found = &g_sites->back();
        memset(found, 0, sizeof *found);
        found->nframes = n;
        memcpy(found->pcs, raw + kSkippedFrames, sizeof(void*) * n);
    }
    found->delay_ns += wait_ns;
    found->count += 1;
    if (sampled) {
        found->cycles += wait_cycles;
        found->sampled += 1;
    }
    pthread_mutex_unlock(&g_table_lock);
}

static void append_maps(FILE* out) {
    FILE* maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, maps)) > 0) fwrite(buf, 1, n, out);
    fclose(maps);
}

static void write_stack(FILE* out, const Site& s) {
    fputs(" @", out);
    for (int i = 0; i < s.nframes; i++) fprintf(out, " %p", s.pcs[i]);
    fputc('\n', out);
}

void write_brpc(const char* path) {
    FILE* out = fopen(path, "w");
    if (!out) {
        perror(path);
        return;
    }
    fputs("--- contention\ncycles/second=1000000000\n", out);
    for (const Site& s : *g_sites) {
        fprintf(out, "%llu %llu", (unsigned long long)s.delay_ns, (unsigned long long)s.count);
        write_stack(out, s);
    }
    append_maps(out);
    fclose(out);
}

void write_contentionz(const char* path, double tsc_hz, uint64_t ms_since_reset) {
    FILE* out = fopen(path, "w");
    if (!out) {
        perror(path);
        return;
    }
    fprintf(out, "--- contentionz 1 ---\n");
    fprintf(out, "cycles/second = %.0f\n", tsc_hz);
    fprintf(out, "sampling period = %d\n", kSamplingPeriod);
    fprintf(out, "ms since reset = %llu\n", (unsigned long long)ms_since_reset);
    for (const Site& s : *g_sites) {
        if (!s.sampled) continue;
        fprintf(out, "%llu %llu", (unsigned long long)s.cycles, (unsigned long long)s.sampled);
        write_stack(out, s);
    }
    append_maps(out);
    fclose(out);
}

// rdtsc ticks per second, measured against CLOCK_MONOTONIC.
double calibrate_tsc() {
    uint64_t t0 = now_ns(), c0 = __rdtsc();
    timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, nullptr);
    uint64_t t1 = now_ns(), c1 = __rdtsc();
    return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

}  // namespace profiler

// ---------------------------------------------------------------- mutex
class ProfiledMutex {
  public:
    ProfiledMutex() { pthread_mutex_init(&m_, nullptr); }
    __attribute__((noinline)) void lock() {
        if (pthread_mutex_trylock(&m_) == 0) return;
        uint64_t t0 = profiler::now_ns();
        uint64_t c0 = __rdtsc();
        pthread_mutex_lock(&m_);
        uint64_t c1 = __rdtsc();
        uint64_t t1 = profiler::now_ns();
        profiler::submit(t1 - t0, c1 - c0);
        __asm__ volatile("" ::: "memory");  // keep this frame: no tail call to submit()
    }
    void unlock() { pthread_mutex_unlock(&m_); }

  private:
    pthread_mutex_t m_;
};

static volatile uint64_t g_sink;

__attribute__((noinline)) static uint64_t spin_work(int n) {
    uint64_t x = (uint64_t)n * 2654435761u + 1;
    for (int i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

// ---------------------------------------------------------------- shared state
namespace bank {

class Ledger {
  public:
    // long critical section: the hot lock
    __attribute__((noinline)) void post(int account, long amount) {
        std::lock_guard<ProfiledMutex> g(mu_);
        balance_[account % 16] += amount;
        g_sink += spin_work(20000);
    }
    __attribute__((noinline)) long audit() {
        std::lock_guard<ProfiledMutex> g(mu_);
        long sum = 0;
        for (long b : balance_) sum += b;
        g_sink += spin_work(60000);
        return sum;
    }

  private:
    ProfiledMutex mu_;
    long balance_[16] = {};
};

}  // namespace bank

namespace stats {

struct Counters {
    ProfiledMutex mu;
    uint64_t events = 0;
};

// short critical section, called very often
__attribute__((noinline)) void bump(Counters& c) {
    std::lock_guard<ProfiledMutex> g(c.mu);
    c.events++;
    g_sink += spin_work(1000);
}

}  // namespace stats

// A class template: each shard has its own lock.
template <typename K>
class ShardedCache {
  public:
    __attribute__((noinline)) bool lookup(K key) {
        Shard& s = shards_[(size_t)key % 2];
        std::lock_guard<ProfiledMutex> g(s.mu);
        g_sink += spin_work(5000);
        return (s.hits++ & 1) == 0;
    }

  private:
    struct Shard {
        ProfiledMutex mu;
        uint64_t hits = 0;
    };
    Shard shards_[2];
};

}  // namespace tcont

using namespace tcont;

static bank::Ledger g_ledger;
static stats::Counters g_counters;
static ShardedCache<long> g_cache;

static uint64_t g_deadline_ns;

static bool running() { return profiler::now_ns() < g_deadline_ns; }

// recursive request handler: the depth changes the stack, not the resource
__attribute__((noinline)) static void handle(int depth, int id) {
    if (depth > 0) {
        handle(depth - 1, id * 3 + 1);
        __asm__ volatile("" ::: "memory");  // keep the recursion visible (no tail call)
        return;
    }
    stats::bump(g_counters);
    g_cache.lookup(id);
    if (id % 3 == 0) g_ledger.post(id, id % 100);
}

__attribute__((noinline)) static void teller(int id) {
    for (int i = 0; running(); i++) {
        g_ledger.post(id, i);
        stats::bump(g_counters);
    }
}

__attribute__((noinline)) static void server(int id) {
    for (int i = 0; running(); i++) handle(i % 3, id * 10000 + i);
}

__attribute__((noinline)) static void auditor() {
    while (running()) {
        g_sink += (uint64_t)g_ledger.audit();
        stats::bump(g_counters);
        timespec pause = {0, 2 * 1000 * 1000};
        nanosleep(&pause, nullptr);
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT1 OUT2\n", argv[0]);
        return 2;
    }
    profiler::g_sites = new std::vector<profiler::Site>();
    profiler::g_sites->reserve(256);
    {
        void* warm[4];
        backtrace(warm, 4);  // loads libgcc_s before the threads start
    }
    const double tsc_hz = profiler::calibrate_tsc();
    const uint64_t start = profiler::now_ns();
    g_deadline_ns = start + 700ull * 1000 * 1000;  // every thread works for 0.7 s
    std::vector<std::thread> threads;
    threads.emplace_back(teller, 1);
    threads.emplace_back(teller, 2);
    threads.emplace_back(server, 3);
    threads.emplace_back(auditor);
    server(4);
    for (std::thread& t : threads) t.join();
    const uint64_t ms = (profiler::now_ns() - start) / 1000000;
    profiler::write_brpc(argv[1]);
    profiler::write_contentionz(argv[2], tsc_hz, ms);
    uint64_t total = 0;
    for (const profiler::Site& s : *profiler::g_sites) total += s.count;
    printf("%zu stacks, %llu contentions, %llu ms, tsc %.0f Hz, events %llu\n",
           profiler::g_sites->size(), (unsigned long long)total, (unsigned long long)ms, tsc_hz,
           (unsigned long long)g_counters.events);
    return 0;
}
