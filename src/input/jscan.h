/*
** jscan.h — streaming JSON scanner with a yajl-style callback interface.
**
** Pipeline position: "parse" (used by parse_trace.c in place of yajl).
** Bytes are pushed in with jscan_feed() in chunks of any size; tokens may
** span chunks.  Every JSON event is reported through a JscanCallbacks
** table with the same contract as yajl_callbacks (yajl_number flavour:
** numbers arrive as raw text).  Grammar is strict RFC 8259 JSON, as yajl
** 2.1 without allow_comments / allow_trailing_garbage /
** allow_multiple_values; UTF-8 is not validated (as with
** yajl_dont_validate_strings).  See jscan.c for the details of strings,
** numbers, offsets and the error messages.
*/
#ifndef PROFAN_JSCAN_H
#define PROFAN_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#define JSCAN_OK      0   /* all bytes consumed, no error */
#define JSCAN_STOPPED 1   /* a callback returned 0 */
#define JSCAN_ERROR   2   /* invalid JSON (see jscan_error/jscan_offset) */

#define JSCAN_MAX_DEPTH 1024  /* deeper nesting of {} / [] is an error */

/* Event callbacks; any may be NULL (the event is then skipped).  Return
** non-zero to go on, 0 to stop the scan (jscan_feed then returns
** JSCAN_STOPPED).  Pointers passed in are valid only during the call;
** strings and numbers are not NUL-terminated. */
typedef struct JscanCallbacks {
  int (*xNull)(void *ctx);
  int (*xBool)(void *ctx, int b);
  int (*xNumber)(void *ctx, const char *z, size_t n);          /* raw text */
  int (*xString)(void *ctx, const unsigned char *z, size_t n); /* unescaped */
  int (*xStartMap)(void *ctx);
  int (*xMapKey)(void *ctx, const unsigned char *z, size_t n); /* unescaped */
  int (*xEndMap)(void *ctx);
  int (*xStartArray)(void *ctx);
  int (*xEndArray)(void *ctx);
} JscanCallbacks;

typedef struct Jscan Jscan;

/* New scanner.  The callback table is copied; ctx is passed to every
** callback.  Returns NULL only when out of memory.  The caller owns the
** result and frees it with jscan_free(). */
Jscan *jscan_new(const JscanCallbacks *cb, void *ctx);

/* Free a scanner and its buffers.  NULL is a no-op. */
void jscan_free(Jscan *p);

/* Feed the next n bytes of the document.  Returns JSCAN_OK, JSCAN_STOPPED
** or JSCAN_ERROR; once not JSCAN_OK, every later call returns the same
** status without looking at its input.  buf may be NULL when n is 0. */
int jscan_feed(Jscan *p, const unsigned char *buf, size_t n);

/* End of input.  JSCAN_OK when exactly one complete top-level value was
** seen (trailing whitespace allowed); a number that ends the document is
** delivered here.  Otherwise JSCAN_ERROR ("premature EOF" for truncated
** or empty input), or the status of an earlier failure. */
int jscan_finish(Jscan *p);

/* Absolute 0-based byte offset.  Inside a callback: the last byte of the
** token being delivered (the bracket for start/end of map/array, the
** closing quote of a string or key, the last digit of a number).  After
** JSCAN_ERROR: the offending byte (for "premature EOF": the total number
** of bytes fed).  After JSCAN_STOPPED: the last byte of the token whose
** callback returned 0. */
int64_t jscan_offset(const Jscan *p);

/* Static message describing the error or stop; "" when there is none. */
const char *jscan_error(const Jscan *p);

/* Accept raw bytes below 0x20 inside strings and pass them through (old
** Kineto writers did not escape them; strict JSON, and the default,
** rejects them with "invalid character inside string."). */
void jscan_allow_control(Jscan *p, int on);

#endif /* PROFAN_JSCAN_H */
