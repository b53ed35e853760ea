/*
** export_trace.h — `profan export-trace`: write a Chrome/Kineto trace JSON
** (gzip when the file name ends in .gz) of one time range of one run, one
** or several ranks, back out of the database.
**
** Pipeline position: read side.  cmd_export.c resolves the command line to
** an ExportSpec (ranks and a time window per rank, all checked against the
** database); export_trace.c streams the rows of every trace table through
** an ExportSink (export_json.c) and export_derived.c adds profan's own
** tracks (steps, idle gaps, exposed communication).  Memory does not grow
** with the run: rows are streamed, only the distinct (pid, tid) pairs seen
** are kept for the `M` name events written at the end.
*/
#ifndef PROFAN_EXPORT_TRACE_H
#define PROFAN_EXPORT_TRACE_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "core/util.h"

/* ------------------------------------------------------------ output */

/* Where the JSON goes: a temporary file renamed into place by
** export_sink_close() (so a failed export leaves no partial file), gzip
** when the name ends in .gz, or stdout for "-". */
typedef struct ExportSink ExportSink;

/* Open the sink for zPath ("-" = stdout).  Returns NULL with pErr set. */
ExportSink *export_sink_open(const char *zPath, PfError *pErr);
/* Append n bytes. */
void export_sink_write(ExportSink *p, const char *z, size_t n);
/* Append the Buf's content and empty it. */
void export_sink_flush_buf(ExportSink *p, Buf *pBuf);
/* Finish: keep (rename into place) when ok, else remove the temporary
** file.  Frees p.  Returns 0, or -1 with pErr set when writing failed. */
int export_sink_close(ExportSink *p, int ok, PfError *pErr);

/* JSON helpers on a Buf. */
void export_json_str(Buf *p, const char *z, int n);     /* "escaped" */
/* ns as microseconds with three decimals ("12.345"); negative allowed. */
void export_json_us(Buf *p, int64_t ns);
/* 1 when z is one complete JSON value (a captured args list), so that it
** may be copied into the output as it is. */
int export_json_valid(const char *z);

/* ------------------------------------------------------------ export */

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

/* What an export wrote. */
typedef struct ExportStats {
  int64_t nEvents;         /* trace events (not counting M events) */
  int64_t nFlows;          /* ac2g flow pairs */
  int64_t nDerived;        /* profan's derived-track events */
} ExportStats;

/* The part of p for rank (pHint when it is that rank's). */
const ExportRank *export_rank_of(const ExportSpec *p, const ExportRank *pHint,
                                 int64_t rank);

/* Write the whole trace of spec to pSink.  Returns 0, or -1 with pErr
** set (database error). */
int export_trace_write(sqlite3 *db, const ExportSpec *pSpec,
                       ExportSink *pSink, ExportStats *pStats,
                       PfError *pErr);

/* ------------------------------------------------- shared with derived */

/* The process of a row: pids are the trace's own for a one-rank export,
** (rank+1)*1000 + k for several ranks (k: the device for GPU rows, 500 +
** n for the n-th host process, 999 for profan's own tracks). */
typedef struct ExportPids ExportPids;

enum { EXPORT_PID_HOST, EXPORT_PID_GPU, EXPORT_PID_PROFAN };

/* The pid to write for (rank, kind, original pid); remembers (pid, tid)
** for the name events.  zThread: the thread's name when it is not the
** kind's default ("thread N" / "stream N"), else NULL. */
int64_t export_pid(ExportPids *p, int64_t rank, int kind, int64_t pid,
                   int64_t tid, const char *zThread);

/* Derived tracks (export_derived.c): steps, GPU idle gaps, exposed
** communication of every rank of pSpec, appended to pOut as events (each
** preceded by a comma, ts relative to base ns) and flushed to pSink as it
** grows.  Needs temp.export_win (rank, lo, hi) filled by the caller.
** Returns the number of events, or -1 with pErr set. */
int64_t export_derived_write(sqlite3 *db, const ExportSpec *pSpec,
                             int64_t base, ExportPids *pPids,
                             ExportSink *pSink, Buf *pOut, PfError *pErr);

#endif
