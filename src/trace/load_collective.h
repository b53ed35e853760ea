/*
** load_collective.h — collective-communication arguments of trace events
** (docs/formats.md §1.7): the keys record_param_comms ops and, since kineto
** 2023-10, NCCL kernels carry ("Collective name", "dtype", "In msg
** nelems", "Process Group Ranks", ...), their older names, and the table
** coll_args they are written to.  Also the vocabulary shared with the
** derive stage: c10d / NCCL kernel names to one op name, dtype names to
** element sizes, and nccl-tests bus-bandwidth factors.
**
** Pipeline position: "parse" (key lookup and value capture, called by the
** trace parser for every args key it does not know itself) and "load"
** (one coll_args row per event that carried any of the keys).  Pure
** functions except load_collective_row(); nothing allocates.
*/
#ifndef PROFAN_LOAD_COLLECTIVE_H
#define PROFAN_LOAD_COLLECTIVE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include "core/util.h"

/* Argument ids returned by load_collective_args_key() (0: not a collective
** arg).  The has-bit of id k in CollArgs.has is (1u<<k). */
enum {
  CA_NONE = 0,
  CA_COLL_NAME,        /* "Collective name" */
  CA_DTYPE,            /* "dtype" */
  CA_IN_NELEMS,        /* "In msg nelems", before 2023-12 "In msg size" */
  CA_OUT_NELEMS,       /* "Out msg nelems" / "Out msg size" */
  CA_GROUP_SIZE,       /* "Group size" */
  CA_PG_NAME,          /* "Process Group Name", before 2024-04 "... ID" */
  CA_PG_DESC,          /* "Process Group Description" */
  CA_PG_RANKS,         /* "Process Group Ranks" (a string "[0, 1]") */
  CA_IN_SPLIT,         /* "In split size" (a string "[]") */
  CA_OUT_SPLIT,        /* "Out split size" */
  CA_SRC_RANK,         /* "Src Rank" (p2p) */
  CA_DST_RANK,         /* "Dst Rank" */
  CA_SEQ,              /* "Seq" (2026) */
  CA_N
};

/* Where a coll_args row came from (coll_args.src). */
enum { COLL_SRC_CPU_OP = 0, COLL_SRC_KERNEL = 1, COLL_SRC_ANNOTATION = 2 };

#define COLL_RANKS_MAX 160   /* longer rank lists are not kept (NULL) */

/*
** The collective arguments of one event.  Plain data, copyable by value
** (a TraceEvent may embed it); every string is a NUL-terminated copy.
** Zero it (memset or load_collective_args_reset) before each event.
*/
typedef struct CollArgs {
  uint32_t has;               /* (1u<<CA_*) for each arg seen */
  char zCollName[40];
  char zDtype[24];
  int64_t inNelems, outNelems, groupSize;
  char zPgName[48];
  char zPgDesc[32];
  char zPgRanks[COLL_RANKS_MAX];  /* "" when absent or too long */
  char zInSplit[32];              /* cut at 31 bytes */
  char zOutSplit[32];
  int64_t srcRank, dstRank, seq;
} CollArgs;

/*
** Id (> 0) of the args key zKey[0..n) when it is one of the collective
** keys above, old names included; 0 otherwise.  Exact, case-sensitive.
*/
int load_collective_args_key(const unsigned char *zKey, size_t n);

/* Forget every value (has = 0). */
void load_collective_args_reset(CollArgs *p);

/*
** Store the scalar value z[0..n) of the arg with id key (from
** load_collective_args_key) in p.  isNum: z is JSON number text, else the
** string's bytes.  Numbers given as strings ("8") are accepted; values
** that do not parse are ignored.  Returns 0 when stored, -1 otherwise.
*/
int load_collective_args_set(CollArgs *p, int key, const unsigned char *z,
                        size_t n, int isNum);

/*
** Fill in_nelems and dtype of p from an op's "Input Dims" / "Input type"
** JSON texts (nccl:* annotations in 2021-2023 traces carry nothing else):
** in_nelems = sum over tensors of the product of their dims, dtype = the
** first non-empty type.  Leaves p unchanged when no tensor has dims.
** Returns 0 if something was filled, -1 otherwise.
*/
int load_collective_args_from_dims(CollArgs *p, const char *zInputDims,
                              const char *zInputTypes);

/*
** Insert one coll_args row for the event rowId of kind eSrc
** (COLL_SRC_*), tagged (runId, rank, fileId).  Rows with has == 0 are
** not written.  *ppIns: the INSERT, prepared on the first row (NULL
** before it) and kept for the next ones; the caller finalizes it.
** Returns 0, or -1 with the sqlite message in pErr.
*/
int load_collective_row(sqlite3 *db, sqlite3_stmt **ppIns, int64_t runId,
                        int64_t rank,
                        int64_t fileId, int64_t rowId, int eSrc,
                        const CollArgs *p, PfError *pErr);

/* ------------------------------------------------------ vocabulary */

/*
** One op name for a c10d collective name ("allreduce", "_allgather_base",
** "reduce_scatter_tensor_coalesced", "nccl:all_gather" ...), an NCCL API
** or kernel function name ("AllReduce", "SendRecv") or a flight-recorder
** profiling name ("nccl:send 0->1").  Returns a static string:
** all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce,
** gather, scatter, send, recv, send_recv, barrier, or "other".
*/
const char *load_collective_op_name(const char *z, size_t n);

/*
** Canonical dtype for a c10 ScalarType name ("BFloat16"), an "Input type"
** ("c10::BFloat16", "float", "long int") or an NCCL kernel type suffix
** ("float", "__nv_bfloat16", "f32", "bf16", "int8_t").  Returns a static
** string ("float32", "bfloat16", ...) and sets *pSize to the element size
** in bytes; NULL and *pSize = 0 when unknown.
*/
const char *load_collective_dtype(const char *z, size_t n, int *pSize);

/*
** Parse an NCCL/RCCL kernel name: "ncclKernel_AllReduce_RING_LL_Sum_float(
** ...)" (<= 2.18), "ncclDevKernel_AllGather_RING_LL(...)" and
** "ncclDevKernel_Generic" (2.19+).  Returns 1 for an NCCL kernel and fills
** the outputs (static strings, NULL when the name does not say), else 0.
*/
int load_collective_parse_kernel(const char *zName, const char **pzOp,
                            const char **pzAlgo, const char **pzProto,
                            const char **pzDtype, int *pElemSize);

/* busbw / algbw for op and group size n (nccl-tests PERFORMANCE.md):
** all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n;
** everything else 1.  n < 1 gives 1. */
double load_collective_bus_factor(const char *zOp, int64_t n);

#endif
