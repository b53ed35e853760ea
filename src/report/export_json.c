/*
** export_json.c — the output side of `profan export-trace`: a sink that
** writes plain or gzip JSON to a temporary file renamed into place on
** success, and the JSON text helpers (string escaping, microsecond
** numbers, a validity check for captured args lists).
**
** Pipeline position: read side, below export_trace.c.
*/
#include "report/export_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct ExportSink {
  char *zPath;          /* final name, or NULL for stdout */
  char *zTmp;           /* temporary name next to it */
  FILE *f;              /* plain output */
  gzFile gz;            /* gzip output */
  int err;              /* a write failed */
  int errNo;
};

static int ends_with(const char *z, const char *zSuffix){
  size_t n = strlen(z), m = strlen(zSuffix);
  return n>=m && strcmp(z+n-m, zSuffix)==0;
}

ExportSink *export_sink_open(const char *zPath, PfError *pErr){
  ExportSink *p = xcalloc(1, sizeof(*p));
  if( strcmp(zPath, "-")==0 ){
    p->f = stdout;
    return p;
  }
  p->zPath = xstrdup(zPath);
  p->zTmp = xasprintf("%s.tmp%ld", zPath, (long)getpid());
  if( ends_with(zPath, ".gz") ){
    p->gz = gzopen(p->zTmp, "wb6");
    if( p->gz ) gzbuffer(p->gz, 256*1024);
  }else{
    p->f = fopen(p->zTmp, "wb");
  }
  if( p->gz==NULL && p->f==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write %s: %s", zPath,
                 strerror(errno));
    free(p->zPath);
    free(p->zTmp);
    free(p);
    return NULL;
  }
  return p;
}

void export_sink_write(ExportSink *p, const char *z, size_t n){
  if( p->err || n==0 ) return;
  if( p->gz ){
    if( gzwrite(p->gz, z, (unsigned)n)!=(int)n ){ p->err = 1; p->errNo = EIO; }
  }else if( fwrite(z, 1, n, p->f)!=n ){
    p->err = 1;
    p->errNo = errno;
  }
}

void export_sink_flush_buf(ExportSink *p, Buf *pBuf){
  export_sink_write(p, pBuf->z, pBuf->n);
  buf_reset(pBuf);
}

int export_sink_close(ExportSink *p, int ok, PfError *pErr){
  int rc = 0;
  if( p->gz ){
    if( gzclose(p->gz)!=Z_OK && !p->err ){ p->err = 1; p->errNo = EIO; }
  }else if( p->f==stdout ){
    if( fflush(stdout)!=0 && !p->err ){ p->err = 1; p->errNo = errno; }
  }else if( p->f ){
    if( fclose(p->f)!=0 && !p->err ){ p->err = 1; p->errNo = errno; }
  }
  if( ok && p->err ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write %s: %s",
                 p->zPath ? p->zPath : "stdout", strerror(p->errNo));
    rc = -1;
    ok = 0;
  }
  if( p->zTmp ){
    if( ok && rename(p->zTmp, p->zPath)!=0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write %s: %s", p->zPath,
                   strerror(errno));
      rc = -1;
      ok = 0;
    }
    if( !ok ) unlink(p->zTmp);
  }
  free(p->zPath);
  free(p->zTmp);
  free(p);
  return rc;
}

/* ------------------------------------------------------------- JSON */

void export_json_str(Buf *p, const char *z, int n){
  static const char hex[] = "0123456789abcdef";
  size_t len = n<0 ? (z ? strlen(z) : 0) : (size_t)n;
  size_t i, start = 0;
  buf_putc(p, '"');
  for(i=0; i<len; i++){
    unsigned char c = (unsigned char)z[i];
    if( c>=0x20 && c!='"' && c!='\\' && c!=0x7f ) continue;
    buf_append(p, z+start, i-start);
    start = i+1;
    switch( c ){
      case '"': buf_append(p, "\\\"", 2); break;
      case '\\': buf_append(p, "\\\\", 2); break;
      case '\n': buf_append(p, "\\n", 2); break;
      case '\t': buf_append(p, "\\t", 2); break;
      case '\r': buf_append(p, "\\r", 2); break;
      default: {
        char e[6] = { '\\', 'u', '0', '0', hex[c>>4], hex[c&15] };
        buf_append(p, e, 6);
      }
    }
  }
  if( len>start ) buf_append(p, z+start, len-start);   /* z may be NULL */
  buf_putc(p, '"');
}

void export_json_us(Buf *p, int64_t ns){
  char z[32];
  uint64_t u = ns<0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  snprintf(z, sizeof(z), "%s%llu.%03u", ns<0 ? "-" : "",
           (unsigned long long)(u/1000), (unsigned)(u%1000));
  buf_puts(p, z);
}

/* A tiny validating scanner: returns the position after the value at z,
** or NULL.  Depth is capped so that a hostile list cannot blow the stack. */
static const char *skip_ws(const char *z){
  while( *z==' ' || *z=='\t' || *z=='\n' || *z=='\r' ) z++;
  return z;
}

static const char *scan_value(const char *z, int depth){
  z = skip_ws(z);
  if( depth>64 ) return NULL;
  if( *z=='"' ){
    for(z++; *z && *z!='"'; z++){
      if( (unsigned char)*z<0x20 ) return NULL;
      if( *z=='\\' ){
        z++;
        if( *z=='u' ){
          for(int i=1; i<=4; i++){
            if( !z[i] || !strchr("0123456789abcdefABCDEF", z[i]) ) return NULL;
          }
          z += 4;
        }else if( !*z || !strchr("\"\\/bfnrt", *z) ){
          return NULL;
        }
      }
    }
    return *z=='"' ? z+1 : NULL;
  }
  if( *z=='[' || *z=='{' ){
    char close = *z=='[' ? ']' : '}';
    int isObj = *z=='{';
    z = skip_ws(z+1);
    if( *z==close ) return z+1;
    for(;;){
      if( isObj ){
        z = skip_ws(z);
        if( *z!='"' ) return NULL;          /* keys are strings */
        z = scan_value(z, depth+1);
        if( z==NULL ) return NULL;
        z = skip_ws(z);
        if( *z!=':' ) return NULL;
        z++;
      }
      z = scan_value(z, depth+1);
      if( z==NULL ) return NULL;
      z = skip_ws(z);
      if( *z==',' ){ z++; continue; }
      return *z==close ? z+1 : NULL;
    }
  }
  if( strncmp(z, "true", 4)==0 ) return z+4;
  if( strncmp(z, "false", 5)==0 ) return z+5;
  if( strncmp(z, "null", 4)==0 ) return z+4;
  if( *z=='-' || (*z>='0' && *z<='9') ){
    if( *z=='-' ) z++;
    if( !(*z>='0' && *z<='9') ) return NULL;
    while( *z>='0' && *z<='9' ) z++;
    if( *z=='.' ){
      z++;
      if( !(*z>='0' && *z<='9') ) return NULL;
      while( *z>='0' && *z<='9' ) z++;
    }
    if( *z=='e' || *z=='E' ){
      z++;
      if( *z=='+' || *z=='-' ) z++;
      if( !(*z>='0' && *z<='9') ) return NULL;
      while( *z>='0' && *z<='9' ) z++;
    }
    return z;
  }
  return NULL;
}

int export_json_valid(const char *z){
  const char *zEnd;
  if( z==NULL || *z==0 ) return 0;
  zEnd = scan_value(z, 0);
  return zEnd!=NULL && *skip_ws(zEnd)==0;
}
