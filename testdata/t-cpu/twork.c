/* twork.c -- libtwork.so, linked by tcpu (testdata/t-cpu).  Built with -O2:
 * the static helper twork_step() is inlined into twork_checksum(). */
#include "twork.h"

static inline uint32_t twork_step(uint32_t h, uint8_t byte)
{
    h ^= byte;
    h *= 16777619u;
    h = (h << 13) | (h >> 19);
    return h + 0x9e3779b9u;
}

/* The hot function of the library. */
uint32_t twork_checksum(const uint8_t *buf, size_t len, int rounds)
{
    uint32_t h = 2166136261u;
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < len; i++)
            h = twork_step(h, buf[i]);
    return h;
}

/* A second, colder entry point: xorshift-driven swaps. */
uint64_t twork_shuffle(uint64_t *v, size_t n, int passes)
{
    uint64_t x = 88172645463325252ull, acc = 0;
    for (int p = 0; p < passes; p++) {
        for (size_t i = n - 1; i > 0; i--) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t j = x % (i + 1);
            uint64_t t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        acc += v[0];
    }
    return acc;
}
