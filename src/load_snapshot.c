/*
** load_snapshot.c — STUB until the memory-snapshot loader lands.
*/
#include "load_kinds.h"

int snapshot_is_snapshot(const PkValue *pRoot){ (void)pRoot; return 0; }
int load_snapshot(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                  LoadStats *pStats, PfError *pErr){
  (void)db; (void)t; (void)pRoot; (void)pStats;
  pf_error_set(pErr, ERRPOS_NONE, 0, "memory snapshots are not supported yet");
  return -1;
}
int derive_memory_run(sqlite3 *db, int64_t runId, PfError *pErr){
  (void)db; (void)runId; (void)pErr; return 0;
}
