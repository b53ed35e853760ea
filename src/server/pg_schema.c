/*
** pg_schema.c — the history server's schema version and its migrations
** (see pg_schema.h).
**
** Pipeline position: the server layer, right after connecting.  The
** files are embedded at build time (embedded_pg_schema[], tools/embed.c
** from schema/pg/); each is applied once, recorded in
** profan.schema_version, all of them in one transaction under
** pg_advisory_xact_lock(PG_LOCK_MIGRATE).
*/
#include "server/pg_schema.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_schema_version(void){
  int v = 0;
  for(int i=0; embedded_pg_schema[i].zName; i++){
    v = db_schema_file_number(embedded_pg_schema[i].zName);
  }
  return v;
}

/* The server's version into *pv (0: no schema profan).  0 or -1 (pErr):
** a schema profan the role may not use is said so. */
static int read_version(PgConn *c, int *pv, PfError *pErr){
  PGresult *r = pg_conn_exec(c,
    db_statement("pg-schema-access"), 0, NULL, pErr);
  int bSchema, bUsage, bTable;
  if( r==NULL ) return -1;
  bSchema = strcmp(PQgetvalue(r, 0, 0), "t")==0;
  bUsage = strcmp(PQgetvalue(r, 0, 1), "t")==0;
  bTable = strcmp(PQgetvalue(r, 0, 2), "t")==0;
  PQclear(r);
  *pv = 0;
  if( bSchema && !bUsage ){
    pg_conn_error(c, NULL, "this role may not use schema profan (GRANT"
                  " USAGE ON SCHEMA profan TO it: docs/history-server.md)",
                  pErr);
    return -1;
  }
  if( !bTable ) return 0;
  r = pg_conn_exec(c, db_statement("pg-schema-version"), 0, NULL, pErr);
  if( r==NULL ) return -1;
  *pv = atoi(PQgetvalue(r, 0, 0));
  PQclear(r);
  return 0;
}

/* The refusal of a schema newer than this profan's. */
static int refuse_newer(PgConn *c, int have, int want, PfError *pErr){
  char z[200];
  snprintf(z, sizeof(z), "its profan schema is version %d, newer than this"
           " profan's %d: upgrade profan", have, want);
  pg_conn_error(c, NULL, z, pErr);
  return -1;
}

/* Apply the files numbered above have, inside the caller's transaction.
** 0 or -1 (pErr). */
static int apply_files(PgConn *c, int have, int want, PfError *pErr){
  char zWhat[200];
  snprintf(zWhat, sizeof(zWhat), "cannot create its profan schema (version"
           " %d to %d; run profan once as a role that may, see"
           " docs/history-server.md)", have, want);
  for(int i=0; embedded_pg_schema[i].zName; i++){
    const EmbeddedFile *f = &embedded_pg_schema[i];
    int n = db_schema_file_number(f->zName);
    char zN[16];
    const char *az[2];
    PfError e = {0};
    if( n<=have ) continue;
    snprintf(zN, sizeof(zN), "%d", n);
    az[0] = zN;
    az[1] = f->zName;
    if( pg_conn_script(c, f->zText, &e)
        || pg_conn_run(c, db_statement("pg-schema-apply-files"), 2, az, &e) ){
      /* e: "history server NAME: MSG"; said with what was being done */
      const char *zMsg = strstr(e.zMsg, ": ");
      char z[800];
      snprintf(z, sizeof(z), "%s: %s", zWhat, zMsg ? zMsg+2 : e.zMsg);
      pg_conn_error(c, NULL, z, pErr);
      return -1;
    }
  }
  return 0;
}

int pg_schema_ensure(PgConn *c, int *pVersion, PfError *pErr){
  int have, want = pg_schema_version();
  char zKey[32];
  const char *az[1];
  if( read_version(c, &have, pErr) ) return -1;
  if( pVersion ) *pVersion = have;
  if( have>want ) return refuse_newer(c, have, want, pErr);
  if( have==want ) return 0;
  /* older or none: migrate, one process at a time */
  snprintf(zKey, sizeof(zKey), "%lld", (long long)PG_LOCK_MIGRATE);
  az[0] = zKey;
  if( pg_conn_run(c, "BEGIN", 0, NULL, pErr)
      || pg_conn_run(c, "SELECT pg_advisory_xact_lock($1::bigint)", 1, az,
                     pErr)
      || read_version(c, &have, pErr) ){
    pg_conn_run(c, "ROLLBACK", 0, NULL, NULL);
    return -1;
  }
  if( have>want ){
    pg_conn_run(c, "ROLLBACK", 0, NULL, NULL);
    return refuse_newer(c, have, want, pErr);
  }
  if( have<want && apply_files(c, have, want, pErr) ){
    PfError e = {0};
    pg_conn_run(c, "ROLLBACK", 0, NULL, &e);
    return -1;
  }
  return pg_conn_run(c, "COMMIT", 0, NULL, pErr);
}
