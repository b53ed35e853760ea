/*
** report_html_roofline.h — the "roofline" section of the run page of
** `profan report --html` (issue 21): a log-log chart of arithmetic
** intensity against achieved TFLOP/s, one numbered point per operator and
** shape of the named query op-roofline (area ~ GPU time), the roofline of
** each GPU and element type of the run drawn from gpu_spec (view
** op_roofline_call), and the op-roofline table under it.
**
** Pipeline position: read side, called by report_html.c; writes markup
** into a Buf with html.h's escaping and the page's CSS classes.
*/
#ifndef PROFAN_REPORT_HTML_ROOFLINE_H
#define PROFAN_REPORT_HTML_ROOFLINE_H

#include <sqlite3.h>
#include <stdint.h>
#include "report/named_query.h"
#include "core/util.h"

/* Points drawn at most (the op-roofline rows with the most recoverable
** time; the table lists the same rows). */
#define ROOFLINE_MAX_POINTS 30

/*
** Write the section for run runId into p, running op-roofline from pQ.
** Returns 0, or -1 with pErr set (SQL error, missing query).
*/
int report_html_roofline(sqlite3 *db, const NqList *pQ, int64_t runId,
                         Buf *p, PfError *pErr);

#endif
