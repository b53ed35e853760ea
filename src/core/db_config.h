/*
** db_config.h — SQLite's process-wide settings, made before SQLite
** initialises: its error log (which keeps the last out-of-memory, I/O or
** disk-full error for db.c's transaction guard) and no bulk page-cache
** allocation.
**
** Pipeline position: under everything that opens a database.  db.c calls
** db_config_init() from db_open(), main.c before anything else, and the
** fault-injection build's set-up (fault.c) before it registers its VFS;
** this file depends on nothing of profan's, so none of them depends on
** another through it.
*/
#ifndef PROFAN_DB_CONFIG_H
#define PROFAN_DB_CONFIG_H

/* Configure SQLite; once per process (later calls do nothing).  Must run
** before SQLite initialises (sqlite3_config fails harmlessly after). */
void db_config_init(void);

/* The extended code of the last out-of-memory, I/O or disk-full error
** SQLite logged since the last db_config_reset_env() (SQLITE_OK when
** none); any thread. */
int db_config_last_env_rc(void);
void db_config_reset_env(void);

#endif
