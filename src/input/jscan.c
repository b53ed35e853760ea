/*
** jscan.c — streaming JSON scanner with a yajl-style callback interface.
**
** Pipeline position: "parse".  Used by parse_trace.c to read Kineto /
** Chrome-trace JSON (hundreds of MB to GB) in place of yajl 2.1, whose
** lexer was the bottleneck; the event stream is the same as yajl's with
** yajl_dont_validate_strings and a yajl_number callback.
**
** How it works.  jscan_feed() runs one pass over the chunk: skip
** whitespace, dispatch on the byte (the grammar state is the position in
** the code of run(): value, key, ':' or ',' / closer expected), scan the
** token in place and call back.  Strings are scanned 16 bytes at a time
** for '"', '\\' and control bytes (SSE2; a 256-entry class table
** elsewhere); numbers with a small inline state machine.  A token cut by
** the end of a chunk is kept in a growable side buffer (aPart) and
** finished from the next chunk, so memory is bounded by the largest single
** token, never by the document.  Container
** nesting lives in a fixed stack of JSCAN_MAX_DEPTH entries.  No per-token
** allocation: the two buffers only grow.
**
** Strings.  Without escapes the callback gets a pointer into the caller's
** chunk (zero copy), or into aPart when the string spans chunks.  With
** escapes it gets aDec, the unescaped copy: \" \\ \/ \b \f \n \r \t and
** \uXXXX as UTF-8; a high+low surrogate pair becomes one 4-byte sequence;
** a lone surrogate (high not followed by \u+low, or a bare low) becomes
** U+FFFD (EF BF BD).  (yajl differs there: it writes '?' for a lone high
** surrogate and drops the next character, and encodes a bare low one as
** 3 bytes.)  \u0000 gives a 0 byte.  UTF-8 is not validated.  Raw bytes
** below 0x20 inside a string are rejected, as yajl does (parse_trace.c
** maps them to spaces before feeding, so it never sees this error).
**
** Numbers.  -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? passed as raw
** text.  Lexing is greedy like yajl's: "01" is the number 0 followed by
** the number 1 (a grammar error), "1.5.3" is 1.5 then an invalid '.'.  A
** number is complete only when the byte after it is seen, so one at the
** very end of the document is delivered by jscan_finish().
**
** Whitespace is space, \t, \n, \r and also \v, \f (as yajl accepts).
**
** Offsets (jscan_offset).  During a callback: the token's last byte.
** After an error: lexical errors point at the first byte that cannot
** continue the token (bad escape letter, non-hex digit, control byte, the
** byte after "-" / "." / "e" that is not a digit, the mismatching letter
** of a literal); grammar errors point at the first byte of the unexpected
** token; "premature EOF" gives the total bytes fed.  yajl reports one byte
** earlier for most lexical errors, and for a grammar error lexes the whole
** unexpected token first (so a malformed or truncated unexpected token
** gets yajl's lexical / "premature EOF" message, where jscan gives the
** grammar message at its first byte).  For one-byte tokens (the common
** case: , : } ]) the offsets agree.
**
** Messages (jscan_error), yajl's wording kept so diagnostics do not change:
**   grammar
**     "unallowed token at this point in JSON text"   value expected, got
**                                  , : } or a ] that does not close "[]"
**     "invalid object key (must be a string)"        after '{' or ','
**     "object key and value must be separated by a colon (':')"
**     "after key and value, inside map, I expect ',' or '}'"
**     "after array element, I expect ',' or ']'"
**     "trailing garbage"             non-space after the top-level value
**     "premature EOF"                jscan_finish() with the value open,
**                                    a token cut, or no value at all
**     "maximum nesting depth exceeded"   more than JSCAN_MAX_DEPTH open
**                                    containers (jscan only; at the bracket)
**   lexical
**     "invalid char in json text."   a byte that starts no token
**     "probable comment found in input text, comments are not enabled."
**     "invalid string in json text." t/f/n not spelling true/false/null
**     "invalid character inside string."  raw byte < 0x20 in a string
**     "inside a string, '\\' occurs before a character which it may not."
**     "invalid (non-hex) character occurs after '\\u' inside string."
**     "malformed number, a digit is required after the minus sign."
**     "malformed number, a digit is required after the decimal point."
**     "malformed number, a digit is required after the exponent."
**   other
**     "client cancelled parse via callback return value"  JSCAN_STOPPED
**     "out of memory"                growing a token buffer failed
**
** Heap: a Jscan and its aPart / aDec buffers, all owned by the Jscan and
** freed by jscan_free().  Nothing else is allocated.
*/
#include "input/jscan.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef unsigned char u8;

/* Parser states.  The first four expect a value. */
enum {
  ST_TOP = 0,        /* nothing yet: the top-level value */
  ST_ARR_START,      /* after '[': a value or ']' */
  ST_ARR_NEED_VAL,   /* after ',' in an array: a value */
  ST_MAP_NEED_VAL,   /* after ':': a value */
  ST_MAP_START,      /* after '{': a key or '}' */
  ST_MAP_NEED_KEY,   /* after ',' in a map: a key */
  ST_MAP_SEP,        /* after a key: ':' */
  ST_MAP_GOT_VAL,    /* after a member: ',' or '}' */
  ST_ARR_GOT_VAL,    /* after an element: ',' or ']' */
  ST_DONE            /* the top-level value is complete */
};

/* Kind of token cut by the end of a chunk. */
enum { P_NONE = 0, P_STRING, P_NUMBER, P_LITERAL };

/* Number lexer states (num_step); TERMINAL ones may end the number. */
enum { N_START = 0, N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN,
       N_EXP };
#define N_TERMINAL(s) ((s)==N_ZERO || (s)==N_INT || (s)==N_FRAC || (s)==N_EXP)

static const char zUnallowed[] = "unallowed token at this point in JSON text";
static const char zBadKey[] = "invalid object key (must be a string)";
static const char zNoColon[] =
  "object key and value must be separated by a colon (':')";
static const char zMapGotVal[] =
  "after key and value, inside map, I expect ',' or '}'";
static const char zArrGotVal[] = "after array element, I expect ',' or ']'";
static const char zGarbage[] = "trailing garbage";
static const char zEof[] = "premature EOF";
static const char zDeep[] = "maximum nesting depth exceeded";
static const char zBadChar[] = "invalid char in json text.";
static const char zComment[] =
  "probable comment found in input text, comments are not enabled.";
static const char zBadLit[] = "invalid string in json text.";
static const char zStrChar[] = "invalid character inside string.";
static const char zStrEsc[] =
  "inside a string, '\\' occurs before a character which it may not.";
static const char zStrHex[] =
  "invalid (non-hex) character occurs after '\\u' inside string.";
static const char zNumMinus[] =
  "malformed number, a digit is required after the minus sign.";
static const char zNumDot[] =
  "malformed number, a digit is required after the decimal point.";
static const char zNumExp[] =
  "malformed number, a digit is required after the exponent.";
static const char zStop[] = "client cancelled parse via callback return value";
static const char zNoMem[] = "out of memory";

static const struct { const char *z; size_t n; } aLit[3] = {
  {"true", 4}, {"false", 5}, {"null", 4}
};

/* Byte classes.  aWs: JSON whitespace (plus \v \f, as yajl).  aStrStop:
** bytes that end the fast string scan ('"', '\\', < 0x20).  aEsc: letters
** allowed after '\\' (other than 'u').  aHex: hex digit value + 1. */
#define W1(c) [c] = 1
static const u8 aWs[256] = {
  W1(' '), W1('\t'), W1('\n'), W1('\r'), W1('\v'), W1('\f')
};
static const u8 aStrStop[256] = {
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  W1('"'), W1('\\')
};
static const u8 aEsc[256] = {
  W1('"'), W1('\\'), W1('/'), W1('b'), W1('f'), W1('n'), W1('r'), W1('t')
};
static const u8 aHex[256] = {
  ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
  ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
  ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
  ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16
};
#undef W1

struct Jscan {
  JscanCallbacks cb;
  void *ctx;
  int rc;                 /* JSCAN_*; sticky once not OK */
  int state;              /* ST_* */
  int depth;              /* open containers: aStack[1..depth] */
  int part;               /* P_*: token cut at the end of the last chunk */
  int strEsc;             /* P_STRING: escape state, see scan_str() */
  int strHasEsc;          /* P_STRING: a backslash was seen */
  int numSt;              /* P_NUMBER: N_* state after aPart */
  int litIdx;             /* P_LITERAL: index into aLit */
  size_t litLen;          /* P_LITERAL: letters matched so far */
  int64_t base;           /* absolute offset of byte 0 of the chunk */
  int allowCtl;           /* raw bytes < 0x20 allowed inside strings */
  int64_t iOff;           /* see jscan_offset() */
  int64_t partStart;      /* absolute offset of the cut token's 1st byte */
  const char *zErr;       /* static message, NULL if none */
  u8 *aPart;              /* cut token: string body (no quote) / number */
  size_t nPart, nPartAlloc;
  u8 *aDec;               /* unescaped string */
  size_t nDecAlloc;
  u8 aStack[JSCAN_MAX_DEPTH+1];   /* 1: map, 0: array */
};

/* Stand-ins for NULL callbacks, so the scan loop never tests for NULL. */
static int noop0(void *ctx){ (void)ctx; return 1; }
static int noop_bool(void *ctx, int b){ (void)ctx; (void)b; return 1; }
static int noop_num(void *ctx, const char *z, size_t n){
  (void)ctx; (void)z; (void)n; return 1;
}
static int noop_str(void *ctx, const unsigned char *z, size_t n){
  (void)ctx; (void)z; (void)n; return 1;
}

Jscan *jscan_new(const JscanCallbacks *cb, void *ctx){
  Jscan *x = calloc(1, sizeof(*x));
  if( x==NULL ) return NULL;
  if( cb ) x->cb = *cb;
  if( !x->cb.xNull ) x->cb.xNull = noop0;
  if( !x->cb.xBool ) x->cb.xBool = noop_bool;
  if( !x->cb.xNumber ) x->cb.xNumber = noop_num;
  if( !x->cb.xString ) x->cb.xString = noop_str;
  if( !x->cb.xStartMap ) x->cb.xStartMap = noop0;
  if( !x->cb.xMapKey ) x->cb.xMapKey = noop_str;
  if( !x->cb.xEndMap ) x->cb.xEndMap = noop0;
  if( !x->cb.xStartArray ) x->cb.xStartArray = noop0;
  if( !x->cb.xEndArray ) x->cb.xEndArray = noop0;
  x->ctx = ctx;
  return x;
}

void jscan_allow_control(Jscan *p, int on){
  p->allowCtl = on!=0;
}

void jscan_free(Jscan *x){
  if( x==NULL ) return;
  free(x->aPart);
  free(x->aDec);
  free(x);
}

int64_t jscan_offset(const Jscan *x){
  return x->iOff;
}

const char *jscan_error(const Jscan *x){
  return x->zErr ? x->zErr : "";
}

/* Make *pa hold at least n bytes (*pnAlloc is its size).  0 on success,
** 1 when out of memory (the old buffer stays valid). */
static int grow(u8 **pa, size_t *pnAlloc, size_t n){
  size_t nNew;
  u8 *aNew;
  if( n<=*pnAlloc ) return 0;
  nNew = *pnAlloc ? *pnAlloc : 256;
  while( nNew<n ){
    if( nNew > ((size_t)-1)/2 ) return 1;
    nNew *= 2;
  }
  aNew = realloc(*pa, nNew);
  if( aNew==NULL ) return 1;
  *pa = aNew;
  *pnAlloc = nNew;
  return 0;
}

/* Append n bytes to aPart.  0 on success, 1 when out of memory. */
static int part_append(Jscan *x, const u8 *z, size_t n){
  if( n==0 ) return 0;
  if( grow(&x->aPart, &x->nPartAlloc, x->nPart+n) ) return 1;
  memcpy(x->aPart+x->nPart, z, n);
  x->nPart += n;
  return 0;
}

/* Record an error at absolute offset iOff; returns JSCAN_ERROR. */
static int fail(Jscan *x, int64_t iOff, const char *zMsg){
  x->iOff = iOff;
  x->zErr = zMsg;
  x->rc = JSCAN_ERROR;
  return JSCAN_ERROR;
}

/* The message for an unexpected byte c where zGrammar applies: c may
** start no token at all, in which case it is a lexical error. */
static const char *unexpected(u8 c, const char *zGrammar){
  if( c=='/' ) return zComment;
  if( c!=0 && strchr("{}[],:\"-0123456789tfn", c)!=NULL ) return zGrammar;
  return zBadChar;
}

/* First byte in [z,end) that is '"', '\\' or < 0x20; end if none. */
static inline const u8 *find_special(const u8 *z, const u8 *end){
#ifdef __SSE2__
  const __m128i vQuote = _mm_set1_epi8('"');
  const __m128i vBack = _mm_set1_epi8('\\');
  const __m128i vCtl = _mm_set1_epi8(0x1f);
  while( end-z>=16 ){
    __m128i v = _mm_loadu_si128((const __m128i*)z);
    __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, vQuote), _mm_cmpeq_epi8(v, vBack)),
        _mm_cmpeq_epi8(_mm_min_epu8(v, vCtl), v));
    int bits = _mm_movemask_epi8(m);
    if( bits ) return z + __builtin_ctz((unsigned)bits);
    z += 16;
  }
#endif
  while( z<end && !aStrStop[*z] ) z++;
  return z;
}

/* Scan string body bytes from z, resuming escape state *pEsc:
**   0 plain, 1 after '\\', 2..5 after "\\u" and (*pEsc-2) hex digits.
** Escapes are validated here (not decoded).  Returns a pointer to the
** closing quote; or end when the chunk ran out (*pEsc updated); or, with
** *pzMsg set, a pointer to the offending byte.  Sets *pHasEsc on a '\\'. */
static const u8 *scan_str(const u8 *z, const u8 *end, int *pEsc,
                          int *pHasEsc, const char **pzMsg, int allowCtl){
  int esc = *pEsc;
  while( z<end ){
    u8 c;
    if( esc==0 ){
      z = find_special(z, end);
      if( z==end ) break;
      c = *z;
      if( c=='"' ){
        *pEsc = 0;
        return z;
      }
      if( c!='\\' ){
        if( allowCtl ){             /* jscan_allow_control(): keep it */
          z++;
          continue;
        }
        *pzMsg = zStrChar;
        return z;
      }
      *pHasEsc = 1;
      esc = 1;
      z++;
      continue;
    }
    c = *z;
    if( esc==1 ){
      if( c=='u' ) esc = 2;
      else if( aEsc[c] ) esc = 0;
      else{
        *pzMsg = zStrEsc;
        return z;
      }
    }else{
      if( !aHex[c] ){
        *pzMsg = zStrHex;
        return z;
      }
      esc = esc==5 ? 0 : esc+1;
    }
    z++;
  }
  *pEsc = esc;
  return end;
}

/* Value of the 4 hex digits at z (validated by scan_str). */
static unsigned hex4(const u8 *z){
  return ((unsigned)(aHex[z[0]]-1)<<12) | ((unsigned)(aHex[z[1]]-1)<<8)
       | ((unsigned)(aHex[z[2]]-1)<<4) | (unsigned)(aHex[z[3]]-1);
}

/* Write code point c as UTF-8 at o; returns the byte count. */
static size_t utf8_put(u8 *o, unsigned c){
  if( c<0x80 ){ o[0] = (u8)c; return 1; }
  if( c<0x800 ){
    o[0] = (u8)(0xC0 | (c>>6));
    o[1] = (u8)(0x80 | (c & 0x3F));
    return 2;
  }
  if( c<0x10000 ){
    o[0] = (u8)(0xE0 | (c>>12));
    o[1] = (u8)(0x80 | ((c>>6) & 0x3F));
    o[2] = (u8)(0x80 | (c & 0x3F));
    return 3;
  }
  o[0] = (u8)(0xF0 | (c>>18));
  o[1] = (u8)(0x80 | ((c>>12) & 0x3F));
  o[2] = (u8)(0x80 | ((c>>6) & 0x3F));
  o[3] = (u8)(0x80 | (c & 0x3F));
  return 4;
}

/* Unescape the string body z[0..n) (escapes already validated) into
** aDec; the result is never longer than the input.  Returns the length,
** or (size_t)-1 when out of memory. */
static size_t decode(Jscan *x, const u8 *z, size_t n){
  const u8 *zEnd = z+n;
  u8 *o;
  if( grow(&x->aDec, &x->nDecAlloc, n ? n : 1) ) return (size_t)-1;
  o = x->aDec;
  while( z<zEnd ){
    const u8 *b = memchr(z, '\\', (size_t)(zEnd-z));
    unsigned cp;
    if( b==NULL ){
      memcpy(o, z, (size_t)(zEnd-z));
      o += zEnd-z;
      break;
    }
    memcpy(o, z, (size_t)(b-z));
    o += b-z;
    switch( b[1] ){
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'n': *o++ = '\n'; break;
      case 'r': *o++ = '\r'; break;
      case 't': *o++ = '\t'; break;
      case 'u':
        cp = hex4(b+2);
        z = b+6;
        if( cp>=0xD800 && cp<=0xDBFF ){
          unsigned lo;
          if( zEnd-z>=6 && z[0]=='\\' && z[1]=='u'
           && (lo = hex4(z+2))>=0xDC00 && lo<=0xDFFF ){
            cp = 0x10000 + ((cp-0xD800)<<10) + (lo-0xDC00);
            z += 6;
          }else{
            cp = 0xFFFD;
          }
        }else if( cp>=0xDC00 && cp<=0xDFFF ){
          cp = 0xFFFD;
        }
        o += utf8_put(o, cp);
        continue;
      default:  *o++ = b[1]; break;   /* " \ / */
    }
    z = b+2;
  }
  return (size_t)(o - x->aDec);
}

/* Deliver a string body as a key or a value, unescaping if needed.
** Returns the callback's verdict (0 stop), or -1 when out of memory. */
static int emit_str(Jscan *x, const u8 *z, size_t n, int hasEsc, int isKey){
  int (*xFn)(void*, const unsigned char*, size_t) =
    isKey ? x->cb.xMapKey : x->cb.xString;
  if( z==NULL ) z = (const u8*)"";   /* empty aPart never allocated */
  if( hasEsc ){
    n = decode(x, z, n);
    if( n==(size_t)-1 ) return -1;
    z = x->aDec;
  }
  return xFn(x->ctx, z, n) ? 1 : 0;
}

/* Deliver literal i (0 true, 1 false, 2 null).  Returns the verdict. */
static int emit_lit(Jscan *x, int i){
  if( i==2 ) return x->cb.xNull(x->ctx) ? 1 : 0;
  return x->cb.xBool(x->ctx, i==0) ? 1 : 0;
}

/* One step of the number lexer: state after byte c, or -1 when c cannot
** continue a number in state st. */
static int num_step(int st, u8 c){
  int d = c>='0' && c<='9';
  switch( st ){
    case N_START:
      if( c=='-' ) return N_MINUS;
      /* fall through */
    case N_MINUS:
      if( c=='0' ) return N_ZERO;
      return d ? N_INT : -1;
    case N_INT:
      if( d ) return N_INT;
      /* fall through */
    case N_ZERO:
      if( c=='.' ) return N_DOT;
      return (c=='e' || c=='E') ? N_E : -1;
    case N_DOT:
      return d ? N_FRAC : -1;
    case N_FRAC:
      if( d ) return N_FRAC;
      return (c=='e' || c=='E') ? N_E : -1;
    case N_E:
      if( c=='+' || c=='-' ) return N_ESIGN;
      /* fall through */
    case N_ESIGN:
    case N_EXP:
      return d ? N_EXP : -1;
  }
  return -1;
}

/* Message for a number that stops in non-terminal state st. */
static const char *num_msg(int st){
  if( st==N_DOT ) return zNumDot;
  if( st==N_E || st==N_ESIGN ) return zNumExp;
  return zNumMinus;
}

#define IS_DIGIT(c) ((unsigned)((c)-'0')<10u)

/* Lex a number starting at z (a '-' or digit).  Returns 1 with *pq one
** past its last byte; 0 when the chunk ends first (more bytes could
** continue it); -1 with *pq at the offending byte and *pzMsg set. */
static inline int scan_num(const u8 *z, const u8 *end, const u8 **pq,
                           const char **pzMsg){
  const u8 *q = z;
  if( *q=='-' ){
    if( ++q==end ) return 0;
  }
  if( *q=='0' ){
    q++;
  }else if( IS_DIGIT(*q) ){
    do{ q++; }while( q<end && IS_DIGIT(*q) );
  }else{
    *pzMsg = zNumMinus;
    *pq = q;
    return -1;
  }
  if( q==end ) return 0;
  if( *q=='.' ){
    if( ++q==end ) return 0;
    if( !IS_DIGIT(*q) ){
      *pzMsg = zNumDot;
      *pq = q;
      return -1;
    }
    do{ q++; }while( q<end && IS_DIGIT(*q) );
    if( q==end ) return 0;
  }
  if( *q=='e' || *q=='E' ){
    if( ++q==end ) return 0;
    if( *q=='+' || *q=='-' ){
      if( ++q==end ) return 0;
    }
    if( !IS_DIGIT(*q) ){
      *pzMsg = zNumExp;
      *pq = q;
      return -1;
    }
    do{ q++; }while( q<end && IS_DIGIT(*q) );
    if( q==end ) return 0;
  }
  *pq = q;
  return 1;
}

/* State after a value completes at the given depth. */
static inline int after_value(const Jscan *x, int depth){
  if( depth==0 ) return ST_DONE;
  return x->aStack[depth] ? ST_MAP_GOT_VAL : ST_ARR_GOT_VAL;
}

/* Finish the token cut at the end of the previous chunk with the bytes
** at *pp (chunk buf, ending at end).  On return *pp is past the bytes
** used; x->part is P_NONE if the token was completed (and delivered),
** else the whole chunk was used.  Returns JSCAN_OK, or the error / stop
** status. */
static int resume(Jscan *x, const u8 *buf, const u8 **pp, const u8 *end){
  const u8 *p = *pp;
  int64_t base = x->base;
  int r;
  switch( x->part ){
    case P_STRING: {
      const char *zMsg = NULL;
      const u8 *q = scan_str(p, end, &x->strEsc, &x->strHasEsc, &zMsg,
                               x->allowCtl);
      int isKey;
      if( zMsg ) return fail(x, base + (q-buf), zMsg);
      if( part_append(x, p, (size_t)(q-p)) ) return fail(x, base, zNoMem);
      if( q==end ){
        *pp = end;
        return JSCAN_OK;
      }
      x->part = P_NONE;
      x->iOff = base + (q-buf);
      isKey = x->state==ST_MAP_START || x->state==ST_MAP_NEED_KEY;
      r = emit_str(x, x->aPart, x->nPart, x->strHasEsc, isKey);
      if( r<0 ) return fail(x, x->iOff, zNoMem);
      x->state = isKey ? ST_MAP_SEP : after_value(x, x->depth);
      *pp = q+1;
      break;
    }
    case P_NUMBER: {
      const u8 *q = p;
      int st = x->numSt, st2 = 0;
      while( q<end && (st2 = num_step(st, *q))>=0 ){
        st = st2;
        q++;
      }
      if( part_append(x, p, (size_t)(q-p)) ) return fail(x, base, zNoMem);
      x->numSt = st;
      if( q==end ){
        *pp = end;
        return JSCAN_OK;
      }
      if( !N_TERMINAL(st) ) return fail(x, base + (q-buf), num_msg(st));
      x->part = P_NONE;
      x->iOff = x->partStart + (int64_t)x->nPart - 1;
      r = x->cb.xNumber(x->ctx, (const char*)x->aPart, x->nPart)!=0;
      x->state = after_value(x, x->depth);
      *pp = q;
      break;
    }
    default: {   /* P_LITERAL */
      const char *zLit = aLit[x->litIdx].z;
      size_t nLit = aLit[x->litIdx].n;
      while( p<end && x->litLen<nLit ){
        if( *p!=(u8)zLit[x->litLen] ){
          return fail(x, base + (p-buf), zBadLit);
        }
        p++;
        x->litLen++;
      }
      *pp = p;
      if( x->litLen<nLit ) return JSCAN_OK;
      x->part = P_NONE;
      x->iOff = base + (p-1-buf);
      r = emit_lit(x, x->litIdx);
      x->state = after_value(x, x->depth);
      break;
    }
  }
  if( r==0 ){
    x->zErr = zStop;
    x->rc = JSCAN_STOPPED;
    return JSCAN_STOPPED;
  }
  return JSCAN_OK;
}

/* Callback invocation: stop the scan when it returns 0. */
#define CALL(xFn, ...) \
  if( !(xFn)(__VA_ARGS__) ) goto stopped

/* Skip whitespace; at the chunk end save parser state st and return. */
#define SKIP_WS(st) \
  while( p<end && aWs[*p] ) p++; \
  if( p==end ){ state = (st); goto out; }

/* Scan [p,end) of chunk buf (absolute offset x->base) with no token cut
** pending.  Returns JSCAN_OK (a token cut at end is saved in aPart), or
** the error / stop status.
**
** The parser state is the program counter: each label below is one state
** of the grammar, and x->state (ST_*) is only read on entry and written
** when the chunk runs out. */
static int run(Jscan *x, const u8 *buf, const u8 *p, const u8 *end){
  int depth = x->depth;
  const int64_t base = x->base;
  void *ctx = x->ctx;
  const char *zMsg = NULL;
  const u8 *q, *s;
  int state;
  int r;
  u8 c;

#define OFF(ptr) (x->iOff = base + ((ptr) - buf))
#define NEED_VAL_STATE \
  (depth==0 ? ST_TOP : x->aStack[depth] ? ST_MAP_NEED_VAL : ST_ARR_NEED_VAL)

  switch( x->state ){
    case ST_ARR_START:    goto arr_start;
    case ST_MAP_START:    goto map_start;
    case ST_MAP_NEED_KEY: goto need_key;
    case ST_MAP_SEP:      goto map_sep;
    case ST_MAP_GOT_VAL:
    case ST_ARR_GOT_VAL:
    case ST_DONE:         goto got_value;
    default:              goto value;
  }

value:
  /* A value is expected (not ']'). */
  SKIP_WS(NEED_VAL_STATE);
value_nows:
  c = *p;
  switch( c ){
    case '"': {
      int esc = 0, hasEsc = 0;
      s = p+1;
      q = find_special(s, end);
      if( q<end && *q=='"' ){
        OFF(q);
        CALL(x->cb.xString, ctx, s, (size_t)(q-s));
        p = q+1;
        goto got_value;
      }
      q = scan_str(q, end, &esc, &hasEsc, &zMsg, x->allowCtl);
      if( zMsg ){
        p = q;
        goto error;
      }
      if( q==end ){
        state = NEED_VAL_STATE;
        x->strEsc = esc;
        x->strHasEsc = hasEsc;
        goto cut_string;
      }
      OFF(q);
      r = emit_str(x, s, (size_t)(q-s), hasEsc, 0);
      if( r<=0 ){
        if( r==0 ) goto stopped;
        zMsg = zNoMem;
        p = q;
        goto error;
      }
      p = q+1;
      goto got_value;
    }
    case '{':
      if( depth>=JSCAN_MAX_DEPTH ){ zMsg = zDeep; goto error; }
      OFF(p);
      CALL(x->cb.xStartMap, ctx);
      x->aStack[++depth] = 1;
      p++;
      goto map_start;
    case '[':
      if( depth>=JSCAN_MAX_DEPTH ){ zMsg = zDeep; goto error; }
      OFF(p);
      CALL(x->cb.xStartArray, ctx);
      x->aStack[++depth] = 0;
      p++;
      goto arr_start;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      r = scan_num(p, end, &q, &zMsg);
      if( r>0 ){
        OFF(q-1);
        CALL(x->cb.xNumber, ctx, (const char*)p, (size_t)(q-p));
        p = q;
        goto got_value;
      }
      if( r<0 ){
        p = q;
        goto error;
      }
      /* cut by the chunk end: keep the text and its lexer state */
      state = NEED_VAL_STATE;
      x->part = P_NUMBER;
      x->partStart = base + (p-buf);
      x->nPart = 0;
      x->numSt = N_START;
      for(q=p; q<end; q++) x->numSt = num_step(x->numSt, *q);
      if( part_append(x, p, (size_t)(end-p)) ){
        zMsg = zNoMem;
        goto error;
      }
      goto out;
    case 't': case 'f': case 'n': {
      int i = c=='t' ? 0 : c=='f' ? 1 : 2;
      const char *zLit = aLit[i].z;
      size_t nLit = aLit[i].n, k;
      if( (size_t)(end-p)>=nLit && memcmp(p, zLit, nLit)==0 ){
        OFF(p+nLit-1);
        if( i==2 ){
          CALL(x->cb.xNull, ctx);
        }else{
          CALL(x->cb.xBool, ctx, i==0);
        }
        p += nLit;
        goto got_value;
      }
      for(k=1; p+k<end && p[k]==(u8)zLit[k]; k++){}
      if( p+k<end ){
        p += k;
        zMsg = zBadLit;
        goto error;
      }
      state = NEED_VAL_STATE;
      x->part = P_LITERAL;
      x->partStart = base + (p-buf);
      x->litIdx = i;
      x->litLen = k;
      goto out;
    }
    case ']': case '}': case ',': case ':':
      zMsg = zUnallowed;
      goto error;
    default:
      zMsg = c=='/' ? zComment : zBadChar;
      goto error;
  }

arr_start:
  SKIP_WS(ST_ARR_START);
  if( *p==']' ) goto end_array;
  goto value_nows;

map_start:
  SKIP_WS(ST_MAP_START);
  if( *p=='}' ) goto end_map;
  goto key_nows;

need_key:
  SKIP_WS(ST_MAP_NEED_KEY);
key_nows:
  if( *p!='"' ){
    zMsg = unexpected(*p, zBadKey);
    goto error;
  }
  s = p+1;
  q = find_special(s, end);
  if( q<end && *q=='"' ){
    OFF(q);
    CALL(x->cb.xMapKey, ctx, s, (size_t)(q-s));
  }else{
    int esc = 0, hasEsc = 0;
    q = scan_str(q, end, &esc, &hasEsc, &zMsg, x->allowCtl);
    if( zMsg ){
      p = q;
      goto error;
    }
    if( q==end ){
      state = ST_MAP_NEED_KEY;
      x->strEsc = esc;
      x->strHasEsc = hasEsc;
      goto cut_string;
    }
    OFF(q);
    r = emit_str(x, s, (size_t)(q-s), hasEsc, 1);
    if( r<=0 ){
      if( r==0 ) goto stopped;
      zMsg = zNoMem;
      p = q;
      goto error;
    }
  }
  p = q+1;

map_sep:
  SKIP_WS(ST_MAP_SEP);
  if( *p!=':' ){
    zMsg = unexpected(*p, zNoColon);
    goto error;
  }
  p++;
  goto value;

got_value:
  /* A value just ended at this depth (or we resume after one). */
  if( depth==0 ) goto done;
  if( x->aStack[depth] ){
    SKIP_WS(ST_MAP_GOT_VAL);
    c = *p;
    if( c==',' ){
      p++;
      goto need_key;
    }
    if( c=='}' ) goto end_map;
    zMsg = unexpected(c, zMapGotVal);
    goto error;
  }
  SKIP_WS(ST_ARR_GOT_VAL);
  c = *p;
  if( c==',' ){
    p++;
    goto value;
  }
  if( c==']' ) goto end_array;
  zMsg = unexpected(c, zArrGotVal);
  goto error;

end_map:
  OFF(p);
  CALL(x->cb.xEndMap, ctx);
  depth--;
  p++;
  goto got_value;

end_array:
  OFF(p);
  CALL(x->cb.xEndArray, ctx);
  depth--;
  p++;
  goto got_value;

done:
  SKIP_WS(ST_DONE);
  zMsg = zGarbage;   /* yajl says this for any byte */
  goto error;

cut_string:
  /* The string opened at p (body at s) runs past the chunk end; its
  ** scan state is already in x->strEsc / x->strHasEsc. */
  x->part = P_STRING;
  x->partStart = base + (p-buf);
  x->nPart = 0;
  if( part_append(x, s, (size_t)(end-s)) ){
    zMsg = zNoMem;
    goto error;
  }
  goto out;

out:
  x->state = state;
  x->depth = depth;
  return JSCAN_OK;

error:
  x->depth = depth;
  return fail(x, base + (p-buf), zMsg);

stopped:
  x->depth = depth;
  x->zErr = zStop;
  x->rc = JSCAN_STOPPED;
  return JSCAN_STOPPED;
#undef OFF
#undef NEED_VAL_STATE
}

int jscan_feed(Jscan *x, const unsigned char *buf, size_t n){
  const u8 *p, *end;
  int rc;
  if( x->rc!=JSCAN_OK ) return x->rc;
  if( n==0 ) return JSCAN_OK;
  p = buf;
  end = buf+n;
  if( x->part!=P_NONE ){
    rc = resume(x, buf, &p, end);
    if( rc!=JSCAN_OK ) return rc;
  }
  rc = run(x, buf, p, end);
  x->base += (int64_t)n;
  return rc;
}

int jscan_finish(Jscan *x){
  if( x->rc!=JSCAN_OK ) return x->rc;
  if( x->part==P_NUMBER ){
    if( !N_TERMINAL(x->numSt) ) return fail(x, x->base, num_msg(x->numSt));
    x->part = P_NONE;
    x->iOff = x->partStart + (int64_t)x->nPart - 1;
    x->state = after_value(x, x->depth);
    if( !x->cb.xNumber(x->ctx, (const char*)x->aPart, x->nPart) ){
      x->zErr = zStop;
      x->rc = JSCAN_STOPPED;
      return JSCAN_STOPPED;
    }
  }
  if( x->part!=P_NONE || x->state!=ST_DONE ) return fail(x, x->base, zEof);
  return JSCAN_OK;
}
