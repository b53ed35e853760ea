/*
** spool.h — an append-only store of bytes for the in-stream linker's
** temporary records (op intervals, deferred ops, deferred calls, held
** rows): in memory while the linker's spools together stay within a
** budget, in a temporary file from the append that would exceed it.
**
** Pipeline position: under link_trace.c, in the parser threads.  One
** SpoolBudget per linker (one file at a time per parser thread), so the
** memory it adds is bounded per parser thread.  The temporary files had
** cost the 2021 traces most of their parser thread (ext4 writes and
** reads of records read back soon after: bench/README.md).
*/
#ifndef PROFAN_SPOOL_H
#define PROFAN_SPOOL_H

#include "core/util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of memory the spools sharing it may hold together. */
typedef struct SpoolBudget {
  int64_t used, max;
} SpoolBudget;

typedef struct Spool {
  SpoolBudget *pBudget;
  Buf mem;                /* the bytes, while in memory (mem.cap counted
                          ** in the budget) */
  int64_t n;              /* bytes appended since the last reset */
  FILE *f;                /* once spilled: every byte is in f */
  int dirty;              /* f has writes not flushed yet */
  Buf win;                /* file mode: the window read last */
  Buf stage;              /* file mode: bytes of spool_reserve() */
  int64_t winOff, winLen;
} Spool;

/* The budget for spools: PROFAN_SPOOL_KB KiB when set (0: every spool is
** a temporary file from its first byte, for the tests), else dflt. */
void spool_budget_init(SpoolBudget *b, int64_t dflt);

/* An empty spool charging its memory to b. */
void spool_init(Spool *s, SpoolBudget *b);

/* Append n bytes.  Returns 0, or -1 when the temporary file could not be
** created or written (the spool is then unusable until reset). */
int spool_append(Spool *s, const void *z, size_t n);

/* Append n bytes written in place: spool_reserve() gives room for them
** (NULL when the temporary file could not be created), the caller writes
** all n, spool_commit() adds them (0, or -1 when the file could not be
** written).  No other call on the spool in between. */
char *spool_reserve(Spool *s, size_t n);
int spool_commit(Spool *s, size_t n);

/* Bytes [off, off+n) of the spool (off+n <= s->n): a pointer into the
** spool's memory or into its read window, valid until the next call on
** the spool.  NULL when the temporary file cannot be read. */
const char *spool_get(Spool *s, int64_t off, size_t n);

/* Empty the spool: its file is closed, its memory kept for reuse. */
void spool_reset(Spool *s);

/* Free what s holds (not s itself). */
void spool_free(Spool *s);

#endif
