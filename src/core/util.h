/*
** util.h — allocation wrappers, the growable string buffer (Buf), the
** error record parsers fill in, and small string helpers.
**
** Pipeline position: used by every stage.  Nothing here prints except
** util_fatal(), which is reserved for out-of-memory, and util_vmessage(),
** the message form it shares with cli.c.
*/
#ifndef PROFAN_UTIL_H
#define PROFAN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>

#if defined(__GNUC__)
#define PF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PF_NORETURN __attribute__((noreturn))
#else
#define PF_PRINTF(a, b)
#define PF_NORETURN
#endif

/* Allocation that never returns NULL: running out of memory is fatal. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Arrays that grow to many MB while a trace loads (trace_spans.c,
** trace_totals.c).  util_array_grow returns p, holding nOld bytes, resized
** to nNew bytes; from UTIL_ARRAY_MAP bytes up the array is a mapping of
** its own, grown by mremap (pages are moved, not copied: each page is
** faulted once) and advised for transparent huge pages.  The caller frees
** with util_array_free(p, nAlloc), nAlloc the size of the last grow. */
#define UTIL_ARRAY_MAP ((size_t)1<<20)
void *util_array_grow(void *p, size_t nOld, size_t nNew);
void util_array_free(void *p, size_t nAlloc);       /* accepts NULL */
/* 1 when id is in the sorted (ascending) array a of n. */
int util_id_in(const int64_t *a, int n, int64_t id);
/* Returns n zeroed bytes for a table of fixed size; from UTIL_ARRAY_MAP
** bytes up a mapping of its own, whose pages cost only when touched.
** The caller frees with util_array_free(p, n). */
void *util_array_zeroed(size_t n);
/* Returns a copy of z (NULL gives NULL); caller frees with free(). */
char *xstrdup(const char *z);
/* Returns a copy of the n bytes at z plus a NUL; caller frees with free(). */
char *xstrndup(const char *z, size_t n);
/* printf into a new string; caller frees with free(). */
char *xasprintf(const char *zFmt, ...) PF_PRINTF(1, 2);

/* Print "profan: MSG\n" on stderr: the one form of every message profan
** prints about a failure (cli_error, cli_usage_error, util_fatal). */
void util_vmessage(const char *zFmt, va_list ap);

/* The exit status of util_fatal(): the command line's "database or
** system error" (cli.h EXIT_DB). */
#define UTIL_FATAL_EXIT 7
/* Print "profan: MSG" and exit(UTIL_FATAL_EXIT) (out of memory only).
** Runs the cleanup set below first (removing a half-built new
** database). */
void util_fatal(const char *zFmt, ...) PF_PRINTF(1, 2) PF_NORETURN;
/* What util_fatal() runs before exiting; NULL for nothing. */
void util_set_fatal_cleanup(void (*xCleanup)(void));

/* Growable byte buffer, always NUL-terminated once anything was added. */
typedef struct Buf {
  char *z;      /* content; owned; NULL until first append */
  size_t n;     /* bytes used, not counting the NUL */
  size_t cap;   /* bytes allocated */
} Buf;

void buf_init(Buf *p);
void buf_free(Buf *p);                     /* accepts a zeroed Buf */
void buf_puts(Buf *p, const char *z);
/* Make room for n more bytes plus the NUL. */
void buf_reserve(Buf *p, size_t n);
/* The capacity buf_reserve(p, n) leaves p with (p->cap when it fits). */
size_t buf_reserved_cap(const Buf *p, size_t n);

/* The three below run for every byte range the trace parser keeps: inline
** (as calls they were 6 % of its instructions). */
static inline void buf_reset(Buf *p){      /* keep memory, drop content */
  p->n = 0;
  if( p->z ) p->z[0] = 0;
}
static inline void buf_append(Buf *p, const void *z, size_t n){
  if( p->n + n + 1 > p->cap ) buf_reserve(p, n);
  if( n ) memcpy(p->z + p->n, z, n);
  p->n += n;
  p->z[p->n] = 0;
}
static inline void buf_putc(Buf *p, char c){
  if( p->n + 2 > p->cap ) buf_reserve(p, 1);
  p->z[p->n++] = c;
  p->z[p->n] = 0;
}
void buf_printf(Buf *p, const char *zFmt, ...) PF_PRINTF(2, 3);
void buf_vprintf(Buf *p, const char *zFmt, va_list ap);
/* Returns the content (never NULL) and leaves p empty; caller frees. */
char *buf_steal(Buf *p);
/* The content as a C string; "" when empty. Borrowed. */
const char *buf_str(const Buf *p);

/*
** Error record.  Parsers never print: they fill one of these and return
** non-zero.  The message is the text after "FILE:WHERE: ".  `where` is a
** byte offset (ePos == ERRPOS_BYTE) or a 1-based line (ERRPOS_LINE).
*/
enum { ERRPOS_NONE = 0, ERRPOS_BYTE = 1, ERRPOS_LINE = 2 };
/* What kind of error, for the command's exit code (cli_error_exit): none
** said (the command decides), a bad value or unknown name given by the
** user, a failed SQL statement, a bad input file, the database itself. */
enum { PF_KIND_NONE = 0, PF_KIND_USAGE, PF_KIND_SQL, PF_KIND_INPUT,
       PF_KIND_DB };
typedef struct PfError {
  int set;          /* non-zero once an error was recorded */
  int kind;         /* PF_KIND_*: set by pf_error_kind() */
  int ePos;         /* ERRPOS_* */
  int64_t where;    /* offset or line */
  char zMsg[512];   /* message without file name or position */
} PfError;

/* Record an error unless one is already set (first error wins). */
void pf_error_set(PfError *p, int ePos, int64_t where, const char *zFmt, ...)
    PF_PRINTF(4, 5);
/* Record the kind of the error in p (PF_KIND_*); the first kind said
** wins, as the first message does. */
void pf_error_kind(PfError *p, int kind);
/* Formats "FILE:POS: MSG" (or "FILE: MSG") into a Buf the caller owns. */
void pf_error_format(const PfError *p, const char *zFile, Buf *pOut);

/* Copy up to n bytes of untrusted text into out (size nOut) for an error
** message: control characters become '?', long text is cut with "...". */
void util_sanitize(const char *z, size_t n, char *zOut, size_t nOut);

/* The string of az[0..n) nearest to z, for "did you mean": the smallest
** edit distance (insert, delete, replace, swap two neighbours; ignoring
** case) within a limit that grows with z's length (1 up to 3 characters,
** 2 up to 6, else 3), or else the one candidate z is a prefix of (z of
** 2 or more characters).  NULL when none is near or z is one of them.
** Borrowed from az. */
const char *util_nearest(const char *z, const char *const *az, int n);

/* Last path component of z (borrowed pointer into z). */
const char *util_basename(const char *z);

/* Monotonic wall-clock milliseconds. */
double util_now_ms(void);
/* Length of the valid, shortest-form UTF-8 sequence at z[0..n) (1 to 4;
** no surrogates, nothing past U+10FFFF), or 0; n must be > 0. */
size_t util_utf8_seq(const unsigned char *z, size_t n);
/* CPU time of the calling thread, ms (PROFAN_TIMING reports). */
double util_thread_cpu_ms(void);

/* 64-bit content hash (XXH64 algorithm), streaming. */
typedef struct Hash64 {
  uint64_t v[4];
  uint64_t total;
  unsigned char buf[32];
  size_t nBuf;
  uint64_t seed;
} Hash64;
void hash64_init(Hash64 *h, uint64_t seed);
void hash64_update(Hash64 *h, const void *p, size_t n);
uint64_t hash64_final(const Hash64 *h);

#endif
