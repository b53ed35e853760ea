/*
** fuzz_db.h — helpers for the harnesses that load an input through a real
** loader into a database (fuzz_snapshot.c, fuzz_fr.c).
**
** fuzz_db() opens one in-memory profan database per process (the full
** schema, created once: building it per input would dominate the run) with
** one run (id 1) and one run_file row (id 1) committed.  Each input is then
** loaded inside BEGIN ... ROLLBACK, so every input starts from the same
** database.  fuzz_memfd() writes the input to an anonymous memfd so that the
** loaders read it through their normal path-based entry points
** ("/proc/self/fd/N", the caller closes the fd).  fuzz_load() does the
** whole round for one input.
*/
#ifndef PROFAN_FUZZ_DB_H
#define PROFAN_FUZZ_DB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/db.h"
#include "fuzz_common.h"
#include "input/load_kinds.h"

/* The process-wide database (never closed: it stays reachable, so the leak
** checker does not count it).  Aborts when the schema cannot be built. */
static sqlite3 *fuzz_db(void){
  static sqlite3 *db = NULL;
  PfError err;
  if( db ) return db;
  memset(&err, 0, sizeof(err));
  db = db_open(":memory:", DB_OPEN_CREATE, &err);
  if( db==NULL
   || db_exec(db, "INSERT INTO run(id, name, created_at, source_path,"
                  " content_hash, tool_version) VALUES(1, 'fuzz',"
                  " '2026-01-01T00:00:00Z', 'fuzz', '0', 'fuzz');"
                  "INSERT INTO run_file(id, run_id, path, kind, bytes, hash)"
                  " VALUES(1, 1, 'fuzz', 'snapshot', 0, '0')", &err) ){
    fprintf(stderr, "fuzz_db: %s\n", err.zMsg);
    abort();
  }
  return db;
}

/* Write data to a new memfd; fills zPath with its /proc path and returns
** the fd (the caller closes it), or -1. */
static int fuzz_memfd(const char *zName, const uint8_t *data, size_t size,
                      char *zPath, size_t nPath){
  size_t off = 0;
  int fd = memfd_create(zName, 0);
  if( fd<0 ) return -1;
  while( off<size ){
    ssize_t w = write(fd, data+off, size-off);
    if( w<=0 ){ close(fd); return -1; }
    off += (size_t)w;
  }
  snprintf(zPath, nPath, "/proc/self/fd/%d", fd);
  return fd;
}

/* A loader with LoadTarget's signature, and what runs after it. */
typedef int (*FuzzLoadFn)(sqlite3*, const LoadTarget*, LoadStats*, PfError*);
typedef int (*FuzzDeriveFn)(sqlite3*, int64_t runId, PfError*);

/* derive_comm_run with no rows kept by a trace writer (these harnesses
** load no trace), under FuzzDeriveFn's type: calling it through another
** function type would be undefined behaviour. */
static int fuzz_derive_comm(sqlite3 *db, int64_t runId, PfError *pErr){
  return derive_comm_run(db, runId, NULL, pErr);
}

/* One input through xLoad (as file "/proc/self/fd/N" of run 1, file 1)
** and, when it loads, through the derive steps axDerive[0..nDerive) until
** one fails, inside BEGIN ... ROLLBACK on fuzz_db().  Always returns 0 (the
** harnesses' LLVMFuzzerTestOneInput result). */
static int fuzz_load(const char *zName, const uint8_t *data, size_t size,
                     FuzzLoadFn xLoad, const FuzzDeriveFn *axDerive,
                     int nDerive){
  sqlite3 *db = fuzz_db();
  LoadTarget t;
  LoadStats st;
  PfError err;
  char zPath[64];
  int fd = fuzz_memfd(zName, data, size, zPath, sizeof(zPath));
  if( fd<0 ) return 0;
  memset(&st, 0, sizeof(st));
  memset(&err, 0, sizeof(err));
  st.rank = -1;
  t.runId = 1;
  t.fileId = 1;
  t.zPath = zPath;
  db_exec(db, "BEGIN", NULL);
  if( xLoad(db, &t, &st, &err)==0 ){
    PfError e2;
    memset(&e2, 0, sizeof(e2));
    for(int i=0; i<nDerive && axDerive[i](db, 1, &e2)==0; i++){}
    fuzz_touch_str(e2.zMsg);
  }
  db_exec(db, "ROLLBACK", NULL);
  close(fd);
  fuzz_touch(&st, sizeof(st));
  fuzz_touch_str(err.zMsg);
  return 0;
}

#endif
