/*
** input.c — streamed reading of plain and gzip input files.
**
** Pipeline position: below every parser.  read(2) reads plain files
** (zlib's transparent mode copied every byte once more: 3.5 % of the
** trace parser's instructions); gzip files go through inflate() the way
** zlib's gzread() drives it (the same buffers, reads and errors: gz_*
** below), except that inflate does not check the CRC-32 of each member:
** crc32_fast.c does, as the bytes come out (zlib's crc32 was 4 % of an
** ingest of a .json.gz trace).  The offset reported is in uncompressed
** bytes, which is what a user sees after `zcat`.
*/
#include "input/input.h"
#include "core/fault.h"
#include "input/crc32_fast.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A gzip file being read (zlib's gz_state for reading, as far as input.c
** uses it). */
#define GZ_IN (1<<18)             /* compressed bytes read at once */
#define GZ_OUT (GZ_IN<<1)         /* bytes inflated ahead */
enum { GZ_LOOK, GZ_GZIP };
typedef struct Gz {
  z_stream s;
  int fd;
  char *zPath;                    /* for the messages, as zlib words them */
  unsigned char *aIn, *aOut;
  unsigned char *zNext;           /* inflated bytes not delivered yet */
  size_t nHave;
  int how;                        /* GZ_LOOK: at a member's start */
  int eof;                        /* the file's end was read */
  int err;                        /* Z_OK, Z_BUF_ERROR (truncated) or the
                                  ** fatal Z_* error */
  char *zMsg;                     /* "PATH: message" (malloc) or NULL */
  int checking;                   /* this member's CRC-32 is ours to check */
  uint32_t crc, size;             /* of this member's bytes so far */
  unsigned char aTail[8];         /* the last bytes of earlier fills */
} Gz;

struct Input {
  Gz *gz;           /* gzip files */
  int fd;           /* plain files (gz is NULL) */
  int64_t offset;   /* uncompressed bytes delivered */
  int isGzip;       /* 1 when the file starts with the gzip magic */
  int hashing;      /* hash the delivered bytes (input_hash_begin) */
  Hash64 hash;
};

/* Set the error of g: err, and "PATH: zMsg" (zlib's gz_error). */
static void gz_error(Gz *g, int err, const char *zMsg){
  free(g->zMsg);
  g->zMsg = NULL;
  if( err!=Z_OK && err!=Z_BUF_ERROR ) g->nHave = 0;
  g->err = err;
  if( zMsg==NULL || err==Z_MEM_ERROR ) return;
  g->zMsg = xmalloc(strlen(g->zPath) + strlen(zMsg) + 3);
  sprintf(g->zMsg, "%s: %s", g->zPath, zMsg);
}

/* The message of g's error (zlib's gzerror). */
static const char *gz_message(const Gz *g){
  if( g->err==Z_MEM_ERROR ) return "out of memory";
  return g->zMsg ? g->zMsg : "";
}

/* Read up to n bytes at z, looping on read(); *pGot gets the count.  0, or
** -1 with the error set (zlib's gz_load). */
static int gz_load(Gz *g, unsigned char *z, size_t n, size_t *pGot){
  ssize_t k = 0;
  *pGot = 0;
  do{
    k = read(g->fd, z + *pGot, n - *pGot);
    if( k<=0 ) break;
    *pGot += (size_t)k;
  }while( *pGot<n );
  if( k<0 ){
    gz_error(g, Z_ERRNO, strerror(errno));
    return -1;
  }
  if( k==0 ) g->eof = 1;
  return 0;
}

/* Refill the input after what is left of it (zlib's gz_avail); the bytes
** consumed before go to aTail.  0 or -1. */
static int gz_avail(Gz *g){
  size_t got;
  z_stream *s = &g->s;
  if( g->err!=Z_OK && g->err!=Z_BUF_ERROR ) return -1;
  if( g->eof ) return 0;
  if( s->next_in ){
    size_t used = (size_t)(s->next_in - g->aIn);
    if( used>=8 ){
      memcpy(g->aTail, s->next_in - 8, 8);
    }else{
      memmove(g->aTail, g->aTail + used, 8 - used);
      memcpy(g->aTail + 8 - used, g->aIn, used);
    }
  }
  if( s->avail_in ) memmove(g->aIn, s->next_in, s->avail_in);
  if( gz_load(g, g->aIn + s->avail_in, GZ_IN - s->avail_in, &got) ) return -1;
  s->avail_in += (uInt)got;
  s->next_in = g->aIn;
  return 0;
}

/* At a member's start: another member, or the end (trailing bytes that
** are not a member are ignored, as zlib does).  0 or -1. */
static int gz_look(Gz *g){
  z_stream *s = &g->s;
  if( s->avail_in<2 ){
    if( gz_avail(g) ) return -1;
    if( s->avail_in==0 ) return 0;
  }
  if( s->avail_in>1 && s->next_in[0]==31 && s->next_in[1]==139 ){
    inflateReset(s);
    /* a header with its own CRC (FHCRC) is zlib's to check whole */
    g->checking = s->avail_in>3 && (s->next_in[3] & 2)==0;
    inflateValidate(s, !g->checking);
    g->crc = 0;
    g->size = 0;
    g->how = GZ_GZIP;
    return 0;
  }
  s->avail_in = 0;
  g->eof = 1;
  g->nHave = 0;
  return 0;
}

/* The member's trailer (CRC-32, size; little-endian) were the 8 bytes
** inflate consumed last: check them against what came out, in zlib's
** order and words.  0 or -1 with the error set. */
static int gz_check(Gz *g){
  unsigned char a[8];
  size_t used = (size_t)(g->s.next_in - g->aIn);
  uint32_t crc, size;
  if( used>=8 ){
    memcpy(a, g->s.next_in - 8, 8);
  }else{
    memcpy(a, g->aTail + used, 8 - used);
    memcpy(a + 8 - used, g->aIn, used);
  }
  crc = a[0] | (uint32_t)a[1]<<8 | (uint32_t)a[2]<<16 | (uint32_t)a[3]<<24;
  size = a[4] | (uint32_t)a[5]<<8 | (uint32_t)a[6]<<16 | (uint32_t)a[7]<<24;
  if( crc!=g->crc ){
    gz_error(g, Z_DATA_ERROR, "incorrect data check");
    return -1;
  }
  if( size!=g->size ){
    gz_error(g, Z_DATA_ERROR, "incorrect length check");
    return -1;
  }
  return 0;
}

/* Inflate into the output space set in g->s until it is full or the
** member ends (zlib's gz_decomp); the bytes out go to the CRC.  0 or -1. */
static int gz_decomp(Gz *g){
  z_stream *s = &g->s;
  int rc = Z_OK;
  uInt had = s->avail_out;
  do{
    unsigned char *zOut = s->next_out;
    if( s->avail_in==0 && gz_avail(g) ) return -1;
    if( s->avail_in==0 ){
      gz_error(g, Z_BUF_ERROR, "unexpected end of file");
      break;
    }
    rc = inflate(s, Z_NO_FLUSH);
    if( g->checking && s->next_out>zOut ){
      size_t n = (size_t)(s->next_out - zOut);
      g->crc = crc32_fast(g->crc, zOut, n);
      g->size += (uint32_t)n;
    }
    if( rc==Z_STREAM_ERROR || rc==Z_NEED_DICT ){
      gz_error(g, Z_STREAM_ERROR, "internal error: inflate stream corrupt");
      return -1;
    }
    if( rc==Z_MEM_ERROR ){
      gz_error(g, Z_MEM_ERROR, "out of memory");
      return -1;
    }
    if( rc==Z_DATA_ERROR ){
      gz_error(g, Z_DATA_ERROR, s->msg ? s->msg : "compressed data error");
      return -1;
    }
    if( rc==Z_STREAM_END && g->checking && gz_check(g) ) return -1;
  }while( s->avail_out && rc!=Z_STREAM_END );
  g->nHave = had - s->avail_out;
  g->zNext = s->next_out - g->nHave;
  if( rc==Z_STREAM_END ) g->how = GZ_LOOK;
  return 0;
}

/* Fill the output buffer (zlib's gz_fetch).  0 or -1. */
static int gz_fetch(Gz *g){
  do{
    if( g->how==GZ_LOOK ){
      if( gz_look(g) ) return -1;
      if( g->how==GZ_LOOK ) return 0;
    }else{
      g->s.avail_out = GZ_OUT;
      g->s.next_out = g->aOut;
      if( gz_decomp(g) ) return -1;
    }
  }while( g->nHave==0 && (!g->eof || g->s.avail_in) );
  return 0;
}

/* Up to n bytes to buf (zlib's gzread).  Returns the count, or -1 on a
** fatal error (a truncated file ends the bytes and leaves Z_BUF_ERROR). */
static ssize_t gz_read(Gz *g, unsigned char *buf, size_t n){
  size_t got = 0;
  if( g->err!=Z_OK && g->err!=Z_BUF_ERROR ) return -1;
  while( n>0 ){
    size_t k = n;
    if( g->nHave ){
      if( g->nHave<k ) k = g->nHave;
      memcpy(buf, g->zNext, k);
      g->zNext += k;
      g->nHave -= k;
    }else if( g->eof && g->s.avail_in==0 ){
      break;
    }else if( g->how==GZ_LOOK || k<GZ_OUT ){
      if( gz_fetch(g) ) return -1;
      continue;
    }else{
      /* a large read inflates into buf itself */
      g->s.avail_out = (uInt)k;
      g->s.next_out = buf;
      if( gz_decomp(g) ) return -1;
      k = g->nHave;
      g->nHave = 0;
    }
    n -= k;
    buf += k;
    got += k;
  }
  return (ssize_t)got;
}

static void gz_close(Gz *g){
  if( g==NULL ) return;
  inflateEnd(&g->s);
  close(g->fd);
  free(g->aIn);
  free(g->aOut);
  free(g->zMsg);
  free(g->zPath);
  free(g);
}

/* Open the gzip file zPath, or NULL (errno set). */
static Gz *gz_open(const char *zPath){
  Gz *g = xcalloc(1, sizeof(*g));
  g->fd = open(zPath, O_RDONLY);
  if( g->fd<0 ){
    free(g);
    return NULL;
  }
  if( inflateInit2(&g->s, 15 + 16)!=Z_OK ){
    close(g->fd);
    free(g);
    errno = ENOMEM;
    return NULL;
  }
  g->zPath = xstrdup(zPath);
  g->aIn = xmalloc(GZ_IN);
  g->aOut = xmalloc(GZ_OUT);
  g->how = GZ_LOOK;
  return g;
}

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
  p->gz = gz_open(zPath);
  if( p->gz==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open: %s", strerror(errno));
    free(p);
    return NULL;
  }
  return p;
}

ssize_t input_read(Input *p, void *buf, size_t n, PfError *pErr){
  ssize_t r;
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
  r = gz_read(p->gz, buf, n);
  if( r<0 ){
    pf_error_set(pErr, ERRPOS_BYTE, p->offset, "corrupt gzip data: %s",
                 p->gz->err==Z_ERRNO ? strerror(errno) : gz_message(p->gz));
    return -1;
  }
  if( r==0 && p->gz->err!=Z_OK ){
    /* a truncated gzip stream ends its bytes, then reads as an error */
    pf_error_set(pErr, ERRPOS_BYTE, p->offset, "corrupt gzip data: %s",
                 gz_message(p->gz));
    return -1;
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
    if( p->gz ) gz_close(p->gz);
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
