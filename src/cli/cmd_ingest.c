/*
** cmd_ingest.c — `profan ingest`: parse options, open (or create) the
** database, run the ingest, print the summary.
**
** Pipeline position: front end of the whole pipeline (ingest.c does the
** work).  A database that does not exist yet is built in a file of its
** own, "DB.new-PID", with the journal in memory and no syncs (nothing to
** protect until it exists: the commit and WAL checkpoint cost 10-15 % of
** a first ingest), then synced, switched to WAL mode and linked into
** place.  A failed ingest removes that file, so it leaves things as they
** were; so does Ctrl-C (SIGINT) or SIGTERM (cli.c's handler, which says
** "interrupted, nothing written"); a killed one (SIGKILL) leaves it
** behind, and the next fresh ingest next to it removes it.  If DB
** appeared meanwhile (another ingest), the ingest is redone into it the
** normal way.  Exit 6 when an input file failed, 7 when the database
** did.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "core/fault.h"
#include "ingest/ingest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Remove a database file created by this command (and its WAL files). */
static void remove_new_db(const char *zDb){
  char *z;
  unlink(zDb);
  z = xasprintf("%s-wal", zDb); unlink(z); free(z);
  z = xasprintf("%s-shm", zDb); unlink(z); free(z);
}

/* The new database being built, for util_fatal() to remove: running out
** of memory leaves nothing behind either.  Fixed buffers: no allocation
** on the way out. */
static char zFatalTmp[4096];

static void remove_fatal_tmp(void){
  char z[4096+8];
  if( zFatalTmp[0]==0 ) return;
  unlink(zFatalTmp);
  snprintf(z, sizeof(z), "%s-wal", zFatalTmp); unlink(z);
  snprintf(z, sizeof(z), "%s-shm", zFatalTmp); unlink(z);
}

/* The directory part of zPath ("." when none); caller frees. */
static char *dir_of(const char *zPath){
  const char *zSlash = strrchr(zPath, '/');
  if( zSlash==NULL ) return xstrdup(".");
  if( zSlash==zPath ) return xstrdup("/");
  return xstrndup(zPath, (size_t)(zSlash-zPath));
}

/* Remove "DB.new-PID" files of fresh ingests that were killed (PID gone). */
static void remove_stale_new(const char *zDb){
  char *zDir = dir_of(zDb);
  const char *zBase = util_basename(zDb);
  size_t nBase = strlen(zBase);
  DIR *d = opendir(zDir);
  struct dirent *ent;
  while( d && (ent = readdir(d))!=NULL ){
    const char *z = ent->d_name;
    char *zEnd;
    long pid;
    if( strncmp(z, zBase, nBase)!=0 || strncmp(z+nBase, ".new-", 5)!=0 ){
      continue;
    }
    pid = strtol(z+nBase+5, &zEnd, 10);
    if( pid>0 && *zEnd==0 && kill((pid_t)pid, 0)!=0 && errno==ESRCH ){
      char *zPath = xasprintf("%s/%s", zDir, z);
      remove_new_db(zPath);
      free(zPath);
    }
  }
  if( d ) closedir(d);
  free(zDir);
}

/* fsync the file (or directory) at zPath; 0 or -1 with errno. */
static int sync_path(const char *zPath, int isDir){
  int fd = open(zPath, O_RDONLY | (isDir ? O_DIRECTORY : 0));
  int rc;
  if( fd<0 ) return -1;
  if( !isDir ) fault_sync_point(zPath);      /* power-loss tests */
  rc = fsync(fd);
  close(fd);
  return rc;
}

/* Put the finished new database zTmp in place as zDb.  Returns 0, 1 when
** zDb exists by now (zTmp is left for the caller), or -1 with the reason
** in pMsg. */
static int publish_new_db(const char *zTmp, const char *zDb, Buf *pMsg){
  /* allocated before the link: running out of memory after it would
  ** report a failure for a run that is stored */
  char *zDir = dir_of(zDb);
  if( sync_path(zTmp, 0) ){
    buf_printf(pMsg, "%s: cannot sync the new database: %s", zDb,
               strerror(errno));
    free(zDir);
    return -1;
  }
  if( link(zTmp, zDb) ){
    if( errno==EEXIST ){ free(zDir); return 1; }
    /* no hard links here (some network or FUSE file systems) */
    if( access(zDb, F_OK)==0 ){ free(zDir); return 1; }
    if( rename(zTmp, zDb) ){
      buf_printf(pMsg, "%s: cannot create: %s", zDb, strerror(errno));
      free(zDir);
      return -1;
    }
  }else{
    unlink(zTmp);
  }
  sync_path(zDir, 1);         /* best effort: the entry is there either way */
  free(zDir);
  return 0;
}

/*
** A database that does not exist yet is created in its directory: when
** that directory is missing, not a directory or not writable, says so in
** pMsg ("DIR: not writable (Permission denied)") and returns 1; else 0.
*/
static int explain_unwritable(const char *zDb, Buf *pMsg){
  char *zDir = dir_of(zDb);
  char *zProbe = xasprintf("%s.probe-%ld", zDb, (long)getpid());
  struct stat st;
  int fd, rc = 0;
  if( stat(zDir, &st)!=0 ){
    buf_printf(pMsg, "%s: cannot create database: no directory %s",
               zDb, zDir);
    rc = 1;
  }else if( !S_ISDIR(st.st_mode) ){
    buf_printf(pMsg, "%s: cannot create database: %s is not a"
               " directory", zDb, zDir);
    rc = 1;
  }else if( (fd = open(zProbe, O_RDWR|O_CREAT|O_EXCL, 0600))<0 ){
    buf_printf(pMsg, "%s: cannot create database: directory %s is not"
               " writable (%s)", zDb, zDir, strerror(errno));
    rc = 1;
  }else{
    close(fd);
    unlink(zProbe);
  }
  free(zProbe);
  free(zDir);
  return rc;
}

/*
** Ingest into a database that does not exist yet (see the top of the
** file).  Returns 0 (done), 1 (zDb appeared meanwhile: nothing was
** stored, ingest into it), or -1 with the error in pMsg.
*/
static int ingest_fresh(Cli *p, const IngestOpts *pOpt, IngestResult *pRes,
                        Buf *pMsg){
  char *zTmp = xasprintf("%s.new-%ld", p->zDb, (long)getpid());
  PfError e = {0};
  sqlite3 *db;
  int rc;
  remove_stale_new(p->zDb);
  remove_new_db(zTmp);
  if( explain_unwritable(p->zDb, pMsg) ){
    free(zTmp);
    pRes->errKind = PF_KIND_DB;
    return -1;
  }
  cli_interrupt_file(zTmp);
  if( strlen(zTmp)<sizeof(zFatalTmp) ){
    memcpy(zFatalTmp, zTmp, strlen(zTmp)+1);
    util_set_fatal_cleanup(remove_fatal_tmp);
  }
  db = db_open(zTmp, DB_OPEN_CREATE|DB_OPEN_BULK, &e);
  if( db==NULL ){
    buf_printf(pMsg, "%s: %s", p->zDb, e.zMsg);
    remove_new_db(zTmp);
    cli_interrupt_file(NULL);
    util_set_fatal_cleanup(NULL);
    zFatalTmp[0] = 0;
    free(zTmp);
    pRes->errKind = PF_KIND_DB;
    return -1;
  }
  db_hold_signals_after_commit(db);
  rc = ingest_run(db, (const char**)&p->argv[1], p->argc-1, pOpt, pRes, pMsg);
  if( rc==0 && db_finish_bulk(db, &e) ){
    buf_printf(pMsg, "%s: %s", p->zDb, e.zMsg);
    pRes->errKind = PF_KIND_DB;
    rc = -1;
  }
  db_close(db);
  if( rc==0 ){
    /* committed: signals wait (db_hold_signals_after_commit) until the
    ** file is in place and the command is done */
    rc = publish_new_db(zTmp, p->zDb, pMsg);
    if( rc<0 ) pRes->errKind = PF_KIND_DB;
    if( rc!=0 ) remove_new_db(zTmp);
    cli_interrupt_file(NULL);
    /* redone into the database that appeared: Ctrl-C works again */
    if( rc==1 ) cli_hold_interrupts(0);
  }else{
    remove_new_db(zTmp);
    cli_interrupt_file(NULL);
  }
  util_set_fatal_cleanup(NULL);
  zFatalTmp[0] = 0;
  free(zTmp);
  return rc;
}

/* What the ingest did, on stderr: runs replaced (and the baselines that
** went with them), a name already taken, then the summary line (MB/s
** over the time spent ingesting, not waiting for another writer). */
static void print_summary(const IngestOpts *pOpt, const IngestResult *pRes){
  double sec = pRes->seconds - pRes->waitSeconds;
  for(int i=0; i<pRes->nReplaced; i++){
    fprintf(stderr, "profan: --replace: removed run %lld (same content or"
            " name)\n", (long long)pRes->aReplaced[i]);
  }
  if( pRes->zReplacedBaselines[0] ){
    fprintf(stderr, "profan: --replace: baseline %s of the removed run"
            " removed too (set it again with 'profan baseline set')\n",
            pRes->zReplacedBaselines);
  }
  if( pRes->namePrefixed ){
    fprintf(stderr, "profan: the name '%s' would read as a run id: this run"
            " is named '%s' (--name to choose one)\n", pRes->zName+4,
            pRes->zName);
  }
  if( pRes->takenBy>0 ){
    fprintf(stderr, "profan: the name '%s' is taken by run %lld: this run"
            " is named '%s' (--replace replaces run %lld)\n",
            pRes->zTakenName, (long long)pRes->takenBy,
            pRes->zName, (long long)pRes->takenBy);
  }
  if( pOpt->pLog==NULL ) return;
  if( sec<0 ) sec = 0;
  fprintf(pOpt->pLog,
    "profan: ingested run %lld: %d file%s, %lld events, %lld rows, "
    "%.2f s, %.1f MB/s%s%s\n",
    (long long)pRes->runId, pRes->nFiles, pRes->nFiles==1 ? "" : "s",
    (long long)pRes->nEvents, (long long)pRes->nRows, sec,
    sec>0 ? pRes->nBytes/1e6/sec : 0.0,
    pRes->nSkipped ? " (some files skipped, see above)" : "",
    pRes->nDuplicates ? " (duplicate files loaded once, see above)" : "");
}

int ingest_cmd(Cli *p){
  IngestOpts opt;
  IngestResult res;
  const char *z;
  const char *azKey[64], *azVal[64];
  char *azTagCopy[64];
  int nTag = 0, rc;
  sqlite3 *db;
  Buf msg;

  memset(&opt, 0, sizeof(opt));
  opt.zName = cli_option(p, "name", NULL, 1);
  if( opt.zName ) cli_check_name(p, "--name", opt.zName);
  opt.replace = cli_option(p, "replace", NULL, 0)!=NULL;
  opt.strict = cli_option(p, "strict", NULL, 0)!=NULL;
  if( (z = cli_option(p, "threads", NULL, 1))!=NULL ){
    opt.nThreads = atoi(z);
    if( opt.nThreads<1 || opt.nThreads>16 ){
      cli_usage_error(p, "--threads must be between 1 and 16");
    }
  }
  opt.pLog = cli_option(p, "quiet", "q", 0) ? NULL : stderr;
  opt.rank = -1;
  if( (z = cli_option(p, "rank", NULL, 1))!=NULL ){
    char *zEnd;
    long long v = strtoll(z, &zEnd, 10);
    if( *z==0 || *zEnd || v<0 || v>=(1LL<<31) ){
      cli_usage_error(p, "--rank needs an integer >= 0, got '%s'", z);
    }
    opt.rank = v;
  }
  if( (z = cli_option(p, "base-time", NULL, 1))!=NULL ){
    char *zEnd;
    long long v = strtoll(z, &zEnd, 10);
    if( *z==0 || *zEnd || v<=0 || v>=(1LL<<62) ){
      cli_usage_error(p, "--base-time needs epoch nanoseconds > 0, got '%s'",
                      z);
    }
    opt.hasBaseTime = 1;
    opt.baseTimeNs = v;
  }
  cli_timeout_option(p);
  opt.timeout = p->timeout;
  opt.xWait = cli_wait_note;
  while( (z = cli_option(p, "tag", NULL, 1))!=NULL ){
    const char *zEq = strchr(z, '=');
    if( zEq==NULL || zEq==z ){
      cli_usage_error(p, "--tag needs KEY=VALUE, got '%s'", z);
    }
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

  buf_init(&msg);
  memset(&res, 0, sizeof(res));
  rc = access(p->zDb, F_OK)==0 ? 1 : ingest_fresh(p, &opt, &res, &msg);
  if( rc==1 ){
    db = cli_open_write(p, DB_OPEN_CREATE);
    rc = ingest_run(db, (const char**)&p->argv[1], p->argc-1, &opt, &res, &msg);
    db_close(db);
  }
  for(int i=0; i<nTag; i++) free(azTagCopy[i]);
  if( rc ){
    /* waiting for another writer ended as every writer's does */
    cli_error("%s%s%s", cli_is_lock_message(buf_str(&msg)) ? p->zDb : "",
              cli_is_lock_message(buf_str(&msg)) ? ": " : "", buf_str(&msg));
    buf_free(&msg);
    if( res.usage ) return EXIT_USAGE;
    return res.errKind==PF_KIND_DB ? EXIT_DB : EXIT_INPUT;
  }
  buf_free(&msg);
  if( res.duplicate ){
    fprintf(stderr, "profan: already in the database as run %lld (same "
            "content); nothing done (use --replace to ingest again)\n",
            (long long)res.runId);
    return EXIT_OK;
  }
  print_summary(&opt, &res);
  return EXIT_OK;
}
