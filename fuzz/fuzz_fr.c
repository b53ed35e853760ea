/*
** fuzz_fr.c — libFuzzer harness for the flight-recorder JSON path:
** load_fr_json_file() (src/load_fr.c) reads the input with yajl into a
** value tree and maps it (process groups, status, entries) into an
** in-memory profan database; derive_comm_run() then joins the rows as the
** ingest does at the end of a run.  (Flight-recorder pickles are covered
** by fuzz_snapshot, which goes through load_pickle_file.)
**
** The input goes through a memfd, as a file would; each input is loaded
** inside BEGIN ... ROLLBACK on a database made once per process
** (fuzz_db.h).
**
** Build and run: see fuzz/README.md (scripts/fuzz.sh does both).
*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "load_kinds.h"
#include "fuzz_common.h"
#include "fuzz_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  sqlite3 *db = fuzz_db();
  LoadTarget t;
  LoadStats st;
  PfError err;
  char zPath[64];
  int fd = fuzz_memfd("fuzz_fr", data, size, zPath, sizeof(zPath));
  if( fd<0 ) return 0;
  memset(&st, 0, sizeof(st));
  memset(&err, 0, sizeof(err));
  st.rank = -1;
  t.runId = 1;
  t.fileId = 1;
  t.zPath = zPath;
  db_exec(db, "BEGIN", NULL);
  if( load_fr_json_file(db, &t, &st, &err)==0 ){
    PfError e2;
    memset(&e2, 0, sizeof(e2));
    (void)derive_comm_run(db, 1, &e2);
    fuzz_touch_str(e2.zMsg);
  }
  db_exec(db, "ROLLBACK", NULL);
  close(fd);
  fuzz_touch(&st, sizeof(st));
  fuzz_touch_str(err.zMsg);
  return 0;
}
