/* tcpu.c -- CPU-profile test program for rpprof (testdata/t-cpu).
 *
 *   tcpu work N   N rounds of: recursion (tree_sum), a prime sieve, string
 *                 formatting + qsort (libc), libtwork.so (linked) and
 *                 libtplugin.so (dlopen'ed from the executable's directory)
 *   tcpu leaf N   all time in one non-inlined leaf (burn) reached through a
 *                 single call site in relay(), called from two places
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twork.h"

static volatile uint64_t sink;

/* recursion: a binary tree of calls */
__attribute__((noinline)) uint64_t tree_sum(int depth, uint64_t seed)
{
    if (depth == 0)
        return (seed * 0x9e3779b97f4a7c15ull) >> 7;
    return tree_sum(depth - 1, seed * 3 + 1) ^ tree_sum(depth - 1, seed * 5 + 2);
}

__attribute__((noinline)) static int sieve_count(int limit)
{
    char *composite = calloc((size_t)limit + 1, 1);
    int count = 0;
    for (int i = 2; i <= limit; i++) {
        if (composite[i])
            continue;
        count++;
        for (long j = (long)i * i; j <= limit; j += i)
            composite[j] = 1;
    }
    free(composite);
    return count;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

__attribute__((noinline)) static size_t format_and_sort(int n)
{
    char **names = malloc(sizeof(char *) * (size_t)n);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        char tmp[64];
        int len = snprintf(tmp, sizeof tmp, "item-%07d-%x-%g", (i * 7919) % n, i, i * 0.5);
        names[i] = strdup(tmp);
        total += (size_t)len;
    }
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return total;
}

__attribute__((noinline)) static uint32_t library_phase(int rounds)
{
    static uint8_t buf[4096];
    static uint64_t vals[2048];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 31);
    for (size_t i = 0; i < 2048; i++)
        vals[i] = i;
    uint32_t h = twork_checksum(buf, sizeof buf, rounds);
    return h ^ (uint32_t)twork_shuffle(vals, 2048, rounds / 4 + 1);
}

typedef double (*simulate_fn)(int);

static simulate_fn load_plugin(void)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n < 0) {
        perror("readlink");
        exit(1);
    }
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    strcpy(slash + 1, "libtplugin.so");
    void *h = dlopen(path, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        exit(1);
    }
    simulate_fn f = (simulate_fn)dlsym(h, "tplugin_simulate");
    if (!f) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        exit(1);
    }
    return f;
}

/* --- leaf mode --- */

__attribute__((noinline)) uint64_t burn(uint64_t n)
{
    uint64_t x = n | 1;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 7;
        x ^= x >> 9;
    }
    return x;
}

__attribute__((noinline)) uint64_t relay(uint64_t n)
{
    uint64_t r = burn(n);
    __asm__ volatile("" ::: "memory");
    return r;
}

__attribute__((noinline)) uint64_t first_user(uint64_t n) { return relay(n) + 1; }
__attribute__((noinline)) uint64_t second_user(uint64_t n) { return relay(n) + 2; }

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s work|leaf N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    if (strcmp(argv[1], "leaf") == 0) {
        sink = first_user((uint64_t)n * 1000000);
        sink += second_user((uint64_t)n * 500000);
        printf("leaf %llu\n", (unsigned long long)sink);
        return 0;
    }
    simulate_fn simulate = load_plugin();
    uint64_t acc = 0;
    for (long r = 0; r < n; r++) {
        acc += tree_sum(17, (uint64_t)r);
        acc += (uint64_t)sieve_count(600000);
        acc += format_and_sort(6000);
        acc += library_phase(150);
        acc += (uint64_t)(simulate(50000) * 1000.0);
    }
    sink = acc;
    printf("work rounds=%ld acc=%llu\n", n, (unsigned long long)acc);
    return 0;
}
