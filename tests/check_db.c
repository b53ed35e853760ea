/*
** check_db.c — unit tests of the schema versions of db.c: file numbers,
** what db_open() decides from a database's header, and applying the
** files numbered above a database's version (gaps between numbers).
*/
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "core/db.h"

START_TEST(test_file_number){
  ck_assert_int_eq(db_schema_file_number("001-baseline.sql"), 1);
  ck_assert_int_eq(db_schema_file_number("045-gate.sql"), 45);
  ck_assert_int_eq(db_schema_file_number("999-x.sql"), 999);
  ck_assert_int_eq(db_schema_file_number("01-x.sql"), -1);
  ck_assert_int_eq(db_schema_file_number("0011-x.sql"), -1);
  ck_assert_int_eq(db_schema_file_number("abc-x.sql"), -1);
  ck_assert_int_eq(db_schema_file_number(NULL), -1);
  /* the version after a file: the baseline counts as the last file it
  ** folded */
  ck_assert_int_eq(db_schema_file_version("001-baseline.sql"),
                   PROFAN_SCHEMA_BASELINE);
  ck_assert_int_eq(PROFAN_SCHEMA_BASELINE, 95);
  ck_assert_int_eq(db_schema_file_version("096-x.sql"), 96);
  ck_assert_int_eq(db_schema_file_version("x.sql"), -1);
  /* the binary's own files: the baseline first, then numbers above its
  ** version (a file numbered 002-095 would never be applied to a
  ** database at the baseline's version), increasing; the last one's
  ** version is the binary's */
  {
    int last = 0;
    for(int i=0; embedded_schema[i].zName; i++){
      int n = db_schema_file_version(embedded_schema[i].zName);
      ck_assert_msg(n>last, "%s: not numbered above the version before it"
                    " (%d)", embedded_schema[i].zName, last);
      last = n;
    }
    ck_assert_int_eq(last, db_schema_version());
    ck_assert_int_eq(db_schema_file_number(embedded_schema[0].zName), 1);
  }
}
END_TEST

/* db_version_check's answer and message for one header. */
static int check(int appId, int ver, int nObj, int want, int flags,
                 char *zMsg, size_t nMsg){
  PfError e = {0};
  int r = db_version_check(appId, ver, nObj, want, flags, &e);
  snprintf(zMsg, nMsg, "%s", e.set ? e.zMsg : "");
  return r;
}

START_TEST(test_version_check){
  char z[512];
  const int ID = PROFAN_APPLICATION_ID, DEV = PROFAN_APPLICATION_ID_DEV;
  const int B = PROFAN_SCHEMA_BASELINE;
  ck_assert_int_eq(check(0, 0, 0, 120, 0, z, sizeof(z)), DB_VERSION_CREATE);
  ck_assert_int_eq(check(ID, 120, 190, 120, 0, z, sizeof(z)), DB_VERSION_OK);
  ck_assert_int_eq(check(ID, B, 190, B, 0, z, sizeof(z)), DB_VERSION_OK);
  ck_assert_int_eq(check(ID, B, 190, 120, 0, z, sizeof(z)),
                   DB_VERSION_MIGRATE);
  /* a version between two files (a gap) is older all the same */
  ck_assert_int_eq(check(ID, 107, 190, 120, 0, z, sizeof(z)),
                   DB_VERSION_MIGRATE);
  ck_assert_int_eq(check(ID, B, 190, 120, DB_OPEN_READONLY, z, sizeof(z)),
                   DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "database schema version 95 is older than 120; run any"
                   " writing command (e.g. 'profan ingest') to migrate it");
  ck_assert_int_eq(check(ID, 145, 190, 120, 0, z, sizeof(z)),
                   DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "database schema version 145 is newer than this"
                   " profan (schema 120); upgrade profan");
  /* a database of a development build between the two baselines (1 to
  ** 94: files the baseline folded): refused, read-only or not, at every
  ** such version, whatever the binary's version */
  for(int v=1; v<B; v++){
    ck_assert_int_eq(check(ID, v, 190, 120, 0, z, sizeof(z)),
                     DB_VERSION_REFUSE);
    ck_assert_int_eq(check(ID, v, 190, B, DB_OPEN_READONLY, z, sizeof(z)),
                     DB_VERSION_REFUSE);
  }
  check(ID, 31, 190, 120, 0, z, sizeof(z));
  ck_assert_str_eq(z, "database made by a development build of profan"
                   " (schema version 31, before the baseline 95); this"
                   " profan cannot migrate it: ingest the runs' files again"
                   " into a new database");
  /* a profan file at version 0 (made, never migrated): the baseline */
  ck_assert_int_eq(check(ID, 0, 0, 120, 0, z, sizeof(z)),
                   DB_VERSION_MIGRATE);
  /* a development build's database: refused whatever its version, also
  ** one that reads as an older (1) or newer (45) baseline version */
  for(int v=0; v<=145; v++){
    ck_assert_int_eq(check(DEV, v, 150, 120, 0, z, sizeof(z)),
                     DB_VERSION_REFUSE);
    ck_assert_ptr_nonnull(strstr(z, "development build of profan before"
                                 " the schema baseline"));
    ck_assert_ptr_nonnull(strstr(z, "ingest the runs' files again"));
  }
  ck_assert_int_eq(check(0, 0, 1, 120, 0, z, sizeof(z)), DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "not a profan database (application_id 0)");
  ck_assert_int_eq(check(7, 1, 0, 120, 0, z, sizeof(z)), DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "not a profan database (application_id 7)");
}
END_TEST

/* The user_version of db, and whether table zTab exists. */
static int user_version(sqlite3 *db){
  sqlite3_stmt *p;
  int v = -1;
  ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &p,
                                      NULL), SQLITE_OK);
  if( sqlite3_step(p)==SQLITE_ROW ) v = sqlite3_column_int(p, 0);
  sqlite3_finalize(p);
  return v;
}
static int has_table(sqlite3 *db, const char *zTab){
  sqlite3_stmt *p;
  int r;
  ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema"
                   " WHERE name=?1", -1, &p, NULL), SQLITE_OK);
  sqlite3_bind_text(p, 1, zTab, -1, SQLITE_STATIC);
  r = sqlite3_step(p)==SQLITE_ROW;
  sqlite3_finalize(p);
  return r;
}

START_TEST(test_apply_with_gaps){
  static const EmbeddedFile aFile[] = {
    { "001-baseline.sql", "CREATE TABLE a(x);" },
    { "101-path.sql", "CREATE TABLE b(x);" },
    { "115-gate.sql", "CREATE TABLE c(x);" },
    { 0, 0 }
  };
  static const EmbeddedFile aBad[] = {
    { "001-baseline.sql", "CREATE TABLE a(x);" },
    { "120-bad.sql", "CREATE TABLE d(x); CREATE TABLE a(y);" },
    { 0, 0 }
  };
  PfError e = {0};
  sqlite3 *db;
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  /* a new database: every file; its version is the last number */
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 115);
  ck_assert(has_table(db, "a") && has_table(db, "b") && has_table(db, "c"));
  sqlite3_close(db);
  /* the baseline alone: the version of the last file it folded */
  {
    static const EmbeddedFile aBase[] = {
      { "001-baseline.sql", "CREATE TABLE a(x);" }, { 0, 0 } };
    ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    ck_assert_int_eq(db_schema_apply(db, aBase, &e), 0);
    ck_assert_int_eq(user_version(db), PROFAN_SCHEMA_BASELINE);
    /* up to date: the baseline is not applied again */
    ck_assert_int_eq(db_schema_apply(db, aBase, &e), 0);
    ck_assert_int_eq(user_version(db), PROFAN_SCHEMA_BASELINE);
    sqlite3_close(db);
  }
  /* a database at the baseline's version: 101 and 115 are applied */
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE a(x);"
                   " PRAGMA user_version=95", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 115);
  ck_assert(has_table(db, "b") && has_table(db, "c"));
  sqlite3_close(db);
  /* a database at 101: only 115 is applied */
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE a(x); CREATE TABLE b(x);"
                   " PRAGMA user_version=101", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 115);
  ck_assert(has_table(db, "c"));
  /* up to date: nothing to do */
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 115);
  sqlite3_close(db);
  /* a file that fails: nothing of it stays, the version is unchanged */
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE a(x);"
                   " PRAGMA user_version=95", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(db_schema_apply(db, aBad, &e), -1);
  ck_assert_str_eq(e.zMsg, "schema 120-bad.sql: table a already exists");
  ck_assert_int_eq(user_version(db), 95);
  ck_assert(!has_table(db, "d"));
  sqlite3_close(db);
}
END_TEST

/* A template's text with its format directives filled: from its line
** TEMPLATE_ARGS "A | B | ..." in order when it has one, else
** kernel for %w, SELECT 1 for %s, 1 for %d and %lld, 'x' for %Q, x for
** %q; %% is a percent sign.  NULL when a directive has no argument left
** (the caller frees with sqlite3_free). */
#define TEMPLATE_ARGS "-- template arguments (for tests/check_db.c): "
static char *template_fill(const char *zText){
  const char *zArgs = strstr(zText, TEMPLATE_ARGS);
  sqlite3_str *p = sqlite3_str_new(NULL);
  if( zArgs ) zArgs += strlen(TEMPLATE_ARGS);
  for(const char *z = zText; *z; z++){
    const char *zDflt = NULL;
    if( *z!='%' ){ sqlite3_str_appendchar(p, 1, *z); continue; }
    z++;
    if( *z=='%' ){ sqlite3_str_appendchar(p, 1, '%'); continue; }
    if( z[0]=='l' && z[1]=='l' ) z += 2;
    switch( *z ){
      case 'w': zDflt = "kernel"; break;
      case 's': zDflt = "SELECT 1"; break;
      case 'd': zDflt = "1"; break;
      case 'Q': zDflt = "'x'"; break;
      case 'q': zDflt = "x"; break;
      default: sqlite3_free(sqlite3_str_finish(p)); return NULL;
    }
    if( zArgs && *zArgs && *zArgs!='\n' ){
      size_t n = strcspn(zArgs, "|\n");
      size_t m = n;
      while( m>0 && zArgs[m-1]==' ' ) m--;
      sqlite3_str_append(p, zArgs, (int)m);
      zArgs += n;
      if( *zArgs=='|' ) zArgs++;
      while( *zArgs==' ' ) zArgs++;
    }else if( zArgs ){
      sqlite3_free(sqlite3_str_finish(p));
      return NULL;
    }else{
      sqlite3_str_appendall(p, zDflt);
    }
  }
  return sqlite3_str_finish(p);
}

/* Prepares every statement of the text of embedded statement i in turn,
** stepping those that make temp tables (for the statements after it),
** inside a savepoint: released when all prepare, else rolled back, and
** the error in zErr.  Returns the number prepared, -1 on an error. */
static int statements_prepare(sqlite3 *db, int i, char *zErr, size_t nErr){
  const char *zText = embedded_statement[i].zText;
  const char *zTail;
  char *zSql;
  int n = 0;
  if( strstr(zText, "A template")!=NULL ){
    /* no percent sign in its comments: it would take an argument */
    for(const char *z = zText; z && *z; ){
      const char *zEnd = strchr(z, '\n');
      size_t m = zEnd ? (size_t)(zEnd - z) : strlen(z);
      ck_assert_msg(m<2 || z[0]!='-' || z[1]!='-'
                    || memchr(z, '%', m)==NULL,
                    "%s: a percent sign in a comment",
                    embedded_statement[i].zName);
      z = zEnd ? zEnd + 1 : NULL;
    }
    zSql = template_fill(zText);
    ck_assert_msg(zSql!=NULL, "%s: a directive without an argument",
                  embedded_statement[i].zName);
  }else{
    zSql = sqlite3_mprintf("%s", zText);
  }
  ck_assert_int_eq(sqlite3_exec(db, "SAVEPOINT st", 0, 0, 0), SQLITE_OK);
  zTail = zSql;
  while( n>=0 && zTail && *zTail ){
    sqlite3_stmt *p = NULL;
    if( sqlite3_prepare_v2(db, zTail, -1, &p, &zTail)!=SQLITE_OK ){
      snprintf(zErr, nErr, "%s", sqlite3_errmsg(db));
      n = -1;
    }else if( p ){
      n++;
      /* temp tables a statement makes, for the next one to prepare */
      if( sqlite3_stmt_readonly(p)==0
          && strstr(sqlite3_sql(p), "CREATE TEMP")!=NULL ){
        sqlite3_step(p);
      }
    }
    sqlite3_finalize(p);
  }
  sqlite3_free(zSql);
  if( n<0 ) sqlite3_exec(db, "ROLLBACK TO st", 0, 0, 0);
  ck_assert_int_eq(sqlite3_exec(db, "RELEASE st", 0, 0, 0), SQLITE_OK);
  return n;
}

/* Every named statement of statements/ prepares on a new database, each
** of its statements in turn.  A template (its header says "A template")
** is prepared with its directives filled (template_fill); any other text
** as it is, percent signs included (no printf reads it).  One that reads
** a temp table another makes is tried again after all the others; one
** marked "-- PostgreSQL:" is not SQLite's. */
START_TEST(test_statements_prepare){
  PfError e = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  int n = 0, nLater = 0, aLater[16];
  char zErr[256];
  ck_assert_ptr_nonnull(db);
  /* a table standing for the virtual table load_snapshot.c registers,
  ** with the columns it declares */
  {
    const char *z = strstr(db_statement("load-snapshot-feed"),
                           "CREATE TABLE x(");
    char *zSql;
    ck_assert_ptr_nonnull(z);
    zSql = sqlite3_mprintf("CREATE TEMP TABLE profan_snapshot_event_feed(%s",
                           z + strlen("CREATE TABLE x("));
    ck_assert_int_eq(sqlite3_exec(db, zSql, 0, 0, 0), SQLITE_OK);
    sqlite3_free(zSql);
  }
  for(int i=0; embedded_statement[i].zName; i++){
    int k = 0;
    /* the history server's statements are PostgreSQL's */
    if( strstr(embedded_statement[i].zText, "\n-- PostgreSQL:")==NULL ){
      k = statements_prepare(db, i, zErr, sizeof(zErr));
    }
    if( k<0 && strncmp(zErr, "no such table", 13)==0 && nLater<16 ){
      aLater[nLater++] = i;
    }else{
      ck_assert_msg(k>=0, "%s: %s", embedded_statement[i].zName, zErr);
      n += k;
    }
    /* the program finds it by its name */
    {
      char zName[128];
      snprintf(zName, sizeof(zName), "%s", embedded_statement[i].zName);
      *strrchr(zName, '.') = 0;
      ck_assert_ptr_eq(db_statement(zName), embedded_statement[i].zText);
    }
  }
  for(int j=0; j<nLater; j++){
    int k = statements_prepare(db, aLater[j], zErr, sizeof(zErr));
    ck_assert_msg(k>=0, "%s: %s", embedded_statement[aLater[j]].zName, zErr);
    n += k;
  }
  ck_assert_int_gt(n, 5);
  db_close(db);
}
END_TEST

Suite *make_db_suite(void){
  Suite *s = suite_create("db");
  TCase *tc = tcase_create("versions");
  tcase_add_test(tc, test_file_number);
  tcase_add_test(tc, test_version_check);
  tcase_add_test(tc, test_apply_with_gaps);
  tcase_add_test(tc, test_statements_prepare);
  suite_add_tcase(s, tc);
  return s;
}
