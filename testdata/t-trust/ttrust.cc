// ttrust.cc -- profiles that used to leave rpprof's users without an explanation, or with a
// wrong name (issue 17), written by gperftools' own profilers:
//
//   ttrust stripped OUT      CPU profile; most time in static functions of the stripped
//                            libtsecret.so (no symbol names them)
//   ttrust dlclose OUT LIB   CPU profile; most time in LIB (libtplug.so), dlopen()ed and
//                            dlclose()d before ProfilerStop writes the memory map
//   ttrust flushing OUT S    CPU profile flushed (ProfilerFlush) every 50 ms for S seconds:
//                            killed, it leaves complete records and no memory map; run out of
//                            file space (ulimit -f), it leaves a record cut in the middle
//   ttrust heap              allocations from 80 call depths, then HeapProfilerDump (run with
//                            HEAPPROFILE, and ulimit -f to cut the dump short)
//   ttrust shortmap OUT      GetHeapGrowthStacks, its memory map replaced by the short
//                            "start-end: path" form (one line per loaded object, from
//                            dl_iterate_phdr), as Google's DumpAddressMap writes it
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gperftools/heap-profiler.h>
#include <gperftools/malloc_extension.h>
#include <gperftools/profiler.h>

extern "C" uint64_t secret_digest(int rounds);

static volatile uint64_t sink;

static double now() {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The program's own work: a little, so that its frames are in every profile.
__attribute__((noinline)) static void own_work(int n) {
    uint64_t h = 7;
    for (int i = 0; i < n * 1000; i++) h = h * 31 + i;
    sink = h;
}

__attribute__((noinline)) static void run_stripped(double secs) {
    double t0 = now();
    while (now() - t0 < secs) {
        secret_digest(20);
        own_work(5);
    }
}

__attribute__((noinline)) static void run_plugin(const char* lib, double secs) {
    void* h = dlopen(lib, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
        exit(1);
    }
    auto work = (uint64_t (*)(int))dlsym(h, "plug_work");
    double t0 = now();
    while (now() - t0 < secs) work(50);
    dlclose(h);
    own_work(2000);
}

// Recursion to a varying depth: many different stacks.
__attribute__((noinline)) static uint64_t descend(int depth, int n) {
    if (depth == 0) {
        uint64_t h = 1;
        for (int i = 0; i < n; i++) h = h * 2862933555777941757ULL + 3037000493ULL;
        return h;
    }
    return descend(depth - 1, n) + (uint64_t)depth;
}

__attribute__((noinline)) static void run_flushing(double secs) {
    double t0 = now(), last = t0;
    for (int k = 0; now() - t0 < secs; k++) {
        sink = descend(k % 40, 20000);
        if (now() - last > 0.05) {
            ProfilerFlush();
            last = now();
        }
    }
}

static std::vector<void*> kept;

__attribute__((noinline)) static void allocate_at(int depth) {
    if (depth == 0) {
        for (int i = 0; i < 64; i++) kept.push_back(malloc(1024 + i));
        return;
    }
    allocate_at(depth - 1);
    sink = depth;
}

static int write_file(const char* path, const std::string& s) {
    FILE* f = fopen(path, "w");
    if (!f || fwrite(s.data(), 1, s.size(), f) != s.size() || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

// Google's DumpAddressMap form: "start-end: path", one line per loaded object.
static int map_line(struct dl_phdr_info* info, size_t, void* data) {
    std::string* out = static_cast<std::string*>(data);
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)& p = info->dlpi_phdr[i];
        if (p.p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + p.p_vaddr;
        if (a < lo) lo = a;
        if (a + p.p_memsz > hi) hi = a + p.p_memsz;
    }
    char path[4096];
    const char* name = info->dlpi_name;
    if (!name || !*name) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0) return 0;
        path[n] = 0;
        name = path;
    }
    if (name[0] != '/' || lo >= hi) return 0;  // the vdso and the like
    char line[4200];
    snprintf(line, sizeof line, "%lx-%lx: %s\n", (unsigned long)lo, (unsigned long)hi, name);
    *out += line;
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: ttrust stripped|dlclose|flushing|heap|shortmap ...\n");
        return 2;
    }
    std::string mode = argv[1];
    if (mode == "stripped" && argc == 3) {
        ProfilerStart(argv[2]);
        run_stripped(1.5);
        ProfilerStop();
    } else if (mode == "dlclose" && argc == 4) {
        ProfilerStart(argv[2]);
        run_plugin(argv[3], 1.5);
        ProfilerStop();
    } else if (mode == "flushing" && argc == 4) {
        ProfilerStart(argv[2]);
        run_flushing(atof(argv[3]));
        ProfilerStop();
    } else if (mode == "heap") {
        for (int d = 1; d <= 80; d++) allocate_at(d);
        HeapProfilerDump("cut");
    } else if (mode == "shortmap" && argc == 3) {
        for (int d = 1; d <= 20; d++) allocate_at(d * 4);
        std::string s;
        MallocExtension::instance()->GetHeapGrowthStacks(&s);
        size_t cut = s.find("MAPPED_LIBRARIES:");
        if (cut == std::string::npos) {
            fprintf(stderr, "no MAPPED_LIBRARIES in the growth stacks\n");
            return 1;
        }
        s.resize(cut);
        s += "MAPPED_LIBRARIES:\n";
        dl_iterate_phdr(map_line, &s);
        return write_file(argv[2], s);
    } else {
        fprintf(stderr, "ttrust: bad arguments\n");
        return 2;
    }
    printf("%s: done\n", mode.c_str());
    return 0;
}
