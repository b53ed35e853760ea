/*
** load_pickle.c — dispatch for pickle inputs: read the file, decode it with
** the strict decoder (pickle.c), and pass the value tree to the memory
** snapshot or flight-recorder loader.
**
** Pipeline position: "parse" for pickles.  Nothing from the file is ever
** executed: the decoder refuses every opcode that can name or call code.
*/
#include "load_kinds.h"
#include "input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PICKLE_MAX_BYTES ((size_t)16 << 30)   /* 16 GiB */

/* One line describing a value that is not a known pickle layout. */
static void describe(const PkValue *v, char *z, size_t n){
  if( v->t==PK_DICT ){
    Buf keys;
    buf_init(&keys);
    for(size_t i=0; i<v->u.dict.n && i<5; i++){
      const PkValue *k = v->u.dict.k[i];
      if( k->t==PK_STR ){
        buf_printf(&keys, "%s'%.*s'", i ? ", " : "", (int)(k->u.s.n>40 ? 40 : k->u.s.n),
                   k->u.s.z);
      }
    }
    snprintf(z, n, "a dict with %zu keys (%s%s)", v->u.dict.n, buf_str(&keys),
             v->u.dict.n>5 ? ", ..." : "");
    buf_free(&keys);
  }else if( v->t==PK_LIST || v->t==PK_TUPLE ){
    snprintf(z, n, "a %s of %zu items", pk_type_name(v->t), v->u.seq.n);
  }else{
    snprintf(z, n, "a %s", pk_type_name(v->t));
  }
}

int load_pickle_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                     PfError *pErr){
  size_t n = 0;
  unsigned char *data = input_slurp(t->zPath, PICKLE_MAX_BYTES, &n, pErr);
  PkDoc *pDoc = NULL;
  const PkValue *pRoot = NULL;
  int rc;
  if( data==NULL ) return -1;
  if( pickle_decode(data, n, &pDoc, &pRoot, pErr) ){
    free(data);
    return -1;
  }
  if( snapshot_is_snapshot(pRoot) ){
    rc = load_snapshot(db, t, pRoot, pStats, pErr);
  }else if( fr_is_dump(pRoot) ){
    rc = load_fr_dump(db, t, pRoot, pStats, pErr);
  }else{
    char zWhat[256];
    describe(pRoot, zWhat, sizeof(zWhat));
    pf_error_set(pErr, ERRPOS_NONE, 0,
      "pickle is not a CUDA memory snapshot or flight-recorder dump: "
      "it holds %s", zWhat);
    rc = -1;
  }
  pickle_free(pDoc);
  free(data);
  return rc;
}
