/*
** main.c — profan's entry point: the command table, global options,
** dispatch and top-level help.
**
** Pipeline position: front end.  The command table below is the only list
** of commands: dispatch, `profan --help` and each command's --help come
** from it (a test checks every command is also in the README).
*/
#include "cli/cli.h"
#include "core/db.h"
#include "core/db_config.h"
#include "report/named_query.h"

#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The exit codes of a command that opens the database (to read, or to
** write: then locked past --timeout is EXIT_DB too). */
#define X_DB (CLI_X_BASE | CLI_X(EXIT_DB))

/* The --timeout option of every writing command. */
#define HELP_TIMEOUT \
  "  --timeout S      give up after waiting S seconds for another writer\n" \
  "                   (default: wait as long as it takes)\n"
/* What every writing command says about waiting. */
#define HELP_WAITS \
  "While another command writes to the database, this one says so and\n" \
  "waits for it (--timeout)."
static const CmdInfo aCmd[] = {
  { "ingest", ingest_cmd, "ingest [options] PATH...",
    "load traces, snapshots, NCCL logs, flight-recorder dumps as a run",
    "Each PATH is a file or a directory walked recursively; every file's\n"
    "kind is decided by its content, not its name:\n"
    "  trace            PyTorch profiler (Kineto) trace JSON, optionally\n"
    "                   gzip (one per rank)\n"
    "  memory snapshot  torch.cuda.memory._snapshot() pickle (or a bare\n"
    "                   segment list)\n"
    "  NCCL log         text with NCCL_DEBUG=INFO/WARN lines\n"
    "  flight recorder  NCCL flight-recorder dump (pickle or JSON)\n"
    "Files of no known kind are listed as skipped.  All PATHs form one\n"
    "run; a file given twice (or two files of the same content) is loaded\n"
    "once, with a note.  The ingest is one transaction: on any error or\n"
    "Ctrl-C nothing is stored.  Identical content already in the database\n"
    "is reported and not stored twice.  A run name cannot be empty,\n"
    "'latest' or a number (runs are named by id too).\n"
    HELP_WAITS "\n"
    "\n"
    "Options:\n"
    "  --name NAME      run name (default: the first PATH's base name,\n"
    "                   'run-N' when that is a number N; a name in use\n"
    "                   becomes NAME-2, and the ingest says so)\n"
    "  --tag K=V        attach a tag (repeatable): git sha, config, ...\n"
    "  --replace        replace a run with the same content or name (the\n"
    "                   runs and baselines removed are listed)\n"
    "  --strict         treat skipped/repaired records as errors\n"
    "  --threads N      parser threads (default: number of CPUs)\n"
    HELP_TIMEOUT
    "  --quiet          no summary line\n",
    X_DB | CLI_X(EXIT_INPUT), "path..." },
  { "query", query_cmd,
    "query NAME [--run RUN | --baseline NAME] [--param K=V]... [--limit N]",
    "run a named query (see 'profan queries')",
    "RUN is a run id, a run name, or 'latest' (the default).\n"
    "\n"
    "Options:\n"
    "  --run RUN        the run to query (default: latest)\n"
    "  --baseline NAME  the run a named baseline points at\n"
    "  --param K=V      set a query parameter (repeatable)\n"
    "  --limit N        at most N rows\n"
    "  --format F       table, csv, json or markdown\n",
    X_DB | CLI_X(EXIT_SQL), "query" },
  { "queries", queries_cmd, "queries [--verbose | --reference]",
    "list the named queries",
    "Built-in queries plus those in $PROFAN_QUERIES (a directory of .sql\n"
    "files with the same header).\n"
    "\n"
    "Options:\n"
    "  -v, --verbose    also each query's parameters with their types and\n"
    "                   defaults, and its output columns\n"
    "  --reference      print the catalogue of the built-in queries as\n"
    "                   markdown (docs/queries.md)\n",
    CLI_X_BASE | CLI_X(EXIT_SQL), "" },
  { "runs", runs_cmd, "runs [--tag K=V]",
    "list the runs in the database",
    "One table (a JSON array with --format json).\n"
    "\n"
    "Options:\n"
    "  --tag K=V        only runs with this tag\n"
    "  --history URL    the history on a PostgreSQL server (connection\n"
    "                   string or postgresql:// URL; docs/history-server.md)\n",
    X_DB, "" },
  { "show", show_cmd, "show RUN [--all-devices] [--section NAME]",
    "show one run: files, ranks, devices, steps, tags",
    "Sections: run, files, devices (each rank's own GPU), steps.  With\n"
    "--format json one object with a key per section; --format csv needs\n"
    "--section (one table).\n"
    "\n"
    "Options:\n"
    "  --all-devices    every GPU each rank's trace lists, not only its own\n"
    "  --section NAME   print only this section\n",
    X_DB, "run" },
  { "sql", sql_cmd, "sql \"SELECT ...\"",
    "run SQL against the database (read-only)",
    "The statement runs on a read-only connection; output follows --format.\n"
    "Every built-in view works the same in the stock sqlite3 shell.\n",
    X_DB | CLI_X(EXIT_SQL), "-" },
  { "rm", rm_cmd, "rm RUN... [--timeout S]",
    "delete runs and everything derived from them",
    "Every RUN is checked first; when one does not exist, or a number is\n"
    "both a run's id and another run's name, nothing is removed.  Prints\n"
    "each run removed, with the baselines that named it (they are removed\n"
    "too).  " HELP_WAITS "\n"
    "\n"
    "Options:\n"
    HELP_TIMEOUT,
    X_DB, "run..." },
  { "push", push_cmd, "push [RUN...] [--to URL] [--quiet] [--timeout S]",
    "copy runs to a team's history on a PostgreSQL server",
    "Each RUN (default: latest) of the database is copied to the history\n"
    "server at URL (a libpq connection string or postgresql:// URL; else\n"
    "$PROFAN_HISTORY) with what `merge --summaries-only` keeps: identity,\n"
    "tags, files, steps, summary tables, metrics.  One transaction: on any\n"
    "error nothing of the push is on the server.  A run whose content the\n"
    "server holds already is said and skipped.  Runs get the ids a local\n"
    "history merged in the same order would give them, so `check\n"
    "--history URL` answers as over that history.  Credentials come the\n"
    "ways libpq reads them (PGPASSWORD, ~/.pgpass, sslmode...) and are\n"
    "never printed.  The server's schema is created on first use (schema/\n"
    "pg/); one newer than this profan's is refused.  Exit 7 when the\n"
    "server is unreachable, refuses or fails; 2 for a URL that is no\n"
    "connection string.  While another push writes, this one says so and\n"
    "waits for it (--timeout).\n"
    "\n"
    "Options:\n"
    "  --to URL         the history server (default: $PROFAN_HISTORY)\n"
    "  -q, --quiet      no summary line\n"
    HELP_TIMEOUT,
    X_DB, "run..." },
  { "rename", rename_cmd, "rename RUN NAME [--timeout S]",
    "give a run another name",
    "NAME must be free, and cannot be empty, 'latest' or a number (runs\n"
    "are named by id too: a run of an old database named '3' reads as\n"
    "run id 3, and this renames it).  " HELP_WAITS "\n"
    "\n"
    "Options:\n"
    HELP_TIMEOUT,
    X_DB, "run -" },
  { "tag", tag_cmd, "tag RUN K=V... [--rm K]... [--timeout S]",
    "add, replace or remove tags of a run after its ingest",
    "RUN may be replaced by --baseline NAME.  " HELP_WAITS "\n"
    "\n"
    "Options:\n"
    "  --rm K           remove tag K (repeatable)\n"
    "  --baseline NAME  tag the run this baseline names\n"
    HELP_TIMEOUT,
    X_DB, "run -" },
  { "baseline", baseline_cmd,
    "baseline set NAME RUN | list | rm NAME [--timeout S]",
    "name a run as a baseline (main, release, ...) or list the names",
    "A baseline name is accepted wherever --baseline is: 'profan diff\n"
    "--baseline main RUN', 'profan check --baseline main'.  Like a run\n"
    "name it cannot be empty, 'latest' or a number.  Deleting the run\n"
    "deletes its baselines.  " HELP_WAITS "\n"
    "\n"
    "Options:\n"
    HELP_TIMEOUT,
    X_DB, "baseline" },
  { "diff", diff_cmd,
    "diff A B [--by metrics|category|kernel|op|memory|tensors]",
    "compare two runs: step time, categories, kernels, ops, memory",
    "Every time is per step (GPU time / number of (rank, step) rows), so\n"
    "runs with a different number of profiled steps compare.  Rows under\n"
    "the noise floor (--floor, % of the mean step time) in both runs are\n"
    "folded into one '(other: N)' row.  A may be --baseline NAME.  The\n"
    "sections are the named queries diff-metrics, diff-categories and\n"
    "diff-kernels (:run = B, --param baseline = A).  --format json prints\n"
    "one object with a key per section (metrics, categories, kernels), or\n"
    "the one --by section; --format csv needs --by.  --by op compares CPU\n"
    "operators (diff-ops: calls, self CPU and launched GPU time per step);\n"
    "--by tensors the largest allocation per memory source category of\n"
    "the snapshots (diff-tensors: ratio, scales when above 1.05).\n"
    "\n"
    "Options:\n"
    "  --by WHAT        only one section: metrics, category, kernel, op,\n"
    "                   memory, tensors\n"
    "  --baseline NAME  baseline (or run) to compare against, instead of A\n"
    "  --scheme S       category scheme (default: detailed)\n"
    "  --floor PCT      noise floor, % of step time (default: 0.3)\n"
    "  --limit N        at most N kernel or op rows (default: 50)\n"
    "  --html FILE      write a self-contained HTML page with charts\n"
    "                   (every section; '-' = stdout) instead of printing\n"
    "  --history URL    the history on a PostgreSQL server (connection\n"
    "                   string or postgresql:// URL; docs/history-server.md)\n",
    X_DB | CLI_X(EXIT_SQL), "run run" },
  { "trend", trend_cmd, "trend METRIC [--tag K=V] [--last N] [--html FILE]",
    "one metric over the runs, with change and a sparkline",
    "METRIC is a metric of the run_metric view ('profan query run-metrics'\n"
    "lists a run's).  Columns: run_id, name, created_at, value, change_pct\n"
    "(vs the previous run of the series), level_bar (the value within the\n"
    "series' range) and series_spark (the whole series, on the last row).\n"
    "\n"
    "Options:\n"
    "  --tag K=V        only runs with this tag\n"
    "  --last N         only the last N runs (default: 50)\n"
    "  --html FILE      write an HTML page: the series as a line chart,\n"
    "                   changes over 5% in the bad direction marked as\n"
    "                   regressions ('-' = stdout)\n"
    "  --history URL    the history on a PostgreSQL server (connection\n"
    "                   string or postgresql:// URL; docs/history-server.md)\n",
    X_DB | CLI_X(EXIT_SQL), "metric" },
  { "check", check_cmd, "check --baseline B [--run R] [--metric M]...",
    "regression gate: exit 1 when a metric got worse beyond the noise",
    "Step metrics (step_time_*, step_gpu_busy_pct) compare the steady steps\n"
    "(view step_steady; the step time bounds the work: when the CPU runs\n"
    "ahead, the GPU side's).  Runs with the same schedule (the same step\n"
    "numbers) are paired step by step over the steps steady in either run,\n"
    "else the two samples of steady steps are compared: the Hodges-Lehmann\n"
    "shift with its exact distribution-free interval (Student's t below 5\n"
    "pairs), each end wrong with probability --alpha.  With T the\n"
    "threshold, shift and interval in the bad direction: regression: the\n"
    "whole interval is worse, reaches T, and the shift is T/2 or more; ok:\n"
    "the interval stays below T and the shift is below T/2, or a wider\n"
    "interval (gate_param alpha_ok, 0.001) stays below T too.  Otherwise\n"
    "the step-time metrics ask the GPU work of the same steps (kernels\n"
    "matched by name and launch shape, memcpys by bytes): surely slower by\n"
    "T/2 or more and a shift of T/2 or more is a regression; surely within\n"
    "T/2 and a shift below T/2 is ok (the slower steps were stalls);\n"
    "inconclusive otherwise, the reason says why and what would tell.  With\n"
    "too few steps (under 3) a change of T/2 or more is inconclusive.\n"
    "Metrics without per-step samples compare values: beyond T needs the\n"
    "history.  History: the baseline and the runs before it of its lineage\n"
    "(its name with digit runs ignored, or a common tag; --same-tag KEY\n"
    "instead) and configuration (rank count, top kernels and operators,\n"
    "input kinds, step time within x1.15, kernel mix, peak memory); with 5\n"
    "or more, a run inside their spread (robust z <= --z) is noise.  Prints\n"
    "a one-line verdict, notes (GPU-side or gap steps), the history and the\n"
    "runs left out (stderr for csv/json), then a table.  Exit 0 pass (ok,\n"
    "improved, noise), 1 regression, 4 missing or not comparable (nothing\n"
    "to check; 0 with --allow-missing), 5 inconclusive.\n"
    "\n"
    "Options:\n"
    "  --baseline B     baseline name or run (required)\n"
    "  --run R          run to check (default: latest)\n"
    "  --metric M       metric to check (repeatable; default:\n"
    "                   step_time_median_ms)\n"
    "  --threshold T    relative change, '5%' or 0.05 (default: 5%)\n"
    "  --alpha A        error of each end of the interval, 0 < A < 0.5\n"
    "                   (default: 0.05)\n"
    "  --z Z            robust z-score limit of the history (default: 3)\n"
    "  --last N         history window in comparable runs (default: 10)\n"
    "  --tag K=V        history: only runs with this tag\n"
    "  --same-tag KEY   comparable runs have the baseline's value of tag\n"
    "                   KEY (repeatable; replaces the name lineage)\n"
    "  --allow-missing  exit 0 instead of 4 when there is nothing to check\n"
    "  --history URL    the baseline and history on a PostgreSQL server\n"
    "                   (connection string or postgresql:// URL); --run is\n"
    "                   then a run of --db as it would be once pushed\n"
    "                   (the server's when there is no local database)\n"
    "Defaults are rows of table gate_param.\n",
    X_DB | CLI_X(EXIT_SQL) | CLI_X(EXIT_REGRESSION)
    | CLI_X(EXIT_NOTHING) | CLI_X(EXIT_INCONCLUSIVE), "" },
  { "report", report_cmd,
    "report [RUN] [--baseline NAME] [--param K=V]... [--section S]"
    " [--html FILE [--step N]]",
    "summary of a run and ranked findings with hints",
    "RUN is a run id, a run name or 'latest' (the default); --baseline\n"
    "NAME reports on the run a baseline names.  Prints a summary (the\n"
    "named query report-summary) then the findings of the rules, most\n"
    "severe first: severity (high, medium, low, info), rule, message,\n"
    "value, threshold, hint.  Rules are SQL files with the header of a\n"
    "named query: the built-in rules/*.sql plus those in $PROFAN_RULES (a\n"
    "directory; a rule with a built-in's name replaces it).  --format json\n"
    "prints one object {summary, findings}; --format csv needs --section.\n"
    "Exit 0 whatever is found.\n"
    "\n"
    "Options:\n"
    "  --baseline NAME  report on this baseline's run\n"
    "  --param K=V      set parameter K of every rule that has it\n"
    "                   (repeatable), e.g. --param threshold_pct=20;\n"
    "                   RULE.K=V sets it in one rule only, e.g.\n"
    "                   --param straggler.late_pct=40; a value the\n"
    "                   parameter's type refuses is exit 2\n"
    "  --section NAME   print only summary or findings\n"
    "  --html FILE      write a self-contained HTML report instead ('-' =\n"
    "                   stdout): summary, findings, categories, top kernels,\n"
    "                   step times per rank (stragglers marked), one step's\n"
    "                   GPU timeline, step breakdown, memory timeline,\n"
    "                   segments, allocation churn, communication\n"
    "  --step N         the step of the HTML timeline (default: the median\n"
    "                   step of the lowest rank)\n",
    X_DB | CLI_X(EXIT_SQL), "run" },
  { "merge", merge_cmd,
    "merge --into DB [--name N] [--summaries-only] [--quiet] [--timeout S]"
    " SHARD...",
    "combine shard databases (one ingest per node) into one run",
    "Each SHARD is a database made by `profan ingest` of some rank files of\n"
    "one run (one node's).  Their rows are copied into one run of DB (the\n"
    "run named N, else the first shard's run name; an existing run of that\n"
    "name gets the shards added) with strings and ids remapped, and the\n"
    "tables that span ranks (collectives, critical paths) are computed\n"
    "again over all ranks: the result is what one ingest of all the files\n"
    "stores.  One transaction: on any error DB is left as it was.  A\n"
    "shard whose files DB already holds is skipped with a note.  Exit 2\n"
    "when the shards are not one run (world sizes differ, a rank in two\n"
    "shards, steps apart in time, a shard of several runs), 6 for a\n"
    "missing, unreadable or corrupt shard, 7 for DB.  " HELP_WAITS "\n"
    "--summaries-only makes DB a history: every run of each SHARD becomes\n"
    "a run of DB with its tags, files, steps and summary tables, not its\n"
    "event rows (trend, check, diff-metrics and runs work on it).\n"
    "\n"
    "Options:\n"
    "  --into DB        the target database (created when missing)\n"
    "  --name N         name of the merged run\n"
    "  --summaries-only\n"
    "                   copy runs without their event rows (a history)\n"
    "  -q, --quiet      no summary line\n"
    HELP_TIMEOUT,
    X_DB | CLI_X(EXIT_INPUT), "path..." },
  { "rebuild", rebuild_cmd, "rebuild [--quiet] [--timeout S] [RUN...]",
    "compute the derived tables of runs again from their raw rows",
    "Every derived table of each RUN (default: every run) is emptied and\n"
    "computed again from the run's raw rows by the derive passes an ingest\n"
    "and a merge run: steps, GPU busy time and gaps, step breakdown, the\n"
    "summaries, collectives, critical paths, the operator model and the\n"
    "run metrics (table_role lists them: roles derived_rank and\n"
    "derived_run).  Use it after editing a definition table (category_rule,\n"
    "steady_param, gpu_spec, ...) or when a new profan computes a derived\n"
    "table anew.  One transaction: on any error or interruption the\n"
    "database is left as it was.  A run of a `merge --summaries-only`\n"
    "history has no raw rows: it is skipped, or refused when named.\n"
    HELP_WAITS "\n"
    "\n"
    "Options:\n"
    "  -q, --quiet      no line per run\n"
    HELP_TIMEOUT,
    X_DB, "run..." },
  { "export-trace", export_cmd,
    "export-trace RUN [--rank R|all] [--step N | --window START:END |"
    " --around ANCHOR] [-o FILE]",
    "write a Chrome/Kineto trace of a step or time range for Perfetto",
    "Writes the rows of the run that overlap the chosen range as a trace\n"
    "that Perfetto UI and chrome://tracing open (gzip when FILE ends in\n"
    ".gz; stdout without -o): CPU ops, Python functions, runtime calls,\n"
    "kernels, memcpy/memset, syncs, annotations, memory events and\n"
    "counters, ac2g launch flows, deviceProperties, distributedInfo, and\n"
    "profan's own tracks (steps, largest GPU idle gaps, exposed\n"
    "communication).  Several ranks go into one trace, one process group\n"
    "per rank on the common clock.  Exit 2 on an unknown run, rank, step\n"
    "or anchor, an empty window or an output FILE that cannot be written,\n"
    "with the valid choices.\n"
    "\n"
    "Options:\n"
    "  --rank R|all     one rank or every rank (default: all)\n"
    "  --step N         each rank's step N (ProfilerStep number)\n"
    "  --window S:E     S to E ms after the run's first event (units ns,\n"
    "                   us, ms, s may follow each number)\n"
    "  --around ANCHOR  a named place (view export_anchor): slowest-step,\n"
    "                   slowest-step-rank-R, gap-1 .. gap-10\n"
    "  -o, --output F   output file (default: stdout)\n",
    X_DB, "run" },
};
#define N_CMD ((int)(sizeof(aCmd)/sizeof(aCmd[0])))

/* The global options: `profan --help`, the manual page and the
** completions list them from here. */
static const CliGlobal aGlobal[] = {
  { "--db", "PATH", "database file (default: $PROFAN_DB, else ./profan.db)" },
  { "--format", "F", "output format: table, csv, json, markdown" },
  { "--width", "N", "fit table lines in N columns, cutting long text\n"
    "                   (default: the terminal's width when stdout is one;\n"
    "                   never cut otherwise)" },
  { "--no-truncate", "", "never cut text in tables" },
  { "--help", "", "help for profan or for a command" },
  { "--version", "", "print the version and schema version" },
  { "--man", "", "print the manual page (troff)" },
  { "--completion", "SH", "print the completion script for SH: bash or zsh" },
  { "--reference", "", "print the command reference (markdown,\n"
    "                   docs/commands.md); 'profan queries --reference':\n"
    "                   the named queries (docs/queries.md)" },
};
#define N_GLOBAL ((int)(sizeof(aGlobal)/sizeof(aGlobal[0])))

/* The values options take: cli_choice() and cli_section() check them, the
** completions offer them ("@KIND": from the database, cli_complete();
** "@files": a path). */
static const CliValues aValue[] = {
  { "*", "--db", "@files" },
  { "*", "--format", "table csv json markdown" },
  { "*", "--completion", "bash zsh" },
  { "query", "--run", "@runs" },
  { "query", "--baseline", "@baselines" },
  { "query", "--param", "@params" },
  { "show", "--section", "run files devices steps" },
  { "tag", "--baseline", "@baselines" },
  { "diff", "--by", "metrics category kernel op memory tensors" },
  { "diff", "--baseline", "@baselines" },
  { "diff", "--scheme", "@schemes" },
  { "diff", "--html", "@files" },
  { "trend", "--html", "@files" },
  { "check", "--baseline", "@baselines" },
  { "check", "--run", "@runs" },
  { "check", "--metric", "@metrics" },
  { "report", "--baseline", "@baselines" },
  { "report", "--param", "@rule-params" },
  { "report", "--section", "summary findings" },
  { "report", "--html", "@files" },
  { "merge", "--into", "@files" },
  { "export-trace", "--output", "@files" },
  { "export-trace", "--around", "@anchors" },
  { "baseline", "", "set list rm" },
};
#define N_VALUE ((int)(sizeof(aValue)/sizeof(aValue[0])))

const CliTable cli_table = { aCmd, N_CMD, aGlobal, N_GLOBAL, aValue,
                             N_VALUE };

static void print_help(FILE *out){
  fprintf(out,
    "profan %s — profile database for GPU training runs\n"
    "\n"
    "usage: profan [--db PATH] [--format F] COMMAND [ARGS]\n"
    "\n"
    "Commands:\n", PROFAN_VERSION);
  for(int i=0; i<N_CMD; i++){
    fprintf(out, "  %-12s %s\n", aCmd[i].zName, aCmd[i].zSummary);
  }
  fputs("\nGlobal options:\n", out);
  for(int i=0; i<N_GLOBAL; i++){
    char zOpt[32];
    snprintf(zOpt, sizeof(zOpt), "%s%s%s", aGlobal[i].zName,
             aGlobal[i].zArg[0] ? " " : "", aGlobal[i].zArg);
    fprintf(out, "  %-16s %s\n", zOpt, aGlobal[i].zHelp);
  }
  {
    Buf b;
    buf_init(&b);
    cli_exit_list(&b);
    fprintf(out, "\nExit codes (each command's --help lists its own):\n%s",
            buf_str(&b));
    buf_free(&b);
  }
}

static void print_cmd_help(const CmdInfo *c, FILE *out){
  Buf b;
  buf_init(&b);
  cli_exit_line(&b, c->mExit);
  fprintf(out, "usage: profan %s\n\n%s.\n", c->zUsage, c->zSummary);
  if( c->zHelp[0] ) fprintf(out, "\n%s", c->zHelp);
  fprintf(out, "\nGlobal options --db and --format apply.\n%s",
          buf_str(&b));
  buf_free(&b);
}

/*
** A global option with a value, which may be given more than once (the
** last one counts).  A value missing at the end of the line or taken by
** another option ("--db --format json") is a usage error naming what the
** option needs, zWhat.  Returns the value or NULL.
*/
static const char *global_option(Cli *p, const char *zName,
                                 const char *zWhat){
  const char *zVal = NULL, *z;
  for(int i=1; i<p->argc; i++){
    if( strcmp(p->argv[i], "--")==0 ) break;
    if( p->argv[i][0]=='-' && p->argv[i][1]=='-'
     && strcmp(p->argv[i]+2, zName)==0
     && (i+1>=p->argc || strncmp(p->argv[i+1], "--", 2)==0) ){
      cli_usage_error(p, "option --%s needs a value (%s)", zName, zWhat);
    }
  }
  while( (z = cli_option(p, zName, NULL, 1))!=NULL ) zVal = z;
  return zVal;
}

/* The start of the heap set up with transparent huge pages. */
#define HEAP_THP_BYTES (16u<<20)
#define THP_BYTES (2u<<20)

/*
** Fewer page faults.  A command touches a few MB of fresh memory (SQLite
** compiling the derive statements, its page cache, the parser's
** buffers), one 4 KiB page fault at a time; on a virtual machine each
** costs far more than on bare metal (measured here: 25-35 us per 4 KiB
** page touched, 0.3 us per 4 KiB of a 2 MiB huge page).  So glibc's main
** heap grows once by 16 MiB (M_TOP_PAD for that growth only: address
** space), advised for transparent huge pages: one fault per 2 MiB
** touched where the kernel has THP in "madvise" mode, as usual where it
** has not.  A trim threshold above that keeps the stretch from being
** given back (and taken again with 4 KiB pages) as blocks are freed.
** Every thread allocates there (M_ARENA_MAX 1): a parser thread's own
** arena would be fresh memory again.  Under valgrind or ASan, whose
** allocators ignore all this, nothing changes.
*/
static void heap_setup(void){
  char *p, *zLo, *zHi;
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TRIM_THRESHOLD, 2*HEAP_THP_BYTES);
  mallopt(M_TOP_PAD, HEAP_THP_BYTES);
  p = malloc(64<<10);               /* grows the heap by the pad */
  mallopt(M_TOP_PAD, 128<<10);      /* glibc's default again */
  zHi = sbrk(0);
  /* [p, break) is the heap when p came from it (not from mmap) */
  if( p && zHi!=(char*)-1 ){
    zLo = (char*)(((uintptr_t)p + THP_BYTES-1) & ~(uintptr_t)(THP_BYTES-1));
    zHi = (char*)((uintptr_t)zHi & ~(uintptr_t)(THP_BYTES-1));
    if( zHi>zLo ) madvise(zLo, (size_t)(zHi-zLo), MADV_HUGEPAGE);
  }
  free(p);
}

/* Exit 2: zFmt ("unknown command '%s'%s") with name z and the nearest
** global option (bGlobal) or command. */
static void PF_NORETURN refuse_name(Cli *p, const char *zFmt, const char *z,
                                    int bGlobal){
  const char *azName[N_CMD+N_GLOBAL+1];
  int n = 0;
  char zS[64];
  Buf b;
  buf_init(&b);
  if( bGlobal ){
    for(int i=0; i<N_GLOBAL; i++) azName[n++] = aGlobal[i].zName;
  }else{
    for(int i=0; i<N_CMD; i++) azName[n++] = aCmd[i].zName;
    azName[n++] = "help";
  }
  cli_did_you_mean(&b, z, azName, n);
  util_sanitize(z, strlen(z), zS, sizeof(zS));
  cli_usage_error(p, zFmt, zS, buf_str(&b));
}

/* The command named z, or exit 2 naming the nearest. */
static const CmdInfo *find_cmd(Cli *p, const char *z){
  for(int i=0; i<N_CMD; i++){
    if( strcmp(aCmd[i].zName, z)==0 ) return &aCmd[i];
  }
  refuse_name(p, "unknown command '%s'%s", z, 0);
}

int main(int argc, char **argv){
  Cli cli;
  const char *zFmt, *zDb, *zWidth, *z;
  const CmdInfo *pCmd = NULL;
  int iCmd = 0;

  /* A write past RLIMIT_FSIZE must fail with EFBIG (SQLite then reports
  ** "database or disk is full" and the transaction rolls back), not kill
  ** the process half-way through a commit. */
  signal(SIGXFSZ, SIG_IGN);
  heap_setup();
  /* No allocation statistics: they cost a global mutex per malloc. */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  db_config_init();         /* before SQLite initialises: its error log */
  memset(&cli, 0, sizeof(cli));
  cli.argc = argc;
  cli.argv = argv;
  /* global options may appear anywhere */
  zDb = global_option(&cli, "db", "a database PATH");
  zFmt = global_option(&cli, "format", "table, csv, json or markdown");
  zWidth = global_option(&cli, "width", "a number of columns");
  if( cli_option(&cli, "no-truncate", NULL, 0) ){
    if( zWidth ){
      cli_usage_error(&cli, "give --width or --no-truncate, not both");
    }
    output_set_width(0);
  }
  if( zWidth ){
    char *zEnd;
    long n = strtol(zWidth, &zEnd, 10);
    if( *zWidth==0 || *zEnd || n<20 || n>100000 ){
      cli_usage_error(&cli, "--width needs a number of columns >= 20, got '%s'",
                      zWidth);
    }
    output_set_width((int)n);
  }
  if( cli_option(&cli, "man", NULL, 0) ){
    cli_write_man(stdout, &cli_table);
    return EXIT_OK;
  }
  if( cli_option(&cli, "reference", NULL, 0) ){
    /* `profan --reference`: the commands (docs/commands.md);
    ** `profan queries --reference` (the option may stand anywhere): the
    ** named-query catalogue (docs/queries.md) */
    if( cli.argc==2 && strcmp(cli.argv[1], "queries")==0 ){
      NqList list;
      PfError e = {0};
      if( named_query_load_all(&list, &e) ){
        cli_error("%s", e.zMsg);
        return EXIT_SQL;
      }
      cli_write_query_reference(stdout, &list);
      named_query_list_free(&list);
      return EXIT_OK;
    }
    if( cli.argc>1 ){
      cli_usage_error(&cli, "--reference prints the commands, or with"
                      " 'queries' the named queries; got '%s'", cli.argv[1]);
    }
    cli_write_reference(stdout, &cli_table);
    return EXIT_OK;
  }
  if( (z = global_option(&cli, "completion", "bash or zsh"))!=NULL ){
    if( cli_write_completion(stdout, z, &cli_table) ){
      cli_usage_error(&cli, "no completion for shell '%s' (bash, zsh)", z);
    }
    return EXIT_OK;
  }
  if( cli_option(&cli, "version", NULL, 0) ){
    printf("profan %s (schema %d)\n", PROFAN_VERSION, db_schema_version());
    return EXIT_OK;
  }
  cli.zDb = zDb ? zDb : getenv("PROFAN_DB");
  cli.dbGiven = cli.zDb!=NULL && cli.zDb[0]!=0;
  if( !cli.dbGiven ) cli.zDb = "profan.db";
  if( (z = cli_option(&cli, "complete", NULL, 1))!=NULL ){
    /* the completion scripts: the names of the database, one a line */
    cli_complete(&cli, z, cli.argc>1 ? cli.argv[1] : NULL);
    return EXIT_OK;
  }
  cli.eFmt = OUT_TABLE;
  if( zFmt ){
    if( output_parse_format(zFmt, &cli.eFmt) ){
      cli_usage_error(&cli, "unknown format '%s' (table, csv, json, markdown)",
                      zFmt);
    }
    cli.fmtGiven = 1;
  }
  for(iCmd=1; iCmd<cli.argc && cli.argv[iCmd][0]=='-'; iCmd++){
    if( strcmp(cli.argv[iCmd], "--help")==0
     || strcmp(cli.argv[iCmd], "-h")==0 ){
      print_help(stdout);
      return EXIT_OK;
    }
    refuse_name(&cli, "unknown option %s%s", cli.argv[iCmd], 1);
  }
  if( iCmd>=cli.argc ){
    print_help(stderr);
    return EXIT_USAGE;
  }
  if( strcmp(cli.argv[iCmd], "help")==0 ){
    if( iCmd+1<cli.argc ){
      print_cmd_help(find_cmd(&cli, cli.argv[iCmd+1]), stdout);
    }else{
      print_help(stdout);
    }
    return EXIT_OK;
  }
  pCmd = find_cmd(&cli, cli.argv[iCmd]);
  cli.pCmd = pCmd;
  cli.argc -= iCmd;
  cli.argv += iCmd;
  if( cli_option(&cli, "help", "h", 0) ){
    print_cmd_help(pCmd, stdout);
    return EXIT_OK;
  }
  cli_catch_interrupts();
  return pCmd->xCmd(&cli);
}
