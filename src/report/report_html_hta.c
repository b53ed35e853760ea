/*
** report_html_hta.c — the HTA sections of `profan report RUN --html`:
** idle breakdown per stream, the launch queue over time and the critical
** path per step (see report_html_hta.h).  Every number comes from the
** named queries idle-breakdown, queue-length, critical-path and
** critical-path-top, and the queue chart from the stored change points
** of hta_stream (the view hta_queue_length's series, read without its
** window); the table under each chart is the query's own output.
**
** Pipeline position: read side, called by report_html.c; html.c does the
** markup.
*/
#include "report/report_html_hta.h"
#include "core/db.h"
#include "report/html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of the critical-path chart (the table lists every step). */
#define HTA_CP_ROWS 60
/* Streams drawn in the queue chart, and points per stream. */
#define HTA_QUEUE_SERIES 6
#define HTA_QUEUE_POINTS 200
/* Rows of the top-contributor table. */
#define HTA_TOP 15

typedef struct Hx {
  sqlite3 *db;
  const NqList *q;
  int64_t run;
  const int64_t *aRank;  /* ranks the per-rank sections show */
  int nRank;             /* 0: every rank */
  Buf *p;
  PfError *pErr;
  int rc;
} Hx;

static void hx_fail(Hx *x, const char *zWhat){
  if( x->rc==0 ){
    pf_error_set(x->pErr, ERRPOS_NONE, 0, "%s: %s", zWhat,
                 sqlite3_errmsg(x->db));
  }
  x->rc = -1;
}

/* Named query zName with its defaults and limit (<0: its own); with
** iRank >= 0, for rank x->aRank[iRank] only. */
static sqlite3_stmt *hx_named_rank(Hx *x, const char *zName, int64_t limit,
                                   int iRank){
  const NamedQuery *q;
  sqlite3_stmt *s;
  const char *azKey[1] = { "rank" };
  const char *azVal[1];
  char zRank[24];
  if( x->rc ) return NULL;
  q = named_query_find(x->q, zName);
  if( q==NULL ){
    pf_error_set(x->pErr, ERRPOS_NONE, 0, "no query named '%s'", zName);
    x->rc = -1;
    return NULL;
  }
  snprintf(zRank, sizeof(zRank), "%lld",
           iRank>=0 ? (long long)x->aRank[iRank] : 0LL);
  azVal[0] = zRank;
  s = named_query_prepare(x->db, q, x->run, azKey, azVal, iRank>=0,
                          limit, x->pErr);
  if( s==NULL ) x->rc = -1;
  return s;
}

static sqlite3_stmt *hx_named(Hx *x, const char *zName, int64_t limit){
  return hx_named_rank(x, zName, limit, -1);
}

static int hx_step(Hx *x, sqlite3_stmt *s, HtmlTable *t, const char *zWhat){
  int rc = sqlite3_step(s);
  if( rc==SQLITE_ROW ){
    if( t ) html_tstmt_row(t, s);
    return 1;
  }
  if( rc!=SQLITE_DONE ) hx_fail(x, zWhat);
  return 0;
}

/* A per-rank section's rows: query zName once (every rank), or once per
** rank of x->aRank, into one table t; xRow sees each row.  Returns the
** number of rows; *pBegun says whether t was begun. */
static int hx_rows(Hx *x, const char *zName, HtmlTable *t, int *pBegun,
                   void (*xRow)(sqlite3_stmt*, void*), void *pArg){
  int nPass = x->nRank>0 ? x->nRank : 1, n = 0;
  *pBegun = 0;
  for(int i=0; i<nPass && x->rc==0; i++){
    sqlite3_stmt *s = hx_named_rank(x, zName, -1, x->nRank>0 ? i : -1);
    if( s==NULL ) break;
    if( !*pBegun ){
      html_tstmt_begin(t, s, zName, -1);
      *pBegun = 1;
    }
    while( hx_step(x, s, t, zName) ){
      if( xRow ) xRow(s, pArg);
      n++;
    }
    sqlite3_finalize(s);
  }
  return n;
}

/* The note of a per-rank section of a run shown by its outlier ranks. */
static void hx_rank_note(Hx *x){
  if( x->nRank>0 ){
    char z[200];
    snprintf(z, sizeof(z), "Many ranks: the %d outlier ranks of the steps"
             " section only (stragglers, the slowest, the fastest and the"
             " median rank).", x->nRank);
    html_note(x->p, z);
  }
}


static int col(sqlite3_stmt *s, const char *zName){
  for(int i=0; i<sqlite3_column_count(s); i++){
    if( strcmp(sqlite3_column_name(s, i), zName)==0 ) return i;
  }
  return 0;
}

static const char *ctext(sqlite3_stmt *s, int i){
  const char *z = (const char *)sqlite3_column_text(s, i);
  return z ? z : "";
}

/* Growable row labels and values of a stacked chart. */
typedef struct Stack {
  char **azRow;
  double *aV;
  int n, nSeg;
} Stack;

static double *stack_row(Stack *k, const char *zLabel){
  k->azRow = xrealloc(k->azRow, sizeof(char*)*(size_t)(k->n+1));
  k->aV = xrealloc(k->aV, sizeof(double)*(size_t)((k->n+1)*k->nSeg));
  k->azRow[k->n] = xstrdup(zLabel);
  memset(&k->aV[k->n*k->nSeg], 0, sizeof(double)*(size_t)k->nSeg);
  return &k->aV[(k->n++)*k->nSeg];
}

static void stack_free(Stack *k){
  for(int i=0; i<k->n; i++) free(k->azRow[i]);
  free(k->azRow);
  free(k->aV);
}

/* ------------------------------------------------------- idle breakdown */

/* Rows of idle-breakdown summed into the stack chart's rows. */
typedef struct IdleAcc {
  Stack k;
  char zPrev[96];
  double *aRow;
} IdleAcc;

static void idle_row(sqlite3_stmt *s, void *pArg){
  static const char *const azCat[] = { "host_wait", "kernel_wait", "other" };
  IdleAcc *a = (IdleAcc*)pArg;
  char z[96];
  const char *zCat = ctext(s, col(s, "category"));
  snprintf(z, sizeof(z), "rank %s stream %s", ctext(s, col(s, "rank")),
           ctext(s, col(s, "stream")));
  if( a->aRow==NULL || strcmp(z, a->zPrev)!=0 ){
    a->aRow = stack_row(&a->k, z);
    snprintf(a->zPrev, sizeof(a->zPrev), "%s", z);
  }
  for(int i=0; i<3; i++){
    if( strcmp(zCat, azCat[i])==0 ){
      a->aRow[i] += sqlite3_column_double(s, col(s, "idle_ms"));
    }
  }
}

static void sec_idle(Hx *x){
  static const char *const azSeg[] = { "host wait", "kernel wait", "other" };
  IdleAcc a = { { NULL, NULL, 0, 3 }, "", NULL };
  HtmlTable t;
  int begun;
  html_section_begin(x->p, "idle-breakdown", "Idle breakdown");
  hx_rows(x, "idle-breakdown", &t, &begun, idle_row, &a);
  if( !begun ){
    html_section_end(x->p);
    return;
  }
  if( a.k.n==0 ){
    html_tstmt_end(&t, NULL);
    if( x->rc==0 ) html_note(x->p, "no idle interval on any stream (no"
                             " stream ran two GPU ops one after the other)");
  }else{
    html_note(x->p, "GPU idle time per stream by cause (named query"
              " idle-breakdown): host wait = the CPU launched the next op"
              " only after the stream went idle; kernel wait = a short gap"
              " (below hta_setting kernel_wait_ns) between ops already"
              " launched; other = the rest (waits on other streams or"
              " events).");
    hx_rank_note(x);
    html_stack_chart(x->p, "chart-idle-breakdown", "GPU idle time per"
                     " stream (ms)", (const char *const *)a.k.azRow, a.k.n,
                     azSeg, 3, a.k.aV, "ms");
    html_tstmt_end(&t, x->p);
  }
  stack_free(&a.k);
  html_section_end(x->p);
}

/* ---------------------------------------------------------- launch queue */

/* One series of the queue chart being filled: the bucket of the point
** last added (k), its first time (ns after the rank's start, as
** unsigned) and largest length. */
typedef struct QueueAcc {
  HtmlSeries *c;
  double *aX, *aY;                /* c's points, writable */
  int64_t k, kTs, kMax;
  int hasK;
} QueueAcc;

static void queue_flush(QueueAcc *a){
  if( a->hasK && a->c->n<=HTA_QUEUE_POINTS ){
    a->aX[a->c->n] = (double)(uint64_t)a->kTs / 1e6;
    a->aY[a->c->n] = (double)a->kMax;
    a->c->n++;
  }
  a->hasK = 0;
}

/* One stream's series: its changes from s (report-html-hta-queue-points,
** bound), the first at ts; the rank's span starts at t0 and is w long.
** Returns SQLITE_DONE, -1 when the array is not schema 124's (elements
** out of order or without [held, length, ...]), or an SQLite error. */
static int queue_series(sqlite3_stmt *s, QueueAcc *a, int64_t ts,
                        int64_t t0, int64_t w){
  int64_t held = 0, elem = -1, prev = 0;
  int rc;
  if( w<1 ) w = 1;                        /* an edited row */
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    int64_t id = sqlite3_column_int64(s, 0), v = sqlite3_column_int64(s, 2);
    if( sqlite3_column_int64(s, 1)==0 ){   /* [held, ...: a new element */
      if( elem>=0 || id<=prev ) return -1;
      held = v;
      elem = prev = id;
    }else{                                 /* ..., length ...]: its change */
      /* (ts - t0) * points / w; in double, as SQL's CAST(... AS INTEGER)
      ** does, once the product leaves the 64-bit range */
      uint64_t d = (uint64_t)ts - (uint64_t)t0;
      double q = (double)d * HTA_QUEUE_POINTS / (double)w;
      int64_t k = d < (uint64_t)(INT64_MAX / HTA_QUEUE_POINTS)
                  ? (int64_t)d * HTA_QUEUE_POINTS / w
                  : q < HTA_QUEUE_POINTS ? (int64_t)q : HTA_QUEUE_POINTS;
      if( elem!=id ) return -1;
      if( !a->hasK || k!=a->k ){
        queue_flush(a);
        a->k = k;
        a->kTs = (int64_t)d;
        a->kMax = v;
        a->hasK = 1;
      }else if( v>a->kMax ){
        a->kMax = v;
      }
      ts = (int64_t)((uint64_t)ts + (uint64_t)held);  /* an edited array
                                                      ** may not overflow */
      elem = -1;
    }
  }
  queue_flush(a);
  if( rc!=SQLITE_DONE ) return rc;
  return elem>=0 ? -1 : SQLITE_DONE;
}

/* The queue chart: the largest length in each of HTA_QUEUE_POINTS time
** buckets of the rank's span, per busiest stream.  The times of the
** changes are queue_t0 plus the held times before them (schema 124),
** summed here as the rows arrive: the view hta_queue_length computes the
** same with a window over every change of the rank, 1-2 s on a stream of
** 200,000 changes. */
static void queue_chart(Hx *x){
  HtmlSeries aS[HTA_QUEUE_SERIES];
  double *aX = xmalloc(sizeof(double)*HTA_QUEUE_SERIES*(HTA_QUEUE_POINTS+1));
  double *aY = xmalloc(sizeof(double)*HTA_QUEUE_SERIES*(HTA_QUEUE_POINTS+1));
  char azName[HTA_QUEUE_SERIES][48];
  int64_t rank = x->nRank>0 ? x->aRank[0]
                 : db_int(x->db, 0, db_statement("report-html-hta-queue-chart"),
                          (long long)x->run);
  int nS = 0, rc = SQLITE_DONE;
  PfError e = {0};
  sqlite3_stmt *s = db_prepare(x->db,
                               db_statement("report-html-hta-queue"), &e);
  sqlite3_stmt *p = s ? db_prepare(x->db,
                    db_statement("report-html-hta-queue-points"), &e) : NULL;
  if( p==NULL ){
    pf_error_set(x->pErr, ERRPOS_NONE, 0, "%s", e.zMsg);
    x->rc = -1;
    sqlite3_finalize(s);
    free(aX); free(aY);
    return;
  }
  sqlite3_bind_int64(s, 1, x->run);
  sqlite3_bind_int(s, 2, HTA_QUEUE_SERIES);
  sqlite3_bind_int64(s, 4, rank);
  sqlite3_bind_int64(p, 1, x->run);
  sqlite3_bind_int64(p, 2, rank);
  while( nS<HTA_QUEUE_SERIES && (rc = sqlite3_step(s))==SQLITE_ROW ){
    QueueAcc a = { &aS[nS], aX + nS*(HTA_QUEUE_POINTS+1),
                   aY + nS*(HTA_QUEUE_POINTS+1), 0, 0, 0, 0 };
    int64_t stream = sqlite3_column_int64(s, 1);
    snprintf(azName[nS], sizeof(azName[nS]), "stream %lld",
             (long long)stream);
    aS[nS] = (HtmlSeries){ .zName = azName[nS], .aX = a.aX, .aY = a.aY,
                           .n = 0, .iStyle = nS };
    sqlite3_bind_int64(p, 3, sqlite3_column_int64(s, 0));
    sqlite3_bind_int64(p, 4, stream);
    rc = queue_series(p, &a, sqlite3_column_int64(s, 2),
                      sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4));
    sqlite3_reset(p);
    if( rc<0 ){
      pf_error_set(x->pErr, ERRPOS_NONE, 0, "queue chart: rank %lld stream"
                   " %lld: hta_stream.queue_points is not an array of"
                   " [held, length, ...] (schema 124); `profan rebuild`"
                   " writes it again", (long long)rank, (long long)stream);
      x->rc = -1;
      break;
    }
    nS++;
    if( rc!=SQLITE_DONE ) break;
    rc = SQLITE_ROW;
  }
  if( x->rc==0 && rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    hx_fail(x, "queue chart");
  }
  sqlite3_finalize(s);
  sqlite3_finalize(p);
  if( nS>0 && x->rc==0 ){
    char zTitle[96];
    snprintf(zTitle, sizeof(zTitle), "Launch queue length over time, rank"
             " %lld (largest value per bucket)", (long long)rank);
    html_line_chart(x->p, &(HtmlLineChart){ .zId = "chart-queue-length",
                    .zTitle = zTitle, .zXLabel = "ms from the first launch",
                    .zYLabel = "ops queued", .aS = aS, .nS = nS });
  }
  free(aX);
  free(aY);
}

static void sec_queue(Hx *x){
  HtmlTable t;
  int begun, n;
  html_section_begin(x->p, "queue-length", "Launch queue");
  n = hx_rows(x, "queue-length", &t, &begun, NULL, NULL);
  if( !begun ){
    html_section_end(x->p);
    return;
  }
  if( n==0 ){
    html_tstmt_end(&t, NULL);
    if( x->rc==0 ) html_note(x->p, "no GPU op with a launch call in this"
                             " run");
  }else{
    html_note(x->p, "GPU ops launched by the CPU and not yet started, per"
              " stream (named query queue-length).  A queue that stays"
              " empty (empty_pct high) is a CPU-bound stream: the GPU runs"
              " each op as soon as it is launched.  A queue at 1024 blocks"
              " the CPU in the launch call (blocked_ms).");
    hx_rank_note(x);
    queue_chart(x);
    html_tstmt_end(&t, x->p);
  }
  html_section_end(x->p);
}

/* --------------------------------------------------------- critical path */

static const char *const azCpSeg[] = {
  "CPU op", "launch", "runtime", "sync", "kernel", "comm kernel",
  "memcpy/memset", "GPU wait", "idle" };
static const char *const azCpCol[] = {
  "cpu_op_pct", "launch_pct", "runtime_pct", "sync_pct", "kernel_pct",
  "comm_pct", "memory_pct", "gpu_wait_pct", "idle_pct" };
#define HTA_CP_NSEG 9

/* One row of critical-path into the stack chart (HTA_CP_ROWS at most). */
static void cp_row(sqlite3_stmt *s, void *pArg){
  Stack *k = (Stack*)pArg;
  char z[64];
  double ms = sqlite3_column_double(s, col(s, "step_ms")), *a;
  if( k->n==HTA_CP_ROWS ) return;
  snprintf(z, sizeof(z), "rank %s step %s", ctext(s, col(s, "rank")),
           ctext(s, col(s, "step")));
  a = stack_row(k, z);
  for(int i=0; i<HTA_CP_NSEG; i++){
    a[i] = ms * sqlite3_column_double(s, col(s, azCpCol[i])) / 100.0;
  }
}

static void sec_critical_path(Hx *x){
  Stack k = { NULL, NULL, 0, HTA_CP_NSEG };
  HtmlTable t;
  sqlite3_stmt *s;
  int begun;
  html_section_begin(x->p, "critical-path", "Critical path");
  hx_rows(x, "critical-path", &t, &begun, cp_row, &k);
  if( !begun ){
    html_section_end(x->p);
    return;
  }
  if( k.n==0 ){
    html_tstmt_end(&t, NULL);
    if( x->rc==0 ) html_note(x->p, "no step with a critical path in this"
                             " run");
  }else{
    html_note(x->p, "The chain of dependent work that sets each step's"
              " time, walked back from the step end (named query"
              " critical-path): only what lies on it makes the step"
              " shorter when made faster.  Each bar adds up to the step.");
    hx_rank_note(x);
    html_stack_chart(x->p, "chart-critical-path", "Critical path per step"
                     " by class (ms)", (const char *const *)k.azRow, k.n,
                     azCpSeg, HTA_CP_NSEG, k.aV, "ms");
    html_tstmt_end(&t, x->p);
    s = hx_named(x, "critical-path-top", HTA_TOP);
    if( s && html_table_stmt(x->p, s, "critical-path-top", -1, NULL)
             !=SQLITE_DONE ){
      hx_fail(x, "critical-path-top");
    }
    sqlite3_finalize(s);
  }
  stack_free(&k);
  html_section_end(x->p);
}

int report_html_hta(sqlite3 *db, const NqList *pQ, int64_t run,
                    const int64_t *aRank, int nRank, Buf *p, PfError *pErr){
  Hx x;
  memset(&x, 0, sizeof(x));
  x.db = db;
  x.q = pQ;
  x.run = run;
  x.aRank = aRank;
  x.nRank = nRank;
  x.p = p;
  x.pErr = pErr;
  sec_idle(&x);
  if( x.rc==0 ) sec_queue(&x);
  if( x.rc==0 ) sec_critical_path(&x);
  return x.rc;
}
