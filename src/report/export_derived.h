/*
** export_derived.h — profan's own tracks in `profan export-trace`: steps,
** GPU idle gaps and exposed communication of every rank exported.
**
** Pipeline position: read side; called by export_trace.c after the rows.
*/
#ifndef PROFAN_EXPORT_DERIVED_H
#define PROFAN_EXPORT_DERIVED_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "report/export_json.h"
#include "report/export_pids.h"
#include "report/export_spec.h"

/* Derived tracks (export_derived.c): steps, GPU idle gaps, exposed
** communication of every rank of pSpec, appended to pOut as events (each
** preceded by a comma, ts relative to base ns) and flushed to pSink as it
** grows.  Needs temp.export_win (rank, lo, hi) filled by the caller.
** Returns the number of events, or -1 with pErr set. */
int64_t export_derived_write(sqlite3 *db, const ExportSpec *pSpec,
                             int64_t base, ExportPids *pPids,
                             ExportSink *pSink, Buf *pOut, PfError *pErr);

#endif
