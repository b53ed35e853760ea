/*
** cmd_ingest.c — `profan ingest`: parse options, open (or create) the
** database, run the ingest, print the summary.
**
** Pipeline position: front end of the whole pipeline (ingest.c does the
** work).  If the database file did not exist and the ingest fails, the new
** file is removed again, so a failed ingest leaves things as they were.
*/
#include "cli.h"
#include "db.h"
#include "ingest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Remove a database file created by this command (and its WAL files). */
static void remove_new_db(const char *zDb){
  char *z;
  unlink(zDb);
  z = xasprintf("%s-wal", zDb); unlink(z); free(z);
  z = xasprintf("%s-shm", zDb); unlink(z); free(z);
}

int ingest_cmd(Cli *p){
  IngestOpts opt;
  IngestResult res;
  const char *z;
  const char *azKey[64], *azVal[64];
  char *azTagCopy[64];
  int nTag = 0, rc, existed;
  sqlite3 *db;
  Buf msg;

  memset(&opt, 0, sizeof(opt));
  opt.zName = cli_option(p, "name", NULL, 1);
  opt.replace = cli_option(p, "replace", NULL, 0)!=NULL;
  opt.strict = cli_option(p, "strict", NULL, 0)!=NULL;
  if( (z = cli_option(p, "threads", NULL, 1))!=NULL ){
    opt.nThreads = atoi(z);
    if( opt.nThreads<1 || opt.nThreads>16 ){
      cli_usage_error(p, "--threads must be between 1 and 16");
    }
  }
  opt.pLog = cli_option(p, "quiet", "q", 0) ? NULL : stderr;
  while( (z = cli_option(p, "tag", NULL, 1))!=NULL ){
    const char *zEq = strchr(z, '=');
    if( zEq==NULL || zEq==z ) cli_usage_error(p, "--tag needs KEY=VALUE, got '%s'", z);
    if( nTag==64 ) cli_usage_error(p, "too many --tag options");
    azTagCopy[nTag] = xstrndup(z, (size_t)(zEq-z));
    azKey[nTag] = azTagCopy[nTag];
    azVal[nTag] = zEq+1;
    nTag++;
  }
  opt.azTagKey = azKey;
  opt.azTagVal = azVal;
  opt.nTag = nTag;
  opt.progress = isatty(2) && opt.pLog!=NULL;
  cli_verify_options(p);
  if( p->argc<2 ) cli_usage_error(p, "no PATH given");

  existed = access(p->zDb, F_OK)==0;
  db = cli_open_db(p, DB_OPEN_CREATE);
  buf_init(&msg);
  rc = ingest_run(db, (const char**)&p->argv[1], p->argc-1, &opt, &res, &msg);
  db_close(db);
  for(int i=0; i<nTag; i++) free(azTagCopy[i]);
  if( rc ){
    cli_error("%s", buf_str(&msg));
    buf_free(&msg);
    if( !existed ) remove_new_db(p->zDb);
    return EXIT_BAD;
  }
  buf_free(&msg);
  if( res.duplicate ){
    fprintf(stderr, "profan: already in the database as run %lld (same "
            "content); nothing done (use --replace to ingest again)\n",
            (long long)res.runId);
    return EXIT_OK;
  }
  if( opt.pLog ){
    fprintf(opt.pLog,
      "profan: ingested run %lld: %d file%s, %lld events, %lld rows, "
      "%.2f s, %.1f MB/s%s\n",
      (long long)res.runId, res.nFiles, res.nFiles==1 ? "" : "s",
      (long long)res.nEvents, (long long)res.nRows, res.seconds,
      res.seconds>0 ? res.nBytes/1e6/res.seconds : 0.0,
      res.nSkipped ? " (some files skipped, see above)" : "");
  }
  return EXIT_OK;
}
