/*
** trace_keep.c — every trace row to the totals and the kept intervals
** (see trace_keep.h).
**
** Pipeline position: "load", under load_trace.c and trace_feed.c.
*/
#include "trace/trace_keep.h"
#include "trace/op_store.h"

void trace_keep_begin(TraceTotals *pTot, TraceSpans *pSpans, sqlite3 *db){
  if( pTot ) trace_totals_begin(pTot, db);
  op_store_begin(trace_spans_ops(pSpans), db);
  trace_spans_begin(pSpans, db);
}

void trace_keep_row(TraceTotals *pTot, TraceSpans *pSpans, const TraceRow *r){
  if( pTot ) trace_totals_row(pTot, r);
  if( pSpans ) trace_spans_row(pSpans, r);
}

void trace_keep_file_done(TraceTotals *pTot, TraceSpans *pSpans,
                          int64_t fileId, int64_t dTs, int64_t rank){
  if( pTot ) trace_totals_file_rank(pTot, fileId, rank);
  trace_spans_file_done(pSpans, fileId, dTs, rank);
}
