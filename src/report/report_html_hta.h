/*
** report_html_hta.h — the HTA sections of the run page (report_html.c):
** idle breakdown, launch queue and critical path per step, from the named
** queries idle-breakdown, queue-length, critical-path, critical-path-top
** and the views of 013-hta-analyses.sql.  Internal to the report.
**
** Pipeline position: read side, called by report_html_run().
*/
#ifndef PROFAN_REPORT_HTML_HTA_H
#define PROFAN_REPORT_HTML_HTA_H

#include <sqlite3.h>
#include <stdint.h>
#include "report/named_query.h"
#include "core/util.h"

/* Section ids and titles, in page order, for the page's navigation. */
#define REPORT_HTA_NAV \
  "idle-breakdown", "Idle breakdown", "queue-length", "Launch queue", \
  "critical-path", "Critical path"

/* Append the three sections for run `run` to p.  aRank[0..nRank): the
** ranks the idle-breakdown and launch-queue sections show (a run of many
** ranks: its outlier ranks); nRank 0: every rank.  Returns 0, or -1 with
** pErr set (SQL error). */
int report_html_hta(sqlite3 *db, const NqList *pQ, int64_t run,
                    const int64_t *aRank, int nRank, Buf *p, PfError *pErr);

#endif
