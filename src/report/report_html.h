/*
** report_html.h — the self-contained HTML pages of `profan report RUN
** --html FILE`, `profan diff A B --html FILE` and `profan trend METRIC
** --html FILE`.
**
** Every number on a page comes from SQL: the named queries (queries/NAME.sql)
** wherever one exists, so the tables under the charts print the values
** `profan query NAME --format csv` prints; the rest are aggregates over
** the same views.  Nothing is drawn per event: the only per-event chart,
** the GPU timeline of one step, merges kernels closer than a pixel while
** it streams them (html.h), so pages stay small for runs with millions of
** events.  Sections keep stable ids (summary, findings, categories,
** top-kernels, steps, timeline, step-breakdown, memory, segments, churn,
** comm, roofline; diff: metrics, categories, kernels, memory; trend:
** trend); a
** section without data holds one note ("no memory snapshot in this run").
**
** Pipeline position: read side, called by cmd_report.c and
** cmd_history.c; html.c does the markup.
*/
#ifndef PROFAN_REPORT_HTML_H
#define PROFAN_REPORT_HTML_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* Relative change beyond which a trend point in the bad direction is
** marked as a regression (the default threshold of `profan check`). */
#define REPORT_HTML_TREND_PCT 5.0

/*
** The run page of run runId into pOut.  The findings are read from
** temp.finding, which rules_run() must have filled.  iStep >= 0 picks the
** step of the GPU timeline (else the median-duration step of the lowest
** rank).  zDb: the database's path when it is not the default one, for
** the commands the page gives to paste (--db PATH), else NULL.  Returns
** 0, or -1 with pErr set (SQL error).
*/
int report_html_run(sqlite3 *db, int64_t runId, int64_t iStep,
                    const char *zDb, Buf *pOut, PfError *pErr);

/*
** The diff page of baseline run idA against run idB into pOut.  zScheme
** and zFloor (may be NULL: the queries' defaults) are the diff-categories
** scheme and the noise floor in %.  Returns 0 or -1 with pErr set.
*/
int report_html_diff(sqlite3 *db, int64_t idA, int64_t idB,
                     const char *zScheme, const char *zFloor, Buf *pOut,
                     PfError *pErr);

/*
** The trend page of metric zMetric into pOut, through the named query
** trend with its parameters (zTagKey/zTagVal/zLast may be NULL).
** Returns 0 or -1 with pErr set.
*/
int report_html_trend(sqlite3 *db, const char *zMetric, const char *zTagKey,
                      const char *zTagVal, const char *zLast, Buf *pOut,
                      PfError *pErr);

#endif
