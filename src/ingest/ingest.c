/*
** ingest.c — the ingest driver: discover, hash, one transaction, parse
** and load, derive, commit.
**
** Pipeline position: orchestrates every stage.  ingest_one below reads as
** the sequence of the phases; the trace files are parsed in worker threads
** and loaded by the single writer in ingest_trace.c, the other kinds one
** after another here; the run's own rows (run, run_tag, run_file, content
** hash) are written by run_record.c.  Any failure rolls back: the database
** is left exactly as it was.
*/
#include "ingest/ingest.h"
#include "core/db.h"
#include "trace/derive_trace.h"
#include "trace/trace_feed.h"
#include "trace/trace_relink.h"
#include "trace/trace_ids.h"
#include "analysis/derive_run.h"
#include "ingest/discover.h"
#include "ingest/ingest_trace.h"
#include "input/input.h"
#include "input/load_kinds.h"
#include "ingest/run_record.h"
#include "core/runref.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One ingest's state, phase to phase. */
typedef struct Ingest {
  sqlite3 *db;
  const char **azPath;
  int nPath;
  const IngestOpts *pOpt;
  IngestResult *pRes;
  Buf *pMsg;
  FileList list;                /* what discover found */
  Buf source;                   /* the paths as given, for run.source_path */
  FileHash *aHash;              /* the usable files, in list order */
  int nHash, nDeferred;
  char **azReal;                /* realpath of each list entry, or NULL */
  int64_t *aSize;               /* size of each list entry */
  char *zName;                  /* run name wanted */
  char zRunHash[20];            /* "" while some hashes are deferred */
  int64_t runId;
  TraceJob *aJob;
  int nJob, nOther;
  int nEmpty;                   /* trace files without an event: skipped */
  TraceTotals *pTot;            /* what is kept of the trace rows: */
  TraceSpans *pSpans;           /* trace_keep.h */
  int inTxn;
  PfError err;
  double t0;
} Ingest;

/* ------------------------------------------------------ other kinds */

/*
** Load one file of a kind with a loader (snapshot, flight recorder, NCCL;
** see input_kinds.c) in the writer thread and record its run_file row.
** Returns 0, or -1 with the message in pMsg.
*/
static int load_other_file(sqlite3 *db, int64_t runId, FoundFile *f,
                           int64_t bytes, uint64_t hash,
                           const IngestOpts *pOpt, IngestResult *pRes,
                           Buf *pMsg){
  LoadTarget t;
  LoadStats st;
  PfError err = {0};
  sqlite3_stmt *p;
  double t0 = util_now_ms();
  int rc;
  memset(&st, 0, sizeof(st));
  st.rank = -1;
  t.runId = runId;
  t.zPath = f->zPath;
  t.fileId = run_record_file(db, runId, f->zPath,
                             aInputKind[f->eKind].zName, bytes, hash, &err);
  if( t.fileId<0 ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    return -1;
  }
  rc = aInputKind[f->eKind].xLoad(db, &t, &st, &err);
  if( rc ){
    pf_error_format(&err, f->zPath, pMsg);
    return -1;
  }
  if( pOpt->strict && st.nWarnings>0 ){
    buf_printf(pMsg, "%s:%s (--strict: %lld warning%s)", f->zPath,
               st.zFirstWarning, (long long)st.nWarnings,
               st.nWarnings==1 ? "" : "s");
    return -1;
  }
  if( st.nWarnings>0 && pOpt->pLog ){
    fprintf(pOpt->pLog, "profan: %s: %lld record%s skipped or repaired "
            "(first at %s)\n", f->zPath, (long long)st.nWarnings,
            st.nWarnings==1 ? "" : "s", st.zFirstWarning);
  }
  p = db_prepare(db,
    db_statement("ingest-load-other-file"), &err);
  if( p==NULL ){ buf_printf(pMsg, "database: %s", err.zMsg); return -1; }
  db_bind_text_or_null(p, 1, st.zKind[0] ? st.zKind : NULL, -1);
  db_bind_int_or_null(p, 2, st.rank>=0, st.rank);
  db_bind_text_or_null(p, 3, st.zRankSource[0] ? st.zRankSource : NULL, -1);
  sqlite3_bind_int64(p, 4, st.nRecords);
  sqlite3_bind_double(p, 5, util_now_ms()-t0);
  sqlite3_bind_int64(p, 6, st.nWarnings);
  sqlite3_bind_int64(p, 7, t.fileId);
  rc = sqlite3_step(p)==SQLITE_DONE ? 0 : -1;
  if( rc ) buf_printf(pMsg, "database: %s", sqlite3_errmsg(db));
  sqlite3_finalize(p);
  pRes->nEvents += st.nRecords;
  pRes->nRows += st.nRecords;
  pRes->nWarnings += st.nWarnings;
  pRes->nBytes += bytes;
  return rc;
}

/* ------------------------------------------- files: hashes, copies */

/* A plain regular trace file whose hash may be deferred; sets *pBytes. */
static int may_defer_hash(const FoundFile *f, int64_t *pBytes){
  struct stat st;
  if( f->eKind!=KIND_TRACE || stat(f->zPath, &st) || !S_ISREG(st.st_mode) ){
    return 0;
  }
  if( input_path_is_gzip(f->zPath) ) return 0;
  *pBytes = (int64_t)st.st_size;
  return 1;
}

/*
** A file given twice in one ingest (a directory and a file in it, or two
** names of one file) or a copy of another file of the ingest is loaded
** once.  Returns the index in pList of the earlier file when list entry
** i is such a duplicate by path (the same file, after realpath), else -1.
*/
static int same_file_as(const FileList *pList, char **azReal, int i){
  if( azReal[i]==NULL ) return -1;
  for(int j=0; j<i; j++){
    if( azReal[j] && !pList->a[j].zSkip[0]
     && strcmp(azReal[i], azReal[j])==0 ) return j;
  }
  return -1;
}

/* 1 when another usable file of pList has the size of entry i (then its
** hash is needed up front to find a copy). */
static int size_shared(const FileList *pList, const int64_t *aSize, int i){
  for(int j=0; j<pList->n; j++){
    if( j!=i && !pList->a[j].zSkip[0] && aSize[j]==aSize[i] ) return 1;
  }
  return 0;
}

/* Note a duplicate file on the log; it is not loaded. */
static void note_duplicate(const IngestOpts *pOpt, IngestResult *pRes,
                           const char *zPath, const char *zFirst, int bSame){
  pRes->nDuplicates++;
  if( pOpt->pLog ){
    fprintf(pOpt->pLog, bSame ? "profan: %s: given twice (also as %s);"
            " loaded once\n" : "profan: %s: same content as %s; loaded"
            " once\n", zPath, zFirst);
  }
}

/* ------------------------------------------------------------ phases */

/* Phase 1: find the files under the paths.  Returns 0 or -1. */
static int ingest_discover(Ingest *g){
  for(int i=0; i<g->nPath; i++){
    PfError e = {0};
    if( discover_path(g->azPath[i], &g->list, &e) ){
      buf_printf(g->pMsg, "%s: %s", g->azPath[i], e.zMsg);
      return -1;
    }
    buf_printf(&g->source, "%s%s", i ? " " : "", g->azPath[i]);
  }
  return 0;
}

/* Is list entry i a copy of a file hashed before it?  Then it is marked
** a duplicate. */
static int is_copy(Ingest *g, int i){
  FileHash *h = &g->aHash[g->nHash];
  if( h->deferred ) return 0;
  for(int j=0; j<g->nHash; j++){
    if( !g->aHash[j].deferred && g->aHash[j].hash==h->hash
     && g->aHash[j].bytes==h->bytes ){
      FoundFile *f = &g->list.a[i];
      note_duplicate(g->pOpt, g->pRes, f->zPath,
                     g->list.a[g->aHash[j].idx].zPath, 0);
      snprintf(f->zSkip, sizeof(f->zSkip), "duplicate");
      return 1;
    }
  }
  return 0;
}

/* Phase 2: hash every usable file (or defer its hash to its parser);
** note the skipped ones and load a file given twice, or two files of the
** same content, once.  Returns 0 or -1. */
static int ingest_hash_files(Ingest *g){
  FileList *pList = &g->list;
  g->aHash = xcalloc((size_t)pList->n + 1, sizeof(FileHash));
  g->azReal = xcalloc((size_t)pList->n + 1, sizeof(char *));
  g->aSize = xcalloc((size_t)pList->n + 1, sizeof(int64_t));
  for(int i=0; i<pList->n; i++){
    struct stat st;
    if( pList->a[i].zSkip[0] ) continue;
    g->azReal[i] = realpath(pList->a[i].zPath, NULL);
    g->aSize[i] = stat(pList->a[i].zPath, &st)==0 ? (int64_t)st.st_size
                                                   : -1-i;
  }
  for(int i=0; i<pList->n; i++){
    FoundFile *f = &pList->a[i];
    FileHash *h = &g->aHash[g->nHash];
    int j;
    if( f->zSkip[0] ){
      g->pRes->nSkipped++;
      continue;
    }
    if( (j = same_file_as(pList, g->azReal, i))>=0 ){
      note_duplicate(g->pOpt, g->pRes, f->zPath, pList->a[j].zPath, 1);
      snprintf(f->zSkip, sizeof(f->zSkip), "duplicate");
      continue;
    }
    if( !size_shared(pList, g->aSize, i) && may_defer_hash(f, &h->bytes) ){
      h->deferred = 1;
      g->nDeferred++;
    }else if( input_hash_file(f->zPath, &h->hash, &h->bytes, &g->err) ){
      pf_error_format(&g->err, f->zPath, g->pMsg);
      return -1;
    }
    if( is_copy(g, i) ) continue;
    h->idx = i;
    g->nHash++;
  }
  return 0;
}

/* Phase 3: nothing usable is an error; the skipped files are noted (an
** unreadable one is an error under --strict).  Returns 0 or -1. */
static int ingest_check_skipped(Ingest *g){
  const FileList *pList = &g->list;
  if( g->nHash==0 && pList->n==1 ){
    /* one file named and it is not usable: that is the one error line */
    buf_printf(g->pMsg, "%s: %s", pList->a[0].zPath, pList->a[0].zSkip);
    return -1;
  }
  if( g->nHash==0 ){
    buf_printf(g->pMsg, "%s: nothing to ingest: no trace, memory snapshot or "
               "NCCL log found", buf_str(&g->source));
    return -1;
  }
  for(int i=0; i<pList->n; i++){
    const FoundFile *f = &pList->a[i];
    if( !f->zSkip[0] || strcmp(f->zSkip, "duplicate")==0 ) continue;
    if( g->pOpt->strict && f->unreadable ){
      buf_printf(g->pMsg, "%s: %s (--strict: an unreadable file is an error)",
                 f->zPath, f->zSkip);
      return -1;
    }
    if( g->pOpt->pLog ) fprintf(g->pOpt->pLog, "profan: %s: skipped: %s\n",
                                f->zPath, f->zSkip);
  }
  return 0;
}

/*
** BEGIN IMMEDIATE.  When another process holds the write lock (another
** writer), pOpt->xWait says so and the ingest waits for it, up to
** pOpt->timeout seconds (no limit when negative); the time waited goes to
** pRes->waitSeconds so that the MB/s figure leaves it out.  Returns 0, or
** -1 with pErr set.
*/
static int begin_write(sqlite3 *db, const IngestOpts *pOpt,
                       IngestResult *pRes, PfError *pErr){
  /* db_begin: the transaction guard of db.c (no commit but db_commit) */
  return db_begin_wait(db, pOpt->timeout, pOpt->xWait, NULL,
                       &pRes->waitSeconds, pErr);
}

/* Phase 4 (under the write lock, so that no other ingest slips in
** between): a possible copy of a stored run has its deferred files hashed
** now; the run's content hash, "" until the deferred hashes are known
** (matches no stored run).  Returns 0 or -1. */
static int ingest_run_hash(Ingest *g){
  if( g->nDeferred>0 && !run_record_is_new(g->db, g->aHash, g->nHash) ){
    for(int i=0; i<g->nHash; i++){
      FileHash *h = &g->aHash[i];
      const char *zPath = g->list.a[h->idx].zPath;
      if( !h->deferred ) continue;
      if( input_hash_file(zPath, &h->hash, &h->bytes, &g->err) ){
        pf_error_format(&g->err, zPath, g->pMsg);
        return -1;
      }
      h->deferred = 0;
    }
    g->nDeferred = 0;
  }
  if( g->nDeferred==0 ){
    run_record_hash(g->aHash, g->nHash, g->zRunHash, sizeof(g->zRunHash));
  }else{
    g->zRunHash[0] = 0;
  }
  return 0;
}

/* Phase 5: identical content already stored?  Then that run is the
** result (1), unless --replace, which deletes it and a run of the same
** name.  Returns 0 to go on, 1 for a stored copy, -1 on error. */
static int ingest_find_stored(Ingest *g){
  sqlite3_stmt *p = db_prepare(g->db,
    db_statement("ingest-find-stored"), &g->err);
  int64_t aOld[64];
  int nOld = 0, rc;
  if( p==NULL ){ buf_printf(g->pMsg, "database: %s", g->err.zMsg); return -1; }
  sqlite3_bind_text(p, 1, g->zRunHash, -1, SQLITE_STATIC);
  sqlite3_bind_text(p, 2, g->zName, -1, SQLITE_STATIC);
  sqlite3_bind_int(p, 3, g->pOpt->replace);
  while( (rc = sqlite3_step(p))==SQLITE_ROW && nOld<64 ){
    aOld[nOld++] = sqlite3_column_int64(p, 0);
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    buf_printf(g->pMsg, "database: %s", sqlite3_errmsg(g->db));
    return -1;
  }
  if( nOld>0 && !g->pOpt->replace ){
    g->pRes->runId = aOld[0];
    g->pRes->duplicate = 1;
    return 1;
  }
  for(int i=0; i<nOld; i++){
    run_record_note_replaced(g->db, aOld[i], g->pRes);
    if( runref_delete(g->db, aOld[i], &g->err) ){
      buf_printf(g->pMsg, "database: %s", g->err.zMsg);
      return -1;
    }
  }
  return 0;
}

/* Phase 6: the run row, its tags, and a job with a run_file row for each
** trace file (in path order, so that file ids follow the directory
** listing).  Returns 0 or -1. */
static int ingest_record_run(Ingest *g){
  g->runId = run_record_insert(g->db, g->zName, buf_str(&g->source),
                               g->zRunHash, g->pRes, &g->err);
  if( g->runId<0 || run_record_tags(g->db, g->runId, g->pOpt, &g->err) ){
    buf_printf(g->pMsg, "database: %s", g->err.zMsg);
    return -1;
  }
  g->pRes->runId = g->runId;
  g->aJob = xcalloc((size_t)g->nHash, sizeof(TraceJob));
  if( g->pOpt->rank>=0 || g->pOpt->hasBaseTime ){
    /* they describe one trace: another would get the same rank */
    int nTrace = 0;
    for(int i=0; i<g->list.n; i++){
      nTrace += !g->list.a[i].zSkip[0] && g->list.a[i].eKind==KIND_TRACE;
    }
    if( nTrace>1 ){
      buf_printf(g->pMsg, "%s applies to one trace file; %s holds %d",
                 g->pOpt->rank>=0 ? "--rank" : "--base-time",
                 buf_str(&g->source), nTrace);
      g->pRes->usage = 1;
      return -1;
    }
  }
  for(int i=0; i<g->list.n; i++){
    FoundFile *f = &g->list.a[i];
    int k;
    if( f->zSkip[0] ) continue;
    for(k=0; k<g->nHash && g->aHash[k].idx!=i; k++){}
    if( f->eKind==KIND_TRACE ){
      TraceJob *j = &g->aJob[g->nJob++];
      j->zPath = f->zPath;
      j->rankGuess = input_rank_from_name(f->zPath);
      if( g->pOpt->rank>=0 ){
        j->rankGuess = g->pOpt->rank;
        j->rankFromOption = 1;
      }
      j->hashInStream = g->aHash[k].deferred;
      j->iHash = k;
      j->fileId = run_record_file(g->db, g->runId, f->zPath, "trace",
                                  g->aHash[k].bytes, g->aHash[k].hash,
                                  &g->err);
      if( j->fileId<0 ){
        buf_printf(g->pMsg, "database: %s", g->err.zMsg);
        return -1;
      }
      if( trace_ids_reserve(g->db, g->runId, j->fileId,
                            trace_ids_bound(g->aHash[k].bytes,
                                            input_path_is_gzip(f->zPath)),
                            &j->idBase, &j->idLast, &g->err) ){
        buf_printf(g->pMsg, "%s", g->err.zMsg);     /* "database: ..." */
        return -1;
      }
    }
  }
  return 0;
}

/* Phase 7: the files of the kinds with a loader (snapshots,
** flight-recorder dumps, NCCL logs), one after another, and the memory
** tables derived from them.  Returns 0 or -1. */
static int ingest_other_files(Ingest *g){
  for(int i=0; i<g->list.n; i++){
    FoundFile *f = &g->list.a[i];
    int k;
    if( f->zSkip[0] || f->eKind==KIND_TRACE ) continue;
    for(k=0; k<g->nHash && g->aHash[k].idx!=i; k++){}
    if( load_other_file(g->db, g->runId, f, g->aHash[k].bytes,
                        g->aHash[k].hash, g->pOpt, g->pRes, g->pMsg) ){
      return -1;
    }
    g->nOther++;
  }
  if( g->nOther>0 && derive_memory_run(g->db, g->runId, &g->err) ){
    buf_printf(g->pMsg, "%s", g->err.zMsg);
    return -1;
  }
  return 0;
}

/* The files whose order the in-stream linker could not link in one pass
** (TraceJob.relink) linked again from their rows, by the same linker
** (trace_relink.c); then what was kept of the rows while they went in is
** kept again from the rows as they are now (trace_feed.c).  Returns 0 or
** -1 with pMsg set. */
static int ingest_relink(Ingest *g){
  int any = 0;
  double t1;
  for(int i=0; i<g->nJob; i++){
    TraceJob *j = &g->aJob[i];
    int64_t n = 0;
    double t1 = util_now_ms(), c1 = util_thread_cpu_ms();
    if( !j->relink ) continue;
    if( !any && derive_trace_indexes(g->db, &g->err) ) goto fail;
    any = 1;
    if( trace_relink_file(g->db, g->runId, j->fileId, &n, &g->err) ){
      goto fail;
    }
    if( getenv("PROFAN_TIMING") ){
      fprintf(stderr, "profan: %s: linked again from its rows: %lld rows"
              " changed, %.1f ms, cpu %.1f ms\n", j->zPath, (long long)n,
              util_now_ms()-t1, util_thread_cpu_ms()-c1);
    }
  }
  if( !any ) return 0;
  t1 = util_now_ms();
  trace_totals_free(g->pTot);
  trace_spans_free(g->pSpans);
  g->pTot = trace_totals_new();
  g->pSpans = trace_spans_new();
  if( trace_feed_run(g->db, g->runId, g->pTot, g->pSpans, &g->err) ){
    goto fail;
  }
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: rows fed again    %8.1f ms\n",
            util_now_ms()-t1);
  }
  return 0;
fail:
  buf_printf(g->pMsg, "%s", g->err.zMsg);
  return -1;
}

/* Phase 8: the trace files, parsed and loaded (ingest_trace.c), the
** deferred hashes stored, the trace linkage derived.  Returns 0 or -1. */
static int ingest_trace_files(Ingest *g){
  char *zNote = NULL;
  RowidMark mark;
  if( g->nJob==0 ) return 0;
  g->pTot = trace_totals_new();
  g->pSpans = trace_spans_new();
  if( db_rowid_mark(g->db, &mark, &g->err) ){
    buf_printf(g->pMsg, "%s", g->err.zMsg);
    return -1;
  }
  if( ingest_trace_run(g->db, g->runId, g->aJob, g->nJob, g->pTot,
                       g->pSpans, g->pOpt, g->pRes, g->pMsg) ){
    return -1;
  }
  /* the run's rowid range of each trace table, before anything reads it */
  if( db_rowid_record(g->db, g->runId, &mark, &g->err) ){
    buf_printf(g->pMsg, "%s", g->err.zMsg);
    return -1;
  }
  for(int i=0; i<g->nJob; i++) g->nEmpty += g->aJob[i].empty;
  if( g->nEmpty==g->nJob && g->nOther==0 ){
    /* nothing at all to store: never an empty run */
    if( g->nJob==1 ){
      buf_printf(g->pMsg, "%s: ", g->aJob[0].zPath);
      ingest_trace_empty_message(&g->aJob[0], g->pMsg);
    }else{
      buf_printf(g->pMsg, "%s: nothing to ingest: none of the %d traces"
                 " holds an event to store", buf_str(&g->source), g->nJob);
    }
    return -1;
  }
  if( g->nDeferred>0 ){
    for(int i=0; i<g->nJob; i++){
      const TraceJob *j = &g->aJob[i];
      if( j->hashInStream ) g->aHash[j->iHash].hash = j->hash;
    }
    if( run_record_set_hash(g->db, g->runId, g->aHash, g->nHash, g->pMsg) ){
      return -1;
    }
  }
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: parse+load      %8.1f ms\n",
            util_now_ms()-g->t0);
  }
  if( ingest_relink(g) ) return -1;
  if( trace_totals_write_gpu(g->pTot, g->db, g->runId, &g->err)
      || derive_trace_run(g->db, g->runId, g->pTot, g->pSpans, &zNote,
                          &g->err) ){
    buf_printf(g->pMsg, "%s", g->err.zMsg);
    return -1;
  }
  trace_totals_free(g->pTot);
  g->pTot = NULL;
  if( zNote && g->pOpt->pLog ){
    fprintf(g->pOpt->pLog, "profan: note: %s\n", zNote);
  }
  free(zNote);
  return 0;
}

/* Print how long a phase took when PROFAN_TIMING is set. */
static void timing(const char *zWhat, double t1){
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: %-16s%8.1f ms\n", zWhat, util_now_ms()-t1);
  }
}

/* Phase 9: collectives, overlap, fits (after the trace linkage), the
** critical path, the operator model, the core metrics (every run: a
** snapshot-only run has memory metrics), then commit.  Returns 0 or -1. */
static int ingest_derive_commit(Ingest *g){
  double t1;
  if( derive_run_after_load(g->db, g->runId, g->nJob>0, g->pSpans,
                            &g->err) ){
    buf_printf(g->pMsg, "%s", g->err.zMsg);
    return -1;
  }
  trace_spans_free(g->pSpans);          /* before the commit */
  g->pSpans = NULL;
  g->pRes->nFiles = g->nJob - g->nEmpty + g->nOther;
  t1 = util_now_ms();
  if( db_commit(g->db, &g->err) ){
    buf_printf(g->pMsg, "database: %s", g->err.zMsg);
    return -1;
  }
  g->inTxn = 0;
  timing("commit", t1);
  return 0;
}

/* After a failure: say what SQLite's own message leaves unsaid. */
static void name_db_error(Ingest *g){
  sqlite3 *db = g->db;
  Buf *pMsg = g->pMsg;
  if( (sqlite3_extended_errcode(db)==SQLITE_IOERR_NOMEM
       || sqlite3_errcode(db)==SQLITE_NOMEM)
      && strstr(buf_str(pMsg), "out of memory")==NULL ){
    /* SQLite's message said what it was doing ("disk I/O error" for
    ** SQLITE_IOERR_NOMEM, "unable to open a temporary database file") */
    buf_reset(pMsg);
    buf_printf(pMsg, "database: out of memory");
  }
  if( g->inTxn && db_lost_reason(db)
      && strstr(buf_str(pMsg), db_lost_reason(db))==NULL ){
    /* SQLite ended the transaction after an error (out of memory, I/O)
    ** and what failed next only says so indirectly: name the cause */
    buf_reset(pMsg);
    buf_printf(pMsg, "database: %s", db_lost_reason(db));
  }
  if( strncmp(buf_str(pMsg), "database", 8)==0
      && (sqlite3_extended_errcode(db)==SQLITE_IOERR_WRITE
          || (db_lost_reason(db) && db_lost_errcode()==SQLITE_IOERR_WRITE)) ){
    /* SQLite's "disk I/O error" for a failed write (EFBIG past a
    ** file-size limit, EDQUOT, EIO): say what was being written */
    buf_printf(pMsg, " (writing the database failed: disk full, quota or "
               "file size limit?)");
  }
}

static void ingest_free(Ingest *g){
  trace_totals_free(g->pTot);
  trace_spans_free(g->pSpans);
  free(g->aJob);
  free(g->aHash);
  free(g->zName);
  buf_free(&g->source);
  for(int i=0; g->azReal && i<g->list.n; i++) free(g->azReal[i]);
  free(g->azReal);
  free(g->aSize);
  discover_filelist_free(&g->list);
}

/* The ingest, phase by phase.  Returns 0 (also for a stored copy: see
** pRes->duplicate), or -1 with the message in pMsg. */
static int ingest_one(sqlite3 *db, const char **azPath, int nPath,
                      const IngestOpts *pOpt, IngestResult *pRes, Buf *pMsg){
  Ingest g;
  int rc = -1, stored;
  memset(&g, 0, sizeof(g));
  memset(pRes, 0, sizeof(*pRes));
  g.db = db;
  g.azPath = azPath;
  g.nPath = nPath;
  g.pOpt = pOpt;
  g.pRes = pRes;
  g.pMsg = pMsg;
  g.t0 = util_now_ms();
  buf_init(&g.source);
  if( ingest_discover(&g) || ingest_hash_files(&g)
   || ingest_check_skipped(&g) ) goto done;
  g.zName = pOpt->zName ? xstrdup(pOpt->zName)
                        : run_record_default_name(azPath[0],
                                                  &pRes->namePrefixed);
  if( begin_write(db, pOpt, pRes, &g.err) ){
    buf_printf(pMsg, "%s", g.err.zMsg);
    pRes->errKind = PF_KIND_DB;
    goto done;
  }
  g.inTxn = 1;
  if( ingest_run_hash(&g) ) goto done;
  stored = ingest_find_stored(&g);
  if( stored ){
    if( stored>0 ) rc = 0;
    goto done;
  }
  if( ingest_record_run(&g) || ingest_other_files(&g)
   || ingest_trace_files(&g) || ingest_derive_commit(&g) ) goto done;
  rc = 0;
done:
  if( rc ){
    int e = sqlite3_errcode(db) & 0xff;
    /* the database (the last statement's error: nothing runs on the
    ** connection after the failure) or the memory failed, else an input
    ** file did */
    if( pRes->errKind==PF_KIND_NONE ){
      pRes->errKind = (e!=SQLITE_OK && e!=SQLITE_ROW && e!=SQLITE_DONE)
          || g.err.kind==PF_KIND_DB
          || (g.inTxn && db_lost_reason(db))
          || strncmp(buf_str(pMsg), "database", 8)==0
          || strstr(buf_str(pMsg), "out of memory")!=NULL
          ? PF_KIND_DB : PF_KIND_INPUT;
    }
    name_db_error(&g);
  }
  if( g.inTxn ) db_rollback(db);
  pRes->seconds = (util_now_ms() - g.t0)/1000.0;
  ingest_free(&g);
  return rc;
}

/* The notes of an ingest (files skipped, records repaired) go to a buffer
** and are printed once it succeeded: a failed ingest prints only its one
** error line. */
int ingest_run(sqlite3 *db, const char **azPath, int nPath,
               const IngestOpts *pOpt, IngestResult *pRes, Buf *pMsg){
  IngestOpts opt = *pOpt;
  char *zLog = NULL;
  size_t nLog = 0;
  int rc;
  if( pOpt->pLog ) opt.pLog = open_memstream(&zLog, &nLog);
  if( opt.pLog==NULL ) opt.pLog = pOpt->pLog;   /* cannot buffer */
  rc = ingest_one(db, azPath, nPath, &opt, pRes, pMsg);
  if( opt.pLog!=pOpt->pLog ){
    fclose(opt.pLog);
    if( rc==0 && zLog && nLog ) fwrite(zLog, 1, nLog, pOpt->pLog);
    free(zLog);
  }
  return rc;
}
