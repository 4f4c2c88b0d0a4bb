/* DWARF shapes the symbolizer must read right, for tests/addresses.rs (no profile).
 *
 * inner is a GNU C nested function: its DWARF entry is a child of outer's entry, but its
 * code lies outside outer's. rpprof skips the entries of a function that holds none of
 * the addresses asked for; asked for inner's addresses alone, it must still find inner,
 * and square inlined into it. */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) int square(int x) {
    return x * x;
}

int outer(int n);

int main(int argc, char **argv) {
    printf("%d\n", outer(argc > 1 ? atoi(argv[1]) : 2));
    return 0;
}

int outer(int n) {
    int base = n * 3;
    __attribute__((noinline)) int inner(int x) {
        return square(x) + base;
    }
    return inner(n) + inner(n + 1);
}
