/*
** gate_work.h — the work evidence of a step-time check: the GPU work of
** the same steps of two runs, activity by activity.
**
** Pipeline position: read side (comparison and history), used by
** history.c's history_check_metric.
*/
#ifndef PROFAN_GATE_WORK_H
#define PROFAN_GATE_WORK_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* The work evidence of two runs over some steps. */
typedef struct GateWork {
  double *aW;           /* per step: log(run / baseline GPU time of the
                        ** matched activities); free with free() */
  int nW;               /* steps with at least minPairs matches */
  int64_t nPairs;       /* matched activities in those steps */
  double *aP;           /* with wantPairs: per matched pair of those steps
                        ** with both times > 0, log(run / baseline time);
                        ** free with free() */
  int64_t nP;
} GateWork;

/*
** Match the GPU activities launched in steps aStep[0..nStep) (sorted
** ascending; the steps steady in both runs) of baseline idA and run idB:
** kernels by rank, step, name and launch shape (grid, block), memcpys and
** memsets by rank, step, name and bytes, the i-th of each key in the
** baseline with the i-th in the run (start order).  For every step with
** at least minPairs matches, the log of the run's over the baseline's
** total time of its matches.  Only activities with a launch call of the
** step count (runtime_id).  With wantPairs, the log ratio of every
** matched pair of those steps too (aP: the gate's evidence when the
** steps are too few for an interval of their own).  Returns 0 (p
** filled; nW 0 when nothing matches) or -1 with pErr set.
*/
int gate_work_load(sqlite3 *db, int64_t idA, int64_t idB,
                   const int64_t *aStep, int nStep, int minPairs,
                   int wantPairs, GateWork *p, PfError *pErr);

#endif
