/*
** fuzz_snapshot.c — libFuzzer harness for the pickle loaders end to end:
** load_pickle_file() (src/load_pickle.c) decodes the input with the strict
** decoder (src/pickle.c) and maps it through the CUDA memory snapshot
** loader (src/load_snapshot.c) or the flight-recorder pickle loader
** (src/load_fr.c) into an in-memory profan database; then the per-run
** derive steps that ingest.c runs after such files (derive_memory_run,
** derive_comm_run) read those rows back.
**
** Unlike fuzz_pickle (decoder and shape checks only), this harness runs
** the mappers and their SQL.  The input goes through a memfd, as a file
** would; each input is loaded inside BEGIN ... ROLLBACK on a database made
** once per process (fuzz_db.h), so inputs do not see each other's rows.
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
  int fd = fuzz_memfd("fuzz_snapshot", data, size, zPath, sizeof(zPath));
  if( fd<0 ) return 0;
  memset(&st, 0, sizeof(st));
  memset(&err, 0, sizeof(err));
  st.rank = -1;
  t.runId = 1;
  t.fileId = 1;
  t.zPath = zPath;
  db_exec(db, "BEGIN", NULL);
  if( load_pickle_file(db, &t, &st, &err)==0 ){
    PfError e2;
    memset(&e2, 0, sizeof(e2));
    if( derive_memory_run(db, 1, &e2)==0 ) (void)derive_comm_run(db, 1, &e2);
    fuzz_touch_str(e2.zMsg);
  }
  db_exec(db, "ROLLBACK", NULL);
  close(fd);
  fuzz_touch(&st, sizeof(st));
  fuzz_touch_str(err.zMsg);
  return 0;
}
