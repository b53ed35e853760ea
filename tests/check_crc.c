/*
** check_crc.c — unit tests for crc32_fast.c: the CRC-32 of gzip, folded
** with carry-less multiplies where the CPU has them, equals zlib's crc32.
*/
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "input/crc32_fast.h"

/* Random buffers of every length up to 2100 and some large ones, at every
** alignment of 0..15, from a random CRC so far: zlib's value each time,
** and chained in random pieces too. */
START_TEST(test_crc_equals_zlib){
  enum { N = 1<<20 };
  unsigned char *a = malloc(N + 64);
  uint64_t r = 0x2545f4914f6cdd1dULL;
  size_t aLen[] = { 4096, 65536, 65537, 262144+13, N };
  int nMismatch = 0;
  ck_assert_ptr_nonnull(a);
  for(size_t i=0; i<N+64; i++){
    r ^= r<<13; r ^= r>>7; r ^= r<<17;
    a[i] = (unsigned char)r;
  }
  fprintf(stderr, "check_crc: crc32_fast %s\n",
          crc32_fast_folds() ? "folds with PCLMULQDQ" : "is zlib's crc32");
  for(size_t n=0; n<=2100; n++){
    size_t off = n % 16;
    uint32_t c0 = (uint32_t)(r ^ n);
    if( crc32_fast(c0, a+off, n)!=(uint32_t)crc32(c0, a+off, (uInt)n) ){
      nMismatch++;
    }
  }
  for(size_t k=0; k<sizeof(aLen)/sizeof(aLen[0]); k++){
    for(size_t off=0; off<16; off+=5){
      uint32_t want = (uint32_t)crc32(0, a+off, (uInt)aLen[k]);
      uint32_t c = 0;
      size_t done = 0;
      ck_assert_uint_eq(crc32_fast(0, a+off, aLen[k]), want);
      while( done<aLen[k] ){               /* the same bytes in pieces */
        size_t m;
        r ^= r<<13; r ^= r>>7; r ^= r<<17;
        m = (size_t)(r % 5000);
        if( m>aLen[k]-done ) m = aLen[k]-done;
        c = crc32_fast(c, a+off+done, m);
        done += m;
      }
      ck_assert_uint_eq(c, want);
    }
  }
  ck_assert_int_eq(nMismatch, 0);
  /* the check value of the CRC-32 catalogue */
  ck_assert_uint_eq(crc32_fast(0, (const unsigned char*)"123456789", 9),
                    0xcbf43926u);
  free(a);
}
END_TEST

Suite *make_crc_suite(void){
  Suite *s = suite_create("crc");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_crc_equals_zlib);
  suite_add_tcase(s, tc);
  return s;
}
