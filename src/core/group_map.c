/*
** group_map.c — totals per group (GroupMap) and text codes (TextCodes);
** see group_map.h.
**
** Pipeline position: a helper of load_trace.c and derive_summary.c, the
** two places that total the 009 summary tables.
*/
#include "core/group_map.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void group_map_init(GroupMap *p, size_t szVal){
  memset(p, 0, sizeof(*p));
  p->szVal = szVal;
}

void group_map_free(GroupMap *p){
  free(p->aKey);
  free(p->aVal);
  free(p->aSlot);
}

static unsigned key_hash(const GroupKey *k){
  uint64_t h = (uint64_t)k->a*0x9e3779b97f4a7c15ULL
             ^ (uint64_t)k->b*0xc2b2ae3d27d4eb4fULL
             ^ (uint64_t)k->c*0x165667b19e3779f9ULL
             ^ (uint64_t)k->d*0x27d4eb2f165667c5ULL;
  return (unsigned)(h ^ (h>>29) ^ (h>>47));
}

static int key_eq(const GroupKey *x, const GroupKey *y){
  return x->a==y->a && x->b==y->b && x->c==y->c && x->d==y->d;
}

/* Twice as many hash slots, every group placed again. */
static void group_rehash(GroupMap *p){
  int nNew = p->nSlot ? p->nSlot*2 : 64;
  free(p->aSlot);
  p->aSlot = xcalloc((size_t)nNew, sizeof(int));
  p->nSlot = nNew;
  for(int g=0; g<p->nGroup; g++){
    unsigned i = key_hash(&p->aKey[g]) & (unsigned)(nNew-1);
    while( p->aSlot[i] ) i = (i+1) & (unsigned)(nNew-1);
    p->aSlot[i] = g+1;
  }
}

void *group_map_get(GroupMap *p, int64_t a, int64_t b, int64_t c, int64_t d,
                int *piGroup){
  GroupKey k;
  unsigned i, mask;
  int g;
  k.a = a; k.b = b; k.c = c; k.d = d;
  if( 2*(p->nGroup+1)>p->nSlot ) group_rehash(p);
  mask = (unsigned)(p->nSlot-1);
  for(i=key_hash(&k) & mask; p->aSlot[i]; i=(i+1) & mask){
    g = p->aSlot[i]-1;
    if( key_eq(&p->aKey[g], &k) ) goto found;
  }
  if( p->nGroup==p->nAlloc ){
    p->nAlloc = p->nAlloc ? 2*p->nAlloc : 64;
    p->aKey = xrealloc(p->aKey, (size_t)p->nAlloc*sizeof(GroupKey));
    p->aVal = xrealloc(p->aVal, (size_t)p->nAlloc*p->szVal);
  }
  g = p->nGroup++;
  p->aKey[g] = k;
  memset(p->aVal + (size_t)g*p->szVal, 0, p->szVal);
  p->aSlot[i] = g+1;
found:
  if( piGroup ) *piGroup = g;
  return p->aVal + (size_t)g*p->szVal;
}

int group_map_find(const GroupMap *p, int64_t a, int64_t b, int64_t c,
                   int64_t d, int *piGroup){
  GroupKey k;
  unsigned mask;
  if( p->nSlot==0 ) return 0;
  k.a = a; k.b = b; k.c = c; k.d = d;
  mask = (unsigned)(p->nSlot-1);
  for(unsigned i=key_hash(&k) & mask; p->aSlot[i]; i=(i+1) & mask){
    int g = p->aSlot[i]-1;
    if( key_eq(&p->aKey[g], &k) ){
      if( piGroup ) *piGroup = g;
      return 1;
    }
  }
  return 0;
}

void *group_map_val(const GroupMap *p, int g){
  return p->aVal + (size_t)g*p->szVal;
}

int64_t group_map_text_code(TextCodes *p, const char *z){
  if( z==NULL ) return 0;
  for(int i=0; i<p->n; i++){
    if( strcmp(p->az[i], z)==0 ) return i+1;
  }
  p->az = xrealloc(p->az, (size_t)(p->n+1)*sizeof(char*));
  p->az[p->n++] = xstrdup(z);
  return p->n;
}

const char *group_map_text_of(const TextCodes *p, int64_t code){
  return code>0 && code<=p->n ? p->az[code-1] : NULL;
}

void group_map_text_free(TextCodes *p){
  for(int i=0; i<p->n; i++) free(p->az[i]);
  free(p->az);
}
