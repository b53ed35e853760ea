/*
** cli.c — what the command handlers share: option parsing, error
** printing and exit codes, opening the database to read or write, waiting
** for another writer, run references and names, "did you mean", and
** Ctrl-C.
**
** Pipeline position: front end.  Options are removed from the argument
** list as they are read (Fossil's find_option), so what remains are the
** positional arguments, and leftovers starting with '-' are errors.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "core/runref.h"

#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_error(const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
}

int cli_fail(int code, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
  return code;
}

void cli_die(sqlite3 *db, int code, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
  db_close(db);
  exit(code);
}

void cli_usage_error(Cli *p, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
  if( p->pCmd ){
    fprintf(stderr, "usage: profan %s\n", p->pCmd->zUsage);
    fprintf(stderr, "try 'profan %s --help' for more information\n",
            p->pCmd->zName);
  }else{
    fprintf(stderr, "try 'profan --help' for more information\n");
  }
  exit(EXIT_USAGE);
}

int cli_sqlite_exit(sqlite3 *db){
  switch( sqlite3_errcode(db) & 0xff ){
    case SQLITE_CORRUPT: case SQLITE_NOTADB: case SQLITE_IOERR:
    case SQLITE_FULL: case SQLITE_NOMEM: case SQLITE_BUSY:
    case SQLITE_LOCKED: case SQLITE_READONLY: case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL: case SQLITE_PERM:
      return EXIT_DB;
  }
  return EXIT_SQL;
}

int cli_error_exit(const PfError *e, int dflt){
  switch( e->kind ){
    case PF_KIND_USAGE: return EXIT_USAGE;
    case PF_KIND_SQL: return EXIT_SQL;
    case PF_KIND_INPUT: return EXIT_INPUT;
    case PF_KIND_DB: return EXIT_DB;
  }
  return dflt;
}

/* ------------------------------------------------------------ options */

/* Remove argv[i..i+n) from the argument list. */
static void remove_args(Cli *p, int i, int n){
  memmove(&p->argv[i], &p->argv[i+n], (size_t)(p->argc-i-n+1)*sizeof(char*));
  p->argc -= n;
}

const char *cli_option(Cli *p, const char *zLong, const char *zShort,
                       int hasArg){
  size_t nLong = strlen(zLong);
  for(int i=1; i<p->argc; i++){
    char *z = p->argv[i];
    if( strcmp(z, "--")==0 ) break;
    if( z[0]!='-' ) continue;
    if( (strncmp(z, "--", 2)==0 && strncmp(z+2, zLong, nLong)==0
         && (z[2+nLong]==0 || (hasArg && z[2+nLong]=='=')))
        || (zShort && z[1]==zShort[0] && z[2]==0) ){
      if( !hasArg ){
        remove_args(p, i, 1);
        return "";
      }
      if( strncmp(z, "--", 2)==0 && z[2+nLong]=='=' ){
        const char *zVal = z+3+nLong;
        remove_args(p, i, 1);
        return zVal;
      }
      if( i+1>=p->argc ){
        cli_usage_error(p, "option %s needs a value", z);
      }
      {
        const char *zVal = p->argv[i+1];
        remove_args(p, i, 2);
        return zVal;
      }
    }
  }
  return NULL;
}

/* The long options of the current command's help ("  --name ...",
** "  -o, --output F") into a new array of *pn new strings (free with
** free_words). */
static char **help_options(const Cli *p, int *pn){
  const char *z = p->pCmd ? p->pCmd->zHelp : "";
  char **az = NULL;
  int n = 0;
  while( *z ){
    const char *zEnd = strchr(z, '\n');
    size_t len = zEnd ? (size_t)(zEnd-z) : strlen(z);
    const char *q = NULL;
    if( len>4 && memcmp(z, "  --", 4)==0 ) q = z+2;
    else if( len>8 && memcmp(z, "  -", 3)==0 && memcmp(z+4, ", --", 4)==0 ){
      q = z+6;
    }
    if( q ){
      size_t k = 2;
      while( isalnum((unsigned char)q[k]) || q[k]=='-' ) k++;
      az = xrealloc(az, sizeof(char *)*(size_t)(n+2));
      az[n++] = xstrndup(q, k);
    }
    if( zEnd==NULL ) break;
    z = zEnd+1;
  }
  az = xrealloc(az, sizeof(char *)*(size_t)(n+2));
  az[n++] = xstrdup("--help");
  *pn = n;
  return az;
}

static void free_words(char **az, int n){
  if( az==NULL ) return;
  for(int i=0; i<n; i++) free(az[i]);
  free(az);
}

void cli_verify_options(Cli *p){
  for(int i=1; i<p->argc; i++){
    if( strcmp(p->argv[i], "--")==0 ){
      remove_args(p, i, 1);
      return;
    }
    if( p->argv[i][0]=='-' && p->argv[i][1]!=0 ){
      char z[64], zMsg[512];
      int n;
      char **az = help_options(p, &n);
      Buf b;
      char *zOpt = xstrndup(p->argv[i], strcspn(p->argv[i], "="));
      buf_init(&b);
      cli_did_you_mean(&b, zOpt, (const char *const *)az, n);
      util_sanitize(p->argv[i], strlen(p->argv[i]), z, sizeof(z));
      /* the message on the stack, the heap freed: cli_usage_error exits */
      snprintf(zMsg, sizeof(zMsg), "unknown option %s%s", z, buf_str(&b));
      buf_free(&b);
      free(zOpt);
      free_words(az, n);
      cli_usage_error(p, "%s", zMsg);
    }
  }
}

/* The words aValue[] lists for option zOpt of command zCmd, or NULL. */
static const char *values_of(const char *zCmd, const char *zOpt){
  for(int i=0; i<cli_table.nValue; i++){
    const CliValues *v = &cli_table.aValue[i];
    if( strcmp(v->zCmd, zCmd)==0 && strcmp(v->zOpt, zOpt)==0 ){
      return v->zWords;
    }
  }
  return NULL;
}

/* The space-separated words of z in a new array of *pn new strings. */
static char **split_words(const char *z, int *pn){
  char **az = NULL;
  int n = 0;
  while( z && *z ){
    size_t k;
    while( *z==' ' ) z++;
    k = strcspn(z, " ");
    if( k==0 ) break;
    az = xrealloc(az, sizeof(char *)*(size_t)(n+1));
    az[n++] = xstrndup(z, k);
    z += k;
  }
  *pn = n;
  return az;
}

/* 1 when zVal is one of the words of zWords; else exits 2 with the
** nearest word and the choices (zWhat: "section", "--by"). */
static void check_word(Cli *p, const char *zWhat, const char *zWords,
                       const char *zVal){
  int n;
  char **az = split_words(zWords, &n);
  Buf b, list;
  char z[64], zMsg[1024];
  for(int i=0; i<n; i++){
    if( strcmp(az[i], zVal)==0 ){ free_words(az, n); return; }
  }
  buf_init(&b);
  buf_init(&list);
  for(int i=0; i<n; i++) buf_printf(&list, "%s%s", i ? ", " : "", az[i]);
  util_sanitize(zVal, strlen(zVal), z, sizeof(z));
  {
    const char *zNear = cli_nearest(zVal, (const char *const *)az, n);
    if( zNear ) buf_printf(&b, "did you mean '%s'? ", zNear);
  }
  /* the message on the stack, the heap freed: cli_usage_error exits */
  snprintf(zMsg, sizeof(zMsg), "no %s '%s' (%s%s: %s)", zWhat, z,
           buf_str(&b), strcmp(zWhat, "section") ? "choices" : "sections",
           buf_str(&list));
  buf_free(&b);
  buf_free(&list);
  free_words(az, n);
  cli_usage_error(p, "%s", zMsg);
}

const char *cli_choice(Cli *p, const char *zOpt, const char *zVal){
  const char *zWords;
  char zWhat[64];
  if( zVal==NULL ) return NULL;
  zWords = values_of(p->pCmd->zName, zOpt);
  if( zWords==NULL || zWords[0]=='@' ) return zVal;
  snprintf(zWhat, sizeof(zWhat), "%s value", zOpt);
  check_word(p, zWhat, zWords, zVal);
  return zVal;
}

const char *cli_section(Cli *p){
  const char *z = cli_option(p, "section", NULL, 1);
  const char *zWords = values_of(p->pCmd->zName, "--section");
  if( z ){
    check_word(p, "section", zWords ? zWords : "", z);
  }else if( p->eFmt==OUT_CSV ){
    Buf b;
    int n;
    char **az = split_words(zWords, &n);
    char zMsg[1024];
    buf_init(&b);
    for(int i=0; i<n; i++) buf_printf(&b, "%s%s", i ? ", " : "", az[i]);
    snprintf(zMsg, sizeof(zMsg), "--format csv prints one table: add"
             " --section NAME (%s)", buf_str(&b));
    buf_free(&b);
    free_words(az, n);
    cli_usage_error(p, "%s", zMsg);
  }
  return z;
}

/* ----------------------------------------------------- did you mean */

const char *cli_nearest(const char *z, const char *const *az, int n){
  return util_nearest(z, az, n);
}

void cli_did_you_mean_rest(Buf *b, const char *z, const char *const *az,
                           int n, const char *zRest){
  const char *zNear = cli_nearest(z, az, n);
  if( zNear ){
    char zN[80];
    util_sanitize(zNear, strlen(zNear), zN, sizeof(zN));
    buf_printf(b, " (did you mean '%s'?%s%s)", zN, zRest ? " " : "",
               zRest ? zRest : "");
  }else if( zRest ){
    buf_printf(b, " (%s)", zRest);
  }
}

void cli_did_you_mean(Buf *b, const char *z, const char *const *az, int n){
  cli_did_you_mean_rest(b, z, az, n, NULL);
}

void cli_did_you_mean_sql(Buf *b, sqlite3 *db, const char *z,
                          const char *zSql, const char *zRest){
  sqlite3_stmt *s = db_prepare(db, zSql, NULL);
  char **az = NULL;
  int n = 0;
  while( s && sqlite3_step(s)==SQLITE_ROW && n<100000 ){
    const char *zV = (const char *)sqlite3_column_text(s, 0);
    az = xrealloc(az, sizeof(char *)*(size_t)(n+1));
    az[n++] = xstrdup(zV ? zV : "");
  }
  sqlite3_finalize(s);
  cli_did_you_mean_rest(b, z, (const char *const *)az, n, zRest);
  free_words(az, n);
}

/* ----------------------------------------------------------- signals */

/* The file a signal removes (a new database being built, with its
** journal files); paths are made before the handler can see them, and it
** uses only unlink(), write() and _exit(). */
static char gazRemove[4][4096];
static volatile sig_atomic_t gbRemove, gbWriting;

static void on_signal(int sig){
  static const char zRead[] = "profan: interrupted\n";
  static const char zWrite[] = "profan: interrupted, nothing written\n";
  ssize_t w;
  if( gbRemove ){
    for(int i=0; i<4; i++) if( gazRemove[i][0] ) unlink(gazRemove[i]);
  }
  w = gbWriting ? write(2, zWrite, sizeof(zWrite)-1)
                : write(2, zRead, sizeof(zRead)-1);
  (void)w;
  _exit(128+sig);
}

void cli_catch_interrupts(void){
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

void cli_interrupt_file(const char *zPath){
  static const char *azSuffix[] = { "", "-wal", "-shm", "-journal" };
  gbRemove = 0;
  if( zPath==NULL ) return;
  for(int i=0; i<4; i++){
    snprintf(gazRemove[i], sizeof(gazRemove[i]), "%s%s", zPath,
             azSuffix[i]);
  }
  gbRemove = 1;
  gbWriting = 1;                /* a new database: a write */
}

void cli_mark_writing(void){
  gbWriting = 1;
}

void cli_hold_interrupts(int bHold){
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(bHold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* ---------------------------------------------------------- database */

sqlite3 *cli_open_db(Cli *p, int flags){
  PfError e = {0};
  sqlite3 *db = db_open(p->zDb, flags, &e);
  if( db==NULL ) cli_die(NULL, EXIT_DB, "%s: %s", p->zDb, e.zMsg);
  if( db_open_note() ) cli_error("note: %s", db_open_note());
  return db;
}

sqlite3 *cli_open_write(Cli *p, int flags){
  sqlite3 *db;
  gbWriting = 1;
  db = cli_open_db(p, flags & ~DB_OPEN_READONLY);
  /* the command's one commit: a signal after it waits for the end */
  db_hold_signals_after_commit(db);
  return db;
}

void cli_timeout_option(Cli *p){
  const char *z = cli_option(p, "timeout", NULL, 1);
  p->timeout = -1;
  if( z ){
    char *zEnd;
    p->timeout = strtod(z, &zEnd);
    if( *z==0 || *zEnd || !(p->timeout>=0) || p->timeout>1e9 ){
      cli_usage_error(p, "--timeout needs seconds >= 0, got '%s'", z);
    }
  }
}

void cli_wait_note(void *pArg, int bDone, double sec){
  (void)pArg;
  if( !bDone ){
    fprintf(stderr, "profan: waiting for another writer to finish (the"
            " database is locked)\xE2\x80\xA6\n");
  }else{
    fprintf(stderr, "profan: the other writer finished after %.1f s\n",
            sec);
  }
}

int cli_begin_write(Cli *p, sqlite3 *db, double *pWaited){
  PfError e = {0};
  if( db_begin_wait(db, p->timeout, cli_wait_note, NULL, pWaited, &e) ){
    return cli_fail(EXIT_DB, "%s: %s", p->zDb, e.zMsg);
  }
  return EXIT_OK;
}

int cli_is_lock_message(const char *zMsg){
  static const char zLock[] = "the database is still locked by another"
                              " writer";
  return strncmp(zMsg, zLock, sizeof(zLock)-1)==0;
}

int cli_commit(Cli *p, sqlite3 *db){
  PfError e = {0};
  if( db_commit(db, &e)==0 ) return EXIT_OK;
  db_rollback(db);
  return cli_fail(EXIT_DB, "%s: %s; nothing written", p->zDb, e.zMsg);
}

/* ------------------------------------------------------- run names */

int cli_resolve_run(sqlite3 *db, const char *zRef, int flags,
                    int64_t *pId){
  PfError e = {0};
  int64_t shadow = 0, id = -1;
  if( flags & CLI_RUN_BASELINE ){
    id = db_int(db, -1, "SELECT run_id FROM baseline WHERE name=%Q", zRef);
  }
  if( id<0 ) id = runref_resolve_ex(db, zRef, &shadow, &e);
  if( id<0 ){
    return cli_fail(cli_error_exit(&e, EXIT_USAGE), "%s", e.zMsg);
  }
  if( shadow>0 && (flags & CLI_RUN_STRICT) ){
    return cli_fail(EXIT_USAGE, "'%s' is ambiguous: run %lld's id and run"
                    " %lld's name ('profan rename %lld NAME' renames run"
                    " %lld)", zRef, (long long)id, (long long)shadow,
                    (long long)shadow, (long long)shadow);
  }
  if( shadow>0 ){
    cli_error("note: '%s' is run %lld; run %lld is named '%s', which reads"
              " as an id (ids win; 'profan rename %lld NAME' renames it)",
              zRef, (long long)id, (long long)shadow, zRef,
              (long long)shadow);
  }
  *pId = id;
  return EXIT_OK;
}

void cli_check_name(Cli *p, const char *zWhat, const char *zName){
  const char *zWhy = runref_name_problem(zName);
  if( zWhy ){
    char z[64];
    util_sanitize(zName, strlen(zName), z, sizeof(z));
    cli_fail(EXIT_USAGE, "%s '%s' %s: a run name cannot be empty, 'latest'"
             " or a number (runs are named by id too)", zWhat, z, zWhy);
    exit(EXIT_USAGE);
  }
  (void)p;
}
