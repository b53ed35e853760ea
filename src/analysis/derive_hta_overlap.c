/*
** derive_hta_overlap.c — inserts one rank at a time the overlap slices
** of schema 100 (see derive_hta_overlap.h) as hta_metric.c's temporal
** sweep summed them.  Nothing is computed here.
**
** Pipeline position: "derive", called by derive_hta.c for each rank.
*/
#include "analysis/derive_hta_overlap.h"
#include "core/db.h"

#include <stdlib.h>

struct HtaOverlapStore {
  int64_t runId;
  sqlite3 *db;
  sqlite3_stmt *pIns;
};

HtaOverlapStore *hta_overlap_open(sqlite3 *db, int64_t runId,
                                  PfError *pErr){
  HtaOverlapStore *p;
  if( db_exec_run(db, db_statement("hta-overlap-clear"), runId, pErr) ){
    return NULL;
  }
  p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->runId = runId;
  p->pIns = db_prepare(db, db_statement("hta-overlap-insert"), pErr);
  if( p->pIns==NULL ){
    hta_overlap_close(p);
    return NULL;
  }
  return p;
}

void hta_overlap_close(HtaOverlapStore *p){
  if( p==NULL ) return;
  sqlite3_finalize(p->pIns);
  free(p);
}

int hta_overlap_rank(HtaOverlapStore *p, int64_t rank, const HtaSeries *pS,
                     PfError *pErr){
  sqlite3_stmt *s = p->pIns;
  for(int i=0; i<pS->nSlice; i++){
    const HtaSliceRow *r = &pS->aSlice[i];
    sqlite3_bind_int64(s, 1, p->runId);
    sqlite3_bind_int64(s, 2, rank);
    sqlite3_bind_int64(s, 3, r->device);
    sqlite3_bind_int(s, 4, r->mask & 1);
    sqlite3_bind_int(s, 5, (r->mask>>1) & 1);
    sqlite3_bind_int(s, 6, (r->mask>>2) & 1);
    sqlite3_bind_int64(s, 7, r->ns);
    sqlite3_bind_int(s, 8, r->pieces);
    if( db_step_done(p->db, s, pErr) ) return -1;
  }
  return 0;
}
