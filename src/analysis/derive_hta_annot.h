/*
** derive_hta_annot.h — stores the nesting of a run's CPU user annotations
** (hta_annotation_parent) and the innermost annotation around each GPU
** op's launch call (hta_launch_annotation), schema 030, from the GPU ops
** derive_hta.c has loaded and the run's annotation rows.
**
** Pipeline position: "derive", inside derive_hta_run.
*/
#ifndef PROFAN_DERIVE_HTA_ANNOT_H
#define PROFAN_DERIVE_HTA_ANNOT_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "analysis/hta_path.h"

/* Replace run runId's rows of both tables.  aGpu: every GPU op of the run
** (kernel and gpu_mem_op rows) with its launch call (hasLaunch, lts,
** ltid, rt), as derive_hta.c loads them.  Returns 0, or -1 with pErr
** set. */
int derive_hta_annot_run(sqlite3 *db, int64_t runId, const HpGpu *aGpu,
                         int nGpu, PfError *pErr);

#endif
