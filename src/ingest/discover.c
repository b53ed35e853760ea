/*
** discover.c — walking input paths and sniffing file kinds by content.
**
** Pipeline position: "discover" -> "sniff".  A file's kind comes from its
** first bytes (after gzip decompression), not its name, through the table
** of input kinds (input_kinds.c).  Unknown files are kept in the list with
** the reason they are skipped, so the user is told.
*/
#include "ingest/discover.h"
#include "input/input.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SNIFF_BYTES (1<<20)

void discover_filelist_free(FileList *p){
  for(int i=0; i<p->n; i++) free(p->a[i].zPath);
  free(p->a);
  memset(p, 0, sizeof(*p));
}

static FoundFile *list_add(FileList *p, const char *zPath){
  FoundFile *f;
  if( p->n==p->nAlloc ){
    p->nAlloc = p->nAlloc ? p->nAlloc*2 : 16;
    p->a = xrealloc(p->a, p->nAlloc*sizeof(FoundFile));
  }
  f = &p->a[p->n++];
  memset(f, 0, sizeof(*f));
  f->zPath = xstrdup(zPath);
  return f;
}

FileKind discover_sniff(const char *buf, size_t n, char *zWhy, size_t nWhy){
  int c = input_kind_first_byte(buf, n);
  FileKind e;
  if( c<0 ){
    snprintf(zWhy, nWhy, "empty file");
    return KIND_UNKNOWN;
  }
  e = input_kind_sniff(buf, n);
  if( e!=KIND_UNKNOWN ) return e;
  if( c=='{' ){
    snprintf(zWhy, nWhy, "JSON without \"traceEvents\" in its first MiB");
  }else if( c=='[' ){
    snprintf(zWhy, nWhy, "JSON array without trace events (no object"
             " with \"ph\" and \"ts\" in its first MiB)");
  }else{
    snprintf(zWhy, nWhy, "not a trace, memory snapshot or NCCL log");
  }
  return KIND_UNKNOWN;
}

/* Sniff one file and add it to the list. */
static void add_file(const char *zPath, int explicitArg, FileList *pList){
  char *buf = xmalloc(SNIFF_BYTES);
  size_t n = 0;
  PfError e = {0};
  FoundFile *f = list_add(pList, zPath);
  f->explicitArg = explicitArg;
  if( input_peek(zPath, buf, SNIFF_BYTES, &n, &e) ){
    /* a read error inside the first MiB: let the parser report it */
    f->eKind = explicitArg ? KIND_TRACE : KIND_UNKNOWN;
    if( !explicitArg ){
      snprintf(f->zSkip, sizeof(f->zSkip), "%.120s", e.zMsg);
      f->unreadable = 1;
    }
  }else{
    f->eKind = discover_sniff(buf, n, f->zSkip, sizeof(f->zSkip));
    if( f->eKind==KIND_UNKNOWN && explicitArg && n>0
        && (buf[0]=='{' || buf[0]=='[' || buf[0]==' ' || buf[0]=='\n') ){
      /* a named JSON file: parse it and report what is wrong with it */
      f->eKind = KIND_TRACE;
      f->zSkip[0] = 0;
    }
    if( f->eKind==KIND_UNKNOWN && explicitArg && n==0 ){
      f->eKind = KIND_TRACE;    /* "empty file" from the parser */
      f->zSkip[0] = 0;
    }
  }
  if( f->eKind!=KIND_UNKNOWN ) f->zSkip[0] = 0;
  free(buf);
}

static int cmp_str(const void *a, const void *b){
  return strcmp(*(char *const*)a, *(char *const*)b);
}

/* Walk directory zDir recursively in sorted order. */
static int walk_dir(const char *zDir, FileList *pList, int depth,
                    PfError *pErr){
  DIR *d;
  struct dirent *de;
  char **az = NULL;
  int n = 0, nAlloc = 0, rc = 0;
  if( depth>64 ) return 0;
  d = opendir(zDir);
  if( d==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot read directory: %s",
                 strerror(errno));
    return -1;
  }
  while( (de = readdir(d))!=NULL ){
    if( de->d_name[0]=='.' ) continue;
    if( n==nAlloc ){
      nAlloc = nAlloc ? nAlloc*2 : 32;
      az = xrealloc(az, nAlloc*sizeof(char*));
    }
    az[n++] = xstrdup(de->d_name);
  }
  closedir(d);
  /* az is NULL when n==0 */
  if( n>1 ) qsort(az, (size_t)n, sizeof(char*), cmp_str);
  for(int i=0; i<n; i++){
    char *zPath = xasprintf("%s%s%s", zDir,
                            zDir[strlen(zDir)-1]=='/' ? "" : "/", az[i]);
    struct stat st;
    if( stat(zPath, &st)==0 ){
      if( S_ISDIR(st.st_mode) ){
        PfError e = {0};
        if( walk_dir(zPath, pList, depth+1, &e) ){
          FoundFile *f = list_add(pList, zPath);
          snprintf(f->zSkip, sizeof(f->zSkip), "%.120s", e.zMsg);
          f->unreadable = 1;
        }
      }else if( S_ISREG(st.st_mode) ){
        add_file(zPath, 0, pList);
      }
    }else{
      FoundFile *f = list_add(pList, zPath);
      snprintf(f->zSkip, sizeof(f->zSkip), "%s", strerror(errno));
      f->unreadable = 1;
    }
    free(zPath);
    free(az[i]);
  }
  free(az);
  return rc;
}

int discover_path(const char *zPath, FileList *pList, PfError *pErr){
  struct stat st;
  if( stat(zPath, &st)!=0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", strerror(errno));
    return -1;
  }
  if( S_ISDIR(st.st_mode) ) return walk_dir(zPath, pList, 0, pErr);
  if( !S_ISREG(st.st_mode) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "not a regular file or directory");
    return -1;
  }
  add_file(zPath, 1, pList);
  return 0;
}
