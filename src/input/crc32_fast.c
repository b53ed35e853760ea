/*
** crc32_fast.c — CRC-32 of gzip by folding with carry-less multiplies
** (crc32_fast.h).
**
** Pipeline position: below "parse", under input.c.
**
** zlib's crc32 takes about 1.2 instructions a byte: 4 % of an ingest of a
** .json.gz trace.  With PCLMULQDQ (checked at run time; zlib's crc32
** otherwise) the bytes are folded 64 at a time into four 128-bit lanes,
** then into one (Intel's "Fast CRC Computation for Generic Polynomials
** Using PCLMULQDQ", the constants x^k mod P, bit-reflected, of its
** gzip example).  The folded lane is congruent to everything before it
** modulo the polynomial, so the CRC of the lane's 16 bytes (register
** from 0) continued over the rest, by zlib, is the CRC of the whole: no
** Barrett reduction to get right.
*/
#include "input/crc32_fast.h"

#include <zlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CRC_FOLD 1
#endif

#ifdef CRC_FOLD

/* Fold lane x over 512 bits (k = x^(512+32), x^(512-32) mod P) or over
** 128 (x^(128+32), x^(128-32)), then add the 16 bytes d. */
__attribute__((target("pclmul,sse2")))
static __m128i fold(__m128i x, __m128i k, __m128i d){
  __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
  __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(lo, hi), d);
}

/* n >= 64.  Returns the CRC (zlib's convention) of the bytes after crc. */
__attribute__((target("pclmul,sse2")))
static uint32_t crc_fold(uint32_t crc, const unsigned char *z, size_t n){
  const __m128i k512 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
  const __m128i k128 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
  __m128i x0, x1, x2, x3;
  unsigned char aLane[16];
  /* the register's start (crc inverted) goes into the first 4 bytes */
  x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)z),
                     _mm_cvtsi32_si128((int)~crc));
  x1 = _mm_loadu_si128((const __m128i*)(z + 16));
  x2 = _mm_loadu_si128((const __m128i*)(z + 32));
  x3 = _mm_loadu_si128((const __m128i*)(z + 48));
  z += 64;
  n -= 64;
  while( n>=64 ){
    x0 = fold(x0, k512, _mm_loadu_si128((const __m128i*)z));
    x1 = fold(x1, k512, _mm_loadu_si128((const __m128i*)(z + 16)));
    x2 = fold(x2, k512, _mm_loadu_si128((const __m128i*)(z + 32)));
    x3 = fold(x3, k512, _mm_loadu_si128((const __m128i*)(z + 48)));
    z += 64;
    n -= 64;
  }
  x0 = fold(x0, k128, x1);
  x0 = fold(x0, k128, x2);
  x0 = fold(x0, k128, x3);
  while( n>=16 ){
    x0 = fold(x0, k128, _mm_loadu_si128((const __m128i*)z));
    z += 16;
    n -= 16;
  }
  _mm_storeu_si128((__m128i*)aLane, x0);
  /* the lane's bytes with the register from 0: crc32() starts from ~0
  ** and inverts at the end, so starting it at 0xffffffff gives that */
  crc = (uint32_t)crc32(0xffffffffUL, aLane, 16);
  return (uint32_t)crc32(crc, z, (uInt)n);
}

/* libgcc's (or compiler-rt's) constructor has read the CPU by now */
static int cpu_folds(void){
  return __builtin_cpu_supports("pclmul");
}

#endif

int crc32_fast_folds(void){
#ifdef CRC_FOLD
  return cpu_folds();
#else
  return 0;
#endif
}

uint32_t crc32_fast(uint32_t crc, const unsigned char *z, size_t n){
#ifdef CRC_FOLD
  if( n>=256 && cpu_folds() ) return crc_fold(crc, z, n);
#endif
  while( n>0 ){                 /* uInt is 32 bits */
    uInt k = n>0x40000000 ? 0x40000000 : (uInt)n;
    crc = (uint32_t)crc32(crc, z, k);
    z += k;
    n -= k;
  }
  return crc;
}
