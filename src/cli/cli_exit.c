/*
** cli_exit.c — the exit codes: the one table of what each code means,
** and its renderings for `profan --help`, a command's --help, the manual
** page and docs/commands.md (cli_docs.c writes those around it).
**
** Pipeline position: front end.  A command's row of main.c's aCmd[]
** carries the mask of codes it returns (mExit); the e2e test
** tests/e2e/test_contract.py holds its own copy of this table and checks
** every rendering and every command against it.
*/
#include "cli/cli.h"

#include <string.h>

const CliExit cli_exit_table[] = {
  { EXIT_OK, "ok",
    "ok (check: pass, improved or noise)" },
  { EXIT_REGRESSION, "regression",
    "regression found (check only; nothing else exits 1)" },
  { EXIT_USAGE, "usage error or bad value",
    "usage error or bad value: unknown command, option, run, name, query,"
    " metric, section or parameter, a bad value, an ambiguous run"
    " reference" },
  { EXIT_SQL, "SQL error",
    "SQL error (your SQL, or a query that failed)" },
  { EXIT_NOTHING, "nothing to compare",
    "nothing to compare (check: nothing comparable; 0 with"
    " --allow-missing)" },
  { EXIT_INCONCLUSIVE, "inconclusive",
    "inconclusive (check)" },
  { EXIT_INPUT, "bad input file",
    "bad input file (ingest, merge): unreadable or malformed input, named"
    " with the file and offset or line" },
  { EXIT_DB, "database error",
    "database error: missing, unreadable, not a profan database, corrupt,"
    " newer schema, locked past --timeout, not writable, out of memory or"
    " disk; also the history server (PostgreSQL) unreachable, refused or"
    " failing" },
  { EXIT_SIGINT, "interrupted",
    "interrupted by SIGINT (Ctrl-C): nothing written" },
  { EXIT_SIGTERM, "terminated",
    "terminated by SIGTERM: nothing written" },
};
const int cli_exit_count = (int)(sizeof(cli_exit_table)
                                 / sizeof(cli_exit_table[0]));

/* Append word z to the line in b, breaking before it (with nIndent
** blanks) when the line would pass nWidth columns; *pCol tracks the
** column. */
static void wrap_word(Buf *b, const char *z, size_t n, int nIndent,
                      int nWidth, int *pCol){
  if( *pCol>nIndent && *pCol+1+(int)n>nWidth ){
    buf_printf(b, "\n%*s", nIndent, "");
    *pCol = nIndent;
  }else if( *pCol>nIndent ){
    buf_putc(b, ' ');
    (*pCol)++;
  }
  buf_append(b, z, n);
  *pCol += (int)n;
}

/* Append the text z wrapped to nWidth columns, continuation lines
** indented nIndent; the first line starts at column *pCol. */
static void wrap_text(Buf *b, const char *z, int nIndent, int nWidth,
                      int *pCol){
  while( *z ){
    size_t n;
    while( *z==' ' ) z++;
    n = strcspn(z, " ");
    if( n ) wrap_word(b, z, n, nIndent, nWidth, pCol);
    z += n;
  }
}

void cli_exit_list(Buf *b){
  for(int i=0; i<cli_exit_count; i++){
    int col = 11;
    buf_printf(b, "  %-8d ", cli_exit_table[i].code);
    wrap_text(b, cli_exit_table[i].zLong, 11, 79, &col);
    buf_putc(b, '\n');
  }
}

void cli_exit_line(Buf *b, unsigned mExit){
  int col = 0, n = 0;
  buf_puts(b, "Exit codes:");
  col = 11;
  for(int i=0; i<cli_exit_count; i++){
    const CliExit *x = &cli_exit_table[i];
    char z[120];
    if( !(mExit & CLI_X(x->code)) ) continue;
    if( x->code==EXIT_SIGTERM && (mExit & CLI_X(EXIT_SIGINT)) ) continue;
    if( x->code==EXIT_SIGINT && (mExit & CLI_X(EXIT_SIGTERM)) ){
      snprintf(z, sizeof(z), "%d/%d interrupted,", EXIT_SIGINT,
               EXIT_SIGTERM);
    }else{
      snprintf(z, sizeof(z), "%d %s,", x->code, x->zShort);
    }
    n++;
    wrap_word(b, z, strlen(z), 0, 76, &col);   /* one entry, one piece */
  }
  if( n ) b->z[--b->n] = 0;            /* the last comma */
  buf_puts(b, ".\n");
}
