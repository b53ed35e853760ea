/*
** trace_record.h — a TraceEvent as a compact record of bytes, for the
** in-stream linker's spools (spool.h): the events it defers, replays or
** holds are written as records and read back later in the same file.
**
** Pipeline position: under link_trace.c, in the parser threads.  A record
** stores the fixed head of the event, the 8-byte fields that are not zero
** (a runtime call sets 15 of 39), the CollArgs when the event has them and
** the five strings, padded to 8 bytes: ~150 bytes where the whole
** TraceEvent is 400.
*/
#ifndef PROFAN_TRACE_RECORD_H
#define PROFAN_TRACE_RECORD_H

#include "trace/parse_trace.h"
#include "core/spool.h"

#include <stdint.h>

/* Bytes of a record's head: trace_record_len() needs these. */
#define TRACE_RECORD_HEAD 56

/* Append the record of e to s; *pLen gets its length.  0, or -1 when the
** spool cannot be written. */
int trace_record_append(Spool *s, const TraceEvent *e, int64_t *pLen);

/* Length of the record whose first TRACE_RECORD_HEAD bytes are at z. */
int64_t trace_record_len(const char *z);

/* Rebuild the event of the whole record at z (8-byte aligned); its
** strings and CollArgs point into z. */
void trace_record_decode(const char *z, TraceEvent *e);

#endif
