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
  /* the binary's own files: increasing numbers, the last one is its
  ** version */
  {
    int last = 0;
    for(int i=0; embedded_schema[i].zName; i++){
      int n = db_schema_file_number(embedded_schema[i].zName);
      ck_assert_msg(n>last, "%s: not numbered above the file before it",
                    embedded_schema[i].zName);
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
  ck_assert_int_eq(check(0, 0, 0, 31, 0, z, sizeof(z)), DB_VERSION_CREATE);
  ck_assert_int_eq(check(ID, 31, 190, 31, 0, z, sizeof(z)), DB_VERSION_OK);
  ck_assert_int_eq(check(ID, 1, 190, 31, 0, z, sizeof(z)),
                   DB_VERSION_MIGRATE);
  /* a version between two files (a gap) is older all the same */
  ck_assert_int_eq(check(ID, 17, 190, 31, 0, z, sizeof(z)),
                   DB_VERSION_MIGRATE);
  ck_assert_int_eq(check(ID, 1, 190, 31, DB_OPEN_READONLY, z, sizeof(z)),
                   DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "database schema version 1 is older than 31; run any"
                   " writing command (e.g. 'profan ingest') to migrate it");
  ck_assert_int_eq(check(ID, 45, 190, 31, 0, z, sizeof(z)),
                   DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "database schema version 45 is newer than this profan"
                   " (schema 31); upgrade profan");
  /* a development build's database: refused whatever its version, also
  ** one that reads as an older (1) or newer (45) baseline version */
  for(int v=0; v<=45; v++){
    ck_assert_int_eq(check(DEV, v, 150, 31, 0, z, sizeof(z)),
                     DB_VERSION_REFUSE);
    ck_assert_ptr_nonnull(strstr(z, "development build of profan before"
                                 " the schema baseline"));
    ck_assert_ptr_nonnull(strstr(z, "ingest the runs' files again"));
  }
  ck_assert_int_eq(check(0, 0, 1, 31, 0, z, sizeof(z)), DB_VERSION_REFUSE);
  ck_assert_str_eq(z, "not a profan database (application_id 0)");
  ck_assert_int_eq(check(7, 1, 0, 31, 0, z, sizeof(z)), DB_VERSION_REFUSE);
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
    { "031-path.sql", "CREATE TABLE b(x);" },
    { "045-gate.sql", "CREATE TABLE c(x);" },
    { 0, 0 }
  };
  static const EmbeddedFile aBad[] = {
    { "001-baseline.sql", "CREATE TABLE a(x);" },
    { "050-bad.sql", "CREATE TABLE d(x); CREATE TABLE a(y);" },
    { 0, 0 }
  };
  PfError e = {0};
  sqlite3 *db;
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  /* a new database: every file; its version is the last number */
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 45);
  ck_assert(has_table(db, "a") && has_table(db, "b") && has_table(db, "c"));
  sqlite3_close(db);
  /* a database at 31: only 045 is applied */
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE a(x); CREATE TABLE b(x);"
                   " PRAGMA user_version=31", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 45);
  ck_assert(has_table(db, "c"));
  /* up to date: nothing to do */
  ck_assert_int_eq(db_schema_apply(db, aFile, &e), 0);
  ck_assert_int_eq(user_version(db), 45);
  sqlite3_close(db);
  /* a file that fails: nothing of it stays, the version is unchanged */
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE a(x);"
                   " PRAGMA user_version=1", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(db_schema_apply(db, aBad, &e), -1);
  ck_assert_str_eq(e.zMsg, "schema 050-bad.sql: table a already exists");
  ck_assert_int_eq(user_version(db), 1);
  ck_assert(!has_table(db, "d"));
  sqlite3_close(db);
}
END_TEST

/* Every named statement of statements/ prepares on a new database, each
** of its statements in turn; a template (with a directive for
** sqlite3_mprintf) has exactly one percent sign, the directive (a
** percent sign in a comment would take the caller's argument). */
START_TEST(test_statements_prepare){
  PfError e = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  int n = 0;
  ck_assert_ptr_nonnull(db);
  for(int i=0; embedded_statement[i].zName; i++){
    const char *zText = embedded_statement[i].zText;
    const char *zW = strstr(zText, "%w"), *zS = strstr(zText, "%s");
    const char *zTail;
    char *zSql;
    int nPct = 0;
    for(const char *z = zText; *z; z++) nPct += *z=='%';
    if( zW || zS ){
      ck_assert_msg(nPct==1, "%s: a template with %d percent signs",
                    embedded_statement[i].zName, nPct);
      zSql = sqlite3_mprintf(zText, zW ? "kernel" : "SELECT 1");
    }else{
      zSql = sqlite3_mprintf("%s", zText);
    }
    zTail = zSql;
    while( zTail && *zTail ){
      sqlite3_stmt *p = NULL;
      int rc = sqlite3_prepare_v2(db, zTail, -1, &p, &zTail);
      ck_assert_msg(rc==SQLITE_OK, "%s: %s", embedded_statement[i].zName,
                    sqlite3_errmsg(db));
      if( p ) n++;
      /* temp tables a statement makes, for the next one to prepare */
      if( p && sqlite3_stmt_readonly(p)==0
          && strstr(sqlite3_sql(p), "CREATE TEMP")!=NULL ){
        sqlite3_step(p);
      }
      sqlite3_finalize(p);
    }
    sqlite3_free(zSql);
    /* the program finds it by its name */
    {
      char zName[128];
      snprintf(zName, sizeof(zName), "%s", embedded_statement[i].zName);
      *strrchr(zName, '.') = 0;
      ck_assert_ptr_eq(db_statement(zName), zText);
    }
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
