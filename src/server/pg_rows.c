/*
** pg_rows.c — a history's rows between SQLite and the history server
** (see pg_rows.h).
**
** Pipeline position: the server layer.  The tables are the catalogue's
** (statements/history-columns.sql: what merge --summaries-only keeps),
** never a list here.  A push sends each table's rows in one COPY (text
** format: the server parses no statement per row; a third cheaper on the
** server than INSERT ... SELECT FROM unnest of one array per column, and
** that was cheaper than statements of many VALUES rows).  Values travel
** as text: integers as digits; doubles as the shortest text that reads
** back to the same double; in a column without a declared type (numeric
** on the server) a real always with a decimal point, so that reading it
** back tells it from an integer; text as it is; blobs as bytea hex.  The
** way back reads the server's type of each result column.
*/
#include "server/pg_rows.h"
#include "core/db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PostgreSQL type oids (pg_type.dat; fixed since 7.x). */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700


/* ---------------------------------------------------------------- plan */

static char type_of(const char *zDecl){
  if( zDecl==NULL || zDecl[0]==0 ) return 'n';
  if( strstr(zDecl, "INT") ) return 'i';
  if( strstr(zDecl, "CHAR") || strstr(zDecl, "CLOB") || strstr(zDecl, "TEXT") ){
    return 't';
  }
  if( strstr(zDecl, "BLOB") ) return 'b';
  if( strstr(zDecl, "REAL") || strstr(zDecl, "FLOA") || strstr(zDecl, "DOUB") ){
    return 'r';
  }
  return 'n';
}

/* 1 when table zTab of db is a rowid table. */
static int has_rowid(sqlite3 *db, const char *zTab){
  char *zSql = sqlite3_mprintf("SELECT rowid FROM \"%w\" LIMIT 0", zTab);
  sqlite3_stmt *s = NULL;
  int ok = zSql && sqlite3_prepare_v2(db, zSql, -1, &s, NULL)==SQLITE_OK;
  sqlite3_finalize(s);
  sqlite3_free(zSql);
  return ok;
}

static PgCol *add_col(PgTab *t, const char *zName, char cType, int isStr){
  PgCol *c;
  t->a = xrealloc(t->a, sizeof(PgCol)*(size_t)(t->nCol+1));
  c = &t->a[t->nCol++];
  c->zName = xstrdup(zName);
  c->cType = cType;
  c->isStr = isStr;
  if( strcmp(zName, "metric")==0 ) t->hasMetric = 1;
  return c;
}

int pg_plan_build(sqlite3 *db, PgPlan *p, PfError *pErr){
  sqlite3_stmt *s;
  int rc;
  memset(p, 0, sizeof(*p));
  p->str.zName = xstrdup("string");
  p->str.byId = 1;
  p->str.rowid = 1;
  add_col(&p->str, "id", 'i', 0);
  add_col(&p->str, "text", 't', 0);
  s = db_prepare(db, db_statement("history-columns"), pErr);
  if( s==NULL ) return -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    const char *zTab = (const char *)sqlite3_column_text(s, 0);
    PgTab *t = p->nTab ? &p->a[p->nTab-1] : NULL;
    if( t==NULL || strcmp(t->zName, zTab) ){
      p->a = xrealloc(p->a, sizeof(PgTab)*(size_t)(p->nTab+1));
      t = &p->a[p->nTab++];
      memset(t, 0, sizeof(*t));
      t->zName = xstrdup(zTab);
      t->byId = sqlite3_column_int(s, 3);
      t->isRun = strcmp(zTab, "run")==0;
      t->rowid = has_rowid(db, zTab);
    }
    add_col(t, (const char *)sqlite3_column_text(s, 1),
            type_of((const char *)sqlite3_column_text(s, 2)),
            sqlite3_column_int(s, 4));
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    pf_error_kind(pErr, PF_KIND_DB);
    return -1;
  }
  /* the statements' lists: the same columns in the same order */
  for(int i=-1; i<p->nTab; i++){
    PgTab *t = i<0 ? &p->str : &p->a[i];
    if( db_table_columns(db, t->zName, &t->zCols, &t->zParams, pErr)
        !=t->nCol ){
      if( !pErr->set ){
        pf_error_set(pErr, ERRPOS_NONE, 0, "database: the columns of %s"
                     " changed", t->zName);
      }
      pf_error_kind(pErr, PF_KIND_DB);
      return -1;
    }
  }
  return 0;
}

static void tab_free(PgTab *t){
  for(int j=0; j<t->nCol; j++) free(t->a[j].zName);
  free(t->a);
  free(t->zName);
  free(t->zCols);
  free(t->zParams);
}

void pg_plan_free(PgPlan *p){
  for(int i=0; i<p->nTab; i++) tab_free(&p->a[i]);
  free(p->a);
  tab_free(&p->str);
  memset(p, 0, sizeof(*p));
}

const PgTab *pg_plan_table(const PgPlan *p, const char *zName){
  for(int i=0; i<p->nTab; i++){
    if( strcmp(p->a[i].zName, zName)==0 ) return &p->a[i];
  }
  return strcmp(zName, "string")==0 ? &p->str : NULL;
}

/* -------------------------------------------------------------- arrays */

void pg_rows_id_array(Buf *b, const int64_t *a, int n){
  buf_putc(b, '{');
  for(int i=0; i<n; i++) buf_printf(b, "%s%lld", i ? "," : "", (long long)a[i]);
  buf_putc(b, '}');
}

void pg_rows_text_array(Buf *b, const char *const *az, int n){
  buf_putc(b, '{');
  for(int i=0; i<n; i++){
    if( i ) buf_putc(b, ',');
    buf_putc(b, '"');
    for(const char *z = az[i]; *z; z++){
      if( *z=='"' || *z=='\\' ) buf_putc(b, '\\');
      buf_putc(b, *z);
    }
    buf_putc(b, '"');
  }
  buf_putc(b, '}');
}

/* ------------------------------------------------------ values to text */

/* The shortest "%.Ng" text of v that reads back as v, into z[32]. */
static void shortest(double v, char *z){
  for(int prec=1; prec<=17; prec++){
    snprintf(z, 32, "%.*g", prec, v);
    if( strtod(z, NULL)==v ) return;
  }
}

/* z (a "%g" text of a finite double) as a plain decimal with a point and
** no exponent ("1e+20" -> "100000000000000000000.0", "1.5e-07" ->
** "0.00000015", "3" -> "3.0"), into b: a numeric column then keeps the
** value, and reading it back tells a real from an integer. */
static void plain_decimal(const char *z, Buf *b){
  char zDig[40];
  int nDig = 0, nInt = 0, seenPoint = 0, e10 = 0;
  const char *zE = strpbrk(z, "eE");
  if( *z=='-' ){ buf_putc(b, '-'); z++; }
  for(; *z && z!=zE; z++){
    if( *z=='.' ){ seenPoint = 1; continue; }
    if( nDig<(int)sizeof(zDig) ) zDig[nDig++] = *z;
    if( !seenPoint ) nInt++;
  }
  if( zE ) e10 = atoi(zE+1);
  nInt += e10;                       /* digits before the point */
  if( nInt<=0 ){
    buf_puts(b, "0.");
    for(int i=0; i<-nInt; i++) buf_putc(b, '0');
    buf_append(b, zDig, (size_t)nDig);
    return;
  }
  for(int i=0; i<nInt; i++) buf_putc(b, i<nDig ? zDig[i] : '0');
  buf_putc(b, '.');
  if( nInt>=nDig ) buf_putc(b, '0');
  else buf_append(b, zDig+nInt, (size_t)(nDig-nInt));
}

/*
** Column i of row s as the text of a server parameter of type cType,
** appended to b with its NUL; 0 when the value is NULL (nothing
** appended), 1 when appended, -1 with pErr set when the server cannot
** hold it.
*/
static int value_text(sqlite3_stmt *s, int i, const PgTab *t, char cType,
                      Buf *b, PfError *pErr){
  int n;
  switch( sqlite3_column_type(s, i) ){
    case SQLITE_NULL:
      return 0;
    case SQLITE_INTEGER:
      buf_printf(b, "%lld", (long long)sqlite3_column_int64(s, i));
      break;
    case SQLITE_FLOAT: {
      double v = sqlite3_column_double(s, i);
      char z[32];
      if( isinf(v) ){
        buf_puts(b, v<0 ? "-Infinity" : "Infinity");
      }else if( cType=='n' ){
        shortest(v, z);
        plain_decimal(z, b);
      }else{
        shortest(v, z);
        buf_puts(b, z);
      }
      break;
    }
    case SQLITE_TEXT:
      n = sqlite3_column_bytes(s, i);
      if( (int)strlen((const char *)sqlite3_column_text(s, i))!=n ){
        pf_error_set(pErr, ERRPOS_NONE, 0, "%s.%s: text with a NUL byte"
                     " cannot go to the history server", t->zName,
                     sqlite3_column_name(s, i));
        pf_error_kind(pErr, PF_KIND_DB);
        return -1;
      }
      buf_append(b, sqlite3_column_text(s, i), (size_t)n);
      break;
    default: {
      const unsigned char *a = sqlite3_column_blob(s, i);
      n = sqlite3_column_bytes(s, i);
      buf_puts(b, "\\x");
      for(int k=0; k<n; k++) buf_printf(b, "%02x", a[k]);
      break;
    }
  }
  buf_putc(b, 0);                    /* the parameter ends here */
  return 1;
}

/* ----------------------------------------------------- values from text */

/* Bind the value at (row, col) of server result r to parameter i of s. */
static int bind_value(sqlite3_stmt *s, int i, PGresult *r, int row, int col){
  const char *z = PQgetvalue(r, row, col);
  if( PQgetisnull(r, row, col) ) return sqlite3_bind_null(s, i);
  switch( PQftype(r, col) ){
    case OID_INT8: case OID_INT4: case OID_INT2:
      return sqlite3_bind_int64(s, i, strtoll(z, NULL, 10));
    case OID_FLOAT8: case OID_FLOAT4:
      return sqlite3_bind_double(s, i, strtod(z, NULL));
    case OID_NUMERIC:
      if( strpbrk(z, ".eEIN") ){
        return sqlite3_bind_double(s, i, strtod(z, NULL));
      }
      return sqlite3_bind_int64(s, i, strtoll(z, NULL, 10));
    case OID_BOOL:
      return sqlite3_bind_int(s, i, z[0]=='t');
    case OID_BYTEA: {
      size_t n = 0;
      unsigned char *a = PQunescapeBytea((const unsigned char *)z, &n);
      int rc;
      if( a==NULL ) return SQLITE_NOMEM;
      rc = sqlite3_bind_blob(s, i, a, (int)n, SQLITE_TRANSIENT);
      PQfreemem(a);
      return rc;
    }
    default:
      return sqlite3_bind_text(s, i, z, PQgetlength(r, row, col),
                               SQLITE_TRANSIENT);
  }
}

/* ---------------------------------------------------------------- pull */

char *pg_rows_select(const PgTab *t, const char *zWhere){
  char *z = sqlite3_mprintf(db_statement("pg-rows-select"), t->zCols,
                            t->zName, zWhere, t->byId ? "id" : "run_id, ord");
  char *zOut;
  if( z==NULL ) util_fatal("out of memory (a statement of table %s)",
                           t->zName);
  zOut = xstrdup(z);
  sqlite3_free(z);
  return zOut;
}

int pg_rows_insert(sqlite3 *db, const PgTab *t, PGresult *r, int64_t *pn,
                   PfError *pErr){
  char *zSql;
  sqlite3_stmt *s;
  int nRow = PQntuples(r), rc = 0;
  if( pn ) *pn = 0;
  if( nRow==0 ) return 0;
  if( PQnfields(r)!=t->nCol ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s: %d columns from the server,"
                 " %d here", t->zName, PQnfields(r), t->nCol);
    pf_error_kind(pErr, PF_KIND_DB);
    return -1;
  }
  zSql = sqlite3_mprintf(db_statement("pg-rows-insert"), t->zName, t->zCols,
                         t->zParams);
  s = db_prepare(db, zSql, pErr);
  sqlite3_free(zSql);
  if( s==NULL ) return -1;
  for(int i=0; i<nRow && rc==0; i++){
    for(int j=0; j<t->nCol && rc==0; j++){
      if( bind_value(s, j+1, r, i, j)!=SQLITE_OK ) rc = -1;
    }
    if( rc==0 && sqlite3_step(s)!=SQLITE_DONE ) rc = -1;
    sqlite3_reset(s);
  }
  if( rc ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s: %s", t->zName, sqlite3_errmsg(db));
    pf_error_kind(pErr, PF_KIND_DB);
  }else if( pn ){
    *pn = nRow;
  }
  sqlite3_finalize(s);
  return rc;
}

/* ---------------------------------------------------------------- push */

/* Text z[0..n) escaped for COPY's text format (backslash, tab, line
** breaks), onto b. */
static void copy_escape(Buf *b, const char *z, size_t n){
  size_t i0 = 0;
  for(size_t i=0; i<n; i++){
    char e;
    switch( z[i] ){
      case '\\': e = '\\'; break;
      case '\n': e = 'n'; break;
      case '\r': e = 'r'; break;
      case '\t': e = 't'; break;
      default: continue;
    }
    buf_append(b, z+i0, i-i0);
    buf_putc(b, '\\');
    buf_putc(b, e);
    i0 = i+1;
  }
  buf_append(b, z+i0, n-i0);
}

/* The decimal digits of v onto b (the rows' integers: printf is a tenth
** of a push's time on the client otherwise). */
static void int_text(Buf *b, int64_t v){
  char z[24];
  int i = (int)sizeof(z);
  uint64_t u = v<0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do{
    z[--i] = (char)('0' + u%10);
    u /= 10;
  }while( u );
  if( v<0 ) z[--i] = '-';
  buf_append(b, z+i, sizeof(z)-(size_t)i);
}

/*
** The rows of statement s (table t's columns, and their place when bOrd)
** as COPY text rows onto data.  The number of rows, or -1 with pErr set.
*/
static int64_t copy_rows(const PgTab *t, sqlite3_stmt *s, int bOrd,
                         Buf *data, PfError *pErr){
  Buf v;
  int64_t nRow = 0;
  int rc;
  buf_init(&v);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    for(int j=0; j<t->nCol; j++){
      if( j ) buf_putc(data, '\t');
      if( sqlite3_column_type(s, j)==SQLITE_INTEGER ){
        int_text(data, sqlite3_column_int64(s, j));
        continue;
      }
      buf_reset(&v);
      switch( value_text(s, j, t, t->a[j].cType, &v, pErr) ){
        case 0: buf_puts(data, "\\N"); break;
        case 1: copy_escape(data, v.z, v.n-1); break;   /* without its NUL */
        default: nRow = -1; break;
      }
      if( nRow<0 ) break;
    }
    if( nRow<0 ) break;
    if( bOrd ){
      buf_putc(data, '\t');
      int_text(data, nRow);
    }
    buf_putc(data, '\n');
    nRow++;
  }
  buf_free(&v);
  if( nRow>=0 && rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s: %s", t->zName,
                 sqlite3_errmsg(sqlite3_db_handle(s)));
    pf_error_kind(pErr, PF_KIND_DB);
    nRow = -1;
  }
  return nRow;
}

/* Rows of table t for run runId (strings: id > strFloor) to the server
** in one COPY (none when it has no rows); data is the caller's scratch.
** The number of rows, or -1 with pErr set. */
static int64_t push_table(PgConn *c, const PgTab *t, sqlite3 *db,
                          int64_t runId, int64_t strFloor, Buf *data,
                          PfError *pErr){
  char *zSql;
  sqlite3_stmt *s;
  int64_t n;
  int bOrd = !t->byId, bStr = strcmp(t->zName, "string")==0;
  /* the run's rows; of the strings, the new ones */
  zSql = sqlite3_mprintf(db_statement("pg-rows-push-select"), t->zCols,
                         t->zName, bStr ? "id>?1" : t->isRun ? "id=?1"
                         : "run_id=?1", t->rowid ? "ORDER BY rowid" : "");
  s = db_prepare(db, zSql, pErr);
  sqlite3_free(zSql);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, bStr ? strFloor : runId);
  buf_reset(data);
  n = copy_rows(t, s, bOrd, data, pErr);
  sqlite3_finalize(s);
  if( n>0 ){
    zSql = sqlite3_mprintf(db_statement("pg-rows-copy"), t->zName, t->zCols,
                           bOrd ? ", ord" : "");
    if( zSql==NULL ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "out of memory");
      n = -1;
    }else if( pg_conn_copy(c, zSql, data->z, data->n, pErr) ){
      n = -1;
    }
    sqlite3_free(zSql);
  }
  return n;
}

int pg_rows_push_run(PgConn *c, const PgPlan *p, sqlite3 *db, int64_t runId,
                     int64_t strFloor, int64_t *pnRows, PfError *pErr){
  Buf data;
  int64_t nAll = 0, n;
  buf_init(&data);
  /* strings first: the rows name them */
  n = push_table(c, &p->str, db, runId, strFloor, &data, pErr);
  for(int i=0; n>=0 && i<p->nTab; i++){
    n = push_table(c, &p->a[i], db, runId, strFloor, &data, pErr);
    if( n>0 ) nAll += n;
  }
  buf_free(&data);
  if( n<0 ) return -1;
  if( pnRows ) *pnRows = nAll;
  return 0;
}
