/*
** ingest.c — the ingest driver: discover, hash, one transaction, parallel
** parse, single writer, derive, commit.
**
** Pipeline position: orchestrates every stage.  Threads: N parser workers
** (one file at a time each) fill fixed-size event batches and pass them
** through a bounded queue to the calling thread, the only one that touches
** the database.  Memory is bounded by the queue, not by the trace size.
** Any failure sets the abort flag, drains the queue, joins the workers and
** rolls back: the database is left exactly as it was.
*/
#include "ingest.h"
#include "db.h"
#include "derive_trace.h"
#include "derive_hta.h"
#include "derive_op.h"
#include "discover.h"
#include "input.h"
#include "intern.h"
#include "load_kinds.h"
#include "link_trace.h"
#include "load_trace.h"
#include "parse_trace.h"
#include "runref.h"

#include <assert.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BATCH_EVENTS 4096
#define QUEUE_CAP 8

/* ----------------------------------------------------- batches, queue */

typedef struct EvBatch {
  int nEv;
  int64_t rank;                 /* rank to store for these rows */
  int64_t inputOffset;          /* bytes read when the batch was sent */
  TraceEvent aEv[BATCH_EVENTS];
  uint32_t aStr[BATCH_EVENTS][5];  /* arena offsets: name cat dims types conc */
  int aCollIdx[BATCH_EVENTS];   /* index into aColl, -1 = none */
  CollArgs *aColl;              /* collective args of the few events with them */
  int nColl, nCollAlloc;
  Buf arena;
  struct EvBatch *pNext;        /* free list */
} EvBatch;

typedef struct Job {
  const char *zPath;
  int64_t fileId;
  int64_t rankGuess;            /* from the file name, -1 if none */
  TraceInfo info;
  PfError err;
  int rc;
  double ms;
  int64_t nNoBase;              /* events emitted before the base time */
  int64_t bytesRead;
  LinkStats link;               /* what the in-stream linker could not do */
  Linker *pLink;                /* the writer's linker for this file */
  int started;                  /* the writer has seen a batch of it */
  int hashInStream;             /* plain file hashed while parsed */
  int iHash;                    /* its FileHash entry */
  uint64_t hash;                /* the hash, when hashInStream */
  int64_t rankInserted;         /* rank the file's rows were written with */
} Job;

enum { MSG_BATCH, MSG_DONE };
typedef struct Msg { int type; Job *pJob; EvBatch *pBatch; } Msg;

typedef struct Shared {
  pthread_mutex_t mu;
  pthread_cond_t cvPush, cvPop, cvFree;
  Msg aQ[QUEUE_CAP];
  int qHead, qLen;
  EvBatch *pFree;
  int nBatch;                   /* batches allocated */
  int nBatchMax;
  volatile int abort;
  int linkInWorker;             /* link in the parser threads, not the writer */
  Job *aJob;
  int nJob, iNext;              /* next job to take */
} Shared;

static void q_push(Shared *s, Msg m){
  pthread_mutex_lock(&s->mu);
  while( s->qLen==QUEUE_CAP ) pthread_cond_wait(&s->cvPush, &s->mu);
  s->aQ[(s->qHead + s->qLen) % QUEUE_CAP] = m;
  s->qLen++;
  pthread_cond_signal(&s->cvPop);
  pthread_mutex_unlock(&s->mu);
}

static Msg q_pop(Shared *s){
  Msg m;
  pthread_mutex_lock(&s->mu);
  while( s->qLen==0 ) pthread_cond_wait(&s->cvPop, &s->mu);
  m = s->aQ[s->qHead];
  s->qHead = (s->qHead+1) % QUEUE_CAP;
  s->qLen--;
  pthread_cond_signal(&s->cvPush);
  pthread_mutex_unlock(&s->mu);
  return m;
}

/* A batch from the free list, allocating up to nBatchMax of them. */
static EvBatch *batch_get(Shared *s){
  EvBatch *b;
  pthread_mutex_lock(&s->mu);
  while( s->pFree==NULL && s->nBatch>=s->nBatchMax ){
    pthread_cond_wait(&s->cvFree, &s->mu);
  }
  if( s->pFree ){
    b = s->pFree;
    s->pFree = b->pNext;
  }else{
    b = xcalloc(1, sizeof(*b));
    s->nBatch++;
  }
  pthread_mutex_unlock(&s->mu);
  b->nEv = 0;
  b->nColl = 0;
  buf_reset(&b->arena);
  return b;
}

static void batch_put(Shared *s, EvBatch *b){
  pthread_mutex_lock(&s->mu);
  b->pNext = s->pFree;
  s->pFree = b;
  pthread_cond_signal(&s->cvFree);
  pthread_mutex_unlock(&s->mu);
}

/* ------------------------------------------------------------ workers */

typedef struct Worker {
  Shared *s;
  Job *pJob;
  Input *pIn;
  EvBatch *pCur;
  Linker *pLink;                /* when the parser thread links */
} Worker;

static uint32_t arena_add_n(Buf *a, const char *z, size_t n){
  uint32_t off = (uint32_t)a->n;
  assert( strlen(z)==n );
  buf_append(a, z, n+1);
  return off;
}

static uint32_t arena_add(Buf *a, const char *z){
  return arena_add_n(a, z, strlen(z));
}

static void worker_flush(Worker *w){
  if( w->pCur && w->pCur->nEv>0 ){
    Msg m = {MSG_BATCH, w->pJob, w->pCur};
    w->pCur->inputOffset = input_offset(w->pIn);
    q_push(w->s, m);
    w->pCur = NULL;
  }
}

/* Copy a parsed event into the current batch. */
static int worker_emit(Worker *w, const TraceEvent *pEv){
  Job *j = w->pJob;
  EvBatch *b;
  TraceEvent *e;
  int64_t rank;
  if( w->s->abort ) return 1;
  rank = j->info.hasRank ? j->info.rank : (j->rankGuess>=0 ? j->rankGuess : 0);
  if( w->pCur && (w->pCur->nEv==BATCH_EVENTS || w->pCur->rank!=rank) ){
    worker_flush(w);
  }
  if( w->pCur==NULL ){
    w->pCur = batch_get(w->s);
    w->pCur->rank = rank;
  }
  b = w->pCur;
  e = &b->aEv[b->nEv];
  *e = *pEv;

  b->aStr[b->nEv][0] = arena_add_n(&b->arena, pEv->zName,
                                   (size_t)pEv->nName);
  b->aStr[b->nEv][1] = arena_add(&b->arena, pEv->zCat);
  b->aStr[b->nEv][2] = arena_add(&b->arena, pEv->zInputDims);
  b->aStr[b->nEv][3] = arena_add(&b->arena, pEv->zInputTypes);
  b->aStr[b->nEv][4] = arena_add(&b->arena, pEv->zConcreteInputs);
  b->aCollIdx[b->nEv] = -1;
  if( pEv->pColl ){
    if( b->nColl==b->nCollAlloc ){
      b->nCollAlloc = b->nCollAlloc ? b->nCollAlloc*2 : 16;
      b->aColl = xrealloc(b->aColl, (size_t)b->nCollAlloc*sizeof(CollArgs));
    }
    b->aColl[b->nColl] = *pEv->pColl;
    b->aCollIdx[b->nEv] = b->nColl++;
  }
  b->nEv++;
  return 0;
}

/* Parser sink: time base, then into the batch for the writer (which runs
** the in-stream linker: parsing is the heavier half, so the linker sits
** on the writer's side of the queue). */
static int worker_sink(void *ctx, const TraceEvent *pEv){
  Worker *w = ctx;
  Job *j = w->pJob;
  TraceEvent ev;
  if( w->s->abort ) return 1;
  if( pEv->kind==TEV_OTHER ) return 0;
  /* baseTimeNanoseconds comes before every event or after all of them */
  ev = *pEv;
  if( j->info.hasBaseTime ) ev.ts += j->info.baseTimeNs;
  else j->nNoBase++;
  if( w->pLink ) return linker_event(w->pLink, &ev, &j->err);
  return worker_emit(w, &ev);
}

static int worker_link_emit(void *ctx, const TraceEvent *e){
  return worker_emit((Worker*)ctx, e);
}

static void *worker_main(void *arg){
  Shared *s = arg;
  for(;;){
    Worker w;
    Job *j;
    double t0;
    Msg m;
    pthread_mutex_lock(&s->mu);
    j = s->iNext<s->nJob ? &s->aJob[s->iNext++] : NULL;
    pthread_mutex_unlock(&s->mu);
    if( j==NULL ) break;
    memset(&w, 0, sizeof(w));
    w.s = s;
    w.pJob = j;
    t0 = util_now_ms();
    if( s->abort ){
      j->rc = -2;            /* not attempted */
    }else{
      w.pIn = input_open(j->zPath, &j->err);
      if( w.pIn==NULL ){
        j->rc = -1;
      }else{
        if( s->linkInWorker ){
          w.pLink = linker_new(j->fileId, worker_link_emit, &w);
        }
        if( j->hashInStream ) input_hash_begin(w.pIn);
        j->rc = trace_parse(w.pIn, worker_sink, &w, &j->info, &j->err);
        j->bytesRead = input_offset(w.pIn);
        if( j->rc==0 && j->hashInStream ){
          j->rc = input_hash_end(w.pIn, &j->hash, &j->err);
        }
        if( j->rc==0 && w.pLink ) j->rc = linker_finish(w.pLink, &j->err);
        if( j->rc==0 ) worker_flush(&w);
        if( w.pLink ){
          j->link = *linker_stats(w.pLink);
          linker_free(w.pLink);
        }
        input_close(w.pIn);
      }
    }
    if( w.pCur ){ batch_put(s, w.pCur); w.pCur = NULL; }
    j->ms = util_now_ms() - t0;
    if( getenv("PROFAN_TIMING") ){
      fprintf(stderr, "profan: parser thread cpu %8.1f ms (all its files)\n",
              util_thread_cpu_ms());
    }
    m.type = MSG_DONE;
    m.pJob = j;
    m.pBatch = NULL;
    q_push(s, m);
  }
  return NULL;
}

/* ------------------------------------------------------------- writer */

static int64_t guess_rank(const char *zPath){
  return discover_rank_from_name(zPath);
}

static char *run_name_default(const char *zPath){
  char *z = xstrdup(zPath);
  size_t n = strlen(z);
  char *zBase, *zDot;
  while( n>1 && z[n-1]=='/' ) z[--n] = 0;
  zBase = xstrdup(util_basename(z));
  free(z);
  /* strip .pt.trace.json.gz, .json.gz, .json */
  zDot = strstr(zBase, ".pt.trace.json");
  if( zDot==NULL ) zDot = strstr(zBase, ".json");
  if( zDot && zDot!=zBase ) *zDot = 0;
  return zBase;
}

/* Insert the run row with a unique name; returns its id or -1. */
static int64_t insert_run(sqlite3 *db, const char *zWant, const char *zSource,
                          const char *zHash, IngestResult *pRes,
                          PfError *pErr){
  sqlite3_stmt *p;
  int64_t id = -1;
  char zNow[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(zNow, sizeof(zNow), "%Y-%m-%dT%H:%M:%SZ", &tm);
  p = db_prepare(db,
    "INSERT INTO run(name, created_at, source_path, content_hash, tool_version)"
    " VALUES(?1, ?2, ?3, ?4, ?5)", pErr);
  if( p==NULL ) return -1;
  for(int k=1; k<1000 && id<0; k++){
    char *zName = k==1 ? xstrdup(zWant) : xasprintf("%s-%d", zWant, k);
    sqlite3_bind_text(p, 1, zName, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(p, 2, zNow, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 3, zSource, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 4, zHash, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 5, PROFAN_VERSION, -1, SQLITE_STATIC);
    if( sqlite3_step(p)==SQLITE_DONE ){
      id = sqlite3_last_insert_rowid(db);
      snprintf(pRes->zName, sizeof(pRes->zName), "%s", zName);
      if( k>1 ){
        pRes->takenBy = db_int(db, 0, "SELECT id FROM run WHERE name=%Q",
                               zWant);
        snprintf(pRes->zTakenName, sizeof(pRes->zTakenName), "%s", zWant);
      }
    }else if( sqlite3_extended_errcode(db)!=SQLITE_CONSTRAINT_UNIQUE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      free(zName);
      break;
    }
    sqlite3_reset(p);
    free(zName);
  }
  sqlite3_finalize(p);
  return id;
}

static int insert_tags(sqlite3 *db, int64_t runId, const IngestOpts *pOpt,
                       PfError *pErr){
  sqlite3_stmt *p;
  if( pOpt->nTag==0 ) return 0;
  p = db_prepare(db, "INSERT OR REPLACE INTO run_tag VALUES(?1,?2,?3)", pErr);
  if( p==NULL ) return -1;
  for(int i=0; i<pOpt->nTag; i++){
    sqlite3_bind_int64(p, 1, runId);
    sqlite3_bind_text(p, 2, pOpt->azTagKey[i], -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 3, pOpt->azTagVal[i], -1, SQLITE_STATIC);
    if( sqlite3_step(p)!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      sqlite3_finalize(p);
      return -1;
    }
    sqlite3_reset(p);
  }
  sqlite3_finalize(p);
  return 0;
}

/* Insert a run_file row; returns its id or -1. */
static int64_t insert_file(sqlite3 *db, int64_t runId, const char *zPath,
                           const char *zKind, int64_t bytes, uint64_t hash,
                           PfError *pErr){
  sqlite3_stmt *p = db_prepare(db,
    "INSERT INTO run_file(run_id, path, kind, bytes, hash)"
    " VALUES(?1,?2,?3,?4,?5)", pErr);
  char zHash[20];
  int64_t id = -1;
  if( p==NULL ) return -1;
  snprintf(zHash, sizeof(zHash), "%016llx", (unsigned long long)hash);
  sqlite3_bind_int64(p, 1, runId);
  sqlite3_bind_text(p, 2, zPath, -1, SQLITE_STATIC);
  sqlite3_bind_text(p, 3, zKind, -1, SQLITE_STATIC);
  sqlite3_bind_int64(p, 4, bytes);
  sqlite3_bind_text(p, 5, zHash, -1, SQLITE_TRANSIENT);
  if( sqlite3_step(p)==SQLITE_DONE ) id = sqlite3_last_insert_rowid(db);
  else pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
  sqlite3_finalize(p);
  return id;
}

/* After a trace file is parsed: its run_file columns and fix-ups. */
static int finish_trace_file(sqlite3 *db, TraceLoader *pLoad,
                             TraceSpans *pSpans, int64_t runId, Job *j,
                             PfError *pErr){
  TraceInfo *in = &j->info;
  int64_t rank = in->hasRank ? in->rank : (j->rankGuess>=0 ? j->rankGuess : 0);
  const char *zRankSrc = in->hasRank ? "distributedInfo"
                       : j->rankGuess>=0 ? "file name" : "default";
  int64_t rankUsed = j->rankInserted;
  TraceTarget t;
  sqlite3_stmt *p;
  int needBase = in->hasBaseTime && j->nNoBase>0;
  if( needBase || rank!=rankUsed ){
    if( load_trace_fixup(db, j->fileId, needBase ? in->baseTimeNs : 0,
                         rank!=rankUsed, rank, pErr) ) return -1;
  }
  t.runId = runId;
  t.fileId = j->fileId;
  t.rank = rank;
  load_trace_file_rank(pLoad, j->fileId, rank);
  trace_spans_file_done(pSpans, j->fileId, needBase ? in->baseTimeNs : 0,
                        rank);
  if( load_trace_devices(pLoad, &t, in, pErr) ) return -1;
  p = db_prepare(db,
    "UPDATE run_file SET rank=?1, rank_source=?2, n_records=?3, parse_ms=?4,"
    " warnings=?5, time_regime=?6, base_time_ns=?7, schema_version=?8,"
    " host_name=?9, world_size=?10, hash=coalesce(?12, hash) WHERE id=?11",
    pErr);
  if( p==NULL ) return -1;
  sqlite3_bind_int64(p, 1, rank);
  sqlite3_bind_text(p, 2, zRankSrc, -1, SQLITE_STATIC);
  sqlite3_bind_int64(p, 3, in->nEvents);
  sqlite3_bind_double(p, 4, j->ms);
  sqlite3_bind_int64(p, 5, in->nWarnings);
  sqlite3_bind_text(p, 6, in->zTimeRegime, -1, SQLITE_STATIC);
  db_bind_int_or_null(p, 7, in->hasBaseTime, in->baseTimeNs);
  db_bind_int_or_null(p, 8, in->schemaVersion>=0, in->schemaVersion);
  db_bind_text_or_null(p, 9, in->zHostName[0] ? in->zHostName : NULL, -1);
  db_bind_int_or_null(p, 10, in->worldSize>=0, in->worldSize);
  sqlite3_bind_int64(p, 11, j->fileId);
  if( j->hashInStream ){
    char zHash[20];
    snprintf(zHash, sizeof(zHash), "%016llx", (unsigned long long)j->hash);
    sqlite3_bind_text(p, 12, zHash, -1, SQLITE_TRANSIENT);
  }
  if( sqlite3_step(p)!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(p);
    return -1;
  }
  sqlite3_finalize(p);
  return 0;
}

static void show_progress(const IngestOpts *pOpt, int64_t nBytes,
                          int64_t nRows, double t0){
  double s = (util_now_ms() - t0)/1000.0;
  fprintf(stderr, "\rprofan: %.1f MB parsed, %lld rows, %.1f MB/s   ",
          nBytes/1e6, (long long)nRows, s>0 ? nBytes/1e6/s : 0.0);
  (void)pOpt;
}

/* What the linker's emit callback needs to store a row. */
typedef struct WriterCtx {
  TraceLoader *pLoad;
  TraceTarget t;            /* file being linked */
  PfError *pErr;
} WriterCtx;

static int writer_emit(void *ctx, const TraceEvent *e){
  WriterCtx *w = ctx;
  return load_trace_event(w->pLoad, &w->t, e, w->pErr) ? 1 : 0;
}

/* Timestamps of unknown origin (no baseTimeNanoseconds, values too small
** to be epoch microseconds) cannot be lined up with another trace's: when
** such a trace shares a run with a trace of another time regime, say so
** (per-rank numbers stay right; times across ranks do not compare).
** Called only when every job was parsed: each has its regime. */
static void note_mixed_clocks(const Job *aJob, int nJob, FILE *pLog){
  const Job *pU = NULL, *pE = NULL;
  for(int i=0; i<nJob; i++){
    if( strcmp(aJob[i].info.zTimeRegime, "unknown_origin")==0 ){
      if( pU==NULL ) pU = &aJob[i];
    }else if( pE==NULL ){
      pE = &aJob[i];
    }
  }
  if( pU && pE && pLog ){
    fprintf(pLog, "profan: note: %s has timestamps of unknown origin and %s"
            " %s: times across these traces do not line up\n", pU->zPath,
            pE->zPath, pE->info.zTimeRegime);
  }
}

/*
** Parse every trace job with worker threads and load the rows.  Returns 0,
** or -1 with the message in pMsg.
*/
static int load_traces(sqlite3 *db, int64_t runId, Job *aJob, int nJob,
                       TraceSpans *pSpans, const IngestOpts *pOpt,
                       IngestResult *pRes, Buf *pMsg){
  Shared s;
  pthread_t aTh[16];
  int nTh = pOpt->nThreads>0 ? pOpt->nThreads : (int)sysconf(_SC_NPROCESSORS_ONLN);
  int nDone = 0, failed = 0;
  Intern *pIntern = intern_new(db);
  PfError err = {0};
  TraceLoader *pLoad = load_trace_new(db, pIntern, &err);
  WriterCtx wc;
  double t0 = util_now_ms(), tLast = t0, tWait = 0;
  int64_t nBytesDone = 0;

  if( pLoad==NULL ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    intern_free(pIntern);
    return -1;
  }
  memset(&wc, 0, sizeof(wc));
  load_trace_set_spans(pLoad, pSpans);
  wc.pLoad = pLoad;
  wc.pErr = &err;

  if( nTh<1 ) nTh = 1;
  if( nTh>16 ) nTh = 16;
  if( nTh>nJob ) nTh = nJob;
  memset(&s, 0, sizeof(s));
  pthread_mutex_init(&s.mu, NULL);
  pthread_cond_init(&s.cvPush, NULL);
  pthread_cond_init(&s.cvPop, NULL);
  pthread_cond_init(&s.cvFree, NULL);
  s.aJob = aJob;
  s.nJob = nJob;
  s.nBatchMax = QUEUE_CAP + nTh + 1;
  /* The linker runs in the parser threads by default: the writer is the
  ** busier thread (on the 10x bench trace, thread CPU: parser 0.95 s and
  ** writer 1.55 s with the linker in the writer; 1.4 s each with it in
  ** the parsers), and each file's parser links its own file in parallel.
  ** PROFAN_LINK=writer moves it to the writer thread. */
  s.linkInWorker = !(getenv("PROFAN_LINK")
                     && strcmp(getenv("PROFAN_LINK"), "writer")==0);
  for(int i=0; i<nTh; i++) pthread_create(&aTh[i], NULL, worker_main, &s);

  while( nDone<nJob ){
    Msg m;
    double tw = util_now_ms();
    m = q_pop(&s);
    tWait += util_now_ms() - tw;
    if( m.type==MSG_BATCH ){
      EvBatch *b = m.pBatch;
      Job *j = m.pJob;
      if( !failed ){
        if( !j->started ){
          j->started = 1;
          j->rankInserted = b->rank;
          if( !s.linkInWorker ) j->pLink = linker_new(j->fileId, writer_emit, &wc);
        }
        wc.t.runId = runId;
        wc.t.fileId = j->fileId;
        wc.t.rank = j->rankInserted;
        for(int i=0; i<b->nEv; i++){
          TraceEvent *e = &b->aEv[i];
          e->zName = b->arena.z + b->aStr[i][0];
          e->zCat = b->arena.z + b->aStr[i][1];
          e->zInputDims = b->arena.z + b->aStr[i][2];
          e->zInputTypes = b->arena.z + b->aStr[i][3];
          e->zConcreteInputs = b->arena.z + b->aStr[i][4];
          e->pColl = b->aCollIdx[i]>=0 ? &b->aColl[b->aCollIdx[i]] : NULL;
          if( j->pLink ? linker_event(j->pLink, e, &err)
                       : writer_emit(&wc, e) ){
            pf_error_format(&err, m.pJob->zPath, pMsg);
            failed = 1;
            s.abort = 1;
            break;
          }
        }
      }
      if( pOpt->progress && util_now_ms()-tLast>500 ){
        tLast = util_now_ms();
        show_progress(pOpt, nBytesDone + b->inputOffset, load_trace_rows(pLoad), t0);
      }
      batch_put(&s, b);
    }else{
      Job *j = m.pJob;
      nDone++;
      if( j->pLink && !failed && j->rc==0 ){
        wc.t.runId = runId;
        wc.t.fileId = j->fileId;
        wc.t.rank = j->rankInserted;
        if( linker_finish(j->pLink, &err) ){
          pf_error_format(&err, j->zPath, pMsg);
          failed = 1;
          s.abort = 1;
        }
      }
      if( j->pLink ){
        j->link = *linker_stats(j->pLink);
        linker_free(j->pLink);
        j->pLink = NULL;
      }
      if( failed || j->rc==-2 ) continue;
      if( j->rc ){
        pf_error_format(&j->err, j->zPath, pMsg);
        failed = 1;
        s.abort = 1;
        continue;
      }
      if( pOpt->strict && j->info.nWarnings>0 ){
        buf_printf(pMsg, "%s:%s (--strict: %lld warning%s)", j->zPath,
                   j->info.zFirstWarning, (long long)j->info.nWarnings,
                   j->info.nWarnings==1 ? "" : "s");
        failed = 1;
        s.abort = 1;
        continue;
      }
      if( nJob>1 && !j->info.hasRank && j->rankGuess<0 ){
        /* rank 0 by default would merge it with another trace */
        buf_printf(pMsg, "%s: no rank (no distributedInfo, no rank in the"
                   " file name) in a run of %d traces: name the file"
                   " rank<N>... or ingest it as a run of its own", j->zPath,
                   nJob);
        failed = 1;
        s.abort = 1;
        continue;
      }
      if( finish_trace_file(db, pLoad, pSpans, runId, j, &err) ){
        buf_printf(pMsg, "%s: %s", j->zPath, err.zMsg);
        failed = 1;
        s.abort = 1;
        continue;
      }
      nBytesDone += j->bytesRead;
      if( getenv("PROFAN_TIMING") ){
        fprintf(stderr, "profan: %s: linker cpu=%d gpu=%d steps=%d rewinds=%lld"
                " pending=%lld\n", j->zPath, j->link.needCpuSweep,
                j->link.needGpuLink, j->link.needSteps,
                (long long)j->link.nRewinds, (long long)j->link.nPendingMax);
      }
      if( j->link.needCpuSweep ) pRes->fallback |= DERIVE_CPU_SWEEP;
      if( j->link.needGpuLink ) pRes->fallback |= DERIVE_GPU_LINK;
      if( j->link.needSteps ) pRes->fallback |= DERIVE_STEPS;
      pRes->nEvents += j->info.nEvents;
      pRes->nWarnings += j->info.nWarnings;
      pRes->nBytes += j->bytesRead;
      if( j->info.nWarnings>0 && pOpt->pLog ){
        fprintf(pOpt->pLog, "profan: %s: %lld event%s skipped or repaired "
                "(first at byte %s)\n", j->zPath,
                (long long)j->info.nWarnings, j->info.nWarnings==1 ? "" : "s",
                j->info.zFirstWarning);
      }
    }
  }
  for(int i=0; i<nTh; i++) pthread_join(aTh[i], NULL);
  for(int i=0; i<nJob; i++){
    linker_free(aJob[i].pLink);
    aJob[i].pLink = NULL;
  }
  if( pOpt->progress ) fprintf(stderr, "\r%60s\r", "");
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: writer waited    %8.1f ms, cpu %8.1f ms\n", tWait,
            util_thread_cpu_ms());
  }
  if( !failed ) note_mixed_clocks(aJob, nJob, pOpt->pLog);
  pRes->nRows += load_trace_rows(pLoad);
  if( load_trace_gpu_without_step(pLoad)>0 ) pRes->fallback |= DERIVE_GPU_STEPS;
  if( !failed && load_trace_summary(pLoad, runId, &err) ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    failed = 1;
  }
  /* the 009 summaries from the writer's totals, unless the database will
  ** redo some linkage (derive_summary.c then reads the rows); steps redone
  ** later (DERIVE_STEPS, DERIVE_GPU_STEPS) only change the kernels per
  ** step, which derive_summary.c totals again */
  if( !failed && load_trace_summaries(pLoad, runId,
                     (pRes->fallback & (DERIVE_CPU_SWEEP|DERIVE_GPU_LINK))!=0
                     || getenv("PROFAN_DB_LINK")!=NULL, &err)<0 ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    failed = 1;
  }
  while( s.pFree ){
    EvBatch *b = s.pFree;
    s.pFree = b->pNext;
    buf_free(&b->arena);
    free(b->aColl);
    free(b);
  }
  pthread_mutex_destroy(&s.mu);
  pthread_cond_destroy(&s.cvPush);
  pthread_cond_destroy(&s.cvPop);
  pthread_cond_destroy(&s.cvFree);
  load_trace_free(pLoad);
  intern_free(pIntern);
  return failed ? -1 : 0;
}

/*
** Load one snapshot / flight-recorder / NCCL file in the writer thread and
** record its run_file row.  Returns 0, or -1 with the message in pMsg.
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
  t.fileId = insert_file(db, runId, f->zPath, discover_kind_name(f->eKind),
                         bytes, hash, &err);
  if( t.fileId<0 ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    return -1;
  }
  rc = f->eKind==KIND_PICKLE ? load_pickle_file(db, &t, &st, &err)
     : f->eKind==KIND_FR_JSON ? load_fr_json_file(db, &t, &st, &err)
                             : load_nccl_file(db, &t, &st, &err);
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
    "UPDATE run_file SET kind=coalesce(?1, kind), rank=?2, rank_source=?3,"
    " n_records=?4, parse_ms=?5, warnings=?6 WHERE id=?7", &err);
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

/* ------------------------------------------------------------- driver */

/* A usable file's content hash and size.  A plain trace file of a run
** that cannot be a copy of a stored one is hashed by its parser thread
** while it is read (deferred), saving a read of the whole file up front. */
typedef struct FileHash {
  uint64_t hash;
  int64_t bytes;
  int idx;              /* index in the FileList */
  int deferred;         /* hash not known yet: computed while parsing */
} FileHash;

static int cmp_hash(const void *a, const void *b){
  const FileHash *x = a, *y = b;
  return x->hash<y->hash ? -1 : x->hash>y->hash ? 1 : 0;
}

/* The run's content hash into zOut (17 bytes or more): XXH64 over the
** (hash, size) pairs of its files sorted by hash. */
static void run_hash(const FileHash *a, int n, char *zOut, size_t nOut){
  FileHash *aSort = xmalloc(((size_t)n+1)*sizeof(FileHash));
  Hash64 h;
  memcpy(aSort, a, (size_t)n*sizeof(FileHash));
  qsort(aSort, (size_t)n, sizeof(FileHash), cmp_hash);
  hash64_init(&h, 0);
  for(int i=0; i<n; i++){
    hash64_update(&h, &aSort[i].hash, sizeof(uint64_t));
    hash64_update(&h, &aSort[i].bytes, sizeof(int64_t));
  }
  snprintf(zOut, nOut, "%016llx", (unsigned long long)hash64_final(&h));
  free(aSort);
}

/* 1 when some file's size matches no stored file's: then the run cannot
** be a copy of a stored run and its hashes may wait.  0 otherwise (or on
** error, which just means hashing up front). */
static int run_is_new(sqlite3 *db, const FileHash *a, int n){
  PfError e = {0};
  sqlite3_stmt *p = db_prepare(db,
    "SELECT 1 FROM run_file WHERE bytes=?1 LIMIT 1", &e);
  int isNew = 0;
  if( p==NULL ) return 0;
  for(int i=0; i<n && !isNew; i++){
    sqlite3_bind_int64(p, 1, a[i].bytes);
    if( sqlite3_step(p)!=SQLITE_ROW ) isNew = 1;
    sqlite3_reset(p);
  }
  sqlite3_finalize(p);
  return isNew;
}

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

/* --replace: remember run id (and the baselines naming it, deleted with
** it) for the summary. */
static void note_replaced(sqlite3 *db, int64_t id, IngestResult *pRes){
  sqlite3_stmt *p = db_prepare(db,
    "SELECT name FROM baseline WHERE run_id=?1 ORDER BY name", NULL);
  size_t n = strlen(pRes->zReplacedBaselines);
  if( pRes->nReplaced<8 ) pRes->aReplaced[pRes->nReplaced++] = id;
  if( p==NULL ) return;
  sqlite3_bind_int64(p, 1, id);
  while( sqlite3_step(p)==SQLITE_ROW
         && n+80<sizeof(pRes->zReplacedBaselines) ){
    snprintf(pRes->zReplacedBaselines+n, sizeof(pRes->zReplacedBaselines)-n,
             "%s'%.60s'", n ? ", " : "", sqlite3_column_text(p, 0));
    n = strlen(pRes->zReplacedBaselines);
  }
  sqlite3_finalize(p);
}

/*
** BEGIN IMMEDIATE.  When another process holds the write lock (another
** ingest), says so once on stderr and waits for it, up to pOpt->timeout
** seconds (no limit when negative); the time waited goes to
** pRes->waitSeconds so that the MB/s figure leaves it out.  Returns 0, or
** -1 with pErr set.
*/
static int begin_write(sqlite3 *db, const IngestOpts *pOpt,
                       IngestResult *pRes, PfError *pErr){
  double t0 = util_now_ms();
  int bSaid = 0, rc;
  PfError e = {0};
  sqlite3_busy_timeout(db, 0);
  for(;;){
    /* db_begin: the transaction guard of db.c (no commit but db_commit) */
    rc = db_begin(db, &e)==0 ? SQLITE_OK : sqlite3_errcode(db);
    if( (rc & 0xff)!=SQLITE_BUSY && (rc & 0xff)!=SQLITE_LOCKED ) break;
    if( !bSaid ){
      fprintf(stderr, "profan: waiting for another ingest to finish"
              " (the database is locked)\xE2\x80\xA6\n");
      bSaid = 1;
    }
    if( pOpt->timeout>=0 && util_now_ms()-t0>=pOpt->timeout*1000.0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "the database is still locked by"
                   " another writer after %g s (--timeout); nothing stored",
                   pOpt->timeout);
      sqlite3_busy_timeout(db, 10000);
      return -1;
    }
    usleep(20000);
  }
  pRes->waitSeconds = (util_now_ms() - t0)/1000.0;
  sqlite3_busy_timeout(db, 10000);
  if( rc!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database is busy or read-only: %s",
                 e.zMsg[0] ? e.zMsg : sqlite3_errmsg(db));
    return -1;
  }
  if( bSaid && pOpt->pLog ){
    fprintf(pOpt->pLog, "profan: the other ingest finished after %.1f s;"
            " ingesting\n", pRes->waitSeconds);
  }
  return 0;
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

/* The deferred file hashes are known after the parse: store the run's
** content hash.  Returns 0, or -1 with pMsg set. */
static int set_run_hash(sqlite3 *db, int64_t runId, const Job *aJob,
                        int nJob, FileHash *aHash, int nHash, Buf *pMsg){
  char zRunHash[20];
  PfError e = {0};
  sqlite3_stmt *p;
  for(int i=0; i<nJob; i++){
    if( aJob[i].hashInStream ) aHash[aJob[i].iHash].hash = aJob[i].hash;
  }
  run_hash(aHash, nHash, zRunHash, sizeof(zRunHash));
  p = db_prepare(db, "UPDATE run SET content_hash=?1 WHERE id=?2", &e);
  if( p ){
    sqlite3_bind_text(p, 1, zRunHash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(p, 2, runId);
    if( sqlite3_step(p)!=SQLITE_DONE ){
      pf_error_set(&e, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(p);
  }
  if( e.zMsg[0] ){
    buf_printf(pMsg, "database: %s", e.zMsg);
    return -1;
  }
  return 0;
}

static int ingest_one(sqlite3 *db, const char **azPath, int nPath,
                      const IngestOpts *pOpt, IngestResult *pRes, Buf *pMsg){
  FileList list = {0, 0, 0};
  FileHash *aHash = NULL;
  Job *aJob = NULL;
  int nJob = 0, nHash = 0, nOther = 0, rc = -1, inTxn = 0, nDeferred = 0;
  PfError err = {0};
  double t0 = util_now_ms(), t1;
  char zRunHash[20];
  char *zName = NULL;
  Buf source;
  int64_t runId;
  TraceSpans *pSpans = NULL;
  char **azReal = NULL;         /* realpath of each list entry, or NULL */
  int64_t *aSize = NULL;        /* size of each list entry */

  memset(pRes, 0, sizeof(*pRes));
  buf_init(&source);
  for(int i=0; i<nPath; i++){
    PfError e = {0};
    if( discover_path(azPath[i], &list, &e) ){
      buf_printf(pMsg, "%s: %s", azPath[i], e.zMsg);
      goto done;
    }
    buf_printf(&source, "%s%s", i ? " " : "", azPath[i]);
  }
  /* hash every usable file; note the skipped ones and load a file given
  ** twice, or two files of the same content, once */
  aHash = xcalloc((size_t)list.n + 1, sizeof(FileHash));
  azReal = xcalloc((size_t)list.n + 1, sizeof(char *));
  aSize = xcalloc((size_t)list.n + 1, sizeof(int64_t));
  for(int i=0; i<list.n; i++){
    struct stat st;
    if( list.a[i].zSkip[0] ) continue;
    azReal[i] = realpath(list.a[i].zPath, NULL);
    aSize[i] = stat(list.a[i].zPath, &st)==0 ? (int64_t)st.st_size : -1-i;
  }
  for(int i=0; i<list.n; i++){
    FoundFile *f = &list.a[i];
    int j, dup = 0;
    if( f->zSkip[0] ){
      pRes->nSkipped++;
      continue;
    }
    if( (j = same_file_as(&list, azReal, i))>=0 ){
      note_duplicate(pOpt, pRes, f->zPath, list.a[j].zPath, 1);
      snprintf(f->zSkip, sizeof(f->zSkip), "duplicate");
      continue;
    }
    if( !size_shared(&list, aSize, i)
     && may_defer_hash(f, &aHash[nHash].bytes) ){
      aHash[nHash].deferred = 1;
      nDeferred++;
    }else if( input_hash_file(f->zPath, &aHash[nHash].hash,
                              &aHash[nHash].bytes, &err) ){
      pf_error_format(&err, f->zPath, pMsg);
      goto done;
    }
    for(j=0; j<nHash && !aHash[nHash].deferred && !dup; j++){
      if( !aHash[j].deferred && aHash[j].hash==aHash[nHash].hash
       && aHash[j].bytes==aHash[nHash].bytes ){
        note_duplicate(pOpt, pRes, f->zPath, list.a[aHash[j].idx].zPath, 0);
        snprintf(f->zSkip, sizeof(f->zSkip), "duplicate");
        dup = 1;
      }
    }
    if( dup ) continue;
    aHash[nHash].idx = i;
    nHash++;
  }
  if( nHash==0 && list.n==1 ){
    /* one file named and it is not usable: that is the one error line */
    buf_printf(pMsg, "%s: %s", list.a[0].zPath, list.a[0].zSkip);
    goto done;
  }
  if( nHash==0 ){
    buf_printf(pMsg, "%s: nothing to ingest: no trace, memory snapshot or "
               "NCCL log found", buf_str(&source));
    goto done;
  }
  for(int i=0; i<list.n; i++){
    FoundFile *f = &list.a[i];
    if( !f->zSkip[0] || strcmp(f->zSkip, "duplicate")==0 ) continue;
    if( pOpt->strict && f->unreadable ){
      buf_printf(pMsg, "%s: %s (--strict: an unreadable file is an error)",
                 f->zPath, f->zSkip);
      goto done;
    }
    if( pOpt->pLog ) fprintf(pOpt->pLog, "profan: %s: skipped: %s\n",
                             f->zPath, f->zSkip);
  }
  zName = pOpt->zName ? xstrdup(pOpt->zName) : run_name_default(azPath[0]);

  if( begin_write(db, pOpt, pRes, &err) ){
    buf_printf(pMsg, "%s", err.zMsg);
    goto done;
  }
  inTxn = 1;
  /* a possible copy of a stored run: hash the deferred files now (under
  ** the write lock, so that no other ingest slips in between) */
  if( nDeferred>0 && !run_is_new(db, aHash, nHash) ){
    for(int i=0; i<nHash; i++){
      const char *zPath = list.a[aHash[i].idx].zPath;
      if( !aHash[i].deferred ) continue;
      if( input_hash_file(zPath, &aHash[i].hash, &aHash[i].bytes, &err) ){
        pf_error_format(&err, zPath, pMsg);
        goto done;
      }
      aHash[i].deferred = 0;
    }
    nDeferred = 0;
  }
  /* "" until the deferred hashes are known: matches no stored run */
  if( nDeferred==0 ) run_hash(aHash, nHash, zRunHash, sizeof(zRunHash));
  else zRunHash[0] = 0;
  {
    /* identical content already stored? */
    sqlite3_stmt *p = db_prepare(db,
      "SELECT id FROM run WHERE content_hash=?1"
      " UNION SELECT id FROM run WHERE name=?2 AND ?3", &err);
    int64_t aOld[64];
    int nOld = 0;
    if( p==NULL ){ buf_printf(pMsg, "database: %s", err.zMsg); goto done; }
    sqlite3_bind_text(p, 1, zRunHash, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 2, zName, -1, SQLITE_STATIC);
    sqlite3_bind_int(p, 3, pOpt->replace);
    while( (rc = sqlite3_step(p))==SQLITE_ROW && nOld<64 ){
      aOld[nOld++] = sqlite3_column_int64(p, 0);
    }
    sqlite3_finalize(p);
    if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
      buf_printf(pMsg, "database: %s", sqlite3_errmsg(db));
      rc = -1;
      goto done;
    }
    rc = -1;
    if( nOld>0 && !pOpt->replace ){
      pRes->runId = aOld[0];
      pRes->duplicate = 1;
      rc = 0;
      goto done;
    }
    for(int i=0; i<nOld; i++){
      note_replaced(db, aOld[i], pRes);
      if( runref_delete(db, aOld[i], &err) ){
        buf_printf(pMsg, "database: %s", err.zMsg);
        goto done;
      }
    }
  }
  runId = insert_run(db, zName, buf_str(&source), zRunHash, pRes, &err);
  if( runId<0 || insert_tags(db, runId, pOpt, &err) ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    goto done;
  }
  pRes->runId = runId;

  aJob = xcalloc((size_t)nHash, sizeof(Job));
  /* jobs in path order so that file ids follow the directory listing */
  for(int i=0; i<list.n; i++){
    FoundFile *f = &list.a[i];
    int k;
    if( f->zSkip[0] ) continue;
    for(k=0; k<nHash && aHash[k].idx!=i; k++){}
    if( f->eKind==KIND_TRACE ){
      Job *j = &aJob[nJob++];
      j->zPath = f->zPath;
      j->rankGuess = guess_rank(f->zPath);
      j->hashInStream = aHash[k].deferred;
      j->iHash = k;
      j->fileId = insert_file(db, runId, f->zPath, "trace", aHash[k].bytes,
                              aHash[k].hash, &err);
      if( j->fileId<0 ){ buf_printf(pMsg, "database: %s", err.zMsg); goto done; }
    }
  }
  /* snapshots, flight-recorder dumps and NCCL logs: one after another */
  for(int i=0; i<list.n; i++){
    FoundFile *f = &list.a[i];
    int k;
    if( f->zSkip[0] || f->eKind==KIND_TRACE ) continue;
    for(k=0; k<nHash && aHash[k].idx!=i; k++){}
    if( load_other_file(db, runId, f, aHash[k].bytes, aHash[k].hash, pOpt,
                        pRes, pMsg) ) goto done;
    nOther++;
  }
  if( nOther>0 && derive_memory_run(db, runId, &err) ){
    buf_printf(pMsg, "%s", err.zMsg);
    goto done;
  }
  if( nJob>0 ){
    char *zNote = NULL;
    pSpans = trace_spans_new();
    if( load_traces(db, runId, aJob, nJob, pSpans, pOpt, pRes, pMsg) ){
      goto done;
    }
    if( nDeferred>0 && set_run_hash(db, runId, aJob, nJob, aHash, nHash,
                                    pMsg) ) goto done;
    if( getenv("PROFAN_TIMING") ){
      fprintf(stderr, "profan: parse+load      %8.1f ms\n", util_now_ms()-t0);
    }
    /* PROFAN_DB_LINK=1 redoes all linkage in the database (tests compare
    ** it with the in-stream result) */
    if( getenv("PROFAN_DB_LINK") ) pRes->fallback |= DERIVE_CPU_SWEEP|DERIVE_GPU_LINK;
    if( derive_trace_run(db, runId, pRes->fallback, pSpans, &zNote, &err) ){
      buf_printf(pMsg, "%s", err.zMsg);
      goto done;
    }
    trace_spans_free(pSpans);           /* before the comm pass and commit */
    pSpans = NULL;
    if( zNote && pOpt->pLog ) fprintf(pOpt->pLog, "profan: note: %s\n", zNote);
    free(zNote);
  }
  /* collectives, overlap, fits: after the trace linkage is derived */
  t1 = util_now_ms();
  if( derive_comm_run(db, runId, &err) ){
    buf_printf(pMsg, "%s", err.zMsg);
    goto done;
  }
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: derive comm     %8.1f ms\n", util_now_ms()-t1);
  }
  t1 = util_now_ms();
  if( nJob>0 && derive_hta_run(db, runId, &err) ){  /* critical path */
    buf_printf(pMsg, "%s", err.zMsg);
    goto done;
  }
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: derive hta      %8.1f ms\n", util_now_ms()-t1);
  }
  t1 = util_now_ms();
  if( nJob>0 && derive_op_run(db, runId, &err) ){   /* operator model */
    buf_printf(pMsg, "%s", err.zMsg);
    goto done;
  }
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: derive op       %8.1f ms\n", util_now_ms()-t1);
  }
  pRes->nFiles = nJob + nOther;
  t1 = util_now_ms();
  if( db_commit(db, &err) ){
    buf_printf(pMsg, "database: %s", err.zMsg);
    goto done;
  }
  inTxn = 0;
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: commit          %8.1f ms\n", util_now_ms()-t1);
  }
  rc = 0;
done:
  if( rc && (sqlite3_extended_errcode(db)==SQLITE_IOERR_NOMEM
             || sqlite3_errcode(db)==SQLITE_NOMEM)
      && strstr(buf_str(pMsg), "out of memory")==NULL ){
    /* SQLite's message said what it was doing ("disk I/O error" for
    ** SQLITE_IOERR_NOMEM, "unable to open a temporary database file") */
    buf_reset(pMsg);
    buf_printf(pMsg, "database: out of memory");
  }
  if( rc && inTxn && db_lost_reason(db)
      && strstr(buf_str(pMsg), db_lost_reason(db))==NULL ){
    /* SQLite ended the transaction after an error (out of memory, I/O)
    ** and what failed next only says so indirectly: name the cause */
    buf_reset(pMsg);
    buf_printf(pMsg, "database: %s", db_lost_reason(db));
  }
  if( rc && strncmp(buf_str(pMsg), "database", 8)==0
      && (sqlite3_extended_errcode(db)==SQLITE_IOERR_WRITE
          || (db_lost_reason(db) && db_lost_errcode()==SQLITE_IOERR_WRITE)) ){
    /* SQLite's "disk I/O error" for a failed write (EFBIG past a
    ** file-size limit, EDQUOT, EIO): say what was being written */
    buf_printf(pMsg, " (writing the database failed: disk full, quota or "
               "file size limit?)");
  }
  if( inTxn ) db_rollback(db);
  pRes->seconds = (util_now_ms() - t0)/1000.0;
  trace_spans_free(pSpans);
  free(aJob);
  free(aHash);
  free(zName);
  buf_free(&source);
  for(int i=0; azReal && i<list.n; i++) free(azReal[i]);
  free(azReal);
  free(aSize);
  filelist_free(&list);
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
  if( opt.pLog==NULL ) opt.pLog = pOpt->pLog;   /* cannot buffer: as they come */
  rc = ingest_one(db, azPath, nPath, &opt, pRes, pMsg);
  if( opt.pLog!=pOpt->pLog ){
    fclose(opt.pLog);
    if( rc==0 && zLog && nLog ) fwrite(zLog, 1, nLog, pOpt->pLog);
    free(zLog);
  }
  return rc;
}
