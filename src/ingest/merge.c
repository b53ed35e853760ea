/*
** merge.c — `profan merge`: combine shard databases into one run.
**
** A shard is the database of one `profan ingest` of some rank files of a
** run (one node's, typically).  Merging copies each shard's rows into one
** run of the target database and then runs the run-level derive passes of
** an ingest over the whole run, so that the result is what one ingest of
** all the files would have stored.
**
** Pipeline position: beside ingest.c; the copy replaces discover -> parse
** -> load, and the derive passes are the ingest's own (derive_run_stored:
** derive_memory_run, the stored-rows feeder (trace_feed.c) giving the
** merged rows to what the writer keeps of them, then
** derive_run_after_load's comm, HTA, operator and core passes).
**
** What is copied is read from the table catalogue (table_role, through
** statements/merge-tables.sql), not listed here: the tables with a run_id
** column whose role is run, raw or derived_rank (computed from one rank's
** rows, so a shard's rows are what one ingest of all the files computes);
** the derived_run ones (collectives matched across ranks, critical paths,
** run metrics) are computed again over the whole run by the derive
** sequence over stored rows (derive_run_stored).  --summaries-only copies
** the tables marked summary.  Columns are remapped by name: run_id; an
** INTEGER PRIMARY KEY id; interned strings (table_string_column);
** references to another table's id (aRef); coll_args.row_id into the
** table its src column names.  Ids of (file id << 32) + n (the in-stream
** linker's before schema 129) keep n and take the new file id; other ids
** move past the target's largest below 2^32, cpu_op and runtime_call by
** one offset (a file's ids in both are its id_base + n) with the files'
** recorded ranges (trace_id_base: id_base, id_last map as cpu_op ids).
**
** Checks, before anything of a shard is copied: one run per shard; files
** already in the target (by content hash and size) make the shard skipped
** when all are there and an error when only some are; the shards' traces
** must agree on the world size, have distinct ranks below it, and steps
** that overlap in time (else they are of another job).
**
** A rank may come again as another profiling window of the same job (the
** profiler's next cycle, profan_torch.py merging each cycle into the
** node's run): allowed when its steps there and here are disjoint in
** number and in time on an epoch clock.  One ingest of all those files
** puts them in one run too; its per-rank tables (role derived_rank) are
** then computed again from the rows over the whole run, as the ingest
** computes them, instead of copied (derive_run_stored with
** DERIVE_STORED_ALL, as `profan rebuild` does).
*/
#include "ingest/merge.h"
#include "core/db.h"
#include "core/runref.h"
#include "trace/derive_trace.h"
#include "core/table_role.h"
#include "analysis/derive_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Columns that hold another table's id (zTab "" = every table but zSkip). */
static const struct { const char *zCol, *zRef, *zSkip; } aRef[] = {
  { "file_id", "run_file", "" },      { "snapshot_id", "snapshot", "" },
  { "segment_id", "segment", "" },    { "stack_id", "stack", "" },
  { "frame_id", "frame", "" },        { "user_frame_id", "frame", "" },
  { "comm_row", "nccl_comm", "" },    { "kernel_id", "kernel", "" },
  { "collective_id", "collective", "" },
  { "runtime_id", "runtime_call", "" },
  { "op_id", "cpu_op", "fr_entry" },  /* fr_entry.op_id: NCCL's own id */
  { "parent_id", "cpu_op", "" },      { "top_op_id", "cpu_op", "" },
  { "op_row", "cpu_op", "" },         { "annotation_row", "annotation", "" },
  { "id_base", "cpu_op", "" },        { "id_last", "cpu_op", "" },
};

enum { K_COPY, K_RUN, K_SELF, K_STR, K_REF, K_SRCREF };

typedef struct MCol {
  char *zName;
  int eKind;
  int iRef;          /* K_REF: table index; K_SRCREF: the src column */
} MCol;

typedef struct MTab {
  char *zName;
  MCol *a;
  int nCol;
  int hasId;         /* INTEGER PRIMARY KEY id */
  int orIgnore;      /* keep the target's row on a conflict (tags, names) */
  int perRank;       /* role derived_rank: computed again, not copied, when
                     ** a shard adds another window of a rank */
  char *zCols;       /* the columns as a list ("a", "b"), in a's order */
  char *zParams;     /* as many parameters (?, ?) */
  int64_t off;       /* this shard's offset for ids below 2^32 */
} MTab;

/* Where each rank came from, the world size and the steps' time span of
** what the run holds so far (label: a shard path or "run NAME"). */
typedef struct Acc {
  const char **azOwner;   /* by rank */
  int nOwner;
  int64_t world;
  const char *zWorld;
  int64_t t0, t1;         /* span of steps, t0 > t1: none */
  const char *zSpan;
  sqlite3 *dbT;           /* the target and its run, once known: a rank */
  int64_t runT;           /* seen again may be another window of it */
  int nWindow;            /* ranks added as another window */
} Acc;

typedef struct Merge {
  sqlite3 *db;
  const MergeOpts *pOpt;
  MergeResult *pRes;
  MTab *aTab;
  int nTab;
  int iFile;              /* index of run_file in aTab */
  int64_t *aStr;          /* source string id -> target id (0: not yet) */
  int64_t nStr;
  sqlite3_stmt *pStrSel;  /* source: text of a string id */
  sqlite3_stmt *pStrIns;  /* target: intern it */
  sqlite3_stmt *pStrGet;  /* target: its id */
  Acc acc;
  char zOwnLabel[300];
  Buf source;
  int64_t lastRun;        /* --summaries-only: the last run archived */
  const MergeFloor *pFloor;  /* ids above these (merge_archive_run), or NULL */
  int64_t sameRun;        /* the run of the same content archive_new_run
                          ** found (0: none) */
  RowidMark mark;         /* the trace tables' ids before the copy */
  int windows;            /* a shard added another window of a rank: the
                          ** derived_rank tables are computed again, not
                          ** copied */
} Merge;

/* The floor of table zTab's ids (0: none). */
static int64_t floor_of(const Merge *m, const char *zTab){
  return m->pFloor ? m->pFloor->xFloor(m->pFloor->pArg, zTab) : 0;
}

/* Forget the string mapping of the previous source. */
static void str_done(Merge *m){
  sqlite3_finalize(m->pStrSel);
  sqlite3_finalize(m->pStrIns);
  sqlite3_finalize(m->pStrGet);
  m->pStrSel = m->pStrIns = m->pStrGet = NULL;
  free(m->aStr);
  m->aStr = NULL;
  m->nStr = 0;
}

static int tab_index(const Merge *m, const char *z){
  for(int i=0; i<m->nTab; i++) if( strcmp(m->aTab[i].zName, z)==0 ) return i;
  return -1;
}

/* The kind of column c of table t (references resolved after all tables
** are known); pk: its place in the primary key, isStr: it holds a
** string id. */
static void col_kind(Merge *m, MTab *t, MCol *c, int pk, int isStr){
  c->eKind = K_COPY;
  c->iRef = -1;
  if( strcmp(c->zName, "run_id")==0 ){ c->eKind = K_RUN; return; }
  if( strcmp(c->zName, "id")==0 && pk ){
    c->eKind = K_SELF;
    t->hasId = 1;
    return;
  }
  if( isStr ){ c->eKind = K_STR; return; }
  if( strcmp(c->zName, "row_id")==0 ){
    for(int i=0; i<t->nCol; i++){
      if( strcmp(t->a[i].zName, "src")==0 ){ c->eKind = K_SRCREF; c->iRef = i; }
    }
    return;
  }
  for(size_t i=0; i<sizeof(aRef)/sizeof(aRef[0]); i++){
    if( strcmp(c->zName, aRef[i].zCol)==0 && strcmp(t->zName, aRef[i].zSkip) ){
      c->iRef = tab_index(m, aRef[i].zRef);
      if( c->iRef>=0 ) c->eKind = K_REF;
    }
  }
}

/* The tables to copy and their columns, from the table catalogue
** (statements/merge-tables.sql); run_file first.  Returns 0 or -1 (pErr). */
static int plan_build(Merge *m, PfError *pErr){
  sqlite3_stmt *p;
  int rc;
  if( table_role_check(m->db, pErr) ) return -1;
  p = db_prepare(m->db, db_statement("merge-tables"), pErr);
  if( p==NULL ) return -1;
  sqlite3_bind_int(p, 1, m->pOpt->summariesOnly);
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    const char *zTab = (const char *)sqlite3_column_text(p, 0);
    MTab *t = m->nTab ? &m->aTab[m->nTab-1] : NULL;
    MCol *c;
    if( t==NULL || strcmp(t->zName, zTab) ){
      m->aTab = xrealloc(m->aTab, sizeof(MTab)*(size_t)(m->nTab+1));
      t = &m->aTab[m->nTab++];
      memset(t, 0, sizeof(*t));
      t->zName = xstrdup(zTab);
      t->orIgnore = sqlite3_column_int(p, 4);
      t->perRank = sqlite3_column_int(p, 5);
    }
    t->a = xrealloc(t->a, sizeof(MCol)*(size_t)(t->nCol+1));
    c = &t->a[t->nCol++];
    c->zName = xstrdup((const char *)sqlite3_column_text(p, 1));
    /* pk and string for now: col_kind() decides once every table is in */
    c->iRef = sqlite3_column_int(p, 2);
    c->eKind = sqlite3_column_int(p, 3);
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(m->db));
    return -1;
  }
  for(int i=0; i<m->nTab; i++){
    MTab *t = &m->aTab[i];
    for(int j=0; j<t->nCol; j++){
      MCol *c = &t->a[j];
      col_kind(m, t, c, c->iRef, c->eKind);
    }
    /* the statements' lists: the same columns in the same order */
    if( db_table_columns(m->db, t->zName, &t->zCols, &t->zParams, pErr)
        !=t->nCol ){
      if( !pErr->set ){
        pf_error_set(pErr, ERRPOS_NONE, 0, "database: the columns of %s"
                     " changed", t->zName);
      }
      return -1;
    }
  }
  m->iFile = tab_index(m, "run_file");
  return 0;
}

static void plan_free(Merge *m){
  for(int i=0; i<m->nTab; i++){
    for(int j=0; j<m->aTab[i].nCol; j++) free(m->aTab[i].a[j].zName);
    free(m->aTab[i].a);
    free(m->aTab[i].zName);
    free(m->aTab[i].zCols);
    free(m->aTab[i].zParams);
  }
  free(m->aTab);
  str_done(m);
  free(m->acc.azOwner);
}

/* A shard id of table iTab in the target. */
static int64_t remap_id(const Merge *m, int iTab, int64_t v){
  int64_t hi = v>>32;
  if( hi ){
    return ((hi + m->aTab[m->iFile].off)<<32) | (v & 0xffffffffLL);
  }
  return v + m->aTab[iTab].off;
}

static int64_t str_map(Merge *m, int64_t v, PfError *pErr);

/* Bind column c of row pSel (column i) to parameter i+1 of pIns. */
static int bind_col(Merge *m, const MTab *t, int i, sqlite3_stmt *pSel,
                    sqlite3_stmt *pIns, int64_t runId, PfError *pErr){
  const MCol *c = &t->a[i];
  int64_t v = sqlite3_column_int64(pSel, i);
  int isNull = sqlite3_column_type(pSel, i)==SQLITE_NULL;
  if( c->eKind==K_RUN ){
    return sqlite3_bind_int64(pIns, i+1, runId);
  }
  if( c->eKind==K_COPY || isNull ){
    return sqlite3_bind_value(pIns, i+1, sqlite3_column_value(pSel, i));
  }
  if( c->eKind==K_STR && v==0 ){            /* 0: none (parent_name_id) */
    return sqlite3_bind_int64(pIns, i+1, 0);
  }
  if( c->eKind==K_STR ){
    int64_t id = str_map(m, v, pErr);
    if( id==0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s.%s: string id %lld is not in"
                   " its string table", t->zName, c->zName, (long long)v);
      return SQLITE_CORRUPT;
    }
    return sqlite3_bind_int64(pIns, i+1, id);
  }
  if( c->eKind==K_SELF ){
    return sqlite3_bind_int64(pIns, i+1, remap_id(m, (int)(t-m->aTab), v));
  }
  if( c->eKind==K_SRCREF ){
    const char *zSrc = (const char *)sqlite3_column_text(pSel, c->iRef);
    int k = zSrc ? tab_index(m, zSrc) : -1;
    if( k<0 ){
      return sqlite3_bind_value(pIns, i+1, sqlite3_column_value(pSel, i));
    }
    return sqlite3_bind_int64(pIns, i+1, remap_id(m, k, v));
  }
  return sqlite3_bind_int64(pIns, i+1, remap_id(m, c->iRef, v));
}

/* Copy the rows of run shardRun of table t from the shard into run
** runId.  Returns 0 or -1 (pErr). */
static int copy_table(Merge *m, const MTab *t, sqlite3 *dbS,
                      int64_t shardRun, int64_t runId, PfError *pErr){
  char *zSel = sqlite3_mprintf(db_statement("merge-copy-select"), t->zCols,
                               t->zName);
  char *zIns = sqlite3_mprintf(db_statement("merge-copy-insert"),
                               t->orIgnore ? "OR IGNORE" : "", t->zName,
                               t->zCols, t->zParams);
  sqlite3_stmt *pSel = NULL, *pIns = NULL;
  int rc = 0;
  pSel = db_prepare(dbS, zSel, pErr);
  pIns = pSel ? db_prepare(m->db, zIns, pErr) : NULL;
  if( pIns==NULL ) rc = -1;
  if( pSel ) sqlite3_bind_int64(pSel, 1, shardRun);
  while( rc==0 && (rc = sqlite3_step(pSel))==SQLITE_ROW ){
    rc = 0;
    for(int i=0; i<t->nCol && rc==0; i++){
      rc = bind_col(m, t, i, pSel, pIns, runId, pErr);
    }
    if( rc ) break;
    rc = db_step_done(m->db, pIns, pErr);
    m->pRes->nRows++;
  }
  if( rc==SQLITE_DONE ) rc = 0;
  if( rc && !pErr->set ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s: %s", t->zName,
                 sqlite3_errmsg(dbS));
  }
  sqlite3_finalize(pSel);
  sqlite3_finalize(pIns);
  sqlite3_free(zSel);
  sqlite3_free(zIns);
  return rc ? -1 : 0;
}

/* Prepare the string mapping of a source database: the ids it uses are
** looked up (and interned into the target) when a copied row first names
** them, so that only the strings of the copied rows come along.  0 or -1
** (pErr). */
static int map_strings(Merge *m, sqlite3 *dbS, PfError *pErr){
  int64_t n = db_int(dbS, -1, "SELECT coalesce(max(id), 0) FROM string");
  str_done(m);
  if( n<0 || n>((int64_t)1<<31) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "string: %s", n<0
                 ? sqlite3_errmsg(dbS) : "bad string id");
    return -1;
  }
  m->nStr = n+1;
  m->aStr = xcalloc((size_t)m->nStr, sizeof(int64_t));
  m->pStrSel = db_prepare(dbS, "SELECT text FROM string WHERE id=?1", pErr);
  /* a new string's id: the next one, above the floor when there is one */
  m->pStrIns = m->pStrSel ? db_prepare(m->db,
      db_statement("merge-map-strings"), pErr) : NULL;
  if( m->pStrIns ){
    sqlite3_bind_int64(m->pStrIns, 2, floor_of(m, "string"));
  }
  m->pStrGet = m->pStrIns ? db_prepare(m->db,
                 "SELECT id FROM string WHERE text=?1", pErr) : NULL;
  return m->pStrGet ? 0 : -1;
}

/* The target's id of source string v, interned on first use; 0 when the
** source has no such string (or on error: pErr set). */
static int64_t str_map(Merge *m, int64_t v, PfError *pErr){
  int64_t id = 0;
  if( v<0 || v>=m->nStr ) return 0;
  if( m->aStr[v] ) return m->aStr[v];
  sqlite3_bind_int64(m->pStrSel, 1, v);
  if( sqlite3_step(m->pStrSel)==SQLITE_ROW ){
    sqlite3_value *t = sqlite3_column_value(m->pStrSel, 0);
    sqlite3_bind_value(m->pStrIns, 1, t);
    sqlite3_bind_value(m->pStrGet, 1, t);
    if( db_step_done(m->db, m->pStrIns, pErr)==0
        && sqlite3_step(m->pStrGet)==SQLITE_ROW ){
      id = sqlite3_column_int64(m->pStrGet, 0);
    }else if( !pErr->set ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "string: %s",
                   sqlite3_errmsg(m->db));
    }
    sqlite3_reset(m->pStrGet);
  }
  sqlite3_reset(m->pStrSel);
  m->aStr[v] = id;
  return id;
}

/* ------------------------------------------------------------- shards */

typedef struct Shard {
  const char *zPath;
  sqlite3 *db;
  int64_t runId;          /* its one run */
  char zName[256];        /* that run's name */
  char zCreated[32];      /* and when it was ingested */
  char *zTmp;             /* migrated copy of an older shard, or NULL */
} Shard;

/* The big-endian 32-bit integer at a[i] (SQLite's file header). */
static int64_t header_int(const unsigned char *a, int i){
  return ((int64_t)a[i]<<24) | (a[i+1]<<16) | (a[i+2]<<8) | a[i+3];
}

/* The user_version in the header of profan database file zPath, or -1
** when it is no database of this profan's numbering (db_open says why). */
static int64_t file_user_version(const char *zPath){
  unsigned char a[72];
  FILE *f = fopen(zPath, "rb");
  size_t n = f ? fread(a, 1, sizeof(a), f) : 0;
  if( f ) fclose(f);
  if( n<sizeof(a) || memcmp(a, "SQLite format 3", 16)!=0
      || header_int(a, 68)!=PROFAN_APPLICATION_ID ) return -1;
  return header_int(a, 60);
}

/* Copy file zFrom to zTo when zFrom exists.  0, or -1 (pErr). */
static int copy_file(const char *zFrom, const char *zTo, PfError *pErr){
  FILE *in = fopen(zFrom, "rb"), *out;
  char aBuf[65536];
  size_t n;
  int rc = 0;
  if( in==NULL ) return 0;
  out = fopen(zTo, "wb");
  while( out && (n = fread(aBuf, 1, sizeof(aBuf), in))>0 ){
    if( fwrite(aBuf, 1, n, out)!=n ) rc = -1;
  }
  if( out==NULL || ferror(in) || fclose(out) ) rc = -1;
  fclose(in);
  if( rc ) pf_error_set(pErr, ERRPOS_NONE, 0, "cannot copy it to %s", zTo);
  return rc;
}

/* A shard of an older schema: copied (with its WAL) into a temporary
** file that is migrated as any older database is when opened for writing;
** the shard itself is not touched.  s->db is then that copy, removed when
** the merge is done with it (s->zTmp).  0 or -1 (pErr). */
static int shard_migrate(Shard *s, PfError *pErr){
  const char *zDir = getenv("TMPDIR");
  char *zFrom = xasprintf("%s-wal", s->zPath), *zTo;
  int rc;
  s->zTmp = xasprintf("%s/profan-merge-%d-%p.db", zDir && zDir[0] ? zDir
                      : "/tmp", (int)getpid(), (void *)s);
  zTo = xasprintf("%s-wal", s->zTmp);
  rc = copy_file(s->zPath, s->zTmp, pErr) || copy_file(zFrom, zTo, pErr);
  free(zFrom);
  free(zTo);
  if( rc ) return -1;
  s->db = db_open(s->zTmp, 0, pErr);
  return s->db ? 0 : -1;
}

/* Open shard s read-only: a profan database at this profan's schema
** version holding exactly one run.  Returns 0, or the exit code with the
** message in pMsg. */
static int shard_open(Merge *m, Shard *s, Buf *pMsg){
  PfError e = {0};
  sqlite3_stmt *p;
  int64_t nRun = 0, ver;
  ver = file_user_version(s->zPath);
  /* older than this profan but not a development build's (db_open
  ** refuses that one read-only with its line) */
  if( ver>=PROFAN_SCHEMA_BASELINE && ver<db_schema_version() ){
    if( shard_migrate(s, &e) ){
      buf_printf(pMsg, "%s: schema version %lld: %s", s->zPath,
                 (long long)ver, e.zMsg);
      return 1;
    }
  }else{
    s->db = db_open(s->zPath, DB_OPEN_READONLY, &e);
  }
  if( s->db==NULL ){
    buf_printf(pMsg, "%s: %s", s->zPath, e.zMsg);
    return 1;
  }
  p = db_prepare(s->db, db_statement("merge-shard-open"), &e);
  if( p && sqlite3_step(p)==SQLITE_ROW ){
    nRun = sqlite3_column_int64(p, 0);
    s->runId = sqlite3_column_int64(p, 1);
    snprintf(s->zName, sizeof(s->zName), "%s",
             nRun>0 ? (const char *)sqlite3_column_text(p, 2) : "");
    snprintf(s->zCreated, sizeof(s->zCreated), "%s",
             nRun>0 ? (const char *)sqlite3_column_text(p, 3) : "");
  }else{
    buf_printf(pMsg, "%s: %s", s->zPath, e.set ? e.zMsg
               : sqlite3_errmsg(s->db));
    sqlite3_finalize(p);
    return 1;
  }
  sqlite3_finalize(p);
  if( m->pOpt->summariesOnly && nRun>0 ) return 0;
  if( nRun!=1 ){
    buf_printf(pMsg, "%s: holds %lld runs; a shard is the database of one"
               " ingest (one run)", s->zPath, (long long)nRun);
    return 2;
  }
  return 0;
}

/* How many of the shard's files the target holds already (same content
** hash and size); *pRun: the run of one of them.  -1 on error (pMsg). */
static int shard_seen(Merge *m, Shard *s, int *pnFile, int64_t *pRun,
                      Buf *pMsg){
  PfError e = {0};
  sqlite3_stmt *pSel = db_prepare(s->db,
    "SELECT hash, bytes FROM run_file WHERE run_id=?1", &e);
  sqlite3_stmt *pGet = pSel ? db_prepare(m->db,
      db_statement("merge-shard-seen"), &e) : NULL;
  int nSeen = 0, rc = SQLITE_ERROR;
  *pnFile = 0;
  if( pGet ){
    sqlite3_bind_int64(pSel, 1, s->runId);
    while( (rc = sqlite3_step(pSel))==SQLITE_ROW ){
      (*pnFile)++;
      sqlite3_bind_value(pGet, 1, sqlite3_column_value(pSel, 0));
      sqlite3_bind_value(pGet, 2, sqlite3_column_value(pSel, 1));
      if( sqlite3_step(pGet)==SQLITE_ROW ){
        nSeen++;
        *pRun = sqlite3_column_int64(pGet, 0);
      }
      sqlite3_reset(pGet);
    }
  }
  if( rc!=SQLITE_DONE ){
    buf_printf(pMsg, "%s: %s", s->zPath, e.set ? e.zMsg
               : sqlite3_errmsg(s->db));
    nSeen = -1;
  }
  sqlite3_finalize(pSel);
  sqlite3_finalize(pGet);
  return nSeen;
}

/* The steps of rank `rank` of run runId of dbX: numbers and time span
** (a[0..3]: first and last step number, first start, last end); returns
** 1 when it has steps and every trace of the rank is on an epoch clock,
** 0 when not, -1 on error. */
static int rank_steps(sqlite3 *dbX, int64_t runId, int64_t rank,
                      int64_t *a){
  sqlite3_stmt *p;
  int rc = -1;
  if( sqlite3_prepare_v2(dbX,
      db_statement("merge-rank-steps"), -1, &p, NULL)!=SQLITE_OK ){
    return -1;
  }
  sqlite3_bind_int64(p, 1, runId);
  sqlite3_bind_int64(p, 2, rank);
  if( sqlite3_step(p)==SQLITE_ROW ){
    for(int i=0; i<4; i++) a[i] = sqlite3_column_int64(p, i);
    rc = sqlite3_column_int64(p, 4)>0 && sqlite3_column_int64(p, 5)==0;
  }
  sqlite3_finalize(p);
  return rc;
}

/* Is rank `rank` of run runId of dbX another profiling window of the
** rank the target run holds: its steps disjoint from the target's in
** number and in time, both on an epoch clock?  1 yes, 0 no, -1 error. */
static int rank_window(const Acc *a, sqlite3 *dbX, int64_t runId,
                       int64_t rank){
  int64_t x[4], y[4];
  int rx, ry;
  if( a->dbT==NULL ) return 0;
  rx = rank_steps(dbX, runId, rank, x);
  ry = rank_steps(a->dbT, a->runT, rank, y);
  if( rx<0 || ry<0 ) return -1;
  return rx && ry && (x[1]<y[0] || x[0]>y[1]) && (x[3]<=y[2] || x[2]>=y[3]);
}

/* The traces' world sizes and ranks, and the steps' span, of run runId of
** dbX (a shard or the target) into the accumulator, labelled zLabel, after
** checking them against what it holds.  Returns 0, or 2 (another job,
** colliding ranks) / 1 (unreadable) with the message in pMsg. */
static int acc_add(Acc *a, sqlite3 *dbX, int64_t runId, const char *zLabel,
                   Buf *pMsg){
  PfError e = {0};
  int nWindow0 = a->nWindow, w;
  sqlite3_stmt *p = db_prepare(dbX,
    db_statement("merge-acc-add"), &e);
  int rc = p ? 0 : 1, ok;
  int64_t s0 = 1, s1 = 0;
  if( p ) sqlite3_bind_int64(p, 1, runId);
  while( rc==0 && (ok = sqlite3_step(p))==SQLITE_ROW ){
    int what = sqlite3_column_int(p, 0);
    int64_t v = sqlite3_column_int64(p, 1);
    int isNull = sqlite3_column_type(p, 1)==SQLITE_NULL;
    if( what==0 && a->world && v!=a->world ){
      buf_printf(pMsg, "%s: world size %lld, but %s has world size %lld:"
                 " not the same job", zLabel, (long long)v, a->zWorld,
                 (long long)a->world);
      rc = 2;
    }else if( what==0 && a->world==0 ){
      a->world = v;
      a->zWorld = zLabel;
    }else if( what==1 && (v<0 || (a->world && v>=a->world)) ){
      buf_printf(pMsg, "%s: rank %lld is outside world size %lld", zLabel,
                 (long long)v, (long long)a->world);
      rc = 2;
    }else if( what==1 && v<a->nOwner && a->azOwner[v]
              && (w = rank_window(a, dbX, runId, v))!=0 ){
      if( w<0 ){
        buf_printf(pMsg, "%s: %s", zLabel, sqlite3_errmsg(dbX));
        rc = 1;
      }else{
        a->nWindow++;               /* the rank's next profiling window */
      }
    }else if( what==1 && v<a->nOwner && a->azOwner[v] ){
      buf_printf(pMsg, "%s: rank %lld is also in %s: colliding ranks (the"
                 " same rank in another profiling window needs steps"
                 " disjoint in number and time, on an epoch clock)",
                 zLabel, (long long)v, a->azOwner[v]);
      rc = 2;
    }else if( what==1 ){
      if( v>=a->nOwner ){
        int n = (int)v*2 + 64;
        a->azOwner = xrealloc(a->azOwner, sizeof(char *)*(size_t)n);
        memset(a->azOwner+a->nOwner, 0, sizeof(char *)*(size_t)(n-a->nOwner));
        a->nOwner = n;
      }
      a->azOwner[v] = zLabel;
    }else if( !isNull ){
      if( what==2 ) s0 = v; else s1 = v;
    }
  }
  if( rc==0 && ok!=SQLITE_DONE ){
    buf_printf(pMsg, "%s: %s", zLabel, e.set ? e.zMsg : sqlite3_errmsg(dbX));
    rc = 1;
  }
  sqlite3_finalize(p);
  if( rc==0 && s0<=s1 && a->t0<=a->t1 && (s1<a->t0 || s0>a->t1)
      && a->nWindow==nWindow0 ){
    buf_printf(pMsg, "%s: its steps are %.1f s away from those of %s:"
               " not the same job", zLabel,
               (s1<a->t0 ? a->t0-s1 : s0-a->t1)/1e9, a->zSpan);
    rc = 2;
  }else if( rc==0 && s0<=s1 && a->t0>a->t1 ){
    a->t0 = s0;
    a->t1 = s1;
    a->zSpan = zLabel;
  }else if( rc==0 && s0<=s1 ){
    if( s0<a->t0 ) a->t0 = s0;
    if( s1>a->t1 ) a->t1 = s1;
  }
  return rc;
}

/* ---------------------------------------------------------------- run */

/* The run the shards go into: the run named zName when the target has it
** (the shards are added to it, and its ranks count in the checks), else a
** new one, created when the first shard was ingested (zCreated, "" =
** now).  Returns 0, or the exit code with the message in pMsg. */
static int run_target(Merge *m, const char *zName, const char *zCreated,
                      Buf *pMsg){
  PfError e = {0};
  sqlite3_stmt *p;
  char zNow[32];
  time_t t = time(NULL);
  struct tm tm;
  int64_t id = -1;
  p = db_prepare(m->db, "SELECT id FROM run WHERE name=?1", &e);
  if( p ){
    sqlite3_bind_text(p, 1, zName, -1, SQLITE_STATIC);
    if( sqlite3_step(p)==SQLITE_ROW ) id = sqlite3_column_int64(p, 0);
    sqlite3_finalize(p);
  }
  snprintf(m->pRes->zName, sizeof(m->pRes->zName), "%s", zName);
  m->acc.dbT = m->db;
  if( id>0 ){
    m->acc.runT = id;
    m->pRes->runId = id;
    m->pRes->appended = 1;
    snprintf(m->zOwnLabel, sizeof(m->zOwnLabel), "run %s", zName);
    return acc_add(&m->acc, m->db, id, m->zOwnLabel, pMsg);
  }
  gmtime_r(&t, &tm);
  strftime(zNow, sizeof(zNow), "%Y-%m-%dT%H:%M:%SZ", &tm);
  p = e.set ? NULL : db_prepare(m->db,
    db_statement("merge-run-target"), &e);
  if( p ){
    sqlite3_bind_text(p, 1, zName, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 2, zCreated[0] ? zCreated : zNow, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 3, PROFAN_VERSION, -1, SQLITE_STATIC);
    if( db_step_done(m->db, p, &e)==0 ){
      m->pRes->runId = m->acc.runT = sqlite3_last_insert_rowid(m->db);
    }
    sqlite3_finalize(p);
  }
  if( m->pRes->runId<=0 ){
    buf_printf(pMsg, "database: %s", e.set ? e.zMsg : sqlite3_errmsg(m->db));
    return MERGE_DB_FAILED;
  }
  return 0;
}

/* zName, or "run-N" in a new buffer when it would read as a run id (a
** shard or an archived run of a database from before names were
** checked): z is the buffer to use. */
static const char *safe_name(const char *zName, char *z, size_t n){
  if( runref_name_problem(zName)==NULL ) return zName;
  snprintf(z, n, "run-%.200s", zName);
  return z;
}

/* The tables the in-stream linker numbers (cpu_op, runtime_call) move by
** one offset, the larger of theirs: a file's ids in both are its
** trace_id_base.id_base + n (schema 129), and id_base moves as a cpu_op
** id. */
static void share_linker_offset(Merge *m){
  int iOp = tab_index(m, "cpu_op"), iRt = tab_index(m, "runtime_call");
  if( iOp<0 || iRt<0 ) return;
  if( m->aTab[iOp].off<m->aTab[iRt].off ){
    m->aTab[iOp].off = m->aTab[iRt].off;
  }
  m->aTab[iRt].off = m->aTab[iOp].off;
}

/* Copy the rows of run srcRun of source dbS into run m->pRes->runId,
** table by table in plan order (run_file first); map_strings() has run
** for dbS.  0 or -1 (pErr). */
static int copy_run(Merge *m, sqlite3 *dbS, int64_t srcRun, PfError *pErr){
  for(int i=0; i<m->nTab; i++){
    if( m->aTab[i].hasId ){
      int64_t lo = floor_of(m, m->aTab[i].zName);
      m->aTab[i].off = db_int(m->db, 0,
                              db_statement("merge-copy-run"), m->aTab[i].zName);
      if( m->aTab[i].off<lo ) m->aTab[i].off = lo;
    }
  }
  share_linker_offset(m);
  if( db_txn_lost(m->db) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", db_lost_reason(m->db));
    return -1;
  }
  for(int i=0; i<m->nTab; i++){
    if( m->windows && m->aTab[i].perRank ){
      continue;                     /* computed again: run_derive */
    }
    if( copy_table(m, &m->aTab[i], dbS, srcRun, m->pRes->runId, pErr) ){
      return -1;
    }
  }
  return 0;
}

/* The run's content hash as ingest computes it (XXH64 over the files'
** (hash, size) pairs sorted by hash), so that an ingest of all the files
** finds the merged run.  0 or -1 (pErr). */
static int run_hash_update(Merge *m, PfError *pErr){
  sqlite3_stmt *p = db_prepare(m->db,
      db_statement("merge-run-file-hashes"), pErr);
  uint64_t *a = NULL;
  int n = 0, rc;
  Hash64 h;
  char zHash[20];
  if( p==NULL ) return -1;
  sqlite3_bind_int64(p, 1, m->pRes->runId);
  while( sqlite3_step(p)==SQLITE_ROW ){
    a = xrealloc(a, sizeof(uint64_t)*2*(size_t)(n+1));
    a[2*n] = strtoull((const char *)sqlite3_column_text(p, 0), NULL, 16);
    a[2*n+1] = (uint64_t)sqlite3_column_int64(p, 1);
    n++;
  }
  sqlite3_finalize(p);
  /* insertion sort by hash: a run has hundreds of files at most */
  for(int i=1; i<n; i++){
    for(int j=i; j>0 && a[2*(j-1)]>a[2*j]; j--){
      uint64_t x = a[2*j], y = a[2*j+1];
      a[2*j] = a[2*(j-1)];
      a[2*j+1] = a[2*(j-1)+1];
      a[2*(j-1)] = x;
      a[2*(j-1)+1] = y;
    }
  }
  hash64_init(&h, 0);
  for(int i=0; i<n; i++){
    int64_t bytes = (int64_t)a[2*i+1];
    hash64_update(&h, &a[2*i], sizeof(uint64_t));
    hash64_update(&h, &bytes, sizeof(int64_t));
  }
  snprintf(zHash, sizeof(zHash), "%016llx",
           (unsigned long long)hash64_final(&h));
  free(a);
  m->pRes->nFiles = n;
  p = db_prepare(m->db, db_statement("merge-update-run"), pErr);
  if( p==NULL ) return -1;
  sqlite3_bind_text(p, 1, zHash, -1, SQLITE_STATIC);
  sqlite3_bind_text(p, 2, buf_str(&m->source), -1, SQLITE_STATIC);
  sqlite3_bind_int64(p, 3, m->pRes->runId);
  rc = db_step_done(m->db, p, pErr);
  sqlite3_finalize(p);
  return rc;
}

/* The derive passes of an ingest over the whole merged run, for the
** tables computed across ranks (the per-rank ones came with the shards):
** an appended run's rows of them are replaced.  0 or -1 (pErr). */
static int run_derive(Merge *m, PfError *pErr){
  char *zNote = NULL;
  /* the merged run's rowid ranges (every shard's rows), before the
  ** stored-rows feeder reads them */
  if( db_rowid_record(m->db, m->pRes->runId, &m->mark, pErr) ) return -1;
  if( derive_run_stored(m->db, m->pRes->runId, m->windows
                        ? DERIVE_STORED_ALL : DERIVE_STORED_ACROSS, &zNote,
                        pErr) ){
    return -1;
  }
  if( zNote && m->pOpt->pLog ){
    fprintf(m->pOpt->pLog, "profan: note: %s\n", zNote);
  }
  free(zNote);
  return run_hash_update(m, pErr);
}

/* One shard: open and check it, skip it when the target has its files,
** else copy it into the run.  Returns 0, or the exit code (pMsg). */
static int merge_shard(Merge *m, const char *zPath, Buf *pMsg){
  Shard s;
  PfError e = {0};
  int nFile = 0, nSeen, rc;
  int64_t seenRun = 0;
  memset(&s, 0, sizeof(s));
  s.zPath = zPath;
  rc = shard_open(m, &s, pMsg);
  if( rc ) goto done;
  nSeen = shard_seen(m, &s, &nFile, &seenRun, pMsg);
  if( nSeen<0 ){ rc = 1; goto done; }
  if( nFile==0 ){
    buf_printf(pMsg, "%s: its run has no files", zPath);
    rc = 2;
    goto done;
  }
  if( nSeen==nFile ){
    if( m->pOpt->pLog ){
      fprintf(m->pOpt->pLog, "profan: %s: already merged (its %d file%s in"
              " run %lld); skipped\n", zPath, nFile, nFile==1 ? " is" : "s are",
              (long long)seenRun);
    }
    m->pRes->nSkipped++;
    goto done;
  }
  if( nSeen>0 ){
    buf_printf(pMsg, "%s: %d of its %d files are already in run %lld: merge"
               " each shard once", zPath, nSeen, nFile, (long long)seenRun);
    rc = 2;
    goto done;
  }
  if( m->pRes->runId==0 ){
    char zSafe[256];
    rc = run_target(m, m->pOpt->zName ? m->pOpt->zName
                       : safe_name(s.zName, zSafe, sizeof(zSafe)),
                    s.zCreated, pMsg);
    if( rc ) goto done;
  }
  rc = acc_add(&m->acc, s.db, s.runId, zPath, pMsg);
  if( rc ) goto done;
  if( m->acc.nWindow>0 ) m->windows = 1;
  if( map_strings(m, s.db, &e) || copy_run(m, s.db, s.runId, &e) ){
    buf_printf(pMsg, "%s: %s", zPath, e.zMsg);
    rc = 1;
    goto done;
  }
  buf_printf(&m->source, "%s%s", m->pRes->nMerged ? " " : "merge:", zPath);
  m->pRes->nMerged++;
done:
  str_done(m);                     /* its statements use the shard */
  db_close(s.db);
  if( s.zTmp ){
    unlink(s.zTmp);
    free(s.zTmp);
  }
  return rc;
}

/* --summaries-only: a new run of the target for run srcRun of the source
** (name, creation time, content hash as there; NAME-2... when the name is
** taken), or 0 when the target has a run of the same content.  Returns
** 0, or -1 with pErr set. */
static int archive_new_run(Merge *m, Shard *s, sqlite3_stmt *pRun,
                           PfError *pErr){
  const char *zHash = (const char *)sqlite3_column_text(pRun, 4);
  int64_t old = db_int(m->db, 0,
      db_statement("merge-archive-same-content"), zHash ? zHash : "");
  sqlite3_stmt *p;
  m->pRes->runId = 0;
  m->sameRun = old>0 ? old : 0;
  if( old>0 ){
    if( m->pOpt && m->pOpt->pLog ){
      fprintf(m->pOpt->pLog, "profan: %s: run %s is already in the target as"
              " run %lld (same content); skipped\n", s->zPath,
              sqlite3_column_text(pRun, 1), (long long)old);
    }
    m->pRes->nSkipped++;
    return 0;
  }
  /* the next id, above the floor when there is one (AUTOINCREMENT: never
  ** below an id used before) */
  p = db_prepare(m->db, db_statement("merge-archive-insert-run"), pErr);
  if( p ) sqlite3_bind_int64(p, 8, floor_of(m, "run"));
  for(int k=1; p && k<1000 && m->pRes->runId==0; k++){
    const char *zOld = (const char *)sqlite3_column_text(pRun, 1);
    char zSafe[256];
    for(int i=2; i<=6; i++){
      sqlite3_bind_value(p, i, sqlite3_column_value(pRun, i));
    }
    sqlite3_bind_text(p, 1, safe_name(zOld ? zOld : "", zSafe,
                                      sizeof(zSafe)), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(p, 7, k);
    if( sqlite3_step(p)==SQLITE_DONE ){
      m->pRes->runId = sqlite3_last_insert_rowid(m->db);
    }else if( sqlite3_extended_errcode(m->db)!=SQLITE_CONSTRAINT_UNIQUE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                   sqlite3_errmsg(m->db));
      break;
    }
    sqlite3_reset(p);
  }
  sqlite3_finalize(p);
  return m->pRes->runId>0 ? 0 : -1;
}

/* --summaries-only: every run of source zPath into a run of its own of
** the target, with the summary tables only.  0, or the exit code (pMsg). */
static int archive_source(Merge *m, const char *zPath, Buf *pMsg){
  Shard s;
  PfError e = {0};
  sqlite3_stmt *pRun = NULL;
  int rc;
  memset(&s, 0, sizeof(s));
  s.zPath = zPath;
  rc = shard_open(m, &s, pMsg);
  if( rc==0 && (map_strings(m, s.db, &e)
      || (pRun = db_prepare(s.db, db_statement("merge-archive-source"),
                  &e))==NULL) ){
    rc = 1;
  }
  while( rc==0 && sqlite3_step(pRun)==SQLITE_ROW ){
    if( archive_new_run(m, &s, pRun, &e) ){ rc = 1; break; }
    if( m->pRes->runId==0 ) continue;
    if( copy_run(m, s.db, sqlite3_column_int64(pRun, 0), &e) ){
      rc = 1;
      break;
    }
    snprintf(m->pRes->zName, sizeof(m->pRes->zName), "%s",
             sqlite3_column_text(pRun, 1));
    m->pRes->nMerged++;
    m->lastRun = m->pRes->runId;
  }
  if( rc && e.set ) buf_printf(pMsg, "%s: %s", zPath, e.zMsg);
  sqlite3_finalize(pRun);
  str_done(m);
  db_close(s.db);
  if( s.zTmp ){
    unlink(s.zTmp);
    free(s.zTmp);
  }
  return rc;
}

int merge_run(sqlite3 *db, const MergeOpts *pOpt, MergeResult *pRes,
              Buf *pMsg){
  Merge m;
  PfError e = {0};
  int rc = 0;
  double t0 = util_now_ms();
  memset(pRes, 0, sizeof(*pRes));
  memset(&m, 0, sizeof(m));
  m.db = db;
  m.pOpt = pOpt;
  m.pRes = pRes;
  m.acc.t0 = 1;
  m.acc.t1 = 0;
  buf_init(&m.source);
  if( db_begin_wait(db, pOpt->timeout, pOpt->xWait, NULL, NULL, &e) ){
    buf_printf(pMsg, "%s", e.zMsg);
    pRes->exitCode = MERGE_DB_FAILED;
    return -1;
  }
  if( plan_build(&m, &e) || db_rowid_mark(db, &m.mark, &e) ){
    buf_printf(pMsg, "%s", e.zMsg);
    rc = MERGE_DB_FAILED;
  }
  for(int i=0; rc==0 && i<pOpt->nShard; i++){
    rc = pOpt->summariesOnly ? archive_source(&m, pOpt->azShard[i], pMsg)
                             : merge_shard(&m, pOpt->azShard[i], pMsg);
  }
  if( rc==MERGE_BAD_SHARD ){
    /* copying failed on the target's side (a write), or the shard's */
    int e2 = sqlite3_errcode(m.db) & 0xff;
    if( (e2!=SQLITE_OK && e2!=SQLITE_ROW && e2!=SQLITE_DONE)
        || db_lost_reason(m.db) ){
      rc = MERGE_DB_FAILED;
    }
  }
  if( pOpt->summariesOnly ) pRes->runId = m.lastRun;
  if( rc==0 && pRes->nMerged>0 && !pOpt->summariesOnly
      && run_derive(&m, &e) ){
    buf_printf(pMsg, "%s", e.zMsg);
    rc = MERGE_DB_FAILED;
  }
  if( rc==0 && pRes->nMerged>0 && db_commit(db, &e) ){
    buf_printf(pMsg, "database: %s", e.zMsg);
    rc = MERGE_DB_FAILED;
  }else if( rc==0 && pRes->nMerged>0 ){
    db = NULL;                       /* committed: nothing to roll back */
  }
  if( rc && db_lost_reason(m.db)
      && strstr(buf_str(pMsg), db_lost_reason(m.db))==NULL ){
    buf_reset(pMsg);
    buf_printf(pMsg, "database: %s", db_lost_reason(m.db));
    rc = MERGE_DB_FAILED;
  }
  db_rollback(db);
  if( rc==0 && pRes->nMerged==0 ) pRes->runId = 0;
  pRes->exitCode = rc;
  pRes->seconds = (util_now_ms() - t0)/1000.0;
  plan_free(&m);
  buf_free(&m.source);
  return rc ? -1 : 0;
}

int merge_archive_run(sqlite3 *db, sqlite3 *dbSrc, int64_t srcRun,
                      const MergeFloor *pFloor, int64_t *pNewRun,
                      int64_t *pSame, PfError *pErr){
  static const MergeOpts opts = { NULL, NULL, 0, NULL, 1, -1, NULL };
  Merge m;
  MergeResult res;
  Shard s;
  sqlite3_stmt *pRun = NULL;
  int rc = -1;
  memset(&m, 0, sizeof(m));
  memset(&res, 0, sizeof(res));
  memset(&s, 0, sizeof(s));
  m.db = db;
  m.pOpt = &opts;
  m.pRes = &res;
  m.pFloor = pFloor;
  buf_init(&m.source);
  *pNewRun = 0;
  *pSame = 0;
  s.zPath = "";
  if( plan_build(&m, pErr)==0 && map_strings(&m, dbSrc, pErr)==0
      && (pRun = db_prepare(dbSrc,
          db_statement("merge-archive-run"), pErr))!=NULL ){
    sqlite3_bind_int64(pRun, 1, srcRun);
    if( sqlite3_step(pRun)!=SQLITE_ROW ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "no run %lld: %s",
                   (long long)srcRun, sqlite3_errmsg(dbSrc));
    }else if( archive_new_run(&m, &s, pRun, pErr)==0 ){
      *pSame = m.sameRun;
      rc = res.runId>0 ? copy_run(&m, dbSrc, srcRun, pErr) : 0;
      if( rc==0 ) *pNewRun = res.runId;
    }
  }
  sqlite3_finalize(pRun);
  plan_free(&m);
  buf_free(&m.source);
  return rc;
}
