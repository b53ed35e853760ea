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

/* Exit codes (documented in `profan --help` and the README).  The
** contract of issue 33 (the coordination notes' table): EXIT_REGRESSION
** only for `check`; EXIT_BAD is what the commands not yet moved to the
** contract still use for a bad input or a database they cannot open. */
enum {
  EXIT_OK = 0,
  EXIT_BAD = 1,      /* bad input, runtime error (commands not yet moved) */
  EXIT_REGRESSION = 1, /* `check`: a regression found */
  EXIT_USAGE = 2,    /* misuse of the command line, a bad value */
  EXIT_SQL = 3,      /* SQL or query error */
  EXIT_NOTHING = 4,  /* `check`: nothing to compare */
  EXIT_INCONCLUSIVE = 5, /* `check`: inconclusive */
  EXIT_INPUT = 6,    /* bad input file */
  EXIT_DB = 7        /* database missing, unreadable, not profan's,
                     ** corrupt, newer, locked, not writable */
};

typedef struct Cli {
  const char *zDb;         /* --db, $PROFAN_DB, or ./profan.db */
  OutFormat eFmt;          /* --format */
  int fmtGiven;
  int argc;                /* remaining arguments of the command */
  char **argv;             /* argv[0] is the command name */
  const struct CmdInfo *pCmd;
} Cli;

typedef int (*CmdFn)(Cli *pCli);

typedef struct CmdInfo {
  const char *zName;
  CmdFn xCmd;
  const char *zUsage;      /* "ingest [options] PATH..." */
  const char *zSummary;    /* one line */
  const char *zHelp;       /* options and details */
  const char *zExit;       /* the command's exit codes (help's last line),
                           ** or NULL: the common ones */
} CmdInfo;

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
} CliTable;

/* Write the manual page (troff, section 1) made from the command table.
** (cli_docs.c) */
void cli_write_man(FILE *out, const CliTable *pTab);

/* Write the completion script for zShell ("bash" or "zsh") made from the
** command table.  Returns 0, or -1 for another shell.  (cli_docs.c) */
int cli_write_completion(FILE *out, const char *zShell, const CliTable *pTab);

/* Remove option zLong (or -zShort) from the command's arguments.  With
** hasArg, returns its value ("--x=v" or "--x v"), else "" when present.
** Returns NULL when absent.  A missing value is a usage error (exits 2). */
const char *cli_option(Cli *p, const char *zLong, const char *zShort,
                       int hasArg);
/* Exit 2 with "unknown option" if any "-..." argument is left. */
void cli_verify_options(Cli *p);
/* Remove --section NAME and check NAME is one of azName[nName]; returns
** it, or NULL when absent.  Exits 2 for an unknown NAME, and for
** --format csv without --section (CSV holds one table). */
const char *cli_section(Cli *p, const char *const *azName, int nName);
/* Print "profan: MSG" to stderr. */
void cli_error(const char *zFmt, ...) PF_PRINTF(1, 2);
/* Print usage of the current command and "try --help" to stderr, exit 2. */
void cli_usage_error(Cli *p, const char *zFmt, ...) PF_PRINTF(2, 3)
    PF_NORETURN;
/* Open the database for reading (flags per db.h); on failure prints the
** error and exits 1. */
sqlite3 *cli_open_db(Cli *p, int flags);
/* The same, exiting with code on failure (EXIT_DB for the commands that
** follow the exit-code contract). */
sqlite3 *cli_open_db_or_exit(Cli *p, int flags, int code);

/* Command handlers (cmd_*.c). */
int ingest_cmd(Cli *p);
int query_cmd(Cli *p);
int queries_cmd(Cli *p);
int runs_cmd(Cli *p);
int show_cmd(Cli *p);
int rm_cmd(Cli *p);
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

#endif
