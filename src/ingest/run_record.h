/*
** run_record.h — recording a run while it is ingested: its run row (a
** unique name), its tags, its run_file rows, and its content hash (which
** finds a copy of a stored run).
**
** Pipeline position: used by the ingest driver (ingest.c) inside the
** ingest's transaction; runref.c names and deletes the runs it records.
*/
#ifndef PROFAN_RUN_RECORD_H
#define PROFAN_RUN_RECORD_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include "ingest/ingest_opts.h"
#include "core/util.h"

/* A usable file's content hash and size.  A plain trace file of a run
** that cannot be a copy of a stored one is hashed by its parser thread
** while it is read (deferred), saving a read of the whole file up front. */
typedef struct FileHash {
  uint64_t hash;
  int64_t bytes;
  int idx;              /* index in the FileList */
  int deferred;         /* hash not known yet: computed while parsing */
} FileHash;

/* The default run name for path zPath: its base name without .json,
** .json.gz or .pt.trace.json[.gz]; "run-N" when that is a number N (or
** 'latest', or empty), which would read as a run id: *pbPrefixed (may be
** NULL) is then 1.  The caller frees it. */
char *run_record_default_name(const char *zPath, int *pbPrefixed);

/* Insert the run row named zWant, or zWant-2, -3 ... when taken (pRes
** says which name it got and who holds zWant).  Returns the run id, or -1
** with pErr set. */
int64_t run_record_insert(sqlite3 *db, const char *zWant,
                          const char *zSource, const char *zHash,
                          IngestResult *pRes, PfError *pErr);

/* The --tag pairs of pOpt for run runId.  Returns 0 or -1 with pErr. */
int run_record_tags(sqlite3 *db, int64_t runId, const IngestOpts *pOpt,
                    PfError *pErr);

/* Insert a run_file row; returns its id or -1 with pErr set. */
int64_t run_record_file(sqlite3 *db, int64_t runId, const char *zPath,
                        const char *zKind, int64_t bytes, uint64_t hash,
                        PfError *pErr);

/* The run's content hash into zOut (17 bytes or more): XXH64 over the
** (hash, size) pairs of its n files sorted by hash. */
void run_record_hash(const FileHash *a, int n, char *zOut, size_t nOut);

/* 1 when some file's size matches no stored file's: then the run cannot
** be a copy of a stored run and its hashes may wait.  0 otherwise (or on
** error, which just means hashing up front). */
int run_record_is_new(sqlite3 *db, const FileHash *a, int n);

/* Store the content hash of run runId from the n file hashes of a (the
** deferred ones known by now).  Returns 0, or -1 with pMsg set. */
int run_record_set_hash(sqlite3 *db, int64_t runId, const FileHash *a,
                        int n, Buf *pMsg);

/* --replace: remember run id (and the baselines naming it, deleted with
** it) in pRes for the summary. */
void run_record_note_replaced(sqlite3 *db, int64_t id, IngestResult *pRes);

#endif
