/*
** ingest_trace.c — the trace files of an ingest: N parser worker threads,
** a bounded queue of event batches, and the writer loop in the calling
** thread (the only one that touches the database).
**
** Pipeline position: "parse" + "load" for traces, called by ingest.c
** inside the ingest's transaction.  Each worker parses one file at a time
** (parse_trace.c), links it in-stream (link_trace.c) and packs the events
** into fixed-size batches; the writer unpacks them and inserts the rows
** (load_trace.c).  Memory is bounded by the queue, not by the trace size.
** Any failure sets the abort flag (atomic: the workers read it without
** the queue's lock): the workers stop, the queue is drained, the threads
** joined, and ingest.c rolls the transaction back.  A parser thread that
** cannot be started leaves its files to the others; when none starts, the
** ingest fails (exit 7, as when memory runs out).
*/
#include "ingest/ingest_trace.h"
#include "core/db.h"
#include "trace/derive_trace.h"
#include "input/input.h"
#include "core/intern.h"
#include "trace/load_trace.h"
#include "trace/trace_keep.h"
#include "trace/trace_ids.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef BATCH_EVENTS
#define BATCH_EVENTS 1024
#endif
#define QUEUE_CAP 8
#define MAX_THREADS 16

/* ----------------------------------------------------- batches, queue */

typedef struct EvBatch {
  int nEv;
  int64_t rank;                 /* rank to store for these rows */
  int64_t inputOffset;          /* bytes read when the batch was sent */
  TraceEvent aEv[BATCH_EVENTS];
  uint32_t aStr[BATCH_EVENTS][5];  /* arena offsets: see batch_pack */
  int aCollIdx[BATCH_EVENTS];   /* index into aColl, -1 = none */
  CollArgs *aColl;              /* collective args of the events with them */
  int nColl, nCollAlloc;
  Buf arena;
  struct EvBatch *pNext;        /* free list */
} EvBatch;

enum { MSG_BATCH, MSG_DONE };
typedef struct Msg { int type; TraceJob *pJob; EvBatch *pBatch; } Msg;

typedef struct Shared {
  pthread_mutex_t mu;
  pthread_cond_t cvPush, cvPop, cvFree;
  Msg aQ[QUEUE_CAP];
  int qHead, qLen;
  EvBatch *pFree;
  int nBatch;                   /* batches allocated */
  int nBatchMax;
  atomic_int abort;             /* set once by the writer; see aborted() */
  TraceJob *aJob;
  int nJob, iNext;              /* next job to take */
} Shared;

/* True once the ingest failed.  A relaxed load is enough: the flag only
** stops work early; every result crosses threads through the queue,
** under its mutex. */
static int aborted(Shared *s){
  return atomic_load_explicit(&s->abort, memory_order_relaxed);
}

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

/* Free the batches of the free list (after every thread is joined). */
static void batch_free_all(Shared *s){
  while( s->pFree ){
    EvBatch *b = s->pFree;
    s->pFree = b->pNext;
    buf_free(&b->arena);
    free(b->aColl);
    free(b);
  }
}

/* ------------------------------------------ batch pack and unpack */

/*
** An event crosses the queue as a copy of its TraceEvent plus its five
** strings in the batch's arena (the parser's buffers are reused for the
** next event) and its collective args, if any, in aColl.  batch_pack (in a
** worker) and batch_unpack (in the writer) are the two halves: a string
** added to one must be added to the other.
*/
enum { STR_NAME, STR_CAT, STR_DIMS, STR_TYPES, STR_CONCRETE };

static uint32_t arena_add_n(Buf *a, const char *z, size_t n){
  uint32_t off = (uint32_t)a->n;
  assert( strlen(z)==n );
  buf_append(a, z, n+1);
  return off;
}

static uint32_t arena_add(Buf *a, const char *z){
  return arena_add_n(a, z, strlen(z));
}

/* Append a copy of *pEv to b (which has room). */
static void batch_pack(EvBatch *b, const TraceEvent *pEv){
  uint32_t *aStr = b->aStr[b->nEv];
  b->aEv[b->nEv] = *pEv;
  aStr[STR_NAME] = arena_add_n(&b->arena, pEv->zName, (size_t)pEv->nName);
  aStr[STR_CAT] = arena_add(&b->arena, pEv->zCat);
  aStr[STR_DIMS] = arena_add(&b->arena, pEv->zInputDims);
  aStr[STR_TYPES] = arena_add(&b->arena, pEv->zInputTypes);
  aStr[STR_CONCRETE] = arena_add(&b->arena, pEv->zConcreteInputs);
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
}

/* Event i of b, its pointers set into b (valid until b is put back). */
static TraceEvent *batch_unpack(EvBatch *b, int i){
  TraceEvent *e = &b->aEv[i];
  const uint32_t *aStr = b->aStr[i];
  e->zName = b->arena.z + aStr[STR_NAME];
  e->zCat = b->arena.z + aStr[STR_CAT];
  e->zInputDims = b->arena.z + aStr[STR_DIMS];
  e->zInputTypes = b->arena.z + aStr[STR_TYPES];
  e->zConcreteInputs = b->arena.z + aStr[STR_CONCRETE];
  e->pColl = b->aCollIdx[i]>=0 ? &b->aColl[b->aCollIdx[i]] : NULL;
  return e;
}

/* ------------------------------------------------------------ workers */

typedef struct Worker {
  Shared *s;
  TraceJob *pJob;
  Input *pIn;
  EvBatch *pCur;
  Linker *pLink;                /* the in-stream linker of the file */
} Worker;

/* The rank a job's rows are stored with until its file says otherwise. */
static int64_t job_rank(const TraceJob *j){
  return j->info.hasRank ? j->info.rank
       : (j->rankGuess>=0 ? j->rankGuess : 0);
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
  int64_t rank;
  if( aborted(w->s) ) return 1;
  if( pEv->rowId>w->pJob->idLast ){
    /* past the file's reserved range (trace_ids.h): more ops or runtime
    ** calls than its bytes can hold, so the file changed while read */
    pf_error_set(&w->pJob->err, ERRPOS_NONE, 0, "more operators or runtime"
                 " calls than the file's size allows (did it change while"
                 " read?)");
    return 1;
  }
  rank = job_rank(w->pJob);
  if( w->pCur && (w->pCur->nEv==BATCH_EVENTS || w->pCur->rank!=rank) ){
    worker_flush(w);
  }
  if( w->pCur==NULL ){
    w->pCur = batch_get(w->s);
    w->pCur->rank = rank;
  }
  batch_pack(w->pCur, pEv);
  return 0;
}

/* Parser sink: time base, then through the linker into the batch for the
** writer. */
static int worker_sink(void *ctx, const TraceEvent *pEv){
  Worker *w = ctx;
  TraceJob *j = w->pJob;
  TraceEvent ev;
  if( aborted(w->s) ) return 1;
  if( pEv->kind==TEV_OTHER ) return 0;
  /* baseTimeNanoseconds comes before every event or after all of them */
  ev = *pEv;
  if( j->info.hasBaseTime ) ev.ts += j->info.baseTimeNs;
  else j->nNoBase++;
  return link_trace_event(w->pLink, &ev, &j->err);
}

static int worker_link_emit(void *ctx, const TraceEvent *e){
  return worker_emit((Worker*)ctx, e);
}

/* Parse job j's file into batches; sets j->rc. */
static void worker_parse(Worker *w, TraceJob *j){
  w->pIn = input_open(j->zPath, &j->err);
  if( w->pIn==NULL ){
    j->rc = -1;
    return;
  }
  w->pLink = link_trace_new(j->idBase, worker_link_emit, w);
  if( j->hashInStream ) input_hash_begin(w->pIn);
  j->rc = parse_trace(w->pIn, worker_sink, w, &j->info, &j->err);
  j->bytesRead = input_offset(w->pIn);
  if( j->rc==0 && j->hashInStream ){
    j->rc = input_hash_end(w->pIn, &j->hash, &j->err);
  }
  if( j->rc==0 ) j->rc = link_trace_finish(w->pLink, &j->err);
  if( j->rc==0 ) worker_flush(w);
  j->link = *link_trace_stats(w->pLink);
  link_trace_free(w->pLink);
  input_close(w->pIn);
}

static void *worker_main(void *arg){
  Shared *s = arg;
  pthread_setname_np(pthread_self(), "profan-parse");  /* for perf, top */
  for(;;){
    Worker w;
    TraceJob *j;
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
    if( aborted(s) ){
      j->rc = -2;            /* not attempted */
    }else{
      worker_parse(&w, j);
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

/* --base-time: the times of a trace of unknown origin (no
** baseTimeNanoseconds, too small to be epoch µs: the legacy exporter's,
** relative to the profiler's start) count from the given epoch time, as a
** late baseTimeNanoseconds would.  A trace with a time base of its own
** keeps it, with a note. */
static void base_from_option(TraceJob *j, const IngestOpts *pOpt){
  TraceInfo *in = &j->info;
  if( !pOpt->hasBaseTime ) return;
  if( in->hasBaseTime || strcmp(in->zTimeRegime, "unknown_origin")!=0 ){
    if( pOpt->pLog ){
      fprintf(pOpt->pLog, "profan: note: %s has a time base of its own"
              " (%s); --base-time not used\n", j->zPath, in->zTimeRegime);
    }
    return;
  }
  in->hasBaseTime = 1;
  in->baseTimeNs = pOpt->baseTimeNs;
  in->baseTimeAfterEvents = 1;
  snprintf(in->zTimeRegime, sizeof(in->zTimeRegime), "relative_us");
}

/* After a trace file is parsed: its run_file columns and fix-ups. */
static int finish_trace_file(sqlite3 *db, TraceLoader *pLoad,
                             TraceTotals *pTot, TraceSpans *pSpans,
                             int64_t runId, TraceJob *j,
                             const IngestOpts *pOpt, PfError *pErr){
  TraceInfo *in = &j->info;
  int64_t rank = job_rank(j);
  const char *zRankSrc = in->hasRank ? "distributedInfo"
                       : j->rankFromOption ? "option"
                       : j->rankGuess>=0 ? "file name" : "default";
  int64_t rankUsed = j->rankInserted;
  TraceTarget t;
  sqlite3_stmt *p;
  int needBase;
  /* the rows the loader holds go in before the fix-ups and whatever
  ** reads the file's rows after its load */
  if( load_trace_flush(pLoad, pErr) ) return -1;
  base_from_option(j, pOpt);
  needBase = in->hasBaseTime && j->nNoBase>0;
  if( needBase || rank!=rankUsed ){
    if( load_trace_fixup(db, j->fileId, needBase ? in->baseTimeNs : 0,
                         rank!=rankUsed, rank, pErr) ) return -1;
  }
  t.runId = runId;
  t.fileId = j->fileId;
  t.rank = rank;
  trace_keep_file_done(pTot, pSpans, j->fileId,
                       needBase ? in->baseTimeNs : 0, rank);
  if( trace_ids_used(db, j->fileId, j->link.nIds, pErr) ) return -1;
  if( load_trace_devices(pLoad, &t, in, pErr) ) return -1;
  p = db_prepare(db,
    db_statement("ingest-trace-finish-trace-file"),
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

static void show_progress(int64_t nBytes, int64_t nRows, double t0){
  double s = (util_now_ms() - t0)/1000.0;
  fprintf(stderr, "\rprofan: %.1f MB parsed, %lld rows, %.1f MB/s   ",
          nBytes/1e6, (long long)nRows, s>0 ? nBytes/1e6/s : 0.0);
}

/* Timestamps of unknown origin (no baseTimeNanoseconds, values too small
** to be epoch microseconds) cannot be lined up with another trace's: when
** such a trace shares a run with a trace of another time regime, say so
** (per-rank numbers stay right; times across ranks do not compare).
** Called only when every job was parsed: each has its regime. */
static void note_mixed_clocks(const TraceJob *aJob, int nJob, FILE *pLog){
  const TraceJob *pU = NULL, *pE = NULL;
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

/* The writer: the calling thread's state while the workers run. */
typedef struct Writer {
  sqlite3 *db;
  int64_t runId;
  TraceJob *aJob;
  int nJob;
  TraceTotals *pTot;
  TraceSpans *pSpans;
  const IngestOpts *pOpt;
  IngestResult *pRes;
  Buf *pMsg;
  Shared s;
  pthread_t aTh[MAX_THREADS];
  int nTh;
  Intern *pIntern;
  TraceLoader *pLoad;
  TraceTarget t;                /* file whose rows are being written */
  PfError err;
  int failed;                   /* pMsg holds the error; workers told */
  int nEmpty;                   /* files skipped: no event to store */
  int nWithEvents;              /* files done with events */
  const TraceJob *pNoRank;      /* the first of those without a rank */
  double t0, tLast, tWait;
  int64_t nBytesDone;           /* bytes of the files finished */
} Writer;

/* The ingest fails (the message is in w->pMsg): stop the workers. */
static void writer_fail(Writer *w){
  w->failed = 1;
  atomic_store_explicit(&w->s.abort, 1, memory_order_relaxed);
}

/* Point w->t at job j's rows. */
static void writer_target(Writer *w, const TraceJob *j){
  w->t.runId = w->runId;
  w->t.fileId = j->fileId;
  w->t.rank = j->rankInserted;
}

/* Start up to nTh parser threads (w->nTh: how many started).  Fewer is
** fine (each takes the next file until none is left), with a note; none
** is a failure of the system, not of the input: -1 with pMsg set and the
** error kind the database's (exit 7). */
static int writer_threads(Writer *w, int nTh){
  int e = 0;
  while( w->nTh<nTh ){
    e = pthread_create(&w->aTh[w->nTh], NULL, worker_main, &w->s);
    if( e ) break;
    w->nTh++;
  }
  if( w->nTh==0 ){
    buf_printf(w->pMsg, "cannot start a parser thread (%s)", strerror(e));
    w->pRes->errKind = PF_KIND_DB;
    return -1;
  }
  if( w->nTh<nTh && w->pOpt->pLog ){
    fprintf(w->pOpt->pLog, "profan: note: %d of %d parser threads started"
            " (%s)\n", w->nTh, nTh, strerror(e));
  }
  return 0;
}

/* Destroy the queue's lock and conditions. */
static void shared_destroy(Shared *s){
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cvPush);
  pthread_cond_destroy(&s->cvPop);
  pthread_cond_destroy(&s->cvFree);
}

/* The loader and the worker threads.  Returns 0, or -1 with pMsg set. */
static int writer_start(Writer *w){
  Shared *s = &w->s;
  const IngestOpts *pOpt = w->pOpt;
  int nTh = pOpt->nThreads>0 ? pOpt->nThreads
                             : (int)sysconf(_SC_NPROCESSORS_ONLN);
  w->pIntern = intern_new(w->db);
  w->pLoad = load_trace_new(w->db, w->pIntern, &w->err);
  w->t0 = w->tLast = util_now_ms();
  if( w->pLoad==NULL ){
    buf_printf(w->pMsg, "database: %s", w->err.zMsg);
    intern_free(w->pIntern);
    return -1;
  }
  load_trace_keep(w->pLoad, w->pTot, w->pSpans);
  if( nTh<1 ) nTh = 1;
  if( nTh>MAX_THREADS ) nTh = MAX_THREADS;
  if( nTh>w->nJob ) nTh = w->nJob;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cvPush, NULL);
  pthread_cond_init(&s->cvPop, NULL);
  pthread_cond_init(&s->cvFree, NULL);
  s->aJob = w->aJob;
  s->nJob = w->nJob;
  s->nBatchMax = QUEUE_CAP + nTh + 1;
  /* The linker runs in the parser threads: the writer is the busier
  ** thread (on the 10x bench trace, thread CPU: parser 0.95 s and writer
  ** 1.55 s with the linker in the writer; 1.4 s each with it in the
  ** parsers), and each file's parser links its own file in parallel. */
  if( writer_threads(w, nTh) ){
    shared_destroy(s);
    load_trace_free(w->pLoad);
    intern_free(w->pIntern);
    return -1;
  }
  return 0;
}

/* A batch of job m.pJob's events: store its rows. */
static void writer_batch(Writer *w, Msg m){
  EvBatch *b = m.pBatch;
  TraceJob *j = m.pJob;
  if( !w->failed ){
    if( !j->started ){
      j->started = 1;
      j->rankInserted = b->rank;
    }
    writer_target(w, j);
    for(int i=0; i<b->nEv; i++){
      TraceEvent *e = batch_unpack(b, i);
      if( load_trace_event(w->pLoad, &w->t, e, &w->err) ){
        pf_error_format(&w->err, j->zPath, w->pMsg);
        writer_fail(w);
        break;
      }
    }
  }
  if( w->pOpt->progress && util_now_ms()-w->tLast>500 ){
    w->tLast = util_now_ms();
    show_progress(w->nBytesDone + b->inputOffset, load_trace_rows(w->pLoad),
                  w->t0);
  }
  batch_put(&w->s, b);
}

/* Add job j's counts to the result and note its warnings. */
static void writer_count(Writer *w, TraceJob *j){
  IngestResult *pRes = w->pRes;
  w->nBytesDone += j->bytesRead;
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: %s: linker cpu=%d steps=%d rewinds=%lld"
            " pending=%lld late=%lld held=%lld\n", j->zPath,
            j->link.needCpuSweep, j->link.needSteps,
            (long long)j->link.nRewinds, (long long)j->link.nPendingMax,
            (long long)j->link.nLate, (long long)j->link.nHeld);
  }
  /* rows went out that an op or step arriving later changes: the file is
  ** linked again from its rows after the load (ingest.c, trace_relink.c) */
  j->relink = j->link.needCpuSweep || j->link.needSteps;
  pRes->nEvents += j->info.nEvents;
  pRes->nWarnings += j->info.nWarnings;
  pRes->nBytes += j->bytesRead;
  if( j->info.nWarnings>0 && w->pOpt->pLog ){
    fprintf(w->pOpt->pLog, "profan: %s: %lld event%s skipped or repaired "
            "(first at byte %s)\n", j->zPath,
            (long long)j->info.nWarnings, j->info.nWarnings==1 ? "" : "s",
            j->info.zFirstWarning);
  }
}

void ingest_trace_empty_message(const TraceJob *j, Buf *pMsg){
  buf_printf(pMsg, "no events to store (%lld read; none is an op,"
             " kernel, runtime call, annotation or memory event with a"
             " \"ts\")", (long long)j->info.nEvents);
  if( j->info.nWarnings>0 ){
    buf_printf(pMsg, "; %lld item%s skipped, the first at byte %s",
               (long long)j->info.nWarnings,
               j->info.nWarnings==1 ? "" : "s", j->info.zFirstWarning);
  }
}

/* A file that yielded no row (nothing but metadata, flows or items that
** are not events): skipped like a file of no known kind, its run_file row
** removed.  Returns 0, or -1 with pMsg set. */
static int writer_skip_empty(Writer *w, TraceJob *j){
  char *zSql = sqlite3_mprintf("DELETE FROM run_file WHERE id=%lld",
                               (long long)j->fileId);
  int rc = sqlite3_exec(w->db, zSql, NULL, NULL, NULL);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    buf_printf(w->pMsg, "database: %s", sqlite3_errmsg(w->db));
    return -1;
  }
  j->empty = 1;
  w->nEmpty++;
  w->pRes->nSkipped++;
  w->pRes->nEvents += j->info.nEvents;
  if( w->pOpt->pLog ){
    Buf m;
    buf_init(&m);
    ingest_trace_empty_message(j, &m);
    fprintf(w->pOpt->pLog, "profan: %s: skipped: %s\n", j->zPath,
            buf_str(&m));
    buf_free(&m);
  }
  return 0;
}

/* Job j, a file with events, is done.  A run of several traces with
** events in which one has no rank (rank 0 by default would merge it with
** another trace) is refused as soon as two files with events are done
** and one of them has no rank.  Returns 1 with pMsg set when refused. */
static int writer_rank_refused(Writer *w, const TraceJob *j){
  w->nWithEvents++;
  if( !j->info.hasRank && j->rankGuess<0 && w->pNoRank==NULL ){
    w->pNoRank = j;
  }
  if( w->pNoRank==NULL || w->nWithEvents<2 ) return 0;
  buf_printf(w->pMsg, "%s: no rank (no distributedInfo, no rank in the"
             " file name) in a run of %d traces: name the file"
             " rank<N>... or ingest it as a run of its own",
             w->pNoRank->zPath, w->nJob - w->nEmpty);
  return 1;
}

/* Job j's parser finished: its checks, its run_file row. */
static void writer_file_done(Writer *w, TraceJob *j){
  if( w->failed || j->rc==-2 ) return;
  if( j->rc ){
    pf_error_format(&j->err, j->zPath, w->pMsg);
  }else if( w->pOpt->strict && j->info.nWarnings>0 ){
    buf_printf(w->pMsg, "%s:%s (--strict: %lld warning%s)", j->zPath,
               j->info.zFirstWarning, (long long)j->info.nWarnings,
               j->info.nWarnings==1 ? "" : "s");
  }else if( j->info.nUsed==0 ){
    if( writer_skip_empty(w, j)==0 ) return;
  }else if( writer_rank_refused(w, j) ){
    /* the message is in pMsg */
  }else if( finish_trace_file(w->db, w->pLoad, w->pTot, w->pSpans,
                              w->runId, j, w->pOpt, &w->err) ){
    buf_printf(w->pMsg, "%s: %s", j->zPath, w->err.zMsg);
  }else{
    writer_count(w, j);
    return;
  }
  writer_fail(w);
}

/* Join the threads, write the run's summary tables, free everything. */
static void writer_finish(Writer *w){
  IngestResult *pRes = w->pRes;
  for(int i=0; i<w->nTh; i++) pthread_join(w->aTh[i], NULL);
  if( w->pOpt->progress ) fprintf(stderr, "\r%60s\r", "");
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: writer waited    %8.1f ms, cpu %8.1f ms\n",
            w->tWait, util_thread_cpu_ms());
  }
  if( !w->failed && load_trace_flush(w->pLoad, &w->err) ){
    buf_printf(w->pMsg, "database: %s", w->err.zMsg);
    writer_fail(w);
  }
  if( !w->failed ) note_mixed_clocks(w->aJob, w->nJob, w->pOpt->pLog);
  pRes->nRows += load_trace_rows(w->pLoad);
  batch_free_all(&w->s);
  shared_destroy(&w->s);
  load_trace_free(w->pLoad);
  intern_free(w->pIntern);
}

int ingest_trace_run(sqlite3 *db, int64_t runId, TraceJob *aJob, int nJob,
                     TraceTotals *pTot, TraceSpans *pSpans,
                     const IngestOpts *pOpt, IngestResult *pRes, Buf *pMsg){
  Writer *w = xcalloc(1, sizeof(*w));
  int nDone = 0, rc;
  w->db = db;
  w->runId = runId;
  w->aJob = aJob;
  w->nJob = nJob;
  w->pTot = pTot;
  w->pSpans = pSpans;
  w->pOpt = pOpt;
  w->pRes = pRes;
  w->pMsg = pMsg;
  if( writer_start(w) ){
    free(w);
    return -1;
  }
  while( nDone<nJob ){
    double tw = util_now_ms();
    Msg m = q_pop(&w->s);
    w->tWait += util_now_ms() - tw;
    if( m.type==MSG_BATCH ){
      writer_batch(w, m);
    }else{
      nDone++;
      writer_file_done(w, m.pJob);
    }
  }
  writer_finish(w);
  rc = w->failed ? -1 : 0;
  free(w);
  return rc;
}
