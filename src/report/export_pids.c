/*
** export_pids.c — the pids and name events of `profan export-trace`
** (export_pids.h).
**
** Pipeline position: read side, under export_trace.c and
** export_derived.c.
*/
#include "report/export_pids.h"

#include <stdlib.h>
#include <string.h>

typedef struct PidEnt {
  int64_t rank, orig, tid, out;
  int kind;
  int k;                /* place within the rank (sort index) */
  char *zThread;        /* owned; NULL = the kind's default */
} PidEnt;

struct ExportPids {
  int merged;
  PidEnt *a;
  int n, nAlloc;
  int iLast;
};

#define PROFAN_PID_SINGLE 1073741824   /* above every OS pid (2^22) */

/* Place of a process within its rank: GPU rows 0..499 (the device),
** host processes 500.., profan's tracks 999. */
static int pid_place(ExportPids *p, int64_t rank, int kind, int64_t pid){
  int nHost = 0;
  if( kind==EXPORT_PID_GPU ) return pid<0 || pid>498 ? 499 : (int)pid;
  if( kind==EXPORT_PID_PROFAN ) return 999;
  for(int i=0; i<p->n; i++){
    const PidEnt *e = &p->a[i];
    if( e->rank!=rank || e->kind!=EXPORT_PID_HOST ) continue;
    if( e->orig==pid ) return e->k;
    if( e->k - 500 + 1 > nHost ) nHost = e->k - 500 + 1;
  }
  return 500 + (nHost>498 ? 498 : nHost);
}

int64_t export_pids_get(ExportPids *p, int64_t rank, int kind, int64_t pid,
                        int64_t tid, const char *zThread){
  PidEnt *e;
  if( p->iLast<p->n ){
    e = &p->a[p->iLast];
    if( e->rank==rank && e->kind==kind && e->orig==pid && e->tid==tid ){
      return e->out;
    }
  }
  for(int i=0; i<p->n; i++){
    e = &p->a[i];
    if( e->rank==rank && e->kind==kind && e->orig==pid && e->tid==tid ){
      p->iLast = i;
      return e->out;
    }
  }
  if( p->n==p->nAlloc ){
    p->nAlloc = p->nAlloc ? 2*p->nAlloc : 32;
    p->a = xrealloc(p->a, (size_t)p->nAlloc*sizeof(PidEnt));
  }
  e = &p->a[p->n];
  memset(e, 0, sizeof(*e));
  e->rank = rank;
  e->kind = kind;
  e->orig = pid;
  e->tid = tid;
  e->k = pid_place(p, rank, kind, pid);
  e->zThread = zThread ? xstrdup(zThread) : NULL;
  if( p->merged ){
    e->out = (rank+1)*1000 + e->k;
  }else{
    e->out = kind==EXPORT_PID_PROFAN ? PROFAN_PID_SINGLE : pid;
  }
  p->iLast = p->n++;
  return e->out;
}

ExportPids *export_pids_new(int merged){
  ExportPids *p = xcalloc(1, sizeof(*p));
  p->merged = merged;
  return p;
}

void export_pids_free(ExportPids *p){
  if( p==NULL ) return;
  for(int i=0; i<p->n; i++) free(p->a[i].zThread);
  free(p->a);
  free(p);
}


void export_pids_names(const ExportPids *p, Buf *pOut, ExportSink *pSink){
  for(int i=0; i<p->n; i++){
    const PidEnt *e = &p->a[i];
    int first = 1;
    for(int j=0; j<i; j++) if( p->a[j].out==e->out ) first = 0;
    if( first ){
      buf_printf(pOut, ",\n{\"ph\":\"M\",\"name\":\"process_name\","
                 "\"pid\":%lld,\"tid\":0,\"args\":{\"name\":\"rank %lld: ",
                 (long long)e->out, (long long)e->rank);
      if( e->kind==EXPORT_PID_GPU ){
        buf_printf(pOut, "GPU %lld", (long long)e->orig);
      }else if( e->kind==EXPORT_PID_HOST ){
        buf_printf(pOut, "pid %lld", (long long)e->orig);
      }
      else buf_puts(pOut, "profan (derived)");
      buf_puts(pOut, "\"}}");
      buf_printf(pOut, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\","
                 "\"pid\":%lld,\"tid\":0,\"args\":{\"sort_index\":%lld}}",
                 (long long)e->out, (long long)((e->rank+1)*1000 + e->k));
      if( e->kind==EXPORT_PID_GPU ){
        buf_printf(pOut, ",\n{\"ph\":\"M\",\"name\":\"process_labels\","
                   "\"pid\":%lld,\"tid\":0,\"args\":{\"labels\":\"GPU %lld\"}}",
                   (long long)e->out, (long long)e->orig);
      }
    }
    buf_printf(pOut, ",\n{\"ph\":\"M\",\"name\":\"thread_name\","
               "\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
               (long long)e->out, (long long)e->tid);
    if( e->zThread ){
      export_json_str(pOut, e->zThread, -1);
    }else{
      buf_printf(pOut, "\"%s %lld\"", e->kind==EXPORT_PID_GPU ? "stream"
                 : "thread", (long long)e->tid);
    }
    buf_puts(pOut, "}}");
    if( e->kind==EXPORT_PID_PROFAN ){
      buf_printf(pOut, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\","
                 "\"pid\":%lld,\"tid\":%lld,\"args\":{\"sort_index\":%lld}}",
                 (long long)e->out, (long long)e->tid, (long long)e->tid);
    }
    if( pOut->n > 256*1024 ) export_sink_flush_buf(pSink, pOut);
  }
}
