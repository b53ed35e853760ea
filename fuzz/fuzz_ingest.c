/*
** fuzz_ingest.c — libFuzzer harness for a whole ingest: ingest_run()
** (src/ingest/ingest.c) on one to three files made from the input, exactly as
** `profan ingest DIR` would run it: discovery, the trace parser + linker in
** a worker thread, the trace writer (src/trace/load_trace.c, with its
** per-name duration totals), the NCCL log loader (src/comm/load_nccl.c), the
** snapshot and flight-recorder loaders, the derive steps and the commit.
** fuzz_trace and fuzz_nccl stop at the parsers; this one reaches the
** database layer behind them.
**
** The input is cut at each "\n%%\n" into up to three parts, written to
** files of a fixed run directory (made once per process under
** /dev/shm or /tmp): "rank0.trace.json", "worker1.pt.trace.json" (a
** rank from the file name) and "nccl.log" (a file's kind is found from
** its content, so any part may turn out to be any kind).  Each input is
** ingested into the same template database: an in-memory profan database
** with the full schema, made once and copied into a new connection with
** sqlite3_deserialize() before each input (building the schema per input
** would dominate; see fresh_db for why a new connection).  The
** harness checks what ingest promises: after a failure the database is
** not inside a transaction (sqlite3_get_autocommit) and holds no run;
** after a success it holds exactly one run.
**
** Build and run: see fuzz/README.md (scripts/fuzz.sh does both).
*/
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/db.h"
#include "ingest/ingest.h"
#include "fuzz_common.h"

#define N_PART 3
static const char *azFile[N_PART] = {
  "rank0.trace.json", "worker1.pt.trace.json", "nccl.log"
};

static char zDir[64];             /* the run directory */
static unsigned char *pTemplate;  /* serialized empty database */
static sqlite3_int64 nTemplate;
static sqlite3 *db;

/* Make the run directory and the template database once; abort on
** failure (the harness cannot run at all). */
static void setup(void){
  PfError err;
  const char *zBase = access("/dev/shm", W_OK)==0 ? "/dev/shm" : "/tmp";
  if( db ) return;
  snprintf(zDir, sizeof(zDir), "%s/fuzz_ingest.XXXXXX", zBase);
  if( mkdtemp(zDir)==NULL ){ perror("fuzz_ingest: mkdtemp"); abort(); }
  memset(&err, 0, sizeof(err));
  db = db_open(":memory:", DB_OPEN_CREATE, &err);
  if( db==NULL ){ fprintf(stderr, "fuzz_ingest: %s\n", err.zMsg); abort(); }
  pTemplate = sqlite3_serialize(db, "main", &nTemplate, 0);
  if( pTemplate==NULL ){ fprintf(stderr, "fuzz_ingest: serialize\n"); abort(); }
}

/* A new connection holding a copy of the template, set up as db_open()
** sets one up.  A new connection, not the template restored into the
** same one: SQLite 3.40.1 (Debian 12) crashes in sqlite3SchemaToIndex
** preparing the operator model's nested views (schema 027) once
** sqlite3_deserialize() has replaced the schema of the connection that
** built the template (fuzz/regress/ingest/crash-51144a49...); profan
** itself never deserializes. */
static void fresh_db(void){
  unsigned char *pCopy;
  sqlite3_close(db);
  if( sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE
                      | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) ){
    abort();
  }
  /* a copy of the empty database (SQLite frees it) */
  pCopy = sqlite3_malloc64((sqlite3_uint64)nTemplate);
  if( pCopy==NULL ) abort();
  memcpy(pCopy, pTemplate, (size_t)nTemplate);
  if( sqlite3_deserialize(db, "main", pCopy, nTemplate, nTemplate,
        SQLITE_DESERIALIZE_FREEONCLOSE|SQLITE_DESERIALIZE_RESIZEABLE) ){
    abort();
  }
  sqlite3_extended_result_codes(db, 1);
  if( sqlite3_exec(db, "PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768;"
                   " PRAGMA secure_delete=OFF", NULL, NULL, NULL) ){
    abort();
  }
}

/* Write the n bytes at z to file i of the run directory (or remove it
** when n<0).  Returns 0 or -1. */
static int put_file(int i, const uint8_t *z, long n){
  char zPath[128];
  FILE *f;
  size_t w;
  snprintf(zPath, sizeof(zPath), "%s/%s", zDir, azFile[i]);
  if( n<0 ){ unlink(zPath); return 0; }
  f = fopen(zPath, "wb");
  if( f==NULL ) return -1;
  w = n>0 ? fwrite(z, 1, (size_t)n, f) : 0;
  return fclose(f)==0 && w==(size_t)n ? 0 : -1;
}

/* The input's parts (cut at "\n%%\n") into the files; returns how many. */
static int split_input(const uint8_t *data, size_t size){
  static const char zSep[] = "\n%%\n";
  size_t start = 0;
  int nPart = 0;
  while( nPart<N_PART ){
    const uint8_t *p = NULL;
    size_t end = size;
    if( nPart<N_PART-1 && size-start>=4 ){
      p = memmem(data+start, size-start, zSep, 4);
      if( p ) end = (size_t)(p - data);
    }
    if( put_file(nPart, data+start, (long)(end-start)) ) return -1;
    nPart++;
    if( p==NULL ) break;
    start = end + 4;
  }
  for(int i=nPart; i<N_PART; i++) put_file(i, NULL, -1);
  return nPart;
}

static int64_t count_runs(void){
  sqlite3_stmt *s;
  int64_t n = -1;
  if( sqlite3_prepare_v2(db, "SELECT count(*) FROM run", -1, &s, 0) ) abort();
  if( sqlite3_step(s)==SQLITE_ROW ) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  IngestOpts opt;
  IngestResult res;
  Buf msg;
  const char *azPath[1];
  int rc;
  setup();
  if( split_input(data, size)<0 ) return 0;
  fresh_db();
  memset(&opt, 0, sizeof(opt));
  memset(&res, 0, sizeof(res));
  buf_init(&msg);
  opt.zName = "fuzz";
  opt.nThreads = 1;
  azPath[0] = zDir;
  rc = ingest_run(db, azPath, 1, &opt, &res, &msg);
  /* what ingest promises, whatever the input */
  if( !sqlite3_get_autocommit(db) ){
    fprintf(stderr, "fuzz_ingest: still inside a transaction (rc=%d: %s)\n",
            rc, buf_str(&msg));
    abort();
  }
  if( count_runs()!=(rc==0 ? 1 : 0) ){
    fprintf(stderr, "fuzz_ingest: rc=%d but %lld runs stored (%s)\n", rc,
            (long long)count_runs(), buf_str(&msg));
    abort();
  }
  fuzz_touch_str(buf_str(&msg));
  fuzz_touch(&res, sizeof(res));
  buf_free(&msg);
  return 0;
}
