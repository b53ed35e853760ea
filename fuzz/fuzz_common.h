/*
** fuzz_common.h — small helpers shared by the libFuzzer harnesses in fuzz/.
**
** fuzz_touch() reads every byte of a buffer into a volatile accumulator so
** that ASan sees each byte a callback was handed (an out-of-bounds or
** use-after-free pointer in a record is then reported at once).
*/
#ifndef PROFAN_FUZZ_COMMON_H
#define PROFAN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static volatile uint64_t fuzz_sink_acc;

static inline void fuzz_touch(const void *p, size_t n){
  const unsigned char *z = p;
  uint64_t h = fuzz_sink_acc;
  size_t i;
  if( p==NULL ) return;
  for(i=0; i<n; i++) h = h*31 + z[i];
  fuzz_sink_acc = h;
}

/* A NUL-terminated string: touch it and its terminator. */
static inline void fuzz_touch_str(const char *z){
  if( z ) fuzz_touch(z, strlen(z)+1);
}

static inline void fuzz_touch_i64(int64_t v){ fuzz_sink_acc += (uint64_t)v; }
static inline void fuzz_touch_dbl(double v){
  uint64_t u;
  memcpy(&u, &v, sizeof(u));
  fuzz_sink_acc ^= u;
}

#endif
