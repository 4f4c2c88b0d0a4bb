/* tplug.c -- libtplug.so, loaded with dlopen() and unloaded with dlclose() before the
 * profiler writes its file, so the profile's memory map no longer lists it. */
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t plug_work(int rounds) {
    uint64_t h = 1;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 5000; i++) h = h * 6364136223846793005ULL + (uint64_t)i;
    sink = h;
    return h;
}
