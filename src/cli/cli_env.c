/*
** cli_env.c — the environment variables profan reads: the one table of
** their names and meanings, printed in docs/commands.md (`profan
** --reference`, section "Environment") and the manual page's ENVIRONMENT
** (cli_docs.c).
**
** Pipeline position: front end, documentation only: each variable is read
** where it acts (PROFAN_DB in main.c, PROFAN_HISTORY in cli/cmd_server.c,
** PROFAN_QUERIES and PROFAN_RULES in report/named_query.c, PROFAN_TIMING
** in the ingest and derive passes,
** PROFAN_SPOOL_KB in core/spool.c, PROFAN_FAULT_* in core/fault.c).
** tests/e2e/test_docs.py checks that every "PROFAN_*" name the sources
** read is a row here and that no row is read nowhere.
*/
#include "cli/cli.h"

const CliEnv cli_env_table[] = {
  { "PROFAN_DB",
    "the database when --db is not given (default: ./profan.db)" },
  { "PROFAN_QUERIES",
    "a directory of your own named queries: .sql files with the header of"
    " the built-in ones; one with a built-in's name replaces it" },
  { "PROFAN_RULES",
    "a directory of your own report rules (same header, the six columns of"
    " a finding); one with a built-in's name replaces it" },
  { "PROFAN_HISTORY",
    "the team's history on PostgreSQL that push sends to when --to is not"
    " given (a libpq connection string or postgresql:// URL)" },
  { "PROFAN_TIMING",
    "when set, print to stderr the time of each phase of an ingest, merge,"
    " rebuild and report --html (wall and thread CPU), and per trace file"
    " what the in-stream linker did" },
  { "PROFAN_SPOOL_KB",
    "budget in KiB of the in-stream linker's records kept in memory per"
    " trace file (default 32768; beyond it they go to a temporary file; 0:"
    " always a file); it changes where bytes live, never a number" },
  { "PROFAN_FAULT_MALLOC",
    "fault-injection build only (-DPROFAN_FAULT=ON): fail the Nth"
    " allocation" },
  { "PROFAN_FAULT_IO",
    "fault-injection build only: fail the Nth I/O operation" },
  { "PROFAN_FAULT_CRASH",
    "fault-injection build only: cut the power at the Nth sync" },
  { "PROFAN_FAULT_TEAR",
    "fault-injection build only: with PROFAN_FAULT_CRASH, keep or undo"
    " each sector written since the last sync at random (the value is the"
    " seed)" },
  { "PROFAN_FAULT_COUNTS",
    "fault-injection build only: write the counts of a run (allocations,"
    " I/O operations, syncs, what was injected) to this file at exit" },
};
const int cli_env_count = (int)(sizeof(cli_env_table)/sizeof(cli_env_table[0]));
