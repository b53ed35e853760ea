/*
** cmd_runs.c — `profan runs`, `profan show RUN`, `profan rm RUN...`.
**
** Pipeline position: read side (runs, show) and maintenance (rm).
*/
#include "cli.h"
#include "db.h"
#include "runref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prepare zSql, bind ?1 (int64) and ?2/?3 (text, may be NULL), print. */
static int print_sql(sqlite3 *db, Cli *p, const char *zSql, int64_t v,
                     const char *z2, const char *z3){
  sqlite3_stmt *s;
  int rc;
  if( sqlite3_prepare_v2(db, zSql, -1, &s, NULL)!=SQLITE_OK ){
    cli_error("%s", sqlite3_errmsg(db));
    return EXIT_SQL;
  }
  if( sqlite3_bind_parameter_count(s)>=1 ) sqlite3_bind_int64(s, 1, v);
  if( sqlite3_bind_parameter_count(s)>=2 ) db_bind_text_or_null(s, 2, z2, -1);
  if( sqlite3_bind_parameter_count(s)>=3 ) db_bind_text_or_null(s, 3, z3, -1);
  rc = output_stmt(s, p->eFmt, stdout, NULL);
  if( rc!=SQLITE_DONE ) cli_error("%s", sqlite3_errmsg(db));
  sqlite3_finalize(s);
  return rc==SQLITE_DONE ? EXIT_OK : EXIT_SQL;
}

int runs_cmd(Cli *p){
  const char *zTag = cli_option(p, "tag", NULL, 1);
  char *zKey = NULL;
  const char *zVal = NULL;
  sqlite3 *db;
  int rc;
  cli_verify_options(p);
  if( p->argc!=1 ) cli_usage_error(p, "no arguments expected");
  if( zTag ){
    const char *zEq = strchr(zTag, '=');
    if( zEq==NULL ) cli_usage_error(p, "--tag needs KEY=VALUE");
    zKey = xstrndup(zTag, (size_t)(zEq-zTag));
    zVal = zEq+1;
  }
  db = cli_open_db(p, DB_OPEN_READONLY);
  rc = print_sql(db, p,
    "SELECT r.id, r.name, r.created_at,"
    " (SELECT count(*) FROM run_file f WHERE f.run_id=r.id) AS files,"
    " (SELECT count(DISTINCT rank) FROM run_file f WHERE f.run_id=r.id"
    "  AND f.rank IS NOT NULL) AS ranks,"
    " (SELECT group_concat(key||'='||value, ' ') FROM run_tag t"
    "  WHERE t.run_id=r.id) AS tags,"
    " r.source_path"
    " FROM run r"
    " WHERE ?2 IS NULL OR EXISTS (SELECT 1 FROM run_tag t WHERE t.run_id=r.id"
    "  AND t.key=?2 AND t.value=?3)"
    " ORDER BY r.id", 0, zKey, zVal);
  free(zKey);
  db_close(db);
  return rc;
}

int show_cmd(Cli *p){
  sqlite3 *db;
  int64_t runId;
  PfError e = {0};
  int rc;
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give one RUN");
  db = cli_open_db(p, DB_OPEN_READONLY);
  runId = runref_resolve(db, p->argv[1], &e);
  if( runId<0 ){
    cli_error("%s", e.zMsg);
    db_close(db);
    return EXIT_BAD;
  }
  if( p->eFmt==OUT_TABLE ) printf("run\n");
  rc = print_sql(db, p,
    "SELECT id, name, created_at, source_path, content_hash, tool_version,"
    " (SELECT group_concat(key||'='||value, ' ') FROM run_tag"
    "  WHERE run_id=run.id) AS tags FROM run WHERE id=?1", runId, NULL, NULL);
  if( rc==EXIT_OK && p->eFmt==OUT_TABLE ) printf("\nfiles\n");
  if( rc==EXIT_OK ) rc = print_sql(db, p,
    "SELECT id AS file_id, path, kind, rank, rank_source, bytes, n_records,"
    " warnings, round(parse_ms, 1) AS parse_ms, time_regime"
    " FROM run_file WHERE run_id=?1 ORDER BY id", runId, NULL, NULL);
  if( rc==EXIT_OK && p->eFmt==OUT_TABLE ) printf("\ndevices\n");
  if( rc==EXIT_OK ) rc = print_sql(db, p,
    "SELECT rank, device, name, total_mem_bytes, num_sms,"
    " compute_major||'.'||compute_minor AS compute"
    " FROM device WHERE run_id=?1 ORDER BY rank, device", runId, NULL, NULL);
  if( rc==EXIT_OK && p->eFmt==OUT_TABLE ) printf("\nsteps\n");
  if( rc==EXIT_OK ) rc = print_sql(db, p,
    "SELECT rank, count(*) AS steps, min(step) AS first_step,"
    " max(step) AS last_step, source, round(avg(dur)/1e6, 3) AS avg_ms"
    " FROM step WHERE run_id=?1 GROUP BY rank, source ORDER BY rank",
    runId, NULL, NULL);
  db_close(db);
  return rc;
}

int rm_cmd(Cli *p){
  sqlite3 *db;
  PfError e = {0};
  int64_t *aId;
  int nId = 0;
  cli_verify_options(p);
  if( p->argc<2 ) cli_usage_error(p, "give at least one RUN");
  db = cli_open_db(p, 0);
  aId = xcalloc((size_t)p->argc, sizeof(int64_t));
  if( db_begin(db, &e) ){
    cli_error("%s: %s", p->zDb, e.zMsg);
    db_close(db);
    return EXIT_BAD;
  }
  for(int i=1; i<p->argc; i++){
    int64_t id = runref_resolve(db, p->argv[i], &e);
    if( id<0 || runref_delete(db, id, &e) ){
      cli_error("%s", db_lost_reason(db) ? db_lost_reason(db) : e.zMsg);
      db_rollback(db);
      db_close(db);
      free(aId);
      return EXIT_BAD;
    }
    aId[nId++] = id;
  }
  if( db_commit(db, &e) ){
    cli_error("%s: %s", p->zDb, e.zMsg);
    db_rollback(db);
    db_close(db);
    free(aId);
    return EXIT_BAD;
  }
  db_close(db);
  /* said once it is done, not before a commit that may fail */
  for(int i=0; i<nId; i++){
    fprintf(stderr, "profan: removed run %lld\n", (long long)aId[i]);
  }
  free(aId);
  return EXIT_OK;
}
