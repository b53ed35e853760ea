/*
** trace_args.h — interpretation of individual trace fields: memcpy names,
** ProfilerStep numbers, and FLOP estimates from operator input shapes.
**
** Pipeline position: "normalize", between the trace parser and the loader.
** Pure functions; no allocation.
*/
#ifndef PROFAN_TRACE_ARGS_H
#define PROFAN_TRACE_ARGS_H

#include <stdint.h>

/* Copy direction and memory kinds parsed from a memcpy/memset name such as
** "Memcpy HtoD (Pageable -> Device)".  Fields are "" when unknown. */
typedef struct MemcpyKind {
  char zDirection[8];     /* HtoD, DtoH, DtoD, HtoH, PtoP */
  char zSrc[16];          /* Pageable, Pinned, Device, Host, ... */
  char zDst[16];
} MemcpyKind;
void trace_args_memcpy_kind(const char *zName, MemcpyKind *p);

/* N of "ProfilerStep#N" (spaces allowed around '#'); -1 when zName is not
** a step annotation. */
int64_t trace_args_step_number(const char *zName);

/*
** Estimated floating-point operations of a matrix-multiply operator from
** its "Input Dims" JSON text: aten::mm, aten::addmm, aten::bmm,
** aten::baddbmm, aten::addbmm, aten::_scaled_mm (2*M*K*N, times the batch).
** Only these leaf ops are estimated so that nested ops (linear -> addmm,
** matmul -> mm) are never counted twice.  Returns -1 when not estimable.
*/
double trace_args_estimate_flops(const char *zOpName, const char *zInputDims);

/* Parse the first nMax top-level lists of ints of a JSON text like
** "[[8, 256], [256], []]" into aDims[i][0..anDim[i]).  Returns the number
** of lists read (nested lists and non-integers end the parse early). */
int trace_args_parse_dims(const char *z, int nMax, int64_t aDims[][8],
                     int *anDim);

#endif
