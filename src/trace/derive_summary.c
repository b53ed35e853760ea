/*
** derive_summary.c — the rows of the per-run summary tables of
** schema/009-query-summaries.sql (cpu_op_summary, cpu_op_shape_summary,
** cpu_op_flops_summary, runtime_summary, step_kernel_summary) from their
** totals, so that the operator, launch-overhead, tflops,
** checkpoint-recompute, steps and diff-ops named queries read a few
** hundred summary rows instead of every op, runtime call and kernel.
**
** Pipeline position: "derive".  The totals are kept of every row by
** trace_totals.c (the one implementation; the SQL of 009's end is their
** specification, tests/oracle/summaries.sql) and written here once every
** step of the run is final (derive_trace.c).
*/
#include "trace/derive_summary.h"
#include "core/db.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- write */

static int write_ops(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                     PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO cpu_op_summary VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->ops.nGroup; g++){
    const GroupKey *k = &p->ops.aKey[g];
    const OpSum *o = group_map_val(&p->ops, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    sqlite3_bind_int64(s, 4, k->c);
    sqlite3_bind_int64(s, 5, o->calls);
    sqlite3_bind_int64(s, 6, o->totalNs);
    sqlite3_bind_int64(s, 7, o->selfNs);
    sqlite3_bind_int64(s, 8, o->gpuN);
    sqlite3_bind_int64(s, 9, o->gpuNs);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_shapes(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                        PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO cpu_op_shape_summary VALUES(?1,?2,?3,?4,?5)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->shapes.nGroup; g++){
    const GroupKey *k = &p->shapes.aKey[g];
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    sqlite3_bind_int64(s, 4, k->c);
    sqlite3_bind_int64(s, 5,
                       ((const ShapeSum*)group_map_val(&p->shapes, g))->calls);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_flops(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                       PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO cpu_op_flops_summary VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->flops.nGroup; g++){
    const GroupKey *k = &p->flops.aKey[g];
    const FlopsSum *fs = group_map_val(&p->flops, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    db_bind_text_or_null(s, 4, group_map_text_of(&p->src, k->c), -1);
    sqlite3_bind_int64(s, 5, fs->calls);
    sqlite3_bind_double(s, 6, fs->flops);
    sqlite3_bind_int64(s, 7, fs->kCalls);
    sqlite3_bind_double(s, 8, fs->kFlops);
    sqlite3_bind_int64(s, 9, fs->kNs);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_runtime(sqlite3 *db, int64_t runId,
                         const SummaryTotals *p, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    db_statement("derive-summary-write-runtime"), pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->rt.nGroup; g++){
    const GroupKey *k = &p->rt.aKey[g];
    const RtSum *r = group_map_val(&p->rt, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    db_bind_text_or_null(s, 4, group_map_text_of(&p->kind, k->c), -1);
    sqlite3_bind_int64(s, 5, r->calls);
    sqlite3_bind_int64(s, 6, r->totalNs);
    sqlite3_bind_int64(s, 7, r->maxNs);
    sqlite3_bind_int64(s, 8, r->launches);
    sqlite3_bind_int64(s, 9, r->delayNs);
    db_bind_int_or_null(s, 10, r->launches>0, r->maxDelay);
    sqlite3_bind_int64(s, 11, r->nShort);
    sqlite3_bind_int64(s, 12, r->rcN);
    sqlite3_bind_int64(s, 13, r->rcNs);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_steps(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                       PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO step_kernel_summary VALUES(?1,?2,?3,?4,?5)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->steps.nGroup; g++){
    const GroupKey *k = &p->steps.aKey[g];
    const StepSum *st = group_map_val(&p->steps, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    sqlite3_bind_int64(s, 4, st->n);
    sqlite3_bind_int64(s, 5, st->ns);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

void derive_summary_totals_init(SummaryTotals *p){
  memset(p, 0, sizeof(*p));
  group_map_init(&p->ops, sizeof(OpSum));
  group_map_init(&p->shapes, sizeof(ShapeSum));
  group_map_init(&p->flops, sizeof(FlopsSum));
  group_map_init(&p->rt, sizeof(RtSum));
  group_map_init(&p->steps, sizeof(StepSum));
}

void derive_summary_totals_free(SummaryTotals *p){
  group_map_free(&p->ops);
  group_map_free(&p->shapes);
  group_map_free(&p->flops);
  group_map_free(&p->rt);
  group_map_free(&p->steps);
  group_map_text_free(&p->src);
  group_map_text_free(&p->kind);
}

int derive_summary_totals_write(sqlite3 *db, int64_t runId,
                                const SummaryTotals *p, PfError *pErr){
  if( write_ops(db, runId, p, pErr)
      || write_shapes(db, runId, p, pErr)
      || write_flops(db, runId, p, pErr)
      || write_runtime(db, runId, p, pErr)
      || write_steps(db, runId, p, pErr) ) return -1;
  return 0;
}
