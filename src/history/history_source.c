/*
** history_source.c — the source of a history's runs attached to a
** database (see history_source.h).
**
** Pipeline position: read side (history/).  One slot: a command works on
** one history at a time.
*/
#include "history/history_source.h"

static sqlite3 *gDb;
static HistSource *gSrc;

void history_source_attach(sqlite3 *db, HistSource *p){
  gDb = p ? db : NULL;
  gSrc = p;
}

int history_source_page(sqlite3 *db, int64_t idMax, int nWant, int64_t *pLo,
                        PfError *pErr){
  *pLo = 0;
  if( gSrc==NULL || db!=gDb ) return 0;
  return gSrc->xPage(gSrc, idMax, nWant, pLo, pErr);
}

int history_source_run(sqlite3 *db, int64_t id, PfError *pErr){
  if( gSrc==NULL || db!=gDb ) return 0;
  return gSrc->xRun(gSrc, id, pErr);
}
