/*
** input.c — streamed reading of plain and gzip input files.
**
** Pipeline position: below every parser.  zlib's gz* functions read gzip
** files, read(2) plain ones (zlib's transparent mode copied every byte
** once more: 3.5 % of the trace parser's instructions); the offset
** reported is in uncompressed bytes, which is what a user sees after
** `zcat`.
*/
#include "input/input.h"
#include "core/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct Input {
  gzFile gz;        /* gzip files */
  int fd;           /* plain files (gz is NULL) */
  int64_t offset;   /* uncompressed bytes delivered */
  int isGzip;       /* 1 when the file starts with the gzip magic */
  int hashing;      /* hash the delivered bytes (input_hash_begin) */
  Hash64 hash;
};

/* Non-zero when the file at zPath starts with the gzip magic 1f 8b. */
static int has_gzip_magic(const char *zPath){
  unsigned char m[2] = {0, 0};
  FILE *f = fopen(zPath, "rb");
  size_t n;
  if( f==NULL ) return 0;
  n = fread(m, 1, 2, f);
  fclose(f);
  return n==2 && m[0]==0x1f && m[1]==0x8b;
}

Input *input_open(const char *zPath, PfError *pErr){
  Input *p;
  FILE *f = fopen(zPath, "rb");
  if( f==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  fclose(f);
  p = xcalloc(1, sizeof(*p));
  p->isGzip = has_gzip_magic(zPath);
  p->fd = -1;
  if( !p->isGzip ){
    p->fd = open(zPath, O_RDONLY);
    if( p->fd<0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open: %s", strerror(errno));
      free(p);
      return NULL;
    }
    return p;
  }
  p->gz = gzopen(zPath, "rb");
  if( p->gz==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open: %s", strerror(errno));
    free(p);
    return NULL;
  }
  gzbuffer(p->gz, 1<<18);
  return p;
}

ssize_t input_read(Input *p, void *buf, size_t n, PfError *pErr){
  int r, errnum = 0;
  if( n>(1u<<30) ) n = 1u<<30;
  if( fault_input_read_fails() ){
    pf_error_set(pErr, ERRPOS_BYTE, p->offset, "read error: %s",
                 strerror(EIO));
    return -1;
  }
  if( p->gz==NULL ){
    ssize_t k;
    do{ k = read(p->fd, buf, n); }while( k<0 && errno==EINTR );
    if( k<0 ){
      pf_error_set(pErr, ERRPOS_BYTE, p->offset, "read error: %s",
                   strerror(errno));
      return -1;
    }
    if( p->hashing && k>0 ) hash64_update(&p->hash, buf, (size_t)k);
    p->offset += k;
    return k;
  }
  r = gzread(p->gz, buf, (unsigned)n);
  if( r<0 ){
    const char *z = gzerror(p->gz, &errnum);
    pf_error_set(pErr, ERRPOS_BYTE, p->offset, "%s: %s",
                 p->isGzip ? "corrupt gzip data" : "read error",
                 errnum==Z_ERRNO ? strerror(errno) : z);
    return -1;
  }
  if( r==0 && p->isGzip ){
    /* zlib reports a truncated gzip stream only through gzerror. */
    const char *z = gzerror(p->gz, &errnum);
    if( errnum!=Z_OK && errnum!=Z_STREAM_END ){
      pf_error_set(pErr, ERRPOS_BYTE, p->offset, "corrupt gzip data: %s", z);
      return -1;
    }
  }
  if( p->hashing && r>0 ) hash64_update(&p->hash, buf, (size_t)r);
  p->offset += r;
  return r;
}

void input_hash_begin(Input *p){
  p->hashing = 1;
  hash64_init(&p->hash, 0);
}

int input_hash_end(Input *p, uint64_t *pHash, PfError *pErr){
  static const size_t N = 1<<16;
  unsigned char *buf = xmalloc(N);
  ssize_t r;
  while( (r = input_read(p, buf, N, pErr))>0 ){}
  free(buf);
  if( r<0 ) return -1;
  *pHash = hash64_final(&p->hash);
  return 0;
}

int input_path_is_gzip(const char *zPath){ return has_gzip_magic(zPath); }

int64_t input_offset(const Input *p){ return p->offset; }

void input_close(Input *p){
  if( p ){
    if( p->gz ) gzclose(p->gz);
    else close(p->fd);
    free(p);
  }
}

int input_peek(const char *zPath, char *buf, size_t n, size_t *pn,
               PfError *pErr){
  Input *p = input_open(zPath, pErr);
  size_t got = 0;
  if( p==NULL ) return -1;
  while( got<n ){
    ssize_t r = input_read(p, buf+got, n-got, pErr);
    if( r<0 ){ input_close(p); return -1; }
    if( r==0 ) break;
    got += (size_t)r;
  }
  input_close(p);
  *pn = got;
  return 0;
}

int input_hash_file(const char *zPath, uint64_t *pHash, int64_t *pBytes,
                    PfError *pErr){
  static const size_t N = 1<<20;
  unsigned char *buf;
  Hash64 h;
  size_t r;
  int64_t total = 0;
  int failed;
  FILE *f = fopen(zPath, "rb");
  if( f==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open: %s", strerror(errno));
    return -1;
  }
  buf = xmalloc(N);
  hash64_init(&h, 0);
  while( !(failed = fault_input_read_fails())
         && (r = fread(buf, 1, N, f))>0 ){
    hash64_update(&h, buf, r);
    total += (int64_t)r;
  }
  if( failed || ferror(f) ){
    pf_error_set(pErr, ERRPOS_BYTE, total, "read error: %s", strerror(errno));
    free(buf);
    fclose(f);
    return -1;
  }
  free(buf);
  fclose(f);
  *pHash = hash64_final(&h);
  *pBytes = total;
  return 0;
}

unsigned char *input_slurp(const char *zPath, size_t nMax, size_t *pn,
                           PfError *pErr){
  Input *p = input_open(zPath, pErr);
  size_t cap = 1<<16, n = 0;
  unsigned char *buf;
  if( p==NULL ) return NULL;
  buf = xmalloc(cap);
  for(;;){
    ssize_t r;
    if( n==cap ){
      if( cap>=nMax ){
        pf_error_set(pErr, ERRPOS_BYTE, (int64_t)n,
                     "file larger than %zu bytes", nMax);
        free(buf); input_close(p); return NULL;
      }
      cap *= 2;
      buf = xrealloc(buf, cap);
    }
    r = input_read(p, buf+n, cap-n, pErr);
    if( r<0 ){ free(buf); input_close(p); return NULL; }
    if( r==0 ) break;
    n += (size_t)r;
  }
  input_close(p);
  *pn = n;
  return buf;
}

int64_t input_rank_from_name(const char *zPath){
  const char *zBase = util_basename(zPath);
  static const char *azPrefix[] = {"rank", "worker", 0};
  for(int k=0; azPrefix[k]; k++){
    const char *z = zBase;
    size_t nP = strlen(azPrefix[k]);
    while( (z = strstr(z, azPrefix[k]))!=NULL ){
      const char *d = z + nP;
      if( *d=='_' || *d=='-' ) d++;
      if( *d>='0' && *d<='9' && (z==zBase || z[-1]=='_' || z[-1]=='-'
                                 || z[-1]=='.') ){
        char *zEnd;
        long v = strtol(d, &zEnd, 10);
        if( *zEnd=='_' || *zEnd=='.' || *zEnd=='-' || *zEnd==0 ) return v;
      }
      z += nP;
    }
  }
  return -1;
}
