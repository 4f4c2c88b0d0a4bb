/* tsecret.c -- libtsecret.so, shipped stripped (strip --strip-all: only the exported
 * functions stay in .dynsym). Its hot code is in static functions that no symbol names:
 * pprof names their addresses after the nearest exported function before them
 * (secret_version, a few bytes long; secret_nosize, an assembler entry without a size). */
#include <stdint.h>

/* Exported, tiny: the nearest symbol before mix_round. */
int secret_version(void) { return 3; }

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t mix_round(uint64_t h, int n) {
    for (int i = 0; i < n; i++) {
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    return h;
}

/* Exported, with no size in the symbol table (as hand-written assembly often is): the
 * nearest symbol before fold_block. */
__asm__(".text\n"
        ".globl secret_nosize\n"
        ".type secret_nosize, @function\n"
        "secret_nosize:\n"
        "  ret\n");

static __attribute__((noinline)) uint64_t fold_block(uint64_t h, int n) {
    for (int i = 0; i < n; i++) {
        h += (h << 7) ^ (uint64_t)i;
        h = (h >> 3) | (h << 61);
    }
    return h;
}

/* Exported: the entry point the program calls. */
uint64_t secret_digest(int rounds) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int r = 0; r < rounds; r++) {
        h = mix_round(h, 3000);
        h = fold_block(h, 2000);
    }
    sink = h;
    return h;
}
