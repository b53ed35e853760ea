/*
** export_spec.h — what one `profan export-trace` writes: the run, and for
** each rank asked a time window (cmd_export.c resolves the command line
** to it, every part checked against the database).
**
** Pipeline position: read side; the type export_trace.c and
** export_derived.c share (no functions of its own but one inline).
*/
#ifndef PROFAN_EXPORT_SPEC_H
#define PROFAN_EXPORT_SPEC_H

#include <stdint.h>

/* One rank's part of an export: rows of rank overlapping [lo, hi) ns. */
typedef struct ExportRank {
  int64_t rank;
  int64_t lo, hi;
} ExportRank;

typedef struct ExportSpec {
  int64_t runId;
  ExportRank *aRank;       /* owned by the caller */
  int nRank;
  int merged;              /* several ranks: pids are remapped per rank */
  const char *zWhat;       /* what was asked, for the trace's metadata */
} ExportSpec;

/* The part of p for rank (pHint when it is that rank's). */
static inline const ExportRank *export_spec_rank(const ExportSpec *p,
                                                 const ExportRank *pHint,
                                                 int64_t rank){
  if( pHint && pHint->rank==rank ) return pHint;
  for(int r=0; r<p->nRank; r++){
    if( p->aRank[r].rank==rank ) return &p->aRank[r];
  }
  return &p->aRank[0];     /* not reached: the join keeps the ranks asked */
}

#endif
