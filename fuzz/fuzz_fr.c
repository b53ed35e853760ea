/*
** fuzz_fr.c — libFuzzer harness for the flight-recorder JSON path:
** load_fr_json_file() (src/comm/load_fr.c) reads the input with jscan into a
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

#include "fuzz_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  static const FuzzDeriveFn axDerive[] = { fuzz_derive_comm };
  return fuzz_load("fuzz_fr", data, size, load_fr_json_file, axDerive,
                   (int)(sizeof(axDerive)/sizeof(axDerive[0])));
}
