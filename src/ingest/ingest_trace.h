/*
** ingest_trace.h — the trace half of an ingest: parse the trace files in
** worker threads and load their rows through the single writer (the
** calling thread).  Used only by ingest.c.
**
** Pipeline position: "parse" (workers) and "load" (writer) for traces,
** inside the ingest's transaction; the derive passes run after it.
*/
#ifndef PROFAN_INGEST_TRACE_H
#define PROFAN_INGEST_TRACE_H

#include <sqlite3.h>
#include <stdint.h>
#include "ingest/ingest_opts.h"
#include "trace/link_trace.h"
#include "trace/parse_trace.h"
#include "trace/trace_spans.h"
#include "trace/trace_totals.h"
#include "core/util.h"

/* One trace file to parse.  The caller fills the fields up to iHash and
** zeroes the rest; ingest_trace_run fills the others. */
typedef struct TraceJob {
  const char *zPath;
  int64_t fileId;               /* its run_file row */
  int64_t idBase, idLast;       /* its op and runtime-call ids: idBase + n,
                                ** at most idLast (trace_ids.h) */
  int64_t rankGuess;            /* from --rank or the file name, -1 if
                                ** none */
  int rankFromOption;           /* rankGuess is --rank */
  int hashInStream;             /* plain file hashed while parsed */
  int iHash;                    /* its FileHash entry (run_record.h) */
  /* filled by the parse and the writer */
  TraceInfo info;
  PfError err;
  int rc;                       /* 0, -1 failed, -2 not attempted */
  double ms;
  int64_t nNoBase;              /* events emitted before the base time */
  int64_t bytesRead;
  LinkStats link;               /* what the in-stream linker could not do */
  int started;                  /* the writer has seen a batch of it */
  uint64_t hash;                /* the hash, when hashInStream */
  int64_t rankInserted;         /* rank the file's rows were written with */
  int empty;                    /* no event to store: skipped, its run_file
                                ** row removed */
  int relink;                   /* link it again from its rows (ingest.c) */
} TraceJob;

/*
** Parse every job aJob[0..nJob) with worker threads and load the rows of
** run runId, each also to the totals pTot and the spans pSpans
** (trace_keep.h).  Counts go to pRes.  A file without an event to store
** is skipped (TraceJob.empty, noted on pOpt->pLog); a run of several
** traces with events in which one has no rank is refused.  Returns 0, or
** -1 with the message in pMsg.
*/
int ingest_trace_run(sqlite3 *db, int64_t runId, TraceJob *aJob, int nJob,
                     TraceTotals *pTot, TraceSpans *pSpans,
                     const IngestOpts *pOpt, IngestResult *pRes, Buf *pMsg);

/* Why trace job j was skipped: it holds no event to store (also the one
** error of an ingest of nothing else), appended to pMsg without the
** file's name. */
void ingest_trace_empty_message(const TraceJob *j, Buf *pMsg);

#endif
