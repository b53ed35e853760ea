/*
** derive_hta_series.h — stores what the named queries idle-breakdown,
** queue-length and kernel-sequences read (schemas 107, 112, 124): one
** hta_stream row per stream with its idle intervals and their cause and
** its launch-queue change points as JSON arrays, and the queue
** statistics; the counts of its kernel sequences (one JSON array per
** stream in kernel_seq_stream, each distinct sequence once in
** kernel_seq_text); from the sweeps over the GPU ops derive_hta.c has
** loaded (hta_metric.c, kernel_seq.c), one rank at a time.
**
** Pipeline position: "derive", inside derive_hta_run (so ingest, merge
** and rebuild all run it).  The SQL definitions they replace at query
** time are tests/oracle/hta_series.sql.
*/
#ifndef PROFAN_DERIVE_HTA_SERIES_H
#define PROFAN_DERIVE_HTA_SERIES_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "analysis/hta_metric.h"

typedef struct HtaSeriesStore HtaSeriesStore;

/* Delete run runId's rows of the three tables and prepare the inserts.
** Returns a handle hta_series_close frees, or NULL with pErr set. */
HtaSeriesStore *hta_series_open(sqlite3 *db, int64_t runId, PfError *pErr);

/* Store one rank's rows: per stream of *pS (hta_metric_rank filled it
** from a[0..n)) its idle intervals (reordered in *pS: by cause, then gap)
** and queue changes and its hta_stream row; and the kernel sequences of
** a[0..n).  Returns 0, or -1 with pErr set. */
int hta_series_rank(HtaSeriesStore *p, int64_t rank, HtaSeries *pS,
                    const HpGpu *a, int n, PfError *pErr);

/* Finalize the statements and free the handle (accepts NULL). */
void hta_series_close(HtaSeriesStore *p);

#endif
