/*
** msort.h — DEFINE_MSORT(NAME, T, CMP): a typed merge sort for the arrays
** of the derive passes (hta_path.c, hta_metric.c, hta_annot.c,
** derive_hta_annot.c).
**
** Pipeline position: helper of "derive"; no state.
*/
#ifndef PROFAN_MSORT_H
#define PROFAN_MSORT_H

#include <stdlib.h>
#include <string.h>
#include "core/util.h"

/*
** A stable bottom-up merge sort of n elements of type T by the comparison
** CMP (a qsort-style compare, inlined), moving whole structs: qsort calls
** the compare through a pointer and copies each element with memcpy (a
** third of the HTA pass's instructions at 1x).  Runs of 16 by insertion
** sort first.  Needs util.h (xmalloc) and string.h (memcpy).
*/
#define DEFINE_MSORT(NAME, T, CMP)                                        \
static void NAME(T *a, size_t n){                                         \
  T *tmp, *src = a, *dst;                                                 \
  if( n<2 ) return;                                                       \
  for(size_t lo=0; lo<n; lo+=16){                                         \
    size_t hi = lo+16<n ? lo+16 : n;                                      \
    for(size_t i=lo+1; i<hi; i++){                                        \
      T x = a[i];                                                         \
      size_t j = i;                                                       \
      while( j>lo && CMP(&a[j-1], &x)>0 ){ a[j] = a[j-1]; j--; }          \
      a[j] = x;                                                           \
    }                                                                     \
  }                                                                       \
  if( n<=16 ) return;                                                     \
  tmp = xmalloc(n*sizeof(T));                                             \
  dst = tmp;                                                              \
  for(size_t w=16; w<n; w*=2){                                            \
    for(size_t lo=0; lo<n; lo+=2*w){                                      \
      size_t mid = lo+w<n ? lo+w : n, hi = lo+2*w<n ? lo+2*w : n;         \
      size_t i = lo, j = mid, k = lo;                                     \
      while( i<mid && j<hi ){                                             \
        dst[k++] = CMP(&src[j], &src[i])<0 ? src[j++] : src[i++];         \
      }                                                                   \
      while( i<mid ) dst[k++] = src[i++];                                 \
      while( j<hi ) dst[k++] = src[j++];                                  \
    }                                                                     \
    { T *t = src; src = dst; dst = t; }                                   \
  }                                                                       \
  if( src!=a ) memcpy(a, src, n*sizeof(T));                               \
  free(tmp);                                                              \
}

#endif
