/*
** derive_memory.c — per-run derived columns of the memory-snapshot tables
** and their indexes.
**
** Pipeline position: "derive" + "index", run once by ingest.c at the end
** of an ingest, inside its transaction, after every snapshot of the run is
** loaded (load_snapshot.c).  Steps:
**   1. frame.is_user: a Python frame (file name ends in ".py") whose file
**      name contains no memory_frame_skip pattern;
**   2. stack.user_frame_id: the innermost user frame of the stack;
**   3. stack.category: the memory_source_rule with the lowest priority
**      whose pattern occurs (case-insensitively) in the file or function
**      name of any frame of the stack, else 'other' (each frame's best
**      rule is found once, in frame.rule_priority);
**   4. indexes (schema/024-bulk-indexes.sql, grp 'memory'), created here
**      so the bulk load ran without them.
** The classification rules are data (006-memory.sql), so these are plain
** SQL statements over the few thousand distinct frames and stacks of a run;
** the per-event work was done by the replay sweep at load time.
*/
#include "input/load_kinds.h"
#include "trace/derive_trace.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>

int derive_memory_run(sqlite3 *db, int64_t runId, PfError *pErr){
  const char *const azStep[] = {
    db_statement("derive-memory-update-frame"),

    db_statement("derive-memory-update-stack"),
  };
  if( db_int(db, 0, "SELECT count(*) FROM snapshot WHERE run_id=%lld",
             (long long)runId)==0 ){
    return 0;
  }
  for(size_t i=0; i<sizeof(azStep)/sizeof(azStep[0]); i++){
    double t0 = util_now_ms();
    if( db_exec_run(db, azStep[i], runId, pErr) ) return -1;
    if( getenv("PROFAN_TIMING") ){
      fprintf(stderr, "profan: derive memory %zu %8.1f ms\n", i+1,
              util_now_ms()-t0);
    }
  }
  /* the indexes of schema/024-bulk-indexes.sql, grp 'memory' */
  return derive_bulk_indexes(db, "memory", pErr);
}
