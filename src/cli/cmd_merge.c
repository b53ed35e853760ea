/*
** cmd_merge.c — `profan merge --into DB [--name N] SHARD...`: parse the
** options, open (or create) the target database, merge, print the summary.
**
** Pipeline position: front end of merge.c, as cmd_ingest.c is of ingest.c.
** A target that did not exist and a merge that failed (or Ctrl-C): the
** new file is removed again, so a failed merge leaves things as they
** were.  Exit 6 for a bad shard, 2 for shards that are not one run, 7
** for the target.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "ingest/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Remove a database file this command created (and its WAL files). */
static void remove_created(const char *zDb){
  char *z;
  unlink(zDb);
  z = xasprintf("%s-wal", zDb); unlink(z); free(z);
  z = xasprintf("%s-shm", zDb); unlink(z); free(z);
}

/* The exit code of merge_run()'s failure. */
static int merge_exit(const MergeResult *pRes){
  switch( pRes->exitCode ){
    case MERGE_BAD_SHARD: return EXIT_INPUT;
    case MERGE_NOT_ONE_RUN: return EXIT_USAGE;
  }
  return EXIT_DB;
}

int merge_cmd(Cli *p){
  MergeOpts opt;
  MergeResult res;
  const char *zInto;
  PfError e = {0};
  sqlite3 *db;
  Buf msg;
  int rc, created;

  memset(&opt, 0, sizeof(opt));
  zInto = cli_option(p, "into", NULL, 1);
  opt.zName = cli_option(p, "name", NULL, 1);
  opt.pLog = cli_option(p, "quiet", "q", 0) ? NULL : stderr;
  opt.summariesOnly = cli_option(p, "summaries-only", NULL, 0)!=NULL;
  cli_timeout_option(p);
  opt.timeout = p->timeout;
  opt.xWait = cli_wait_note;
  cli_verify_options(p);
  if( zInto==NULL ) cli_usage_error(p, "--into DB is required");
  if( opt.zName ) cli_check_name(p, "--name", opt.zName);
  if( opt.zName && opt.summariesOnly ){
    cli_usage_error(p, "--summaries-only keeps the runs' names: no --name");
  }
  if( p->argc<2 ) cli_usage_error(p, "no SHARD given");
  opt.azShard = (const char **)&p->argv[1];
  opt.nShard = p->argc-1;
  for(int i=0; i<opt.nShard; i++){
    if( access(opt.azShard[i], R_OK)!=0 ){
      return cli_fail(EXIT_INPUT, "%s: cannot read the shard (%s)",
                      opt.azShard[i], strerror(errno));
    }
  }
  created = access(zInto, F_OK)!=0;
  if( created ) cli_interrupt_file(zInto);
  p->zDb = zInto;
  db = db_open(zInto, DB_OPEN_CREATE, &e);
  if( db==NULL ){
    cli_error("%s: %s", zInto, e.zMsg);
    if( created ) remove_created(zInto);
    return EXIT_DB;
  }
  cli_mark_writing();
  db_hold_signals_after_commit(db);
  buf_init(&msg);
  rc = merge_run(db, &opt, &res, &msg);
  db_close(db);
  if( rc ){
    cli_error("%s%s%s", cli_is_lock_message(buf_str(&msg)) ? zInto : "",
              cli_is_lock_message(buf_str(&msg)) ? ": " : "", buf_str(&msg));
    buf_free(&msg);
    if( created ) remove_created(zInto);
    cli_interrupt_file(NULL);
    return merge_exit(&res);
  }
  cli_interrupt_file(NULL);
  buf_free(&msg);
  if( created && res.nMerged==0 ) remove_created(zInto);
  if( opt.pLog==NULL ) return EXIT_OK;
  if( res.nMerged==0 ){
    fprintf(stderr, "profan: nothing merged: every %s is already in %s\n",
            opt.summariesOnly ? "run" : "shard", zInto);
  }else if( opt.summariesOnly ){
    fprintf(stderr, "profan: archived %d run%s into %s (summaries only):"
            " %lld rows, %.2f s\n", res.nMerged, res.nMerged==1 ? "" : "s",
            zInto, (long long)res.nRows, res.seconds);
  }else{
    fprintf(stderr, "profan: merged %d shard%s into run %lld (%s%s): %d"
            " files, %lld rows, %.2f s\n", res.nMerged,
            res.nMerged==1 ? "" : "s", (long long)res.runId, res.zName,
            res.appended ? ", added to it" : "", res.nFiles,
            (long long)res.nRows, res.seconds);
  }
  return EXIT_OK;
}
