/*
** named_query.h — the catalogue of named queries: queries/NAME.sql embedded
** at build time plus the user's own from $PROFAN_QUERIES, each with a
** header of "-- key: value" lines:
**
**   -- name: top-kernels
**   -- description: GPU kernels ranked by total time
**   -- param: rank:rank =       only this rank (empty: all)
**   -- param: limit:int>=0 = 20 rows to show
**   -- column: total_ms         total GPU time in ms
**   -- column: a:metric         the value (in its metric's unit)
**
** ":run" is always bound to the run id.  Parameters are bound, never
** pasted into SQL.  "NAME:TYPE" declares what a parameter accepts; a
** value that does not fit is refused before anything runs (named_query_check):
**   int, int>=0, int>=1      an integer (in that range)
**   number, number>=0        a finite decimal number (no unit, no '%')
**   bool                     0 or 1
**   text                     anything
**   a|b|c                    one of the listed words
**   rank                     an integer that is a rank of the run
**   scheme                   a name in category_scheme
**   run                      a run id, name or 'latest' (bound as the id)
** A trailing '!' (run!) makes the parameter required: no default, and an
** empty value is refused.  A parameter without a type takes anything
** (numbers bound as numbers, the rest as text), as user queries of old.
**
** Pipeline position: the "query" side, used by `profan query/queries`.
*/
#ifndef PROFAN_NAMED_QUERY_H
#define PROFAN_NAMED_QUERY_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

typedef struct NqParam {
  char *zName;      /* without the ':' */
  char *zDefault;   /* NULL = SQL NULL */
  char *zDesc;
  char *zType;      /* declared type ("int>=0", "rank", "a|b"); NULL: any */
  int required;     /* type ended with '!' */
} NqParam;

typedef struct NqColumn {
  char *zName;
  char *zDesc;
  char *zUnit;      /* "NAME:UNIT": declared unit (output.h), or NULL */
} NqColumn;

typedef struct NamedQuery {
  char *zName;
  char *zDesc;
  char *zSql;       /* the whole file text (comments are fine for SQLite) */
  char *zSource;    /* "builtin" or the file path */
  NqParam *aParam;
  int nParam;
  NqColumn *aCol;
  int nCol;
  int needsRun;     /* the SQL uses :run */
  const char *zKind;  /* "query" or "rule" (static), for messages */
} NamedQuery;

typedef struct NqList {
  NamedQuery *a;
  int n;
} NqList;

/* The declared units of q's columns ("-- column: NAME:UNIT"), for
** output_stmt_units(): a new array of *pn (free() it; it points into q),
** NULL when none. */
struct OutUnit *named_query_units(const NamedQuery *q, int *pn);

/* Parse the header of zText.  Returns 0 or -1 with pErr (ERRPOS_LINE). */
int named_query_parse(const char *zText, const char *zSource, NamedQuery *p,
             PfError *pErr);
void named_query_clear(NamedQuery *p);

/* Load the built-in queries and those in $PROFAN_QUERIES (a directory;
** a user query with a built-in's name replaces it).  Sorted by name.
** Returns 0 or -1 with pErr naming the bad file.  Free with
** named_query_list_free. */
int named_query_load_all(NqList *pList, PfError *pErr);
void named_query_list_free(NqList *pList);

/* The same for any catalogue of header + SQL files: the built-in files
** aBuiltin (ending with a {0,0} entry) and the *.sql files of the
** directory named by environment variable zEnv (report rules use it). */
struct EmbeddedFile;
int named_query_load_catalogue(NqList *pList,
                               const struct EmbeddedFile *aBuiltin,
                               const char *zEnv, PfError *pErr);
const NamedQuery *named_query_find(const NqList *pList, const char *zName);

/*
** Check the overrides azKey/azVal (nKV pairs, keys already mapped to q's
** parameter names) and the required parameters of q against their
** declared types for run runId.  Returns 0, or -1 with pErr set to one
** line naming the parameter, the value and what it accepts (a usage
** error: exit 2).  An unknown parameter name is such an error too.
*/
int named_query_check(sqlite3 *db, const NamedQuery *q, int64_t runId,
             const char **azKey, const char **azVal, int nKV, PfError *pErr);

/* What a parameter of type zType accepts, in words (static or in zBuf of
** nBuf bytes; rank and scheme list their values from db for runId). */
const char *named_query_type_words(sqlite3 *db, const char *zType,
                                   int64_t runId, char *zBuf, size_t nBuf);

/*
** Prepare q for run runId with the given "name=value" overrides and an
** optional row limit (<0: none).  Returns the statement (caller finalizes)
** or NULL with pErr set (unknown parameter or bad value: named_query_check; SQL
** error).
*/
sqlite3_stmt *named_query_prepare(sqlite3 *db, const NamedQuery *q,
                                  int64_t runId, const char **azKey,
                                  const char **azVal, int nKV,
                                  int64_t limit, PfError *pErr);

#endif
