/*
** util.c — allocation wrappers, Buf, PfError, XXH64 content hash.
**
** Pipeline position: shared by every stage.
*/
#include "core/util.h"
#include "core/fault.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
# define UTIL_LSAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define UTIL_LSAN 1
# endif
#endif
#ifdef UTIL_LSAN
# include <sanitizer/lsan_interface.h>
#endif

static void (*gFatalCleanup)(void);

void util_set_fatal_cleanup(void (*xCleanup)(void)){
  gFatalCleanup = xCleanup;
}

void util_vmessage(const char *zFmt, va_list ap){
  fputs("profan: ", stderr);
  vfprintf(stderr, zFmt, ap);
  fputc('\n', stderr);
}

void util_fatal(const char *zFmt, ...){
  static int nFatal = 0;
  va_list ap;
  /* one message and one exit, even when two threads run out at once */
  if( __atomic_add_fetch(&nFatal, 1, __ATOMIC_SEQ_CST)>1 ){
    for(;;) pause();
  }
  if( gFatalCleanup ) gFatalCleanup();
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
  exit(UTIL_FATAL_EXIT);
}

void *xmalloc(size_t n){
  void *p = fault_alloc_fails() ? NULL : malloc(n ? n : 1);
  if( p==NULL ) util_fatal("out of memory (wanted %zu bytes)", n);
  return p;
}

void *xcalloc(size_t n, size_t size){
  void *p = fault_alloc_fails() ? NULL : calloc(n ? n : 1, size ? size : 1);
  if( p==NULL ) util_fatal("out of memory (wanted %zu x %zu bytes)", n, size);
  return p;
}

void *xrealloc(void *p, size_t n){
  void *q = fault_alloc_fails() ? NULL : realloc(p, n ? n : 1);
  if( q==NULL ) util_fatal("out of memory (wanted %zu bytes)", n);
  return q;
}

/* A page fault costs more on a VM than the copy it saves: an array that
** realloc grows is copied into fresh pages, each 4 KiB page faulted.  A
** mapped array is moved by mremap (page tables, not bytes) and its length
** is a multiple of 2 MiB at a 2 MiB boundary, so that with
** transparent_hugepage=madvise it is faulted in 2 MiB pages. */
#define ARRAY_HUGE ((size_t)2<<20)

static size_t array_len(size_t n){
  return (n + ARRAY_HUGE - 1) & ~(ARRAY_HUGE - 1);
}

/* A new mapping of array_len(n) bytes (PROT_NONE: a reservation) at an
** address the kernel aligns for huge pages (anonymous, >= 2 MiB). */
static void *array_map(size_t n, int prot){
  void *q = fault_alloc_fails() ? MAP_FAILED
          : mmap(NULL, array_len(n), prot,
                 MAP_PRIVATE|MAP_ANONYMOUS|(prot ? 0 : MAP_NORESERVE), -1, 0);
  if( q==MAP_FAILED ) util_fatal("out of memory (wanted %zu bytes)", n);
  return q;
}

/* LeakSanitizer scans malloc's heap, not mappings: a mapped array is
** made one of its roots while it lives, or the heap blocks only it points
** to (e.g. the linker's pending records' names) read as leaks when a
** fatal error exits with the array still full. */
static void array_root(void *q, size_t n){
#ifdef UTIL_LSAN
  __lsan_register_root_region(q, array_len(n));
#else
  (void)q; (void)n;
#endif
}

static void array_unroot(void *q, size_t n){
#ifdef UTIL_LSAN
  __lsan_unregister_root_region(q, array_len(n));
#else
  (void)q; (void)n;
#endif
}

static void array_advise(void *q, size_t n){
#ifdef MADV_HUGEPAGE
  madvise(q, array_len(n), MADV_HUGEPAGE);  /* advice: failure is harmless */
#else
  (void)q; (void)n;
#endif
}

void *util_array_grow(void *p, size_t nOld, size_t nNew){
  void *q;
  if( nNew<UTIL_ARRAY_MAP ) return xrealloc(p, nNew);
  if( p==NULL || nOld<UTIL_ARRAY_MAP ){
    q = array_map(nNew, PROT_READ|PROT_WRITE);
    array_advise(q, nNew);
    array_root(q, nNew);
    if( p ){
      memcpy(q, p, nOld<nNew ? nOld : nNew);
      free(p);
    }
    return q;
  }
  if( array_len(nNew)==array_len(nOld) ) return p;
  /* move the pages onto a new aligned reservation of the new length */
  q = array_map(nNew, PROT_NONE);
  q = mremap(p, array_len(nOld), array_len(nNew),
             MREMAP_MAYMOVE|MREMAP_FIXED, q);
  if( q==MAP_FAILED ) util_fatal("out of memory (wanted %zu bytes)", nNew);
  array_unroot(p, nOld);
  array_advise(q, nNew);
  array_root(q, nNew);
  return q;
}

int util_id_in(const int64_t *a, int n, int64_t id){
  int lo = 0, hi = n;
  while( lo<hi ){
    int mid = lo + (hi-lo)/2;
    if( a[mid]<id ) lo = mid+1; else hi = mid;
  }
  return lo<n && a[lo]==id;
}

void *util_array_zeroed(size_t n){
  void *q;
  if( n<UTIL_ARRAY_MAP ) return xcalloc(1, n);
  q = array_map(n, PROT_READ|PROT_WRITE);
  array_advise(q, n);
  array_root(q, n);
  return q;
}

void util_array_free(void *p, size_t nAlloc){
  if( p==NULL ) return;
  if( nAlloc<UTIL_ARRAY_MAP ) free(p);
  else{
    array_unroot(p, nAlloc);
    munmap(p, array_len(nAlloc));
  }
}

char *xstrdup(const char *z){
  return z ? xstrndup(z, strlen(z)) : NULL;
}

char *xstrndup(const char *z, size_t n){
  char *r = xmalloc(n+1);
  memcpy(r, z, n);
  r[n] = 0;
  return r;
}

char *xasprintf(const char *zFmt, ...){
  Buf b;
  va_list ap;
  buf_init(&b);
  va_start(ap, zFmt);
  buf_vprintf(&b, zFmt, ap);
  va_end(ap);
  return buf_steal(&b);
}

/* ---------------------------------------------------------------- Buf */

void buf_init(Buf *p){ memset(p, 0, sizeof(*p)); }

void buf_free(Buf *p){
  free(p->z);
  memset(p, 0, sizeof(*p));
}

size_t buf_reserved_cap(const Buf *p, size_t n){
  size_t cap = p->cap ? p->cap : 64;
  while( cap < p->n + n + 1 ) cap *= 2;
  return cap;
}

void buf_reserve(Buf *p, size_t n){
  if( p->n + n + 1 > p->cap ){
    size_t cap = buf_reserved_cap(p, n);
    p->z = xrealloc(p->z, cap);
    p->cap = cap;
  }
}

void buf_puts(Buf *p, const char *z){ buf_append(p, z, strlen(z)); }

void buf_vprintf(Buf *p, const char *zFmt, va_list ap){
  va_list ap2;
  int n;
  va_copy(ap2, ap);
  n = vsnprintf(NULL, 0, zFmt, ap2);
  va_end(ap2);
  if( n<0 ) return;
  buf_reserve(p, (size_t)n);
  vsnprintf(p->z + p->n, (size_t)n + 1, zFmt, ap);
  p->n += (size_t)n;
}

void buf_printf(Buf *p, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  buf_vprintf(p, zFmt, ap);
  va_end(ap);
}

char *buf_steal(Buf *p){
  char *z = p->z ? p->z : xstrdup("");
  memset(p, 0, sizeof(*p));
  return z;
}

const char *buf_str(const Buf *p){ return p->z ? p->z : ""; }

/* ------------------------------------------------------------ PfError */

void pf_error_set(PfError *p, int ePos, int64_t where, const char *zFmt, ...){
  va_list ap;
  if( p->set ) return;
  p->set = 1;
  p->ePos = ePos;
  p->where = where;
  va_start(ap, zFmt);
  vsnprintf(p->zMsg, sizeof(p->zMsg), zFmt, ap);
  va_end(ap);
}

void pf_error_kind(PfError *p, int kind){
  if( p->kind==PF_KIND_NONE ) p->kind = kind;
}

/* Edit distance of a[0..na) and b[0..nb) ignoring ASCII case, with
** neighbours swapped counting one (optimal string alignment); stops
** early, returning nMax+1, once every path is past nMax. */
static int edit_distance(const char *a, int na, const char *b, int nb,
                         int nMax){
  int *d = xmalloc(sizeof(int)*(size_t)(na+1)*(size_t)(nb+1));
  int r;
#define D(i, j) d[(i)*(nb+1)+(j)]
  for(int i=0; i<=na; i++) D(i, 0) = i;
  for(int j=0; j<=nb; j++) D(0, j) = j;
  for(int i=1; i<=na; i++){
    int best = D(i, 0);
    for(int j=1; j<=nb; j++){
      int ca = tolower((unsigned char)a[i-1]);
      int cb = tolower((unsigned char)b[j-1]);
      int v = D(i-1, j-1) + (ca!=cb);
      if( D(i-1, j)+1<v ) v = D(i-1, j)+1;
      if( D(i, j-1)+1<v ) v = D(i, j-1)+1;
      if( i>1 && j>1 && ca==tolower((unsigned char)b[j-2])
          && tolower((unsigned char)a[i-2])==cb && D(i-2, j-2)+1<v ){
        v = D(i-2, j-2)+1;
      }
      D(i, j) = v;
      if( v<best ) best = v;
    }
    if( best>nMax ){ free(d); return nMax+1; }
  }
  r = D(na, nb);
#undef D
  free(d);
  return r;
}

const char *util_nearest(const char *z, const char *const *az, int n){
  int nz = (int)strlen(z), nMax = nz<=3 ? 1 : nz<=6 ? 2 : 3;
  int best = nMax+1, nPrefix = 0;
  const char *zBest = NULL, *zPrefix = NULL;
  if( nz==0 || nz>200 ) return NULL;
  for(int i=0; i<n; i++){
    int nc, d;
    if( az[i]==NULL ) continue;
    nc = (int)strlen(az[i]);
    if( strcmp(az[i], z)==0 ) return NULL;
    if( nz>=2 && nc>nz && strncmp(az[i], z, (size_t)nz)==0 ){
      nPrefix++;
      zPrefix = az[i];
    }
    if( nc>400 || abs(nc-nz)>nMax ) continue;
    d = edit_distance(z, nz, az[i], nc, best-1<nMax ? best-1 : nMax);
    if( d<best && d<nc ){
      best = d;
      zBest = az[i];
    }
  }
  if( zBest ) return zBest;
  return nPrefix==1 ? zPrefix : NULL;
}

void pf_error_format(const PfError *p, const char *zFile, Buf *pOut){
  if( p->ePos==ERRPOS_NONE ){
    buf_printf(pOut, "%s: %s", zFile, p->zMsg);
  }else{
    buf_printf(pOut, "%s:%lld: %s", zFile, (long long)p->where, p->zMsg);
  }
}

void util_sanitize(const char *z, size_t n, char *zOut, size_t nOut){
  size_t i, j = 0;
  if( nOut==0 ) return;
  for(i=0; i<n && j+1<nOut; i++){
    unsigned char c = (unsigned char)z[i];
    if( j+4>=nOut && n-i>nOut-1-j ){
      /* the rest does not fit: end with "..." */
      while( j+1<nOut ) zOut[j++] = '.';
      break;
    }
    zOut[j++] = (c<0x20 || c==0x7f) ? '?' : (char)c;
  }
  zOut[j] = 0;
}

const char *util_basename(const char *z){
  const char *s = strrchr(z, '/');
  return s ? s+1 : z;
}

double util_now_ms(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000.0 + ts.tv_nsec/1e6;
}

size_t util_utf8_seq(const unsigned char *z, size_t n){
  size_t k, len;
  unsigned c = z[0];
  if( c<0x80 ) return 1;
  if( c>=0xc2 && c<=0xdf ) len = 2;
  else if( c>=0xe0 && c<=0xef ) len = 3;
  else if( c>=0xf0 && c<=0xf4 ) len = 4;
  else return 0;
  if( n<len ) return 0;
  for(k=1; k<len; k++) if( (z[k]&0xc0)!=0x80 ) return 0;
  if( c==0xe0 && z[1]<0xa0 ) return 0;          /* overlong */
  if( c==0xed && z[1]>=0xa0 ) return 0;         /* surrogate */
  if( c==0xf0 && z[1]<0x90 ) return 0;          /* overlong */
  if( c==0xf4 && z[1]>=0x90 ) return 0;         /* > U+10FFFF */
  return len;
}

double util_thread_cpu_ms(void){
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec*1000.0 + ts.tv_nsec/1e6;
}

/* ------------------------------------------------------------- XXH64 */

#define P1 11400714785074694791ULL
#define P2 14029467366897019727ULL
#define P3 1609587929392839161ULL
#define P4 9650029242287828579ULL
#define P5 2870177450012600261ULL

static uint64_t rotl(uint64_t x, int r){ return (x<<r) | (x>>(64-r)); }
static uint64_t rd64(const unsigned char *p){
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static uint32_t rd32(const unsigned char *p){
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t round1(uint64_t acc, uint64_t in){
  acc += in*P2; acc = rotl(acc,31); return acc*P1;
}
static uint64_t merge1(uint64_t acc, uint64_t v){
  acc ^= round1(0, v); return acc*P1 + P4;
}

void hash64_init(Hash64 *h, uint64_t seed){
  memset(h, 0, sizeof(*h));
  h->seed = seed;
  h->v[0] = seed + P1 + P2;
  h->v[1] = seed + P2;
  h->v[2] = seed;
  h->v[3] = seed - P1;
}

void hash64_update(Hash64 *h, const void *pIn, size_t n){
  const unsigned char *p = pIn;
  h->total += n;
  if( h->nBuf + n < 32 ){
    memcpy(h->buf + h->nBuf, p, n);
    h->nBuf += n;
    return;
  }
  if( h->nBuf ){
    size_t k = 32 - h->nBuf;
    memcpy(h->buf + h->nBuf, p, k);
    for(int i=0; i<4; i++) h->v[i] = round1(h->v[i], rd64(h->buf+8*i));
    p += k; n -= k; h->nBuf = 0;
  }
  while( n>=32 ){
    h->v[0] = round1(h->v[0], rd64(p));
    h->v[1] = round1(h->v[1], rd64(p+8));
    h->v[2] = round1(h->v[2], rd64(p+16));
    h->v[3] = round1(h->v[3], rd64(p+24));
    p += 32; n -= 32;
  }
  memcpy(h->buf, p, n);
  h->nBuf = n;
}

uint64_t hash64_final(const Hash64 *h){
  uint64_t acc;
  const unsigned char *p = h->buf;
  size_t n = h->nBuf;
  if( h->total>=32 ){
    acc = rotl(h->v[0],1) + rotl(h->v[1],7) + rotl(h->v[2],12)
        + rotl(h->v[3],18);
    for(int i=0; i<4; i++) acc = merge1(acc, h->v[i]);
  }else{
    acc = h->seed + P5;
  }
  acc += h->total;
  while( n>=8 ){
    acc ^= round1(0, rd64(p));
    acc = rotl(acc,27)*P1 + P4;
    p += 8; n -= 8;
  }
  if( n>=4 ){
    acc ^= (uint64_t)rd32(p) * P1;
    acc = rotl(acc,23)*P2 + P3;
    p += 4; n -= 4;
  }
  while( n>0 ){
    acc ^= (*p) * P5;
    acc = rotl(acc,11)*P1;
    p++; n--;
  }
  acc ^= acc>>33; acc *= P2;
  acc ^= acc>>29; acc *= P3;
  acc ^= acc>>32;
  return acc;
}
