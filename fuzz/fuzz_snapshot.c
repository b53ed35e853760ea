/*
** fuzz_snapshot.c — libFuzzer harness for the pickle loaders end to end:
** load_pickle_file() (src/ingest/load_pickle.c) decodes the input with the
** strict decoder (src/input/pickle.c) and maps it through the CUDA memory
** snapshot loader (src/memory/load_snapshot.c) or the flight-recorder pickle
** loader (src/comm/load_fr.c) into an in-memory profan database; then the
** per-run derive steps that ingest.c runs after such files (derive_memory_run,
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

#include "fuzz_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  static const FuzzDeriveFn axDerive[] = { derive_memory_run,
                                              fuzz_derive_comm };
  return fuzz_load("fuzz_snapshot", data, size, load_pickle_file, axDerive,
                   (int)(sizeof(axDerive)/sizeof(axDerive[0])));
}
