/*
** export_pids.h — the processes and threads of `profan export-trace`:
** which pid each row is written with (the trace's own for a one-rank
** export; (rank+1)*1000 + k for several ranks: k the device for GPU rows,
** 500 + n for the n-th host process, 999 for profan's own tracks), and
** the `M` name events of every (pid, tid) written, at the end.
**
** Pipeline position: read side, under export_trace.c and
** export_derived.c.
*/
#ifndef PROFAN_EXPORT_PIDS_H
#define PROFAN_EXPORT_PIDS_H

#include <stdint.h>
#include "core/util.h"
#include "report/export_json.h"

typedef struct ExportPids ExportPids;

enum { EXPORT_PID_HOST, EXPORT_PID_GPU, EXPORT_PID_PROFAN };

/* A new, empty map; merged: several ranks in one file.  Free with
** export_pids_free() (accepts NULL). */
ExportPids *export_pids_new(int merged);
void export_pids_free(ExportPids *p);

/* The pid to write for (rank, kind, original pid); remembers (pid, tid)
** for the name events.  zThread: the thread's name when it is not the
** kind's default ("thread N" / "stream N"), else NULL. */
int64_t export_pids_get(ExportPids *p, int64_t rank, int kind, int64_t pid,
                        int64_t tid, const char *zThread);

/* Append the M events naming every process and thread remembered to
** pOut (each preceded by ",\n"), flushing pOut to pSink as it grows. */
void export_pids_names(const ExportPids *p, Buf *pOut, ExportSink *pSink);

#endif
