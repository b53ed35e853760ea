/*
** cli.h — what every command handler shares: global options, option
** parsing helpers, error printing, exit codes.
**
** Pipeline position: the command-line front end (main.c and cmd_*.c).
*/
#ifndef PROFAN_CLI_H
#define PROFAN_CLI_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "report/output.h"
#include "core/util.h"

/* Exit codes: the one contract every command follows.  The table of
** cli_exit.c says what each means; `profan --help`, every command's
** --help, the manual page and docs/commands.md are made from it. */
enum {
  EXIT_OK = 0,            /* ok (check: pass, improved, noise) */
  EXIT_REGRESSION = 1,    /* regression found (check only) */
  EXIT_USAGE = 2,         /* usage error, bad value, unknown name */
  EXIT_SQL = 3,           /* SQL error */
  EXIT_NOTHING = 4,       /* nothing to compare (check) */
  EXIT_INCONCLUSIVE = 5,  /* inconclusive (check) */
  EXIT_INPUT = 6,         /* bad input file (ingest, merge) */
  EXIT_DB = 7             /* database error */
};
/* Interrupted: 128 + the signal, nothing written. */
#define EXIT_SIGINT 130
#define EXIT_SIGTERM 143

/* One row of the exit-code table (cli_exit.c). */
typedef struct CliExit {
  int code;                /* EXIT_* or EXIT_SIGINT/EXIT_SIGTERM */
  const char *zShort;      /* "usage error or bad value": --help lists */
  const char *zLong;       /* the whole meaning: --help, man, docs */
} CliExit;
/* The table, and its number of rows. */
extern const CliExit cli_exit_table[];
extern const int cli_exit_count;

/* One environment variable profan reads (cli_env.c): the reference and
** the manual page list them from this table. */
typedef struct CliEnv {
  const char *zName;       /* "PROFAN_DB" */
  const char *zWhat;       /* what it does, one paragraph */
} CliEnv;
extern const CliEnv cli_env_table[];
extern const int cli_env_count;

/* The exit codes a command can return, a mask of CLI_X(code) bits (130
** and 143 are bit 8 and 9).  Every command has CLI_X_BASE: 0, 2 and the
** signals. */
#define CLI_X(c) (1u << ((c)==EXIT_SIGINT ? 8 : (c)==EXIT_SIGTERM ? 9 \
                         : ((c) & 7)))
#define CLI_X_BASE (CLI_X(EXIT_OK) | CLI_X(EXIT_USAGE) | (1u<<8) | (1u<<9))

typedef struct Cli {
  const char *zDb;         /* --db, $PROFAN_DB, or ./profan.db */
  int dbGiven;             /* zDb came from --db or $PROFAN_DB */
  OutFormat eFmt;          /* --format */
  int fmtGiven;
  int argc;                /* remaining arguments of the command */
  char **argv;             /* argv[0] is the command name */
  const struct CmdInfo *pCmd;
  double timeout;          /* writers: --timeout S (< 0: wait as long as
                           ** it takes); see cli_timeout_option() */
} Cli;

typedef int (*CmdFn)(Cli *pCli);

typedef struct CmdInfo {
  const char *zName;
  CmdFn xCmd;
  const char *zUsage;      /* "ingest [options] PATH..." */
  const char *zSummary;    /* one line */
  const char *zHelp;       /* options and details */
  unsigned mExit;          /* exit codes it returns: CLI_X() bits */
  const char *zArgs;       /* what its positional arguments are, for the
                           ** completions: space-separated kinds of
                           ** cli_docs.c ("run", "query", "path", ...; the
                           ** last one repeats), "" none */
} CmdInfo;

/* The values an option takes, one row per command and option (main.c's
** aValue[]): cli_choice() checks a value against it and the completions
** offer it.  zWords: the words, space-separated, or "@KIND" for values
** from the database (cli_docs.c: runs, queries, metrics, params, ...). */
typedef struct CliValues {
  const char *zCmd;        /* "show" */
  const char *zOpt;        /* "--section" */
  const char *zWords;      /* "run files devices steps" or "@runs" */
} CliValues;

/* A global option (main.c's aGlobal[]): "--db" with its argument "PATH"
** ("" for none) and its help, whose further lines start with 19 spaces
** as in `profan --help`. */
typedef struct CliGlobal {
  const char *zName;       /* "--db" */
  const char *zArg;        /* "PATH", or "" */
  const char *zHelp;
} CliGlobal;

/* The command table and the global options, for the generated docs. */
typedef struct CliTable {
  const CmdInfo *aCmd;
  int nCmd;
  const CliGlobal *aGlobal;
  int nGlobal;
  const CliValues *aValue;
  int nValue;
} CliTable;

/* The tables of main.c. */
extern const CliTable cli_table;

/* Write the manual page (troff, section 1) made from the command table.
** (cli_docs.c) */
void cli_write_man(FILE *out, const CliTable *pTab);

/* Write the completion script for zShell ("bash" or "zsh") made from the
** command table.  Returns 0, or -1 for another shell.  (cli_docs.c) */
int cli_write_completion(FILE *out, const char *zShell, const CliTable *pTab);

/* Write the command reference (markdown: docs/commands.md) made from the
** command table and the exit-code table.  (cli_docs.c) */
void cli_write_reference(FILE *out, const CliTable *pTab);

/* Write the catalogue of the built-in named queries of pList (markdown:
** docs/queries.md, `profan queries --reference`): each query with its
** description, parameters (type, default) and columns.  Queries of
** $PROFAN_QUERIES are left out.  (cli_docs.c) */
struct NqList;
void cli_write_query_reference(FILE *out, const struct NqList *pList);

/* Print the candidates of completion kind zKind (runs, queries, metrics,
** baselines, params QUERY, rule-params, anchors RUN) of the database of p,
** one a line; nothing when there is no database.  The completion scripts
** call it (`profan --complete KIND [ARG]`).  (cli_docs.c) */
void cli_complete(Cli *p, const char *zKind, const char *zArg);

/* The exit codes of the table: one line per code, for `profan --help`
** (cli_exit.c). */
void cli_exit_list(Buf *b);
/* "Exit codes: 0 ok, 2 usage error or bad value, ..." for the codes of
** mExit, wrapped to 76 columns (a command's --help).  (cli_exit.c) */
void cli_exit_line(Buf *b, unsigned mExit);

/* Remove option zLong (or -zShort) from the command's arguments.  With
** hasArg, returns its value ("--x=v" or "--x v"), else "" when present.
** Returns NULL when absent.  A missing value is a usage error (exits 2). */
const char *cli_option(Cli *p, const char *zLong, const char *zShort,
                       int hasArg);
/* Exit 2 with "unknown option" (and the nearest option of the command)
** if any "-..." argument is left. */
void cli_verify_options(Cli *p);
/* Remove --section NAME and check NAME against the command's sections
** (aValue[]); returns it, or NULL when absent.  Exits 2 for an unknown
** NAME (naming the nearest), and for --format csv without --section
** (CSV holds one table). */
const char *cli_section(Cli *p);
/* zVal, checked against the words aValue[] lists for option zOpt of
** this command; an unknown one exits 2 naming the nearest and the
** choices.  NULL stays NULL. */
const char *cli_choice(Cli *p, const char *zOpt, const char *zVal);
/* Print "profan: MSG" to stderr. */
void cli_error(const char *zFmt, ...) PF_PRINTF(1, 2);
/* Print "profan: MSG" to stderr and return code (an EXIT_*). */
int cli_fail(int code, const char *zFmt, ...) PF_PRINTF(2, 3);
/* Print usage of the current command and "try --help" to stderr, exit 2. */
void cli_usage_error(Cli *p, const char *zFmt, ...) PF_PRINTF(2, 3)
    PF_NORETURN;
/* Print "profan: MSG" and exit with code, after closing db (may be
** NULL). */
void cli_die(sqlite3 *db, int code, const char *zFmt, ...) PF_PRINTF(3, 4)
    PF_NORETURN;

/* The exit code of SQLite's last error on db: EXIT_DB for the database
** itself (corrupt, not a database, I/O, disk full, out of memory, locked,
** read-only, cannot open), else EXIT_SQL (the statement: syntax, no such
** table or column, a constraint). */
int cli_sqlite_exit(sqlite3 *db);
/* The exit code of a PfError from a layer below (its kind, PF_KIND_*),
** dflt when it has none. */
int cli_error_exit(const PfError *e, int dflt);

/* Open the database for reading (flags per db.h).  A database the user
** cannot write beside (a directory not writable, a read-only mount) is
** read as an immutable file, with a note.  On failure prints the error
** and exits 7. */
sqlite3 *cli_open_db(Cli *p, int flags);
/* Open the database for writing (created when flags has DB_OPEN_CREATE);
** a read-only file or directory is exit 7 with the reason.  Arms the
** interrupt handler's "nothing written". */
sqlite3 *cli_open_write(Cli *p, int flags);

/* Remove --timeout S from the arguments into p->timeout (default: wait as
** long as it takes); every writing command takes it.  A bad value exits
** 2. */
void cli_timeout_option(Cli *p);
/* BEGIN IMMEDIATE on db; while another writer holds the database, says so
** once on stderr and waits, up to p->timeout seconds.  Returns EXIT_OK,
** or prints why not and returns EXIT_DB.  *pWaited (may be NULL): seconds
** waited. */
int cli_begin_write(Cli *p, sqlite3 *db, double *pWaited);
/* The note of a writer waiting for another (a DbWaitFn, db.h): "waiting
** for another writer to finish (the database is locked)…", then "the
** other writer finished after S s". */
void cli_wait_note(void *pArg, int bDone, double sec);
/* 1 when zMsg is db_begin_wait()'s "still locked" message (ingest and
** merge print it with the database's path, as cli_begin_write()). */
int cli_is_lock_message(const char *zMsg);
/* COMMIT; EXIT_OK, or prints the reason ("...; nothing written") and
** returns EXIT_DB after rolling back. */
int cli_commit(Cli *p, sqlite3 *db);

/* Run references, as every command resolves them: resolve zRef (an id, a
** name, 'latest'; with CLI_RUN_BASELINE also a baseline name) into *pId.
** Returns EXIT_OK, or prints the one line why not and returns the code:
** EXIT_USAGE for no such run (with the nearest name) or, with
** CLI_RUN_STRICT, a reference two runs answer to; EXIT_DB for a database
** error. */
enum { CLI_RUN_BASELINE = 1, CLI_RUN_STRICT = 2 };
int cli_resolve_run(sqlite3 *db, const char *zRef, int flags,
                    int64_t *pId);

/* A run name (or baseline name) given on the command line: refused, exit
** 2 with one line, when it is empty, 'latest' or reads as a run id.
** zWhat names the option ("--name"). */
void cli_check_name(Cli *p, const char *zWhat, const char *zName);

/* The name of candidates az[0..n) nearest to z (edit distance, or a
** prefix), for "did you mean"; NULL when none is near.  Borrowed. */
const char *cli_nearest(const char *z, const char *const *az, int n);
/* " (did you mean 'X'?)" into b when cli_nearest() finds X, else
** nothing; with zRest: " (did you mean 'X'? REST)" or " (REST)". */
void cli_did_you_mean(Buf *b, const char *z, const char *const *az, int n);
void cli_did_you_mean_rest(Buf *b, const char *z, const char *const *az,
                           int n, const char *zRest);
/* The same for the first column of the rows zSql selects from db. */
void cli_did_you_mean_sql(Buf *b, sqlite3 *db, const char *z,
                          const char *zSql, const char *zRest);

/* Ctrl-C and SIGTERM: every command exits 128 + the signal with one line
** ("interrupted"; "interrupted, nothing written" once it opened the
** database for writing), removing the file registered here first (a new
** database being built: cli_interrupt_file(NULL) forgets it).  A write
** transaction is never committed after the signal: SQLite's WAL leaves
** the database as before.  Installed by main(). */
void cli_catch_interrupts(void);
void cli_interrupt_file(const char *zPath);
/* The command writes from now on: a signal says "nothing written"
** (cli_open_write() calls it). */
void cli_mark_writing(void);
/* Signals held while the result of a write is put in place (a commit, a
** new database linked into place): a signal arriving meanwhile ends the
** process once released, after the work is done. */
void cli_hold_interrupts(int bHold);

/* Command handlers (cmd_*.c). */
int ingest_cmd(Cli *p);
int query_cmd(Cli *p);
int queries_cmd(Cli *p);
int runs_cmd(Cli *p);
int show_cmd(Cli *p);
int rm_cmd(Cli *p);
int rebuild_cmd(Cli *p);
int sql_cmd(Cli *p);
/* cmd_history.c */
int tag_cmd(Cli *p);
int baseline_cmd(Cli *p);
int diff_cmd(Cli *p);
int trend_cmd(Cli *p);
int check_cmd(Cli *p);
/* cmd_report.c */
int report_cmd(Cli *p);
/* cmd_export.c */
int export_cmd(Cli *p);
/* cmd_merge.c */
int merge_cmd(Cli *p);
/* cmd_runs.c */
int rename_cmd(Cli *p);
/* cmd_server.c */
int push_cmd(Cli *p);
/* The history of --history URL: a scratch database with the server's
** runs (their identity rows; the rows ePull says of every run, PG_PULL_*
** of server/pg_source.h, 0: none, the gate pulls a run's rows when it
** compares it), or exit 7 (2: not a connection string) after one line.
** The command closes it with db_close(). */
sqlite3 *cli_open_history(Cli *p, const char *zUrl, int ePull);
/* Run zRef of the local database (--db) in the history of
** cli_open_history: the server's when it holds the same content, else
** the id a push would give it.  EXIT_OK (*pId set), an exit code after
** one line, or -1 when there is no local database (--db not given and
** ./profan.db missing: the caller resolves zRef on the server). */
int cli_history_local_run(Cli *p, const char *zRef, int64_t *pId);
/* Every row of run id in the history (EXIT_OK), or an exit code after
** one line. */
int cli_history_run(sqlite3 *db, int64_t id);
/* Every row of every run in the history (EXIT_OK), or an exit code after
** one line. */
int cli_history_all(void);
/* Before zRef is resolved in db (cli_resolve_run): when db is the
** history of cli_open_history(... | PG_OPEN_LAZY), the identity rows of
** the runs it may name pulled (pg_source_pull_ref).  EXIT_OK, or an
** exit code after one line. */
int cli_history_ref(sqlite3 *db, const char *zRef);
/* The stored values of metric zMetric of every run in the history, and
** when no run has it the names of every other (for the "did you mean"):
** EXIT_OK, or an exit code after one line.  Nothing without a server. */
int cli_history_metric(sqlite3 *db, const char *zMetric);

#endif
