/*
** load_nccl.c — STUB until the NCCL log loader lands.
*/
#include "load_kinds.h"

int load_nccl_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                   PfError *pErr){
  (void)db; (void)t; (void)pStats;
  pf_error_set(pErr, ERRPOS_NONE, 0, "NCCL logs are not supported yet");
  return -1;
}
int derive_comm_run(sqlite3 *db, int64_t runId, PfError *pErr){
  (void)db; (void)runId; (void)pErr; return 0;
}
