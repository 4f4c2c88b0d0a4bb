/* tstrip.c -- CPU-profile test program for rpprof (testdata/t-stripped).
 * The binary that runs is stripped; its symbols and DWARF live in tstrip.debug,
 * named by the .gnu_debuglink section.
 *
 * Work: a tiny stack-machine interpreter (vm_run, switch dispatch), a
 * substring search (naive and KMP), and an insertion sort of records.
 *
 *   tstrip N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_SWAP, OP_JNZ, OP_DEC, OP_POP, OP_HALT };

struct insn {
    enum op op;
    int64_t arg;
};

/* sum_{i=n..1} i*i via a loop in bytecode */
static const struct insn program[] = {
    {OP_PUSH, 0},    /* acc */
    {OP_PUSH, 0},    /* n (patched) */
    /* loop: stack = acc n */
    {OP_DUP, 0},     /* acc n n */
    {OP_DUP, 0},     /* acc n n n */
    {OP_MUL, 0},     /* acc n n*n */
    {OP_SWAP, 0},    /* acc n*n n */
    {OP_DEC, 0},     /* acc n*n n-1 -- keep as counter */
    {OP_SWAP, 0},    /* acc n-1 n*n */
    {OP_PUSH, 0},    /* placeholder, rotated below */
    {OP_POP, 0},
    {OP_ADD, 0},     /* acc n-1+n*n  (a deliberately odd accumulator) */
    {OP_DUP, 0},
    {OP_JNZ, 2},
    {OP_HALT, 0},
};

__attribute__((noinline)) static int64_t vm_run(int64_t n, long *steps)
{
    int64_t stack[64];
    int sp = 0;
    size_t pc = 0;
    long count = 0;
    int64_t budget = n;
    for (;;) {
        const struct insn *i = &program[pc++];
        count++;
        switch (i->op) {
        case OP_PUSH: stack[sp++] = (pc == 2) ? n : i->arg; break;
        case OP_ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case OP_MUL: sp--; stack[sp - 1] *= stack[sp]; break;
        case OP_DUP: stack[sp] = stack[sp - 1]; sp++; break;
        case OP_SWAP: { int64_t t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } break;
        case OP_DEC: stack[sp - 1]--; break;
        case OP_POP: sp--; break;
        case OP_JNZ:
            sp--;
            if (stack[sp] != 0 && --budget > 0) pc = (size_t)i->arg;
            if (sp > 48) sp = 2;
            break;
        case OP_HALT: *steps += count; return stack[sp - 1];
        }
    }
}

__attribute__((noinline)) static long naive_count(const char *hay, size_t hn, const char *needle, size_t nn)
{
    long hits = 0;
    for (size_t i = 0; i + nn <= hn; i++) {
        size_t j = 0;
        while (j < nn && hay[i + j] == needle[j]) j++;
        if (j == nn) hits++;
    }
    return hits;
}

__attribute__((noinline)) static void kmp_table(const char *needle, size_t nn, int *fail)
{
    fail[0] = -1;
    for (size_t i = 1; i < nn; i++) {
        int k = fail[i - 1];
        while (k >= 0 && needle[k + 1] != needle[i]) k = fail[k];
        fail[i] = needle[k + 1] == needle[i] ? k + 1 : -1;
    }
}

__attribute__((noinline)) static long kmp_count(const char *hay, size_t hn, const char *needle, size_t nn)
{
    int fail[64];
    kmp_table(needle, nn, fail);
    long hits = 0;
    int k = -1;
    for (size_t i = 0; i < hn; i++) {
        while (k >= 0 && needle[k + 1] != hay[i]) k = fail[k];
        if (needle[k + 1] == hay[i]) k++;
        if (k == (int)nn - 1) {
            hits++;
            k = fail[k];
        }
    }
    return hits;
}

struct rec {
    uint32_t key;
    char name[12];
};

__attribute__((noinline)) static void insertion_sort(struct rec *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct rec x = r[i];
        size_t j = i;
        while (j > 0 && r[j - 1].key > x.key) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    size_t hn = 1 << 18;
    char *hay = malloc(hn);
    uint32_t x = 12345;
    for (size_t i = 0; i < hn; i++) {
        x = x * 1103515245u + 12345u;
        hay[i] = "aab"[(x >> 16) % 3];
    }
    const char *needle = "aabaabaab";
    struct rec *recs = malloc(sizeof *recs * 3000);
    long steps = 0, hits = 0;
    int64_t acc = 0;
    for (int r = 0; r < rounds; r++) {
        acc += vm_run(20000 + r, &steps);
        hits += naive_count(hay, hn, needle, strlen(needle));
        hits += kmp_count(hay, hn, needle, strlen(needle));
        for (size_t i = 0; i < 3000; i++) {
            x = x * 1103515245u + 12345u;
            recs[i].key = x >> 8;
            snprintf(recs[i].name, sizeof recs[i].name, "r%zu", i);
        }
        insertion_sort(recs, 3000);
    }
    printf("rounds=%d acc=%lld steps=%ld hits=%ld first=%u\n", rounds, (long long)acc, steps, hits,
           recs[0].key);
    free(recs);
    free(hay);
    return 0;
}
