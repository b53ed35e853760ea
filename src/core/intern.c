/*
** intern.c — string interning with an open-addressing hash table in front
** of the `string` table.
**
** Pipeline position: "load".  The table caches text -> id; a miss looks the
** text up in the database and inserts it when absent, so several runs share
** one copy of each kernel name.
*/
#include "core/intern.h"

#include <stdlib.h>
#include <string.h>

typedef struct Slot {
  uint64_t h;        /* hash, 0 = empty */
  int64_t id;
  char *z;           /* owned copy */
  size_t n;
} Slot;

struct Intern {
  sqlite3 *db;
  sqlite3_stmt *pFind;
  sqlite3_stmt *pAdd;
  Slot *a;
  size_t nSlot;      /* power of two */
  size_t nUsed;
};

/* Hash of a name for the in-memory table (never stored): eight bytes per
** multiply-xorshift round.  Names are short and hashed once per row, so
** this replaced the streaming hash64 (its setup and final mix were 2 % of
** the ingest's CPU on the bench trace). */
static uint64_t hash_text(const char *z, size_t n){
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  uint64_t w;
  while( n>=8 ){
    memcpy(&w, z, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h>>29;
    z += 8;
    n -= 8;
  }
  if( n>0 ){
    w = 0;
    memcpy(&w, z, n);
    h = (h ^ w) * 0x94d049bb133111ebULL;
    h ^= h>>32;
  }
  h ^= h>>31;
  h *= 0xd6e8feb86659fd93ULL;
  h ^= h>>32;
  return h ? h : 1;
}

Intern *intern_new(sqlite3 *db){
  Intern *p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->nSlot = 4096;
  p->a = xcalloc(p->nSlot, sizeof(Slot));
  return p;
}

void intern_clear(Intern *p){
  for(size_t i=0; i<p->nSlot; i++) free(p->a[i].z);
  memset(p->a, 0, p->nSlot*sizeof(Slot));
  p->nUsed = 0;
}

void intern_free(Intern *p){
  if( p==NULL ) return;
  intern_clear(p);
  free(p->a);
  sqlite3_finalize(p->pFind);
  sqlite3_finalize(p->pAdd);
  free(p);
}

static void grow(Intern *p){
  size_t nNew = p->nSlot*2;
  Slot *a = xcalloc(nNew, sizeof(Slot));
  for(size_t i=0; i<p->nSlot; i++){
    Slot *s = &p->a[i];
    if( s->h ){
      size_t j = s->h & (nNew-1);
      while( a[j].h ) j = (j+1) & (nNew-1);
      a[j] = *s;
    }
  }
  free(p->a);
  p->a = a;
  p->nSlot = nNew;
}

/* Find or insert z in the database; returns its id or -1. */
static int64_t db_lookup(Intern *p, const char *z, size_t n, PfError *pErr){
  int64_t id = -1;
  int rc;
  if( p->pFind==NULL || p->pAdd==NULL ){
    if( (p->pFind==NULL && sqlite3_prepare_v2(p->db,
           "SELECT id FROM string WHERE text=?1", -1, &p->pFind, NULL))
        || sqlite3_prepare_v2(p->db, "INSERT INTO string(text) VALUES(?1)", -1,
                              &p->pAdd, NULL) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(p->db));
      return -1;
    }
  }
  sqlite3_bind_text(p->pFind, 1, z, (int)n, SQLITE_STATIC);
  rc = sqlite3_step(p->pFind);
  if( rc==SQLITE_ROW ) id = sqlite3_column_int64(p->pFind, 0);
  sqlite3_reset(p->pFind);
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    /* out of memory or an I/O error is not "absent" */
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(p->db));
    return -1;
  }
  if( id>=0 ) return id;
  sqlite3_bind_text(p->pAdd, 1, z, (int)n, SQLITE_STATIC);
  if( sqlite3_step(p->pAdd)!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(p->db));
    sqlite3_reset(p->pAdd);
    return -1;
  }
  sqlite3_reset(p->pAdd);
  return sqlite3_last_insert_rowid(p->db);
}

int64_t intern_id(Intern *p, const char *z, size_t n, PfError *pErr){
  uint64_t h = hash_text(z, n);
  size_t i = h & (p->nSlot-1);
  int64_t id;
  while( p->a[i].h ){
    Slot *s = &p->a[i];
    if( s->h==h && s->n==n && memcmp(s->z, z, n)==0 ) return s->id;
    i = (i+1) & (p->nSlot-1);
  }
  id = db_lookup(p, z, n, pErr);
  if( id<0 ) return -1;
  p->a[i].h = h;
  p->a[i].id = id;
  p->a[i].z = xstrndup(z, n);
  p->a[i].n = n;
  if( ++p->nUsed*2 > p->nSlot ) grow(p);
  return id;
}
