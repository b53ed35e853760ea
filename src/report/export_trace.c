/*
** export_trace.c — the events of `profan export-trace`: every trace table
** of the run, rank by rank, rows overlapping the rank's window, written as
** Chrome/Kineto trace events with the categories and args keys Kineto
** uses (so that the file opens in Perfetto / chrome://tracing and profan
** itself ingests it back), launch -> GPU `ac2g` flows rebuilt from the
** linkage kept in the database, deviceProperties, distributedInfo and the
** `M` process / thread name events.
**
** Pipeline position: read side; called by cmd_export.c, writes through
** export_json.c, adds export_derived.c's tracks.
**
** Rows are streamed: the big tables (cpu_op, runtime_call, kernel,
** python_function, gpu_sync) are read over the run's rowid range (the
** primary key; their only index is run_id, which would cost one table
** look-up per row), and memory_event over its range too (it has no index
** since schema 110; sorted per rank in time order); the small time-indexed
** ones (annotation, gpu_mem_op) through their (run_id, rank, ts) index.
*/
#include "report/export_trace.h"
#include "report/export_derived.h"
#include "report/export_pids.h"
#include "core/db.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- writing */

typedef struct Ex {
  sqlite3 *db;
  const ExportSpec *pSpec;
  const ExportRank *pR;     /* the rank being written */
  ExportSink *pSink;
  ExportPids *pPids;
  ExportStats *pSt;
  Buf b;
  int64_t base;             /* baseTimeNanoseconds written */
  int nArg;                 /* args written in the open args object */
  PfError *pErr;
} Ex;

static void flush_maybe(Ex *x){
  if( x->b.n > 256*1024 ) export_sink_flush_buf(x->pSink, &x->b);
}

/* Start an event: ',\n{"ph":..,"cat":..,"name":..,"pid":..,"tid":..,"ts":..' */
static void ev_begin(Ex *x, const char *zPh, const char *zCat,
                     const char *zName, int64_t pid, int64_t tid, int64_t ts){
  buf_printf(&x->b, ",\n{\"ph\":\"%s\",\"cat\":\"%s\",\"name\":", zPh, zCat);
  export_json_str(&x->b, zName ? zName : "", -1);
  buf_printf(&x->b, ",\"pid\":%lld,\"tid\":%lld,\"ts\":",
             (long long)pid, (long long)tid);
  export_json_us(&x->b, ts - x->base);
}

static void ev_dur(Ex *x, int64_t dur){
  buf_puts(&x->b, ",\"dur\":");
  export_json_us(&x->b, dur);
}

static void args_begin(Ex *x){
  buf_puts(&x->b, ",\"args\":{");
  x->nArg = 0;
}

static void arg_key(Ex *x, const char *zKey){
  if( x->nArg++ ) buf_putc(&x->b, ',');
  export_json_str(&x->b, zKey, -1);
  buf_putc(&x->b, ':');
}

/* Integer arg from column i when it is not NULL. */
static void arg_col_int(Ex *x, const char *zKey, sqlite3_stmt *s, int i){
  if( sqlite3_column_type(s, i)==SQLITE_NULL ) return;
  arg_key(x, zKey);
  buf_printf(&x->b, "%lld", (long long)sqlite3_column_int64(s, i));
}

static void arg_col_real(Ex *x, const char *zKey, sqlite3_stmt *s, int i){
  char z[40];
  if( sqlite3_column_type(s, i)==SQLITE_NULL ) return;
  arg_key(x, zKey);
  snprintf(z, sizeof(z), "%.17g", sqlite3_column_double(s, i));
  /* JSON has no inf/nan */
  if( strchr(z, 'n') || strchr(z, 'i') ) buf_puts(&x->b, "null");
  else buf_puts(&x->b, z);
}

/* A captured JSON list: as it is when valid, else as a string. */
static void arg_col_raw(Ex *x, const char *zKey, sqlite3_stmt *s, int i){
  const char *z = (const char*)sqlite3_column_text(s, i);
  if( z==NULL || z[0]==0 ) return;
  arg_key(x, zKey);
  if( export_json_valid(z) ) buf_puts(&x->b, z);
  else export_json_str(&x->b, z, -1);
}

/* The collective args of a kernel or record_param_comms op (columns
** i.. of the coll_args columns, NULL when the row has none), under
** Kineto's keys. */
static void arg_coll(Ex *x, sqlite3_stmt *s, int i){
  static const struct { const char *zKey; int isText; } a[] = {
    {"Collective name", 1}, {"dtype", 1}, {"In msg nelems", 0},
    {"Out msg nelems", 0}, {"Group size", 0}, {"Process Group Name", 1},
    {"Process Group Description", 1}, {"Process Group Ranks", 1},
    {"In split size", 1}, {"Out split size", 1}, {"Src Rank", 0},
    {"Dst Rank", 0}, {"Seq", 0} };
  for(size_t k=0; k<sizeof(a)/sizeof(a[0]); k++){
    int c = i + (int)k;
    if( sqlite3_column_type(s, c)==SQLITE_NULL ) continue;
    arg_key(x, a[k].zKey);
    if( a[k].isText ){
      export_json_str(&x->b, (const char*)sqlite3_column_text(s, c),
                      sqlite3_column_bytes(s, c));
    }else{
      buf_printf(&x->b, "%lld", (long long)sqlite3_column_int64(s, c));
    }
  }
}

static void ev_end(Ex *x, int hasArgs){
  buf_puts(&x->b, hasArgs ? "}}" : "}");
  x->pSt->nEvents++;
  flush_maybe(x);
}

static int64_t col_i(sqlite3_stmt *s, int i, int64_t dflt){
  return sqlite3_column_type(s, i)==SQLITE_NULL ? dflt
         : sqlite3_column_int64(s, i);
}

static const char *col_t(sqlite3_stmt *s, int i){
  const char *z = (const char*)sqlite3_column_text(s, i);
  return z ? z : "";
}

/* ------------------------------------------------------ row sources */

/*
** One source per trace table.  A row overlaps its rank's window [lo, hi)
** when it starts before hi and ends after lo; a zero-length row counts as
** 1 ns long, so an instant at lo is in and one at hi is out.
**  - The big tables (zTable set) are read in one pass over the run's rowid
**    range ?5..?6 for every rank at once, joined with the windows in
**    temp.export_win; their last column is the rank.
**  - The indexed ones run once per rank: ?2 rank, ?3/?4 its window.
** ?1 is the run in both.
*/

typedef void (*RowFn)(Ex *x, sqlite3_stmt *s);

typedef struct Source {
  const char *zTable;       /* for the rowid range, NULL = indexed */
  const char *zSql;         /* name of its statements/NAME.sql */
  RowFn xRow;
} Source;

static void row_cpu_op(Ex *x, sqlite3_stmt *s){
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_HOST,
                           col_i(s, 0, 0), col_i(s, 1, 0), NULL);
  ev_begin(x, "X", "cpu_op", col_t(s, 4), pid, col_i(s, 1, 0),
           sqlite3_column_int64(s, 2));
  ev_dur(x, sqlite3_column_int64(s, 3));
  args_begin(x);
  arg_col_int(x, "External id", s, 5);
  arg_col_int(x, "Sequence number", s, 6);
  arg_col_int(x, "Fwd thread id", s, 7);
  arg_col_raw(x, "Input Dims", s, 8);
  arg_col_raw(x, "Input type", s, 9);
  arg_col_raw(x, "Concrete Inputs", s, 10);
  if( sqlite3_column_type(s, 12)==SQLITE_TEXT
      && strcmp(col_t(s, 12), "arg")==0 ){
    arg_col_real(x, "flops", s, 11);
  }
  arg_coll(x, s, 13);
  ev_end(x, 1);
}

static void row_runtime(Ex *x, sqlite3_stmt *s){
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_HOST,
                           col_i(s, 0, 0), col_i(s, 1, 0), NULL);
  ev_begin(x, "X", col_i(s, 5, 0) ? "cuda_driver" : "cuda_runtime",
           col_t(s, 4), pid, col_i(s, 1, 0),
           sqlite3_column_int64(s, 2));
  ev_dur(x, sqlite3_column_int64(s, 3));
  args_begin(x);
  arg_col_int(x, "correlation", s, 6);
  arg_col_int(x, "External id", s, 7);
  arg_col_int(x, "cbid", s, 8);
  ev_end(x, 1);
}

/* The ac2g flow from the launch (columns iL.. : pid, tid, ts, dur of the
** runtime call, NULL when not linked) to the GPU row just written, when
** the launch is in the export too. */
static void gpu_flow(Ex *x, sqlite3_stmt *s, int iL, int64_t gpuPid,
                     int64_t stream, int64_t ts){
  int64_t rTs, rDur, rPid, id;
  if( sqlite3_column_type(s, iL+2)==SQLITE_NULL ) return;
  rTs = sqlite3_column_int64(s, iL+2);
  rDur = col_i(s, iL+3, 0);
  if( !(rTs < x->pR->hi && rTs + (rDur>1 ? rDur : 1) > x->pR->lo) ) return;
  rPid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_HOST,
                    col_i(s, iL, 0), col_i(s, iL+1, 0), NULL);
  id = ++x->pSt->nFlows;
  ev_begin(x, "s", "ac2g", "ac2g", rPid, col_i(s, iL+1, 0), rTs);
  buf_printf(&x->b, ",\"id\":%lld}", (long long)id);
  ev_begin(x, "f", "ac2g", "ac2g", gpuPid, stream, ts);
  buf_printf(&x->b, ",\"id\":%lld,\"bp\":\"e\"}", (long long)id);
}

static void row_kernel(Ex *x, sqlite3_stmt *s){
  int64_t dev = col_i(s, 0, -1), stream = col_i(s, 1, 0);
  int64_t ts = sqlite3_column_int64(s, 2);
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_GPU, dev,
                           stream, NULL);
  ev_begin(x, "X", "kernel", col_t(s, 4), pid, stream, ts);
  ev_dur(x, sqlite3_column_int64(s, 3));
  args_begin(x);
  arg_col_int(x, "device", s, 0);
  arg_col_int(x, "stream", s, 1);
  arg_col_int(x, "correlation", s, 5);
  arg_col_int(x, "External id", s, 6);
  if( sqlite3_column_type(s, 7)!=SQLITE_NULL ){
    arg_key(x, "grid");
    buf_printf(&x->b, "[%lld,%lld,%lld]", (long long)col_i(s, 7, 0),
               (long long)col_i(s, 8, 0), (long long)col_i(s, 9, 0));
  }
  if( sqlite3_column_type(s, 10)!=SQLITE_NULL ){
    arg_key(x, "block");
    buf_printf(&x->b, "[%lld,%lld,%lld]", (long long)col_i(s, 10, 0),
               (long long)col_i(s, 11, 0), (long long)col_i(s, 12, 0));
  }
  arg_col_int(x, "registers per thread", s, 13);
  arg_col_int(x, "shared memory", s, 14);
  arg_col_real(x, "blocks per SM", s, 15);
  arg_col_real(x, "warps per SM", s, 16);
  arg_col_real(x, "est. achieved occupancy %", s, 17);
  arg_coll(x, s, 22);
  ev_end(x, 1);
  gpu_flow(x, s, 18, pid, stream, ts);
}

static void row_mem_op(Ex *x, sqlite3_stmt *s){
  int64_t dev = col_i(s, 0, -1), stream = col_i(s, 1, 0);
  int64_t ts = sqlite3_column_int64(s, 2);
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_GPU, dev,
                           stream, NULL);
  ev_begin(x, "X", strcmp(col_t(s, 5), "memset")==0 ? "gpu_memset"
                   : "gpu_memcpy", col_t(s, 4), pid, stream, ts);
  ev_dur(x, sqlite3_column_int64(s, 3));
  args_begin(x);
  arg_col_int(x, "device", s, 0);
  arg_col_int(x, "stream", s, 1);
  arg_col_int(x, "correlation", s, 6);
  arg_col_int(x, "External id", s, 7);
  arg_col_int(x, "bytes", s, 8);
  arg_col_real(x, "memory bandwidth (GB/s)", s, 9);
  ev_end(x, 1);
  gpu_flow(x, s, 10, pid, stream, ts);
}

static void row_sync(Ex *x, sqlite3_stmt *s){
  int64_t dev = col_i(s, 0, -1), stream = col_i(s, 1, 0);
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_GPU, dev,
                           stream, NULL);
  ev_begin(x, "X", "cuda_sync", col_t(s, 4), pid, stream,
           sqlite3_column_int64(s, 2));
  ev_dur(x, sqlite3_column_int64(s, 3));
  args_begin(x);
  arg_col_int(x, "device", s, 0);
  arg_col_int(x, "stream", s, 1);
  arg_col_int(x, "correlation", s, 5);
  ev_end(x, 1);
}

static void row_annotation(Ex *x, sqlite3_stmt *s){
  int isGpu = strcmp(col_t(s, 0), "gpu_user")==0;
  int64_t pid = export_pids_get(x->pPids, x->pR->rank,
                           isGpu ? EXPORT_PID_GPU : EXPORT_PID_HOST,
                           col_i(s, 1, isGpu ? -1 : 0), col_i(s, 2, 0), NULL);
  ev_begin(x, "X", isGpu ? "gpu_user_annotation" : "user_annotation",
           col_t(s, 5), pid, col_i(s, 2, 0), sqlite3_column_int64(s, 3));
  ev_dur(x, sqlite3_column_int64(s, 4));
  args_begin(x);
  if( isGpu ){
    arg_col_int(x, "device", s, 1);
    arg_col_int(x, "stream", s, 2);
  }
  arg_col_int(x, "External id", s, 6);
  ev_end(x, 1);
}

static void row_python(Ex *x, sqlite3_stmt *s){
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_HOST,
                           col_i(s, 0, 0), col_i(s, 1, 0), NULL);
  ev_begin(x, "X", "python_function", col_t(s, 4), pid, col_i(s, 1, 0),
           sqlite3_column_int64(s, 2));
  ev_dur(x, sqlite3_column_int64(s, 3));
  args_begin(x);
  arg_col_int(x, "Python id", s, 5);
  arg_col_int(x, "Python parent id", s, 6);
  ev_end(x, 1);
}

/* A [memory] instant as Kineto writes it, and the allocator totals as a
** counter track on profan's process of the rank. */
static void row_memory(Ex *x, sqlite3_stmt *s){
  int64_t ts = sqlite3_column_int64(s, 0);
  int64_t dev = col_i(s, 3, -1);
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_PROFAN, 0, 2,
                           "memory");
  char zCounter[64];
  ev_begin(x, "i", "cpu_instant_event", col_t(s, 1), pid, 2, ts);
  buf_puts(&x->b, ",\"s\":\"t\"");
  args_begin(x);
  arg_col_int(x, "Device Type", s, 2);
  arg_col_int(x, "Device Id", s, 3);
  arg_col_int(x, "Addr", s, 4);
  arg_col_int(x, "Bytes", s, 5);
  arg_col_int(x, "Total Allocated", s, 6);
  arg_col_int(x, "Total Reserved", s, 7);
  ev_end(x, 1);
  if( sqlite3_column_type(s, 6)==SQLITE_NULL ) return;
  if( dev<0 ) snprintf(zCounter, sizeof(zCounter), "CPU memory (bytes)");
  else snprintf(zCounter, sizeof(zCounter), "GPU %lld memory (bytes)",
                (long long)dev);
  ev_begin(x, "C", "profan", zCounter, pid, 2, ts);
  args_begin(x);
  arg_col_int(x, "allocated", s, 6);
  arg_col_int(x, "reserved", s, 7);
  ev_end(x, 1);
}

static const Source aSource[] = {
  { "cpu_op", "export-trace-cpu-op", row_cpu_op },
  { "runtime_call", "export-trace-runtime-call", row_runtime },
  { "kernel", "export-trace-kernel", row_kernel },
  { NULL, "export-trace-gpu-mem-op", row_mem_op },
  { "gpu_sync", "export-trace-gpu-sync", row_sync },
  { NULL, "export-trace-annotation", row_annotation },
  { "python_function", "export-trace-python-function", row_python },
  { "memory_event", "export-trace-memory-event", row_memory },
};
#define N_SOURCE ((int)(sizeof(aSource)/sizeof(aSource[0])))

static int db_fail(Ex *x){
  pf_error_set(x->pErr, ERRPOS_NONE, 0, "database: %s",
               sqlite3_errmsg(x->db));
  return -1;
}

/* The windows of every rank in temp.export_win (the big tables' pass
** and export_derived.c join it). */
static int fill_windows(Ex *x){
  sqlite3_stmt *s;
  if( db_exec(x->db, db_statement("export-trace-fill-windows"),
              x->pErr) ) return -1;
  s = db_prepare(x->db, "INSERT INTO temp.export_win VALUES(?1,?2,?3)",
                 x->pErr);
  if( s==NULL ) return -1;
  for(int r=0; r<x->pSpec->nRank; r++){
    sqlite3_bind_int64(s, 1, x->pSpec->aRank[r].rank);
    sqlite3_bind_int64(s, 2, x->pSpec->aRank[r].lo);
    sqlite3_bind_int64(s, 3, x->pSpec->aRank[r].hi);
    if( db_step_done(x->db, s, x->pErr) ){
      sqlite3_finalize(s);
      return -1;
    }
  }
  sqlite3_finalize(s);
  return 0;
}

/* Run s (bound) to the end, handing each row to xRow; with byRank the
** row's last column names its rank. */
static int run_rows(Ex *x, sqlite3_stmt *s, RowFn xRow, int byRank){
  int rc, iRank = sqlite3_column_count(s) - 1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    if( byRank ){
      x->pR = export_spec_rank(x->pSpec, x->pR, sqlite3_column_int64(s, iRank));
    }
    xRow(x, s);
  }
  sqlite3_reset(s);
  return rc==SQLITE_DONE ? 0 : -1;
}

/* Every row of every source for every rank. */
static int write_sources(Ex *x){
  if( fill_windows(x) ) return -1;
  for(int i=0; i<N_SOURCE; i++){
    int64_t lo = 0, hi = -1;
    sqlite3_stmt *s;
    if( aSource[i].zTable ){
      if( db_run_rowids(x->db, aSource[i].zTable, x->pSpec->runId, &lo, &hi,
                        x->pErr) ) return -1;
      if( lo>hi ) continue;
    }
    s = db_prepare(x->db, db_statement(aSource[i].zSql), x->pErr);
    if( s==NULL ) return -1;
    sqlite3_bind_int64(s, 1, x->pSpec->runId);
    if( aSource[i].zTable ){
      sqlite3_bind_int64(s, 5, lo);
      sqlite3_bind_int64(s, 6, hi);
      x->pR = NULL;
      if( run_rows(x, s, aSource[i].xRow, 1) ){
        sqlite3_finalize(s);
        return db_fail(x);
      }
    }
    for(int r=0; !aSource[i].zTable && r<x->pSpec->nRank; r++){
      x->pR = &x->pSpec->aRank[r];
      sqlite3_bind_int64(s, 2, x->pR->rank);
      sqlite3_bind_int64(s, 3, x->pR->lo);
      sqlite3_bind_int64(s, 4, x->pR->hi);
      if( run_rows(x, s, aSource[i].xRow, 0) ){
        sqlite3_finalize(s);
        return db_fail(x);
      }
    }
    sqlite3_finalize(s);
  }
  return 0;
}

/* ------------------------------------------------------- metadata */

/* deviceProperties of the exported ranks (ids remapped like the pids). */
static int write_devices(Ex *x){
  sqlite3_stmt *s = db_prepare(x->db,
    db_statement("export-trace-write-devices"), x->pErr);
  int n = 0;
  if( s==NULL ) return -1;
  buf_puts(&x->b, "\"deviceProperties\":[");
  for(int r=0; r<x->pSpec->nRank; r++){
    int64_t rank = x->pSpec->aRank[r].rank;
    sqlite3_bind_int64(s, 1, x->pSpec->runId);
    sqlite3_bind_int64(s, 2, rank);
    while( sqlite3_step(s)==SQLITE_ROW ){
      int64_t dev = sqlite3_column_int64(s, 0);
      if( x->pSpec->merged ) dev = (rank+1)*1000 + (dev<0||dev>498 ? 499 : dev);
      buf_printf(&x->b, "%s{\"id\":%lld,\"name\":", n++ ? "," : "",
                 (long long)dev);
      export_json_str(&x->b, col_t(s, 1), -1);
      buf_printf(&x->b, ",\"totalGlobalMem\":%lld,\"computeMajor\":%lld,"
                 "\"computeMinor\":%lld,\"numSms\":%lld}",
                 (long long)col_i(s, 2, 0), (long long)col_i(s, 3, 0),
                 (long long)col_i(s, 4, 0), (long long)col_i(s, 5, 0));
    }
    if( sqlite3_reset(s)!=SQLITE_OK ){
      sqlite3_finalize(s);
      return db_fail(x);
    }
  }
  sqlite3_finalize(s);
  buf_puts(&x->b, "],\n");
  return 0;
}

/* Top-level keys before traceEvents. */
static int write_head(Ex *x){
  const ExportSpec *p = x->pSpec;
  int64_t lo = p->aRank[0].lo, ws;
  for(int r=1; r<p->nRank; r++) if( p->aRank[r].lo<lo ) lo = p->aRank[r].lo;
  /* ts relative to a base a day before the window: exact in a double (a
  ** viewer's parser) and never negative for rows overlapping it */
  x->base = lo > 2*86400000000000LL
          ? (lo - 86400000000000LL) / 1000000000LL * 1000000000LL : 0;
  buf_puts(&x->b, "{\"schemaVersion\":1,\n");
  if( write_devices(x) ) return -1;
  ws = db_int(x->db, -1,
              db_statement("export-trace-write-head"), (long long)p->runId);
  buf_puts(&x->b, "\"distributedInfo\":{");
  if( !p->merged ){
    buf_printf(&x->b, "\"rank\":%lld,", (long long)p->aRank[0].rank);
  }
  if( ws>0 ) buf_printf(&x->b, "\"world_size\":%lld,", (long long)ws);
  buf_puts(&x->b, "\"ranks\":[");
  for(int r=0; r<p->nRank; r++){
    buf_printf(&x->b, "%s%lld", r ? "," : "", (long long)p->aRank[r].rank);
  }
  buf_puts(&x->b, "]},\n\"profanExport\":{\"run\":");
  buf_printf(&x->b, "%lld,\"what\":", (long long)p->runId);
  export_json_str(&x->b, p->zWhat ? p->zWhat : "", -1);
  buf_puts(&x->b, ",\"windows\":[");
  for(int r=0; r<p->nRank; r++){
    buf_printf(&x->b, "%s{\"rank\":%lld,\"start_ns\":%lld,\"end_ns\":%lld}",
               r ? "," : "", (long long)p->aRank[r].rank,
               (long long)p->aRank[r].lo, (long long)p->aRank[r].hi);
  }
  buf_printf(&x->b, "]},\n\"displayTimeUnit\":\"ms\",\n"
             "\"baseTimeNanoseconds\":%lld,\n\"traceEvents\":[\n",
             (long long)x->base);
  /* a first event, so that every later one starts with a comma */
  buf_puts(&x->b, "{\"ph\":\"M\",\"name\":\"profan_export\",\"pid\":0,"
           "\"tid\":0,\"args\":{\"name\":\"profan export-trace\"}}");
  return 0;
}

int export_trace_write(sqlite3 *db, const ExportSpec *pSpec,
                       ExportSink *pSink, ExportStats *pStats,
                       PfError *pErr){
  Ex x;
  int64_t nDerived;
  int rc = -1;
  memset(&x, 0, sizeof(x));
  memset(pStats, 0, sizeof(*pStats));
  x.db = db;
  x.pSpec = pSpec;
  x.pSink = pSink;
  x.pSt = pStats;
  x.pErr = pErr;
  x.pPids = export_pids_new(pSpec->merged);
  buf_init(&x.b);
  if( write_head(&x) ) goto done;
  if( write_sources(&x) ) goto done;
  nDerived = export_derived_write(db, pSpec, x.base, x.pPids, pSink, &x.b,
                                  pErr);
  if( nDerived<0 ) goto done;
  pStats->nDerived = nDerived;
  export_pids_names(x.pPids, &x.b, pSink);
  buf_puts(&x.b, "\n]}\n");
  export_sink_flush_buf(pSink, &x.b);
  rc = 0;
done:
  buf_free(&x.b);
  export_pids_free(x.pPids);
  return rc;
}
