/* t-dwarf: a discarded function (see gcsections.c) with copies of helper inlined into it
 * whose ranges are offsets from its address, 0 (DWARF 5 DW_RLE_offset_pair): with the 128
 * lines that make unused_big about 4 KB, one lands on the live hot. */
#include <stdio.h>
#include <stdlib.h>
static volatile int sink;
static inline __attribute__((always_inline)) void helper(int v) {
  if (__builtin_expect(v & 1, 0)) { sink += v * 7; sink ^= v >> 3; sink *= 3; }
  else sink -= v;
}
__attribute__((noinline)) void unused_big(int n) {
  for (int i = 0; i < n; i++) {
    helper(i);
    sink += i * 1; sink ^= i;
    sink += i * 2; sink ^= i;
    sink += i * 3; sink ^= i;
    sink += i * 4; sink ^= i;
    sink += i * 5; sink ^= i;
    sink += i * 6; sink ^= i;
    sink += i * 7; sink ^= i;
    sink += i * 8; sink ^= i;
    sink += i * 9; sink ^= i;
    sink += i * 10; sink ^= i;
    sink += i * 11; sink ^= i;
    sink += i * 12; sink ^= i;
    sink += i * 13; sink ^= i;
    sink += i * 14; sink ^= i;
    sink += i * 15; sink ^= i;
    sink += i * 16; sink ^= i;
    sink += i * 17; sink ^= i;
    sink += i * 18; sink ^= i;
    sink += i * 19; sink ^= i;
    sink += i * 20; sink ^= i;
    sink += i * 21; sink ^= i;
    sink += i * 22; sink ^= i;
    sink += i * 23; sink ^= i;
    sink += i * 24; sink ^= i;
    sink += i * 25; sink ^= i;
    sink += i * 26; sink ^= i;
    sink += i * 27; sink ^= i;
    sink += i * 28; sink ^= i;
    sink += i * 29; sink ^= i;
    sink += i * 30; sink ^= i;
    sink += i * 31; sink ^= i;
    sink += i * 32; sink ^= i;
    sink += i * 33; sink ^= i;
    sink += i * 34; sink ^= i;
    sink += i * 35; sink ^= i;
    sink += i * 36; sink ^= i;
    sink += i * 37; sink ^= i;
    sink += i * 38; sink ^= i;
    sink += i * 39; sink ^= i;
    sink += i * 40; sink ^= i;
    sink += i * 41; sink ^= i;
    sink += i * 42; sink ^= i;
    sink += i * 43; sink ^= i;
    sink += i * 44; sink ^= i;
    sink += i * 45; sink ^= i;
    sink += i * 46; sink ^= i;
    sink += i * 47; sink ^= i;
    sink += i * 48; sink ^= i;
    sink += i * 49; sink ^= i;
    sink += i * 50; sink ^= i;
    sink += i * 51; sink ^= i;
    sink += i * 52; sink ^= i;
    sink += i * 53; sink ^= i;
    sink += i * 54; sink ^= i;
    sink += i * 55; sink ^= i;
    sink += i * 56; sink ^= i;
    sink += i * 57; sink ^= i;
    sink += i * 58; sink ^= i;
    sink += i * 59; sink ^= i;
    sink += i * 60; sink ^= i;
    sink += i * 61; sink ^= i;
    sink += i * 62; sink ^= i;
    sink += i * 63; sink ^= i;
    sink += i * 64; sink ^= i;
    sink += i * 65; sink ^= i;
    sink += i * 66; sink ^= i;
    sink += i * 67; sink ^= i;
    sink += i * 68; sink ^= i;
    sink += i * 69; sink ^= i;
    sink += i * 70; sink ^= i;
    sink += i * 71; sink ^= i;
    sink += i * 72; sink ^= i;
    sink += i * 73; sink ^= i;
    sink += i * 74; sink ^= i;
    sink += i * 75; sink ^= i;
    sink += i * 76; sink ^= i;
    sink += i * 77; sink ^= i;
    sink += i * 78; sink ^= i;
    sink += i * 79; sink ^= i;
    sink += i * 80; sink ^= i;
    sink += i * 81; sink ^= i;
    sink += i * 82; sink ^= i;
    sink += i * 83; sink ^= i;
    sink += i * 84; sink ^= i;
    sink += i * 85; sink ^= i;
    sink += i * 86; sink ^= i;
    sink += i * 87; sink ^= i;
    sink += i * 88; sink ^= i;
    sink += i * 89; sink ^= i;
    sink += i * 90; sink ^= i;
    sink += i * 91; sink ^= i;
    sink += i * 92; sink ^= i;
    sink += i * 93; sink ^= i;
    sink += i * 94; sink ^= i;
    sink += i * 95; sink ^= i;
    sink += i * 96; sink ^= i;
    sink += i * 97; sink ^= i;
    sink += i * 98; sink ^= i;
    sink += i * 99; sink ^= i;
    sink += i * 100; sink ^= i;
    sink += i * 101; sink ^= i;
    sink += i * 102; sink ^= i;
    sink += i * 103; sink ^= i;
    sink += i * 104; sink ^= i;
    sink += i * 105; sink ^= i;
    sink += i * 106; sink ^= i;
    sink += i * 107; sink ^= i;
    sink += i * 108; sink ^= i;
    sink += i * 109; sink ^= i;
    sink += i * 110; sink ^= i;
    sink += i * 111; sink ^= i;
    sink += i * 112; sink ^= i;
    sink += i * 113; sink ^= i;
    sink += i * 114; sink ^= i;
    sink += i * 115; sink ^= i;
    sink += i * 116; sink ^= i;
    sink += i * 117; sink ^= i;
    sink += i * 118; sink ^= i;
    sink += i * 119; sink ^= i;
    sink += i * 120; sink ^= i;
    sink += i * 121; sink ^= i;
    sink += i * 122; sink ^= i;
    sink += i * 123; sink ^= i;
    sink += i * 124; sink ^= i;
    sink += i * 125; sink ^= i;
    sink += i * 126; sink ^= i;
    sink += i * 127; sink ^= i;
    sink += i * 128; sink ^= i;
  }
}
__attribute__((noinline)) long hot(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) { s += (i * 2654435761u) >> 7; helper(i); }
  return s;
}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  printf("%ld\n", hot(n));
  return 0;
}
