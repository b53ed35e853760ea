/*
** op_store.h — what the operator model's ingest pass needs of a run's
** rows, kept as they come: each operator call's signature (name and
** input strings) and the intervals of the kernels, memsets and memcpys it
** launched, and the run's counts of kernels without a launch.
**
** Pipeline position: filled through trace_keep.h (by the writer, or by
** the stored-rows feeder trace_feed.c) beside the spans of trace_spans.c
** (which owns the store), read by derive_op.c, which writes op_sig,
** op_gpu_time and two of op_run_metric's arms from it.  The one
** implementation of these rows: the views of schema 022/027/028
** (op_sig_calc, op_call_time_calc, op_metric_calc) are their
** specification, checked against them on every fixture
** (tests/e2e/test_oracle.py).  Memory: 8 bytes per operator call and 32
** per call with GPU rows; the GPU rows with an op (24 bytes each) go to
** spools (spool.h), read back one file at a time when the calls are
** written.
*/
#ifndef PROFAN_OP_STORE_H
#define PROFAN_OP_STORE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

typedef struct OpStore OpStore;

/* A GPU row as inserted (kernel or gpu_mem_op).  Its runtime_id and
** op_id must be final: a run whose linkage the database redoes is
** derived from the views (ingest.c frees the spans then). */
typedef struct OpGpuRow {
  int64_t opId;          /* op_id; 0 when NULL */
  int64_t ts, dur;
  int64_t device;        /* when hasDev */
  const char *zName;     /* kernels: the name (nName bytes) */
  int64_t nName;
  int64_t nameId;
  int isKernel;          /* 1 kernel, 0 gpu_mem_op */
  int isMemcpy;          /* gpu_mem_op of kind 'memcpy' */
  int host;              /* a memcpy whose direction is not DtoD */
  int hasDev;
  int hasRuntime;        /* runtime_id not NULL */
} OpGpuRow;

/* A new, empty store; caller frees it with op_store_free(). */
OpStore *op_store_new(void);
void op_store_free(OpStore *p);                   /* accepts NULL */

/* Read what the hooks need from db (the TF32 kernel patterns); on an
** error the store gives up.  Every call below accepts NULL. */
void op_store_begin(OpStore *p, sqlite3 *db);

/* One cpu_op row of file fileId: its id and signature (string ids, 0 for
** a NULL column). */
void op_store_cpu(OpStore *p, int64_t fileId, int64_t opId, int64_t nameId,
                  int64_t dimsId, int64_t typesId, int64_t concId);
/* One kernel or gpu_mem_op row of file fileId. */
void op_store_gpu(OpStore *p, int64_t fileId, const OpGpuRow *r);
/* File fileId's final rank. */
void op_store_file_done(OpStore *p, int64_t fileId, int64_t rank);

/* 0 when the calls can be written: every row's op id was the linker's,
** every file has its rank, every call with GPU rows its cpu_op row; else
** -1 with pErr set (the writer and the stored-rows feeder never give
** such rows). */
int op_store_check(const OpStore *p, PfError *pErr);

/* Insert run runId's signatures into op_sig (new ones not modeled) and
** its op_gpu_time rows.  Returns 0 or -1 with pErr set. */
int op_store_write_calls(OpStore *p, sqlite3 *db, int64_t runId,
                         PfError *pErr);
/* Insert run runId's kernels_without_launch(_ms) rows of op_run_metric.
** Returns 0 or -1 with pErr set. */
int op_store_write_unlaunched(const OpStore *p, sqlite3 *db, int64_t runId,
                              PfError *pErr);
/* 1 when the run has a memcpy row (exposed_memcpy_ms has a value). */
int op_store_has_memcpy(const OpStore *p);

#endif
