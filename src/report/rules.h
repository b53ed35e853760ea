/*
** rules.h — the findings rules of `profan report`: rules/NAME.sql embedded
** at build time plus the user's own from $PROFAN_RULES (a directory of
** .sql files).  A rule has the header of a named query (named_query.h:
** "-- name:", "-- description:", "-- param: NAME = DEFAULT  text") and
** returns zero or more rows with exactly the columns
**
**   severity   'high', 'medium', 'low' or 'info'
**   rule       the rule's name
**   message    what was found, with the numbers
**   value      the measured number
**   threshold  the number it was compared with
**   hint       what practitioners usually do about it
**
** ":run" is bound to the run id; parameters keep their defaults unless
** overridden.
**
** Pipeline position: read side, used by `profan report` (cmd_report.c).
*/
#ifndef PROFAN_RULES_H
#define PROFAN_RULES_H

#include <sqlite3.h>
#include <stdint.h>
#include "report/named_query.h"
#include "core/util.h"

/*
** Load the built-in rules and those in $PROFAN_RULES (a user rule with a
** built-in's name replaces it), sorted by name.  Returns 0, or -1 with
** pErr naming the bad file.  The caller frees pList with
** named_query_list_free().
*/
int rules_load_all(NqList *pList, PfError *pErr);

/*
** Run every rule of pList for run runId and store the rows in the
** temporary table temp.finding(seq, severity, rule, message, value,
** threshold, hint), created (or emptied) here; seq is the order of
** arrival.  azKey/azVal (nKV pairs) override parameters: a key K sets K
** in every rule that declares it, a key RULE.K only in that rule (and
** wins over K); a key no rule accepts is an error.  Returns the number
** of findings, or -1 with pErr set (SQL error in a rule, wrong columns, a
** severity not in the list).
*/
int rules_run(sqlite3 *db, const NqList *pList, int64_t runId,
              const char **azKey, const char **azVal, int nKV,
              PfError *pErr);

/*
** Check the overrides before anything runs: every key applies to some
** rule, and each value fits the type every rule taking it declares
** (named_query_check).  Returns 0, or -1 with pErr set to one line naming the
** parameter, the value and what it accepts (a usage error: exit 2).
*/
int rules_check(sqlite3 *db, const NqList *pList, int64_t runId,
                const char **azKey, const char **azVal, int nKV,
                PfError *pErr);

/* 1 when override key zKey (K or RULE.K) applies to a rule of pList. */
int rules_accepts(const NqList *pList, const char *zKey);

/* Rank of a severity (high 0, medium 1, low 2, info 3), -1 if unknown. */
int rules_severity_rank(const char *z);

#endif
