/*
** db_config.c — SQLite's process-wide settings (see db_config.h).
**
** Pipeline position: under db.c and the fault build's set-up (fault.c),
** before SQLite initialises.
*/
#include "core/db_config.h"

#include <sqlite3.h>
#include <stddef.h>

/* The last out-of-memory, I/O or disk-full error SQLite logged: the
** statement that failed may be one whose error its caller did not check
** (a SELECT loop ending early), and this still names it. */
static int gLastEnvRc;

static void log_error(void *pArg, int rc, const char *zMsg){
  int r = rc & 0xff;
  (void)pArg; (void)zMsg;
  if( r==SQLITE_NOMEM || r==SQLITE_IOERR || r==SQLITE_FULL ){
    __atomic_store_n(&gLastEnvRc, rc, __ATOMIC_RELAXED);
  }
}

void db_config_init(void){
  static int done = 0;
  if( done ) return;
  done = 1;
  /* fail harmlessly (SQLITE_MISUSE) once SQLite is initialised */
  sqlite3_config(SQLITE_CONFIG_LOG, log_error, NULL);
  /* no bulk allocation of 20 pages when a page cache opens: the derive
  ** statements open dozens of ephemeral tables (materialised CTEs, sorts)
  ** that each touched 20 fresh pages, most of them never used */
  sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void*)0, 0, 0);
}

int db_config_last_env_rc(void){
  return __atomic_load_n(&gLastEnvRc, __ATOMIC_RELAXED);
}

void db_config_reset_env(void){
  __atomic_store_n(&gLastEnvRc, 0, __ATOMIC_RELAXED);
}
