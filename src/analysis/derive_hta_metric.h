/*
** derive_hta_metric.h — SQL side of the HTA headline numbers: the coarse
** kernel class of each kernel name of a run (read once per ingest from
** view kernel_category, scheme coarse: communication by comm_pattern)
** and the rows of hta_run_metric.  Internal to derive_hta.c.
**
** Pipeline position: "derive".
*/
#ifndef PROFAN_DERIVE_HTA_METRIC_H
#define PROFAN_DERIVE_HTA_METRIC_H

#include <sqlite3.h>
#include <stdint.h>
#include "analysis/hta_metric.h"
#include "core/util.h"

/* Kernel name id -> HK_* class, sorted by name id. */
typedef struct HtaKlass {
  int64_t *aName;
  int *aK;
  int n;
} HtaKlass;

/* Load the classes of run runId's kernel names.  Returns 0 or -1 (pErr). */
int hta_klass_load(sqlite3 *db, int64_t runId, HtaKlass *p, PfError *pErr);
int hta_klass_of(const HtaKlass *p, int64_t name);   /* HK_COMPUTE if unknown */
void hta_klass_free(HtaKlass *p);

/* Critical-path time per class over the run: HP_* plus one slot for
** communication kernels. */
#define HTA_CP_COMM HP_NCLASS
#define HTA_CP_N (HP_NCLASS+1)

/* Replace run runId's hta_run_metric rows with the totals, the critical
** path shares aCp[HTA_CP_N] (ns) and the memcpy bandwidth.  Returns 0 or
** -1 (pErr). */
int hta_metric_store(sqlite3 *db, int64_t runId, const HtaTotals *pT,
                     const int64_t *aCp, PfError *pErr);

#endif
