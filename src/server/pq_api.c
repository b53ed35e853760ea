/*
** pq_api.c — libpq loaded with dlopen() on first use (see pq_api.h).
**
** Pipeline position: the server layer, under pg_conn.c.
*/
#define PQ_API_IMPL
#include "server/pq_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

PqApi pq_api;

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static char zLoadErr[300];      /* empty: loaded */

static void load_once(void){
  void *h = dlopen("libpq.so.5", RTLD_NOW|RTLD_LOCAL);
  const char *zMissing = NULL;
  if( h==NULL ){
    const char *z = dlerror();
    snprintf(zLoadErr, sizeof(zLoadErr), "%s", z ? z : "libpq.so.5");
    return;
  }
#define PQ_API_LOAD(f) \
  if( zMissing==NULL \
      && (pq_api.x##f = (__typeof__(f) *)dlsym(h, #f))==NULL ){ \
    zMissing = #f; \
  }
  PQ_API_LIST(PQ_API_LOAD)
#undef PQ_API_LOAD
  if( zMissing ){
    snprintf(zLoadErr, sizeof(zLoadErr), "libpq.so.5 has no %s (libpq"
             " 14 or later is needed)", zMissing);
  }
}

int pq_api_load(PfError *pErr){
  pthread_once(&loadOnce, load_once);
  if( zLoadErr[0] ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "history server: cannot load libpq:"
                 " %s", zLoadErr);
    pf_error_kind(pErr, PF_KIND_DB);
    return -1;
  }
  return 0;
}
