/* t-dwarf: functions the linker discards (-ffunction-sections -Wl,--gc-sections) keep their
 * DWARF, their addresses resolved to 0: in a small PIE, whose code starts a few KB above 0,
 * the discarded ranges [0, size) cover the live code. */
#include <stdio.h>
#include <stdlib.h>

#define R8(x) x x x x x x x x
static volatile int sink;

static inline void helper(int v) { sink += v * 7; sink ^= v >> 3; }

/* Never called: discarded, with the copies of helper inlined into it (a copy's range is
 * an offset from 0 too). */
__attribute__((noinline)) void unused_inl(int n) {
  for (int i = 0; i < n; i++) {
    R8(R8(R8(helper(i);)))
  }
}

/* Never called: discarded. */
__attribute__((noinline)) void unused_big(int n) {
  for (int i = 0; i < n; i++) {
    R8(R8(R8(sink += i * 3; sink ^= i;)))
  }
}

__attribute__((noinline)) long hot(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += (i * 2654435761u) >> 7;
  return s;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  printf("%ld\n", hot(n));
  return 0;
}
