/*
** load_fr.c — STUB until the flight-recorder loader lands.
*/
#include "load_kinds.h"

int fr_is_dump(const PkValue *pRoot){ (void)pRoot; return 0; }
int load_fr_dump(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                 LoadStats *pStats, PfError *pErr){
  (void)db; (void)t; (void)pRoot; (void)pStats;
  pf_error_set(pErr, ERRPOS_NONE, 0, "flight-recorder dumps are not supported yet");
  return -1;
}
