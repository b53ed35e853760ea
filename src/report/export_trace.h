/*
** export_trace.h — `profan export-trace`: write a Chrome/Kineto trace JSON
** (gzip when the file name ends in .gz) of one time range of one run, one
** or several ranks, back out of the database.
**
** Pipeline position: read side.  cmd_export.c resolves the command line to
** an ExportSpec (ranks and a time window per rank, all checked against the
** database); export_trace.c streams the rows of every trace table through
** an ExportSink (export_json.c), export_derived.c adds profan's own
** tracks (steps, idle gaps, exposed communication).  Memory does not grow
** with the run: rows are streamed, only the distinct (pid, tid) pairs seen
** are kept for the `M` name events written at the end.
*/
#ifndef PROFAN_EXPORT_TRACE_H
#define PROFAN_EXPORT_TRACE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "report/export_json.h"
#include "report/export_spec.h"

/* What an export wrote. */
typedef struct ExportStats {
  int64_t nEvents;         /* trace events (not counting M events) */
  int64_t nFlows;          /* ac2g flow pairs */
  int64_t nDerived;        /* profan's derived-track events */
} ExportStats;

/* Write the whole trace of spec to pSink.  Returns 0, or -1 with pErr
** set (database error). */
int export_trace_write(sqlite3 *db, const ExportSpec *pSpec,
                       ExportSink *pSink, ExportStats *pStats,
                       PfError *pErr);

#endif
