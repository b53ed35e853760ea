/*
** fuzz_pickle.c — libFuzzer harness for the strict pickle decoder
** (src/input/pickle.c) and the snapshot / flight-recorder shape checks
** (load_snapshot_is_snapshot in src/memory/load_snapshot.c, load_fr_is_dump in
** src/comm/load_fr.c).
**
** pickle_decode() runs on the raw input.  When it succeeds the value tree
** (a DAG: memo references share nodes) is walked recursively, touching
** every string/bytes/bigint payload, and exercising pk_len, pk_as_int,
** pk_as_double, pk_type_name and pk_dict_get on every dict; then
** load_snapshot_is_snapshot() and load_fr_is_dump() are called on the
** root.  The document is freed with pickle_free().
**
** The walk is bounded by PICKLE_MAX_DEPTH (the decoder refuses deeper
** trees) and by a visit budget, because a DAG with shared nodes can have
** exponentially many paths.
**
** Build and run (see fuzz/README.md):
**   CC=clang cmake -S . -B build-fuzz -DPROFAN_FUZZ=ON
**   cmake --build build-fuzz --target fuzz_pickle
**   ./build-fuzz/fuzz_pickle -max_total_time=60 CORPUS_DIR
** or simply scripts/fuzz.sh.
*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "input/pickle.h"
#include "input/load_kinds.h"
#include "fuzz_common.h"

#define VISIT_BUDGET 200000

static void walk(const PkValue *v, int depth, long *pBudget){
  size_t i;
  int64_t iv;
  double dv;
  if( v==NULL || *pBudget<=0 ) return;
  (*pBudget)--;
  fuzz_touch_str(pk_type_name(v->t));
  fuzz_touch_i64((int64_t)pk_len(v));
  if( pk_as_int(v, &iv)==0 ) fuzz_touch_i64(iv);
  if( pk_as_double(v, &dv)==0 ) fuzz_touch_dbl(dv);
  switch( v->t ){
    case PK_STR: case PK_BYTES: case PK_BIGINT:
      fuzz_touch(v->u.s.z, v->u.s.n);
      break;
    case PK_LIST: case PK_TUPLE:
      for(i=0; i<v->u.seq.n; i++) walk(v->u.seq.a[i], depth+1, pBudget);
      break;
    case PK_DICT:
      for(i=0; i<v->u.dict.n; i++){
        const PkValue *k = v->u.dict.k[i];
        walk(k, depth+1, pBudget);
        walk(v->u.dict.v[i], depth+1, pBudget);
        if( k && k->t==PK_STR ){
          fuzz_touch(pk_dict_get_n(v, k->u.s.z, k->u.s.n), 0);
        }
      }
      fuzz_touch(pk_dict_get(v, "segments"), 0);
      break;
    default:
      break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  PkDoc *pDoc = NULL;
  const PkValue *pRoot = NULL;
  PfError err;
  long budget = VISIT_BUDGET;
  memset(&err, 0, sizeof(err));
  if( pickle_decode(data, size, &pDoc, &pRoot, &err)==0 ){
    walk(pRoot, 0, &budget);
    fuzz_touch_i64((int64_t)pickle_mem_used(pDoc));
    fuzz_touch_i64(load_snapshot_is_snapshot(pRoot));
    fuzz_touch_i64(load_fr_is_dump(pRoot));
    pickle_free(pDoc);
  }else{
    fuzz_touch_str(err.zMsg);
  }
  return 0;
}
