/*
** spool.c — the linker's append-only byte stores: memory within a
** budget, a temporary file beyond it (spool.h).
**
** Pipeline position: under link_trace.c, in the parser threads.
*/
#include "core/spool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPOOL_WINDOW (1<<20)      /* bytes read from the file at once */
#define SPOOL_FILE_BUF (256<<10)  /* stdio buffer of a spool's file */

void spool_budget_init(SpoolBudget *b, int64_t dflt){
  const char *z = getenv("PROFAN_SPOOL_KB");
  b->used = 0;
  b->max = (z && *z) ? (int64_t)atoll(z)*1024 : dflt;
}

void spool_init(Spool *s, SpoolBudget *b){
  memset(s, 0, sizeof(*s));
  s->pBudget = b;
}

/* Give s's memory back to the budget. */
static void release_memory(Spool *s){
  s->pBudget->used -= (int64_t)s->mem.cap;
  buf_free(&s->mem);
}

/* Move the bytes held in memory to a new temporary file.  0 or -1. */
static int spill(Spool *s){
  s->f = tmpfile();
  if( s->f==NULL ) return -1;
  setvbuf(s->f, NULL, _IOFBF, SPOOL_FILE_BUF);
  if( s->n>0 && fwrite(s->mem.z, (size_t)s->n, 1, s->f)!=1 ) return -1;
  s->dirty = 1;
  release_memory(s);
  return 0;
}

/* Room for n more bytes: the memory grows within the budget, or the
** spool moves to a temporary file.  0 or -1. */
static int make_room(Spool *s, size_t n){
  if( s->f==NULL && s->mem.n + n + 1 > s->mem.cap ){
    int64_t cap = (int64_t)s->mem.cap;
    int64_t need = (int64_t)buf_reserved_cap(&s->mem, n);
    if( s->pBudget->used - cap + need <= s->pBudget->max ){
      buf_reserve(&s->mem, n);
      s->pBudget->used += (int64_t)s->mem.cap - cap;
    }else if( spill(s) ){
      return -1;
    }
  }
  return 0;
}

int spool_append(Spool *s, const void *z, size_t n){
  if( n==0 ) return 0;
  if( make_room(s, n) ) return -1;
  if( s->f ){
    if( fwrite(z, n, 1, s->f)!=1 ) return -1;
    s->dirty = 1;
  }else{
    buf_append(&s->mem, z, n);
  }
  s->n += (int64_t)n;
  return 0;
}

char *spool_reserve(Spool *s, size_t n){
  if( make_room(s, n) ) return NULL;
  if( s->f ){
    buf_reset(&s->stage);
    buf_reserve(&s->stage, n);
    return s->stage.z;
  }
  return s->mem.z + s->mem.n;
}

int spool_commit(Spool *s, size_t n){
  if( s->f ){
    if( n>0 && fwrite(s->stage.z, n, 1, s->f)!=1 ) return -1;
    s->dirty = 1;
  }else{
    s->mem.n += n;
    s->mem.z[s->mem.n] = 0;
  }
  s->n += (int64_t)n;
  return 0;
}

const char *spool_get(Spool *s, int64_t off, size_t n){
  int64_t offWant = off, len;
  if( s->f==NULL ) return s->mem.z + off;
  if( off>=s->winOff && off+(int64_t)n<=s->winOff+s->winLen ){
    return s->win.z + (off - s->winOff);
  }
  if( s->dirty ){
    if( fflush(s->f) ) return NULL;
    s->dirty = 0;
  }
  /* a window of at least SPOOL_WINDOW bytes from off, or ending at off+n
  ** when the reads go backwards (deferred ops come back in start order,
  ** written in end order) */
  len = (int64_t)n>SPOOL_WINDOW ? (int64_t)n : SPOOL_WINDOW;
  if( s->winLen>0 && off<s->winOff ){
    int64_t start = (off + (int64_t)n - len) & ~(int64_t)7;  /* aligned */
    if( start<0 ) start = 0;
    len = off - start + (int64_t)n;
    if( len<SPOOL_WINDOW ) len = SPOOL_WINDOW;
    off = start;
  }
  if( len>s->n-off ) len = s->n-off;
  buf_reserve(&s->win, (size_t)len);
  s->winLen = 0;
  if( pread(fileno(s->f), s->win.z, (size_t)len, (off_t)off)!=len ){
    return NULL;
  }
  s->winOff = off;
  s->winLen = len;
  return s->win.z + (offWant - off);
}

void spool_reset(Spool *s){
  if( s->f ){
    fclose(s->f);
    s->f = NULL;
  }
  s->dirty = 0;
  s->n = 0;
  buf_reset(&s->mem);
  s->winOff = s->winLen = 0;
}

void spool_free(Spool *s){
  spool_reset(s);
  release_memory(s);
  buf_free(&s->win);
  buf_free(&s->stage);
}
