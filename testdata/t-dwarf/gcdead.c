/* t-dwarf: a unit the linker discards whole (see gcsections.c): its range [0, size) covers
 * the live code, and comes first. */
#define R8(x) x x x x x x x x
static volatile int dead_sink;

/* Never called: discarded. */
void unused_unit(int n) {
  for (int i = 0; i < n; i++) {
    R8(R8(R8(dead_sink += i; dead_sink ^= i >> 2;)))
  }
}
