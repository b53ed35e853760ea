/*
** crc32_fast.h — CRC-32 of gzip (zlib's crc32()), faster where the CPU
** multiplies without carries (PCLMULQDQ): the gzip reader checks every
** member with it (input.c).
**
** Pipeline position: below "parse", under input.c.
*/
#ifndef PROFAN_CRC32_FAST_H
#define PROFAN_CRC32_FAST_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of n more bytes at z after crc (0 to start): the value
** zlib's crc32(crc, z, n) gives. */
uint32_t crc32_fast(uint32_t crc, const unsigned char *z, size_t n);

/* 1 when crc32_fast() folds with PCLMULQDQ on this CPU, 0 when it is
** zlib's crc32 (the tests report which they checked). */
int crc32_fast_folds(void);

#endif
