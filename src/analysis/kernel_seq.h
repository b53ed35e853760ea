/*
** kernel_seq.h — the sequences of consecutive kernels of one rank's
** streams (the named query kernel-sequences): every start position of
** every length 1 to KS_MAX_LEN, counted per (stream, length, names), the
** devices of a stream together.  Kernels only: memcpy and memset ops
** neither join nor break a sequence.  The definition in SQL (window
** lead() over the kernel rows) is tests/oracle/hta_series.sql.
**
** Pipeline position: "derive" (called by derive_hta_series.c with the
** GPU ops derive_hta.c loaded).  No SQL here.
*/
#ifndef PROFAN_KERNEL_SEQ_H
#define PROFAN_KERNEL_SEQ_H

#include <stdint.h>
#include "analysis/hta_path.h"

#define KS_MAX_LEN 8

/* One distinct sequence: its kernels' names are aName[0..len), the sum
** of their durations over every occurrence ns, the sum of the spans
** (first start to last end) spanNs. */
typedef struct KsSeq {
  int64_t stream;
  int len;
  int64_t aName[KS_MAX_LEN];
  int64_t n, ns, spanNs;
} KsSeq;

/* The sequences of one rank's GPU ops a[0..n), sorted as hta_path_sort
** leaves them (device, stream, start, id).  Returns a heap array the
** caller frees with free(), its length in *pn (no particular order). */
KsSeq *kernel_seq_rank(const HpGpu *a, int n, int *pn);

#endif
