/*
** load_pickle.c — dispatch for pickle inputs: read the file, decode it with
** the strict decoder (pickle.c), and pass the value tree to the memory
** snapshot or flight-recorder loader.  A snapshot's device traces are
** streamed into the snapshot loader while the file is decoded, so the
** tree never holds them; a file not laid out for that is decoded whole.
**
** Pipeline position: "parse" for pickles.  Nothing from the file is ever
** executed: the decoder refuses every opcode that can name or call code.
*/
#include "input/load_kinds.h"
#include "core/db.h"
#include "input/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PICKLE_MAX_BYTES ((size_t)16 << 30)   /* 16 GiB */

/* One line describing a value that is not a known pickle layout (keys
** from the file sanitised: valid UTF-8 without control characters). */
static void describe(const PkValue *v, char *z, size_t n){
  if( v->t==PK_DICT ){
    Buf keys;
    buf_init(&keys);
    for(size_t i=0; i<v->u.dict.n && i<5; i++){
      const PkValue *k = v->u.dict.k[i];
      if( k->t==PK_STR ){
        char zKey[44];
        pk_sanitize(k->u.s.z, k->u.s.n, zKey, sizeof(zKey));
        buf_printf(&keys, "%s'%s'", i ? ", " : "", zKey);
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

/*
** Decode data with the device traces of a memory snapshot streamed into a
** new snapshot loader (*ppSnap, which the caller frees), inside a
** savepoint.  Returns 0 (*ppDoc and *ppRoot set), -1 (error in pErr), or 1
** when the file has to be decoded whole: the savepoint is then rolled back
** (the loader wrote frame and stack rows), *pStats is as it was and
** *ppSnap is NULL.
*/
static int decode_streaming(sqlite3 *db, const LoadTarget *t,
                            const unsigned char *data, size_t n,
                            SnapLoader **ppSnap, PkDoc **ppDoc,
                            const PkValue **ppRoot, LoadStats *pStats,
                            PfError *pErr){
  LoadStats saved = *pStats;
  int rc;
  if( db_exec(db, "SAVEPOINT snapshot_stream", pErr) ) return -1;
  *ppSnap = load_snapshot_new(db, t, pStats, pErr);
  rc = *ppSnap==NULL ? -1
       : pickle_decode_stream(data, n, "device_traces", load_snapshot_item,
                              *ppSnap, ppDoc, ppRoot, pErr);
  if( rc==1 ){
    load_snapshot_free(*ppSnap);
    *ppSnap = NULL;
    *pStats = saved;
    if( db_exec(db, "ROLLBACK TO snapshot_stream", pErr) ) rc = -1;
  }
  if( db_exec(db, "RELEASE snapshot_stream", rc<0 ? NULL : pErr) ) rc = -1;
  return rc;
}

int load_pickle_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                     PfError *pErr){
  size_t n = 0;
  unsigned char *data = input_slurp(t->zPath, PICKLE_MAX_BYTES, &n, pErr);
  PkDoc *pDoc = NULL;
  const PkValue *pRoot = NULL;
  SnapLoader *pSnap = NULL;
  int rc;
  if( data==NULL ) return -1;
  rc = decode_streaming(db, t, data, n, &pSnap, &pDoc, &pRoot, pStats, pErr);
  if( rc==1 ){
    /* not laid out for streaming: decode it whole */
    rc = pickle_decode(data, n, &pDoc, &pRoot, pErr);
  }
  if( rc ){
    /* a decode that succeeded before a failed RELEASE left its document */
    pickle_free(pDoc);
    load_snapshot_free(pSnap);
    free(data);
    return -1;
  }
  if( load_snapshot_is_snapshot(pRoot) ){
    rc = pSnap ? load_snapshot_finish(pSnap, pRoot)
               : load_snapshot(db, t, pRoot, pStats, pErr);
  }else if( load_fr_is_dump(pRoot) ){
    rc = load_fr_dump(db, t, pRoot, pStats, pErr);
  }else{
    char zWhat[256];
    describe(pRoot, zWhat, sizeof(zWhat));
    pf_error_set(pErr, ERRPOS_NONE, 0,
      "pickle is not a CUDA memory snapshot or flight-recorder dump: "
      "it holds %s", zWhat);
    rc = -1;
  }
  load_snapshot_free(pSnap);
  pickle_free(pDoc);
  free(data);
  return rc;
}
