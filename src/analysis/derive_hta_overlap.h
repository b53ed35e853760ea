/*
** derive_hta_overlap.h — stores each device's overlap slices (schema 100,
** table hta_overlap_sum): the exclusive GPU time of each combination of
** compute, communication and memory work, as hta_metric.c's temporal
** sweep found them, one rank at a time.  The named queries
** overlap-slices and temporal-breakdown and the views hta_overlap_slice
** and hta_temporal read these rows instead of the window view
** hta_overlap_piece over every GPU op.
**
** Pipeline position: "derive", inside derive_hta_run (so ingest, merge
** and rebuild all run it).  The SQL definitions the rows replace at
** query time are tests/oracle/overlap.sql.
*/
#ifndef PROFAN_DERIVE_HTA_OVERLAP_H
#define PROFAN_DERIVE_HTA_OVERLAP_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "analysis/hta_metric.h"

typedef struct HtaOverlapStore HtaOverlapStore;

/* Delete run runId's rows and prepare the insert.  Returns a handle
** hta_overlap_close frees, or NULL with pErr set. */
HtaOverlapStore *hta_overlap_open(sqlite3 *db, int64_t runId,
                                  PfError *pErr);

/* Store one rank's slices (pS->aSlice, filled by hta_metric_rank).
** Returns 0, or -1 with pErr set. */
int hta_overlap_rank(HtaOverlapStore *p, int64_t rank, const HtaSeries *pS,
                     PfError *pErr);

/* Finalize the statement and free the handle (accepts NULL). */
void hta_overlap_close(HtaOverlapStore *p);

#endif
