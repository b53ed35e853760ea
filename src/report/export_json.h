/*
** export_json.h — the output side of `profan export-trace`: the sink the
** JSON goes to (a temporary file renamed into place, gzip for .gz, or
** stdout) and the JSON helpers the writers share.
**
** Pipeline position: read side, under export_trace.c, export_derived.c
** and export_pids.c.
*/
#ifndef PROFAN_EXPORT_JSON_H
#define PROFAN_EXPORT_JSON_H

#include <stdint.h>
#include <stdio.h>
#include "core/util.h"

/* Where the JSON goes: a temporary file renamed into place by
** export_sink_close() (so a failed export leaves no partial file), gzip
** when the name ends in .gz, or stdout for "-". */
typedef struct ExportSink ExportSink;

/* Open the sink for zPath ("-" = stdout).  Returns NULL with pErr set. */
ExportSink *export_sink_open(const char *zPath, PfError *pErr);
/* Append n bytes. */
void export_sink_write(ExportSink *p, const char *z, size_t n);
/* Append the Buf's content and empty it. */
void export_sink_flush_buf(ExportSink *p, Buf *pBuf);
/* Finish: keep (rename into place) when ok, else remove the temporary
** file.  Frees p.  Returns 0, or -1 with pErr set when writing failed. */
int export_sink_close(ExportSink *p, int ok, PfError *pErr);

/* JSON helpers on a Buf. */
void export_json_str(Buf *p, const char *z, int n);     /* "escaped" */
/* ns as microseconds with three decimals ("12.345"); negative allowed. */
void export_json_us(Buf *p, int64_t ns);
/* 1 when z is one complete JSON value (a captured args list), so that it
** may be copied into the output as it is. */
int export_json_valid(const char *z);

#endif
