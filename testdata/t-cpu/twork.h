/* twork.h -- interface of libtwork.so (testdata/t-cpu) */
#ifndef TWORK_H
#define TWORK_H
#include <stddef.h>
#include <stdint.h>

uint32_t twork_checksum(const uint8_t *buf, size_t len, int rounds);
uint64_t twork_shuffle(uint64_t *v, size_t n, int passes);

#endif
