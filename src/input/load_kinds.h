/*
** load_kinds.h — the loaders for the non-trace input kinds, called by the
** ingest driver (ingest.c) through the table of input kinds
** (input_kinds.c) inside the ingest's single transaction.
**
** Pipeline position: "parse" + "load" for memory snapshots, flight-recorder
** dumps and NCCL logs; "derive" entry points run once per run at the end.
** Every loader reads one file, writes rows tagged (run_id, file_id), never
** prints, and reports problems in PfError with the byte offset or line.
*/
#ifndef PROFAN_LOAD_KINDS_H
#define PROFAN_LOAD_KINDS_H

#include <sqlite3.h>
#include <stdint.h>
#include "input/pickle.h"
#include "core/util.h"

/* What a loader reports about one file (written to run_file). */
typedef struct LoadStats {
  int64_t nRecords;        /* entries / lines / segments read */
  int64_t nWarnings;       /* records skipped or repaired */
  int64_t rank;            /* rank the file describes, -1 if unknown */
  char zRankSource[24];    /* "file name", "dump", ... ("" if unknown) */
  char zKind[24];          /* run_file.kind: "snapshot", "flight_recorder",
                           ** "nccl_log" ("": the kind's name) */
  char zFirstWarning[256]; /* "WHERE: message" of the first warning */
} LoadStats;

/* Context of the file being loaded. */
typedef struct LoadTarget {
  int64_t runId;
  int64_t fileId;
  const char *zPath;
} LoadTarget;

/* The loader of one file of an input kind (InputKind.xLoad).  Returns 0,
** or -1 with pErr set. */
typedef int (*LoadFileFn)(sqlite3 *db, const LoadTarget *t,
                          LoadStats *pStats, PfError *pErr);

/* A pickle file (protocol byte 0x80): decode it with the strict decoder
** and hand it to the snapshot or flight-recorder loader.  A pickle that is
** neither is refused with a message saying what it is.  (load_pickle.c) */
int load_pickle_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                     PfError *pErr);

/* Memory snapshot (dict with segments/device_traces, or a bare segment
** list).  Returns 0, or -1 with pErr.  (load_snapshot.c) */
int load_snapshot_is_snapshot(const PkValue *pRoot);
int load_snapshot(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                  LoadStats *pStats, PfError *pErr);

/* The same in steps, so that the device traces can be streamed in while
** the pickle is decoded (pickle_decode_stream with load_snapshot_item
** and the loader as context), then the rest loaded from the tree by
** load_snapshot_finish.  new returns NULL with pErr on a database error;
** free the loader (accepts NULL) with load_snapshot_free. */
typedef struct SnapLoader SnapLoader;
SnapLoader *load_snapshot_new(sqlite3 *db, const LoadTarget *t,
                                LoadStats *pStats, PfError *pErr);
int load_snapshot_item(void *pLoader, size_t iDev, const PkValue *pEntry);
int load_snapshot_finish(SnapLoader *pLoader, const PkValue *pRoot);
void load_snapshot_free(SnapLoader *pLoader);

/* Flight-recorder dump (dict with "entries"/"pg_config"/"version").  The
** JSON variant is handled in the same file.  (load_fr.c) */
int load_fr_is_dump(const PkValue *pRoot);
int load_fr_dump(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                 LoadStats *pStats, PfError *pErr);

/* Flight-recorder dump written as JSON (dump_nccl_trace_json), read into
** the same tree as the pickle.  (load_fr.c) */
int load_fr_json_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                      PfError *pErr);

/* NCCL_DEBUG=INFO log (load_nccl.c). */
int load_nccl_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                   PfError *pErr);

/* Per-run derived tables, run once after every file is loaded.
** derive_comm_run (derive_comm.c) needs the trace tables and their
** derived columns: call it after derive_trace_run. */
int derive_memory_run(sqlite3 *db, int64_t runId, PfError *pErr);
/* pSpans: the rows the writer kept (trace_spans.h), read instead of the
** kernel table when whole; NULL reads the table (a merge). */
struct TraceSpans;
int derive_comm_run(sqlite3 *db, int64_t runId,
                    const struct TraceSpans *pSpans, PfError *pErr);

#endif
