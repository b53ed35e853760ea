/*
** output.c — print the rows of a prepared statement as table, CSV, JSON
** or markdown.
**
** Pipeline position: the last stage.  `profan query NAME` and `profan sql`
** prepare a statement and call output_stmt(), which steps it and writes
** each row to a FILE.  Nothing here prints errors or touches the database
** beyond sqlite3_step() and sqlite3_column_*().
**
** Each format is a row of aFormat[] with begin/row/end callbacks.
**
** Cell rendering rules
** --------------------
** Column-name suffixes (case-insensitive; the bare name also counts, so
** `bytes` and `ns` qualify) pick a unit for INTEGER and FLOAT cells in the
** table and markdown formats.  CSV and JSON always print raw values.
**
**   _bytes     binary units, 1 decimal: 512 B, 12.3 KiB, 312.0 MiB,
**              1.5 GiB, up to EiB.  Below 1024 B a plain integer.
**   _ns        duration, 3 significant digits: 12 ns, 789 us, 45.6 ms,
**              1.23 s.  Seconds is the largest unit.
**   _us, _ms   unit kept (the name already says it): as "other".
**   _pct       1 decimal (integers too); below 0.1 two significant
**              digits (0.043).
**   _bar       a number in 0..1 drawn as a bar of up to OUTPUT_BAR_WIDTH
**              block characters in 1/8 steps; out-of-range values clamp.
**   _pct_bar   the same with a number in 0..100.
**   _spark     TEXT holding numbers separated by commas, semicolons or
**              blanks, drawn as a sparkline (one of eight block heights
**              per number, scaled from min to max).  Text that is not
**              such a list is shown as text.
**   other      INTEGER plain; FLOAT with up to 3 decimals and trailing
**              zeros dropped (2.0 shows as 2), below 1 three significant
**              digits (0.000009, 0.0123); below 1e-9 and from 1e15 %g.
**   declared   a unit declared for the column (output_stmt_units(): a
**              named query's "-- column: NAME:UNIT") replaces its name's;
**              "metric" gives it the unit of its row's TEXT column named
**              "metric" (peak_allocated_bytes: bytes), so diff-metrics
**              reads like every other query.  Nothing else takes a
**              metric's unit: a count or a z-score stays a number.
**
** Everywhere: NULL is an empty cell (null in JSON).  Infinities print as
** Inf / -Inf (null in JSON); SQLite itself stores NaN as NULL.  BLOBs are
** lowercase hex in every format (a JSON string in JSON).
**
** Table and markdown: text cells are whole unless a line width applies
** (output_set_width(): the terminal's when a table goes to one, or
** --width N); then the widest text columns are narrowed until the line
** fits, their longer cells cut in the middle ("…": the start and the end
** stay, which tell kernel names apart), and one line on stderr names the
** columns cut.  Tab, CR and LF become a space, other
** control characters '?', and invalid UTF-8 bytes U+FFFD.  Widths count
** code points, so East Asian wide characters misalign.  A column is
** right-aligned when every non-NULL value seen while measuring it is a
** number and it is not a bar or sparkline.  Up to OUTPUT_TABLE_BUFFER_ROWS
** rows are buffered to measure widths; after that the buffered rows are
** printed and later rows use the widths (and alignment) already fixed, a
** wider cell simply pushing the rest of its line right.  An empty result
** prints the header and separator only.  A statement with no columns
** prints nothing.  In markdown, '|' and '\' in cells are backslash-escaped
** and numeric columns get a "---:" separator.
**
** CSV: header row first, CRLF line ends, fields quoted (through libcsv's
** csv_fwrite) only when they hold a comma, quote, CR or LF.  NULL is an
** empty field and the empty string is "" so the two stay distinct.
** FLOAT uses the shortest of %.15g..%.17g that reads back exactly, with
** ".0" added to integral values, as SQLite itself renders REAL.
**
** JSON: "[" and "]" on their own lines with one object per line between,
** comma-separated; "[]" for no rows.  Keys are column names; a repeated
** name gets "_2", "_3", ... appended.  Strings escape '"', '\', \b \f \n
** \r \t, other control characters and DEL as \u00XX, U+2028/U+2029 as
** \u2028/\u2029, and each byte of invalid UTF-8 becomes U+FFFD.
*/
#include "report/output.h"
#include "core/util.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Unit picked from a column name. */
enum {
  UNIT_NONE = 0,
  UNIT_BYTES,       /* *_bytes */
  UNIT_NS,          /* *_ns */
  UNIT_US,          /* *_us */
  UNIT_MS,          /* *_ms */
  UNIT_PCT,         /* *_pct */
  UNIT_BAR,         /* *_bar, 0..1 */
  UNIT_PCT_BAR,     /* *_pct_bar, 0..100 */
  UNIT_SPARK        /* *_spark, list of numbers in TEXT */
};

/* One output column. */
typedef struct OutCol {
  char *zHead;      /* header as printed (sanitized, escaped); owned */
  char *zKey;       /* JSON key (deduplicated, unescaped); owned */
  int eUnit;        /* UNIT_* */
  int bMetric;      /* declared "metric": the unit of the row's metric */
  int bName;        /* a kernel or op name: shortened to fit a width */
  int bRight;       /* right-align: only numbers seen so far */
  int bSeen;        /* a non-NULL value was seen while measuring */
  int bFit;         /* w was narrowed to fit the line: cut longer cells */
  int64_t nCut;     /* cells cut in this column */
  size_t w;         /* display width in code points */
} OutCol;

/* State shared by the callbacks of one output_stmt() call. */
typedef struct Out {
  sqlite3_stmt *pStmt;  /* statement being printed; borrowed */
  FILE *out;            /* destination; borrowed */
  OutFormat eFmt;       /* format being written */
  int nCol;             /* number of result columns */
  OutCol *aCol;         /* nCol columns; owned */
  char ***aaRow;        /* buffered rows (table/markdown); owned */
  int nRow;             /* rows in aaRow */
  int bFixed;           /* widths fixed: rows are printed as they come */
  int64_t nOut;         /* rows written so far (JSON comma placement) */
  int iMetric;          /* column "metric" (row unit by its value), or -1 */
  int nWidth;           /* line width to fit (table/markdown), 0: none */
  int nCut;             /* cells cut to fit nWidth */
  Buf line;             /* scratch for one line or cell */
} Out;

/* --width / --no-truncate: OUTPUT_WIDTH_AUTO, 0 (never cut) or columns. */
static int g_nWidth = OUTPUT_WIDTH_AUTO;

/* One output format: name and callbacks. */
typedef struct OutFormatInfo {
  const char *zName;          /* name for --format */
  OutFormat eFmt;             /* enum value */
  void (*xBegin)(Out *);      /* before the first row */
  void (*xRow)(Out *);        /* once per row, statement on that row */
  void (*xEnd)(Out *, int);   /* after the last row; arg: 1 if complete */
} OutFormatInfo;

/* ------------------------------------------------------------ UTF-8 */

/*
** Decodes one UTF-8 sequence at z (n bytes available, n>0).  Returns its
** length and sets *pc, or returns 0 when z[0] does not start a valid,
** shortest-form sequence of a scalar value (no surrogates, <= U+10FFFF).
*/
static int utf8Decode(const unsigned char *z, size_t n, uint32_t *pc){
  uint32_t c = z[0];
  int len, i;
  if( c<0x80 ){ *pc = c; return 1; }
  if( c<0xC2 ) return 0;
  if( c<0xE0 ){ len = 2; c &= 0x1F; }
  else if( c<0xF0 ){ len = 3; c &= 0x0F; }
  else if( c<0xF5 ){ len = 4; c &= 0x07; }
  else return 0;
  if( n<(size_t)len ) return 0;
  for(i=1; i<len; i++){
    if( (z[i] & 0xC0)!=0x80 ) return 0;
    c = (c<<6) | (z[i] & 0x3F);
  }
  if( (len==3 && c<0x800) || (len==4 && c<0x10000) ) return 0;
  if( c>0x10FFFF || (c>=0xD800 && c<=0xDFFF) ) return 0;
  *pc = c;
  return len;
}

/* Number of code points in the valid UTF-8 string z. */
static size_t displayWidth(const char *z){
  size_t w = 0;
  for(; *z; z++){
    if( ((unsigned char)*z & 0xC0)!=0x80 ) w++;
  }
  return w;
}

/*
** Appends n bytes of untrusted text z to p as valid UTF-8 for a terminal:
** tab/CR/LF become ' ', other C0, DEL and C1 controls '?', bytes of
** invalid UTF-8 U+FFFD.  Keeps at most nMax code points; when more
** remain, the last kept one is replaced by "…".
*/
static void appendSanitized(Buf *p, const char *z, size_t n, size_t nMax){
  const unsigned char *u = (const unsigned char *)z;
  size_t i = 0, nCp = 0;
  while( i<n ){
    uint32_t c;
    int len = utf8Decode(u+i, n-i, &c);
    if( nCp+1>=nMax ){
      /* Room for one more code point: it is the last one or "…". */
      size_t j = i + (len ? (size_t)len : 1);
      if( j<n ){ buf_puts(p, "\xE2\x80\xA6"); return; }
    }
    if( len==0 ){
      buf_puts(p, "\xEF\xBF\xBD");
      i++;
    }else if( c=='\t' || c=='\n' || c=='\r' ){
      buf_putc(p, ' ');
      i++;
    }else if( c<0x20 || c==0x7F || (c>=0x80 && c<0xA0) ){
      buf_putc(p, '?');
      i += (size_t)len;
    }else{
      buf_append(p, u+i, (size_t)len);
      i += (size_t)len;
    }
    nCp++;
  }
}

/* Appends z to p with '|' and '\' backslash-escaped (markdown cells). */
static void appendMdEscaped(Buf *p, const char *z){
  for(; *z; z++){
    if( *z=='|' || *z=='\\' ) buf_putc(p, '\\');
    buf_putc(p, *z);
  }
}

/* Appends n bytes of z to p as lowercase hex. */
static void appendHex(Buf *p, const void *z, size_t n){
  static const char aHex[] = "0123456789abcdef";
  const unsigned char *u = (const unsigned char *)z;
  size_t i;
  for(i=0; i<n; i++){
    buf_putc(p, aHex[u[i]>>4]);
    buf_putc(p, aHex[u[i]&0xF]);
  }
}

/* ---------------------------------------------------------- numbers */

/* Writes the finite double r to z (size >= 40) as the shortest of
** %.15g..%.17g that reads back exactly, adding ".0" when the result
** looks like an integer, as SQLite renders REAL. */
static void fmtDoubleExact(double r, char *z){
  int p;
  for(p=15; p<=17; p++){
    snprintf(z, 32, "%.*g", p, r);
    if( strtod(z, NULL)==r ) break;
  }
  if( strpbrk(z, ".eE")==NULL ) strcat(z, ".0");
}

/* Text for a non-finite double, or NULL when r is finite. */
static const char *nonFinite(double r){
  if( isnan(r) ) return "NaN";
  if( isinf(r) ) return r>0 ? "Inf" : "-Inf";
  return NULL;
}

/* Appends z to p after dropping trailing zeros (and a bare '.') from a
** fixed-point number, and turning "-0" into "0". */
static void appendTrimmed(Buf *p, char *z){
  if( strchr(z, '.') ){
    size_t n = strlen(z);
    while( n>0 && z[n-1]=='0' ) z[--n] = 0;
    if( n>0 && z[n-1]=='.' ) z[--n] = 0;
  }
  if( strcmp(z, "-0")==0 ) z = "0";
  buf_puts(p, z);
}

/* Appends a plain FLOAT (also *_us, *_ms): up to 3 decimals with
** trailing zeros dropped; below 1 in magnitude 3 significant digits in
** fixed notation (0.000009, 0.0123); %g below 1e-9 and from 1e15. */
static void appendFloat3(Buf *p, double r){
  char z[64];
  double a = fabs(r);
  int nDec = 3;
  if( (a>0 && a<1e-9) || a>=1e15 ){
    snprintf(z, sizeof(z), a>=1e15 ? "%.6g" : "%.3g", r);
    buf_puts(p, z);
    return;
  }
  if( a>0 && a<1.0 ){
    nDec = 2 - (int)floor(log10(a));
    if( nDec<3 ) nDec = 3;
  }
  snprintf(z, sizeof(z), "%.*f", nDec, r);
  appendTrimmed(p, z);
}

/* Appends a percentage: 1 decimal; below 0.1 in magnitude (not 0) two
** significant digits, so that a small share does not read as 0.0. */
static void appendPct(Buf *p, double r){
  double a = fabs(r);
  char z[64];
  if( a>0 && a<0.1 && a>=1e-9 ){
    int nDec = 1 - (int)floor(log10(a));
    snprintf(z, sizeof(z), "%.*f", nDec, r);
    appendTrimmed(p, z);
    return;
  }
  buf_printf(p, "%.1f", r);
}

/* Appends a byte count: "512 B" below 1 KiB, else 1 decimal in the
** largest binary unit that keeps the printed value below 1024. */
static void appendBytes(Buf *p, int bInt, sqlite3_int64 i, double r){
  static const char *azUnit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double a = bInt ? fabs((double)i) : fabs(r);
  double x;
  int k;
  if( bInt && a<1024.0 ){
    buf_printf(p, "%lld B", (long long)i);
    return;
  }
  if( !bInt && floor(a+0.5)<1024.0 ){
    char z[64];
    snprintf(z, sizeof(z), "%.0f", r);
    appendTrimmed(p, z);
    buf_puts(p, " B");
    return;
  }
  for(k=0, x=a/1024.0; k<5 && floor(x*10.0+0.5)>=10240.0; k++) x /= 1024.0;
  buf_printf(p, "%s%.1f %s", (bInt ? i<0 : r<0) ? "-" : "", x, azUnit[k]);
}

/* Appends a duration in nanoseconds with 3 significant digits in the
** largest of ns, us, ms, s that keeps the value at least 1. */
static void appendNs(Buf *p, int bInt, sqlite3_int64 i, double r){
  static const char *azUnit[] = { "ns", "us", "ms", "s" };
  double v = bInt ? (double)i : r;
  double a = fabs(v), x, scale;
  int k = 0, nDec;
  char z[64];
  if( bInt && a<1000.0 ){
    buf_printf(p, "%lld ns", (long long)i);
    return;
  }
  while( k<3 && a>=1000.0 ){ a /= 1000.0; k++; }
  for(;;){
    nDec = a>=100.0 ? 0 : a>=10.0 ? 1 : 2;
    scale = nDec==0 ? 1.0 : nDec==1 ? 10.0 : 100.0;
    x = floor(a*scale+0.5)/scale;
    if( x>=1000.0 && k<3 ){ a /= 1000.0; k++; continue; }
    if( nDec>0 && x>=(nDec==1 ? 100.0 : 10.0) ){ nDec--; }
    break;
  }
  if( k==0 && a==floor(a) ) nDec = 0;
  snprintf(z, sizeof(z), "%s%.*f", v<0 ? "-" : "", nDec, a);
  if( strcmp(z, "-0")==0 ) memmove(z, z+1, strlen(z));
  buf_printf(p, "%s %s", z, azUnit[k]);
}

/* Appends a bar for fraction f of OUTPUT_BAR_WIDTH cells, in 1/8 steps. */
static void appendBar(Buf *p, double f){
  static const char *azPart[] = {
    "", "\xE2\x96\x8F", "\xE2\x96\x8E", "\xE2\x96\x8D", "\xE2\x96\x8C",
    "\xE2\x96\x8B", "\xE2\x96\x8A", "\xE2\x96\x89"
  };
  int nEighth, j;
  if( isnan(f) ) return;
  if( f<0.0 ) f = 0.0;
  if( f>1.0 ) f = 1.0;
  nEighth = (int)floor(f*OUTPUT_BAR_WIDTH*8 + 0.5);
  for(j=0; j<nEighth/8; j++) buf_puts(p, "\xE2\x96\x88");
  buf_puts(p, azPart[nEighth%8]);
}

/*
** Appends a sparkline for the list of numbers in z (separated by commas,
** semicolons or blanks).  Returns 0, or -1 without appending anything
** when z holds something that is not a finite number or holds no number.
*/
static int appendSpark(Buf *p, const char *z){
  static const char *azLevel[] = {
    "\xE2\x96\x81", "\xE2\x96\x82", "\xE2\x96\x83", "\xE2\x96\x84",
    "\xE2\x96\x85", "\xE2\x96\x86", "\xE2\x96\x87", "\xE2\x96\x88"
  };
  double *a = NULL, mn = 0, mx = 0;
  size_t n = 0, nAlloc = 0, i;
  int rc = 0;
  while( *z ){
    char *zEnd;
    double v;
    if( strchr(",; \t", *z) ){ z++; continue; }
    v = strtod(z, &zEnd);
    if( zEnd==z || !isfinite(v) || (*zEnd && !strchr(",; \t", *zEnd)) ){
      rc = -1;
      break;
    }
    if( n==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 16;
      a = xrealloc(a, nAlloc*sizeof(double));
    }
    if( n==0 || v<mn ) mn = v;
    if( n==0 || v>mx ) mx = v;
    a[n++] = v;
    z = zEnd;
  }
  if( n==0 ) rc = -1;
  for(i=0; rc==0 && i<n; i++){
    /* Halving keeps the range finite for values near +-DBL_MAX. */
    double t = mx>mn ? (a[i]/2 - mn/2)/(mx/2 - mn/2) : 3.0/7.0;
    if( !(t>=0.0) ) t = 0.0;
    if( t>1.0 ) t = 1.0;
    buf_puts(p, azLevel[(int)floor(t*7.0 + 0.5)]);
  }
  free(a);
  return rc;
}

/* Appends a number in unit eUnit (not a bar): see the file comment. */
static void appendNumber(Buf *p, int eUnit, int bInt, sqlite3_int64 i,
                         double r){
  const char *zNf = bInt ? NULL : nonFinite(r);
  if( zNf ){
    buf_puts(p, zNf);
  }else if( eUnit==UNIT_BYTES ){
    appendBytes(p, bInt, i, r);
  }else if( eUnit==UNIT_NS ){
    appendNs(p, bInt, i, r);
  }else if( eUnit==UNIT_PCT ){
    appendPct(p, r);
  }else if( bInt ){
    buf_printf(p, "%lld", (long long)i);
  }else{
    appendFloat3(p, r);
  }
}

/* -------------------------------------------------------- column info */

/* True if zName is zUnit or ends with "_" zUnit, ignoring case. */
static int hasSuffix(const char *zName, const char *zUnit){
  size_t n = strlen(zName), m = strlen(zUnit);
  if( n==m ) return strcasecmp(zName, zUnit)==0;
  return n>m && zName[n-m-1]=='_' && strcasecmp(zName+n-m, zUnit)==0;
}

/* The declared units (see output.h) and the UNIT_* of each. */
static const struct { const char *zName; int eUnit; } aDeclared[] = {
  { "bytes", UNIT_BYTES }, { "ns", UNIT_NS }, { "us", UNIT_US },
  { "ms", UNIT_MS }, { "pct", UNIT_PCT }, { "bar", UNIT_BAR },
  { "pct_bar", UNIT_PCT_BAR }, { "spark", UNIT_SPARK },
  { "name", UNIT_NONE }, { "metric", UNIT_NONE }, { "none", UNIT_NONE },
};

/* See output.h. */
int output_unit_known(const char *zUnit){
  for(size_t i=0; i<sizeof(aDeclared)/sizeof(aDeclared[0]); i++){
    if( strcmp(aDeclared[i].zName, zUnit)==0 ) return 1;
  }
  return 0;
}

/* The UNIT_* a column name selects. */
static int unitForName(const char *zName){
  if( hasSuffix(zName, "pct_bar") ) return UNIT_PCT_BAR;
  if( hasSuffix(zName, "bar") ) return UNIT_BAR;
  if( hasSuffix(zName, "spark") ) return UNIT_SPARK;
  if( hasSuffix(zName, "bytes") ) return UNIT_BYTES;
  if( hasSuffix(zName, "ns") ) return UNIT_NS;
  if( hasSuffix(zName, "us") ) return UNIT_US;
  if( hasSuffix(zName, "ms") ) return UNIT_MS;
  if( hasSuffix(zName, "pct") ) return UNIT_PCT;
  return UNIT_NONE;
}

/* Column name iCol of the statement; "" when SQLite has none. Borrowed. */
static const char *colName(sqlite3_stmt *pStmt, int iCol){
  const char *z = sqlite3_column_name(pStmt, iCol);
  return z ? z : "";
}

/*
** Allocates o->aCol and fills names and units.  JSON keys are made
** unique by appending "_2", "_3", ... to a repeated name; table and
** markdown headers are sanitized (and escaped for markdown).
*/
static void initColumns(Out *o, const OutUnit *aUnit, int nUnit){
  int i, j;
  o->nCol = sqlite3_column_count(o->pStmt);
  o->iMetric = -1;
  o->aCol = xcalloc((size_t)(o->nCol ? o->nCol : 1), sizeof(OutCol));
  for(i=0; i<o->nCol; i++){
    OutCol *pCol = &o->aCol[i];
    const char *zName = colName(o->pStmt, i);
    Buf b;
    int nSuffix = 1;
    pCol->eUnit = unitForName(zName);
    pCol->bName = hasSuffix(zName, "name");
    for(j=0; j<nUnit; j++){
      if( aUnit[j].zCol==NULL || strcmp(aUnit[j].zCol, zName) ) continue;
      for(size_t k=0; k<sizeof(aDeclared)/sizeof(aDeclared[0]); k++){
        if( strcmp(aDeclared[k].zName, aUnit[j].zUnit)==0 ){
          pCol->eUnit = aDeclared[k].eUnit;
          pCol->bName = strcmp(aUnit[j].zUnit, "name")==0;
          pCol->bMetric = strcmp(aUnit[j].zUnit, "metric")==0;
        }
      }
    }
    pCol->bRight = pCol->eUnit!=UNIT_BAR && pCol->eUnit!=UNIT_PCT_BAR
                   && pCol->eUnit!=UNIT_SPARK;
    buf_init(&b);
    buf_puts(&b, zName);
    for(j=0; j<i; j++){
      if( strcmp(o->aCol[j].zKey, buf_str(&b))==0 ){
        buf_reset(&b);
        buf_printf(&b, "%s_%d", zName, ++nSuffix);
        j = -1;
      }
    }
    pCol->zKey = buf_steal(&b);
    appendSanitized(&b, zName, strlen(zName), (size_t)-1);
    if( strcmp(zName, "metric")==0 && o->iMetric<0 ) o->iMetric = i;
    if( o->eFmt==OUT_MARKDOWN ){
      char *z = buf_steal(&b);
      appendMdEscaped(&b, z);
      free(z);
    }
    pCol->zHead = buf_steal(&b);
    pCol->w = displayWidth(pCol->zHead);
    if( pCol->eUnit==UNIT_BAR || pCol->eUnit==UNIT_PCT_BAR ){
      if( pCol->w<OUTPUT_BAR_WIDTH ) pCol->w = OUTPUT_BAR_WIDTH;
    }
    if( o->eFmt==OUT_MARKDOWN && pCol->w<3 ) pCol->w = 3;
  }
}

/* Frees everything o owns; the statement and FILE are borrowed. */
static void freeOut(Out *o){
  int i, j;
  for(i=0; i<o->nRow; i++){
    for(j=0; j<o->nCol; j++) free(o->aaRow[i][j]);
    free(o->aaRow[i]);
  }
  free(o->aaRow);
  for(i=0; i<o->nCol; i++){
    free(o->aCol[i].zHead);
    free(o->aCol[i].zKey);
  }
  free(o->aCol);
  buf_free(&o->line);
}

/* ------------------------------------------------------ human cells */

/*
** Appends the human rendering of cell iCol of the current row to p, for
** table and markdown: units per the column, text sanitized and cut,
** markdown escaping when bMd.  NULL appends nothing.
*/
static void appendHumanCell(Out *o, int iCol, Buf *p, int bMd){
  sqlite3_stmt *pStmt = o->pStmt;
  int eType = sqlite3_column_type(pStmt, iCol);
  int eUnit = o->aCol[iCol].eUnit;
  Buf b;
  buf_init(&b);
  if( o->aCol[iCol].bMetric && o->iMetric>=0 && iCol!=o->iMetric
   && sqlite3_column_type(pStmt, o->iMetric)==SQLITE_TEXT ){
    /* declared "metric": the unit of its row's metric (diff-metrics) */
    int eRow = unitForName((const char *)
                           sqlite3_column_text(pStmt, o->iMetric));
    if( eRow==UNIT_BYTES || eRow==UNIT_NS || eRow==UNIT_PCT ) eUnit = eRow;
  }
  if( eType==SQLITE_INTEGER || eType==SQLITE_FLOAT ){
    int bInt = eType==SQLITE_INTEGER;
    sqlite3_int64 i = bInt ? sqlite3_column_int64(pStmt, iCol) : 0;
    double r = sqlite3_column_double(pStmt, iCol);
    if( eUnit==UNIT_BAR || eUnit==UNIT_PCT_BAR ){
      appendBar(&b, eUnit==UNIT_PCT_BAR ? r/100.0 : r);
    }else{
      appendNumber(&b, eUnit, bInt, i, r);
    }
    if( bMd ) appendMdEscaped(p, buf_str(&b));
    else buf_puts(p, buf_str(&b));
  }else if( eType==SQLITE_TEXT || eType==SQLITE_BLOB ){
    const void *z = eType==SQLITE_TEXT ? (const void *)
        sqlite3_column_text(pStmt, iCol) : sqlite3_column_blob(pStmt, iCol);
    size_t n = (size_t)sqlite3_column_bytes(pStmt, iCol);
    Buf c;
    buf_init(&c);
    if( z==NULL ) n = 0;
    if( eType==SQLITE_BLOB ){
      appendHex(&b, z, n);
    }else if( eUnit==UNIT_SPARK && appendSpark(&c, z ? z : "")==0 ){
      buf_puts(&b, buf_str(&c));
    }else{
      buf_append(&b, z ? z : "", n);
    }
    buf_reset(&c);
    appendSanitized(&c, buf_str(&b), b.n, (size_t)-1);
    if( bMd ) appendMdEscaped(p, buf_str(&c));
    else buf_puts(p, buf_str(&c));
    buf_free(&c);
  }
  buf_free(&b);
}

/* --------------------------------------------------- table/markdown */

/* Appends z padded to width w on the side alignment asks for; the last
** column of a table gets no right padding, so lines end without blanks. */
static void appendPadded(Out *o, int iCol, const char *z, int bSep){
  const OutCol *pCol = &o->aCol[iCol];
  size_t w = displayWidth(z), pad = w<pCol->w ? pCol->w - w : 0;
  int bMd = o->eFmt==OUT_MARKDOWN;
  int bLast = iCol==o->nCol-1;
  Buf *p = &o->line;
  size_t k;
  if( bMd ) buf_puts(p, iCol==0 ? "| " : " | ");
  else if( iCol>0 ) buf_puts(p, "  ");
  if( bSep ){
    for(k=0; k<pCol->w; k++){
      buf_putc(p, (bMd && pCol->bRight && pCol->bSeen && k==pCol->w-1)
                  ? ':' : '-');
    }
  }else{
    int bRight = pCol->bRight && pCol->bSeen;
    if( bRight ) for(k=0; k<pad; k++) buf_putc(p, ' ');
    buf_puts(p, z);
    if( !bRight && (bMd || !bLast) ) for(k=0; k<pad; k++) buf_putc(p, ' ');
  }
  if( bMd && bLast ) buf_puts(p, " |");
}

/*
** The part of a kernel name that tells it from its neighbours, into a new
** string (caller frees): C++ kernel names such as "void
** at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
** at::detail::Array<char*, 1> >(int, ...)" become
** "vectorized_elementwise_kernel<FillFunctor>": no "void ", no argument
** list, no namespaces, and of the template arguments only the named types
** (functors, ops) without their own arguments; "aten::convolution_backward"
** becomes "convolution_backward".  Other names are returned unchanged.
** With bAllArgs every template argument is kept as written (to tell apart
** kernels that differ only in those).  See output.h.
*/
char *output_short_name(const char *z, int bAllArgs){
  const char *zStart, *zLt = NULL, *zEnd;
  Buf b;
  int depth = 0, nArg = 0;
  if( z==NULL ) return xstrdup("");
  zStart = strncmp(z, "void ", 5)==0 ? z+5 : z;
  /* the name ends at the '(' of the argument list at depth 0 */
  for(zEnd=zStart; *zEnd; zEnd++){
    if( strncmp(zEnd, "(anonymous namespace)", 21)==0 ){ zEnd += 20; continue; }
    if( *zEnd=='<' ){ if( depth==0 && zLt==NULL ) zLt = zEnd; depth++; }
    else if( *zEnd=='>' && depth>0 ) depth--;
    else if( *zEnd=='(' && depth==0 && zEnd>zStart && zEnd[-1]!=' ' ){
      break;                  /* "f(" is an argument list, "HtoD (" not */
    }
  }
  if( zLt==NULL && *zEnd==0 && zStart==z && strstr(z, "::")==NULL ){
    return xstrdup(z);
  }
  buf_init(&b);
  {
    /* the function's own name: after the last "::" before '<' or '(' */
    const char *zN = zStart, *zStop = zLt ? zLt : zEnd;
    for(const char *c=zStart; c+1<zStop; c++){
      if( c[0]==':' && c[1]==':' ) zN = c+2;
      if( c[0]=='(' ) break;
    }
    if( strncmp(zN, "(anonymous namespace)::", 23)==0 ) zN += 23;
    buf_append(&b, zN, (size_t)(zStop-zN));
  }
  if( zLt && bAllArgs ){
    buf_append(&b, zLt, (size_t)(zEnd-zLt));
  }else if( zLt ){
    const char *c = zLt+1, *zArg = c;
    depth = 0;
    for(; c<zEnd; c++){
      if( *c=='<' || *c=='(' ) depth++;
      else if( (*c=='>' || *c==')') && depth>0 ) depth--;
      else if( (*c==',' || *c=='>') && depth==0 ){
        /* one template argument [zArg, c): keep a named type */
        const char *a = zArg, *e = c, *n;
        while( a<e && *a==' ' ) a++;
        n = a;
        for(const char *q=a; q+23<=e; q++){
          if( strncmp(q, "(anonymous namespace)::", 23)==0 ) n = a = q+23;
        }
        for(const char *q=a; q<e && *q!='<' && *q!='('; q++){
          if( q+1<e && q[0]==':' && q[1]==':' ) n = q+2;
        }
        if( n<e && ((*n>='A' && *n<='Z') || (*n>='a' && *n<='z') || *n=='_')
            && strncmp(n, "Array<", 6) && strncmp(n, "char", 4)
            && strncmp(n, "float", 5) && strncmp(n, "int", 3)
            && strncmp(n, "long", 4) && strncmp(n, "bool", 4)
            && strncmp(n, "unsigned", 8) && strncmp(n, "double", 6)
            && strncmp(n, "true", 4) && strncmp(n, "false", 5) ){
          const char *t = n;
          while( t<e && *t!='<' && *t!=' ' && *t!='(' ) t++;
          buf_puts(&b, nArg++ ? ", " : "<");
          buf_append(&b, n, (size_t)(t-n));
        }
        zArg = c+1;
        if( *c=='>' ) break;
      }
    }
    if( nArg ) buf_putc(&b, '>');
  }
  if( b.n==0 ){
    buf_free(&b);
    return xstrdup(z);
  }
  return buf_steal(&b);
}

/* Cuts the valid UTF-8 text *pz to w code points when it is wider: its
** first two fifths, "…", and its end (the end of a kernel name tells it
** from its neighbours: ..._Sum_float, ...<FillFunctor>).  Returns 1 when
** it cut.  *pz is reallocated. */
static int cutToWidth(char **pz, size_t w){
  char *z = *pz;
  size_t nCp = displayWidth(z), nHead, nTail, i = 0, k = 0, iHead = 0;
  size_t iTail = 0;
  Buf b;
  if( w==0 || nCp<=w ) return 0;
  nHead = (w-1)*2/5;
  nTail = w-1-nHead;
  for(i=0; z[i]; i++){
    if( ((unsigned char)z[i] & 0xC0)==0x80 ) continue;
    if( k==nHead ) iHead = i;
    if( k==nCp-nTail ) iTail = i;
    k++;
  }
  if( nTail==0 ) iTail = i;
  buf_init(&b);
  buf_append(&b, z, iHead);
  buf_puts(&b, "\xE2\x80\xA6");
  buf_puts(&b, z+iTail);
  free(z);
  *pz = buf_steal(&b);
  return 1;
}

/* See output.h. */
int output_cut_middle(char **pz, size_t w){
  return cutToWidth(pz, w);
}

/* Appends the first n code points of z to p. */
static void appendCodePoints(Buf *p, const char *z, size_t n){
  size_t i = 0, k = 0;
  while( z[i] && k<n ){
    i++;
    while( ((unsigned char)z[i] & 0xC0)==0x80 ) i++;
    k++;
  }
  buf_append(p, z, i);
}

/* See output.h. */
char *output_fit_name(const char *zFull, size_t w){
  char *z = output_short_name(zFull, 0);
  const char *zLt = strchr(z, '<');
  size_t nFn, nKeep;
  Buf b;
  if( w<4 || displayWidth(z)<=w ) return z;
  if( zLt==NULL || zLt==z ){
    cutToWidth(&z, w);
    return z;
  }
  /* kernel<args>: the name gives way first (to a third), then the end of
  ** the arguments; the first argument (the functor) stays */
  buf_init(&b);
  nFn = displayWidth(z) - displayWidth(zLt);
  nKeep = w/3 > 8 ? w/3 : 8;
  if( nFn>nKeep ){
    appendCodePoints(&b, z, nKeep-1);
    buf_puts(&b, "\xE2\x80\xA6");
    nFn = nKeep;
  }else{
    buf_append(&b, z, (size_t)(zLt-z));
  }
  if( displayWidth(zLt)+nFn<=w ){
    buf_puts(&b, zLt);
  }else{
    appendCodePoints(&b, zLt, w-nFn-1);
    buf_puts(&b, "\xE2\x80\xA6");
  }
  free(z);
  return buf_steal(&b);
}

/* True when column iCol is text that may be cut to fit the line: not a
** number column, bar or sparkline. */
static int isCuttable(const Out *o, int iCol){
  const OutCol *pCol = &o->aCol[iCol];
  if( pCol->eUnit==UNIT_BAR || pCol->eUnit==UNIT_PCT_BAR ) return 0;
  return !(pCol->bRight && pCol->bSeen);
}

/*
** Narrows text columns until a line fits o->nWidth: the widest cuttable
** column first, never below OUTPUT_MIN_CUT_WIDTH or its header's width.
** Marks the narrowed columns bFit.  Numbers and bars are never cut.
*/
static void fitWidths(Out *o){
  int bMd = o->eFmt==OUT_MARKDOWN;
  if( o->nWidth<=0 || o->nCol==0 ) return;
  for(;;){
    size_t total = bMd ? 4 + 3*(size_t)(o->nCol-1) : 2*(size_t)(o->nCol-1);
    size_t over, second = 0, target, minW;
    int i, iBest = -1;
    for(i=0; i<o->nCol; i++) total += o->aCol[i].w;
    if( total<=(size_t)o->nWidth ) return;
    over = total - (size_t)o->nWidth;
    for(i=0; i<o->nCol; i++){
      OutCol *pCol = &o->aCol[i];
      size_t m = displayWidth(pCol->zHead);
      if( m<OUTPUT_MIN_CUT_WIDTH ) m = OUTPUT_MIN_CUT_WIDTH;
      if( !isCuttable(o, i) || pCol->w<=m ) continue;
      if( iBest<0 || pCol->w>o->aCol[iBest].w ){
        if( iBest>=0 ) second = o->aCol[iBest].w;
        iBest = i;
      }else if( pCol->w>second ){
        second = pCol->w;
      }
    }
    if( iBest<0 ) return;
    minW = displayWidth(o->aCol[iBest].zHead);
    if( minW<OUTPUT_MIN_CUT_WIDTH ) minW = OUTPUT_MIN_CUT_WIDTH;
    target = o->aCol[iBest].w>over ? o->aCol[iBest].w - over : 0;
    if( second>target && second<o->aCol[iBest].w ) target = second;
    if( target<minW ) target = minW;
    o->aCol[iBest].w = target;
    o->aCol[iBest].bFit = 1;
  }
}

/* Writes one padded row; azCell[i] NULL is an empty cell.  Data rows
** (not bHeader) are cut to the width of columns narrowed by fitWidths().
** Table lines are right-trimmed. */
static void writePaddedRow(Out *o, char **azCell, int bHeader){
  int i;
  buf_reset(&o->line);
  for(i=0; i<o->nCol; i++){
    if( !bHeader && azCell[i] && o->aCol[i].bFit
     && displayWidth(azCell[i])>o->aCol[i].w ){
      if( o->aCol[i].bName ){
        /* a kernel or op name: its distinguishing part */
        char *zFit = output_fit_name(azCell[i], o->aCol[i].w);
        free(azCell[i]);
        azCell[i] = zFit;
      }else{
        cutToWidth(&azCell[i], o->aCol[i].w);
      }
      o->aCol[i].nCut++;
      o->nCut++;
    }
    appendPadded(o, i, azCell[i] ? azCell[i] : "", 0);
  }
  if( o->eFmt!=OUT_MARKDOWN ){
    /* Empty or padded trailing cells leave no blanks at the line end. */
    while( o->line.n>0 && o->line.z[o->line.n-1]==' ' ) o->line.n--;
  }
  buf_putc(&o->line, '\n');
  fwrite(o->line.z, 1, o->line.n, o->out);
}

/* Writes the header and separator lines, then the buffered rows, frees
** them and fixes the widths for the rows still to come. */
static void flushTable(Out *o){
  char **az = xcalloc((size_t)o->nCol, sizeof(char *));
  int i;
  for(i=0; i<o->nCol; i++){
    OutCol *pCol = &o->aCol[i];
    /* Markdown "---:" needs the column at least 4 wide. */
    if( o->eFmt==OUT_MARKDOWN && pCol->bRight && pCol->bSeen && pCol->w<4 ){
      pCol->w = 4;
    }
    az[i] = pCol->zHead;
  }
  fitWidths(o);
  writePaddedRow(o, az, 1);
  buf_reset(&o->line);
  for(i=0; i<o->nCol; i++) appendPadded(o, i, "", 1);
  buf_putc(&o->line, '\n');
  fwrite(o->line.z, 1, o->line.n, o->out);
  free(az);
  for(i=0; i<o->nRow; i++){
    int j;
    writePaddedRow(o, o->aaRow[i], 0);
    for(j=0; j<o->nCol; j++) free(o->aaRow[i][j]);
    free(o->aaRow[i]);
  }
  free(o->aaRow);
  o->aaRow = NULL;
  o->nRow = 0;
  o->bFixed = 1;
}

/* Nothing to do: the header waits until the widths are known. */
static void tableBegin(Out *o){
  (void)o;
}

/* Renders the current row.  While measuring, buffers it and widens the
** columns; once widths are fixed, writes it at once. */
static void tableRow(Out *o){
  char **az;
  int i;
  if( o->nCol==0 ) return;
  az = xcalloc((size_t)o->nCol, sizeof(char *));
  for(i=0; i<o->nCol; i++){
    OutCol *pCol = &o->aCol[i];
    int eType = sqlite3_column_type(o->pStmt, i);
    Buf b;
    if( eType==SQLITE_NULL ) continue;
    buf_init(&b);
    appendHumanCell(o, i, &b, o->eFmt==OUT_MARKDOWN);
    az[i] = buf_steal(&b);
    if( !o->bFixed ){
      size_t w = displayWidth(az[i]);
      if( w>pCol->w ) pCol->w = w;
      if( eType!=SQLITE_INTEGER && eType!=SQLITE_FLOAT ) pCol->bRight = 0;
      pCol->bSeen = 1;
    }
  }
  if( o->bFixed ){
    writePaddedRow(o, az, 0);
    for(i=0; i<o->nCol; i++) free(az[i]);
    free(az);
    return;
  }
  if( (o->nRow & (o->nRow-1))==0 ){
    size_t nAlloc = o->nRow ? 2*(size_t)o->nRow : 1;
    o->aaRow = xrealloc(o->aaRow, nAlloc*sizeof(char **));
  }
  o->aaRow[o->nRow++] = az;
  if( o->nRow>=OUTPUT_TABLE_BUFFER_ROWS ) flushTable(o);
}

/* Prints whatever is still buffered, also after a step error, so the
** rows read before the failure are shown. */
static void tableEnd(Out *o, int bOk){
  (void)bOk;
  if( o->nCol>0 && !o->bFixed ) flushTable(o);
  if( o->nCut>0 ){
    Buf b;
    int i;
    buf_init(&b);
    for(i=0; i<o->nCol; i++){
      if( o->aCol[i].nCut==0 ) continue;
      buf_printf(&b, "%s%s", b.n ? ", " : "", o->aCol[i].zHead);
    }
    fprintf(stderr, "profan: %lld cell%s cut at \xE2\x80\xA6 to fit %d columns"
            " (%s); --no-truncate or --width N to change\n",
            (long long)o->nCut, o->nCut==1 ? "" : "s", o->nWidth,
            buf_str(&b));
    buf_free(&b);
  }
}

/* -------------------------------------------------------------- CSV */

/* Writes one CSV field: quoted through libcsv only when it must be. */
static void csvField(FILE *out, const char *z, size_t n, int bFirst){
  if( !bFirst ) fputc(',', out);
  if( memchr(z, ',', n) || memchr(z, '"', n) || memchr(z, '\n', n)
   || memchr(z, '\r', n) ){
    csv_fwrite(out, z, n);
  }else{
    fwrite(z, 1, n, out);
  }
}

/* Writes the header row (column names, quoted as needed). */
static void csvBegin(Out *o){
  int i;
  if( o->nCol==0 ) return;
  for(i=0; i<o->nCol; i++){
    const char *z = colName(o->pStmt, i);
    csvField(o->out, z, strlen(z), i==0);
  }
  fputs("\r\n", o->out);
}

/* Writes the current row with raw values; see the file comment. */
static void csvRow(Out *o){
  int i;
  for(i=0; i<o->nCol; i++){
    int eType = sqlite3_column_type(o->pStmt, i);
    char z[64];
    const char *zNf;
    double r;
    switch( eType ){
      case SQLITE_INTEGER:
        snprintf(z, sizeof(z), "%lld",
                 (long long)sqlite3_column_int64(o->pStmt, i));
        csvField(o->out, z, strlen(z), i==0);
        break;
      case SQLITE_FLOAT:
        r = sqlite3_column_double(o->pStmt, i);
        zNf = nonFinite(r);
        if( zNf ) snprintf(z, sizeof(z), "%s", zNf);
        else fmtDoubleExact(r, z);
        csvField(o->out, z, strlen(z), i==0);
        break;
      case SQLITE_TEXT: {
        const char *zT = (const char *)sqlite3_column_text(o->pStmt, i);
        size_t n = (size_t)sqlite3_column_bytes(o->pStmt, i);
        if( zT==NULL ) n = 0;
        if( n==0 ){
          if( i>0 ) fputc(',', o->out);
          fputs("\"\"", o->out);
        }else{
          csvField(o->out, zT, n, i==0);
        }
        break;
      }
      case SQLITE_BLOB: {
        const void *pB = sqlite3_column_blob(o->pStmt, i);
        size_t n = (size_t)sqlite3_column_bytes(o->pStmt, i);
        buf_reset(&o->line);
        appendHex(&o->line, pB, pB ? n : 0);
        csvField(o->out, buf_str(&o->line), o->line.n, i==0);
        break;
      }
      default:
        csvField(o->out, "", 0, i==0);
        break;
    }
  }
  fputs("\r\n", o->out);
}

/* CSV has no trailer. */
static void csvEnd(Out *o, int bOk){
  (void)o;
  (void)bOk;
}

/* ------------------------------------------------------------- JSON */

/* Appends n bytes of z to p as a JSON string literal (quotes included). */
static void appendJsonString(Buf *p, const char *z, size_t n){
  const unsigned char *u = (const unsigned char *)z;
  size_t i = 0;
  buf_putc(p, '"');
  while( i<n ){
    uint32_t c;
    int len = utf8Decode(u+i, n-i, &c);
    if( len==0 ){
      buf_puts(p, "\\ufffd");
      i++;
      continue;
    }
    switch( c ){
      case '"':  buf_puts(p, "\\\""); break;
      case '\\': buf_puts(p, "\\\\"); break;
      case '\b': buf_puts(p, "\\b"); break;
      case '\f': buf_puts(p, "\\f"); break;
      case '\n': buf_puts(p, "\\n"); break;
      case '\r': buf_puts(p, "\\r"); break;
      case '\t': buf_puts(p, "\\t"); break;
      default:
        if( c<0x20 || c==0x7F || c==0x2028 || c==0x2029 ){
          buf_printf(p, "\\u%04x", (unsigned)c);
        }else{
          buf_append(p, u+i, (size_t)len);
        }
        break;
    }
    i += (size_t)len;
  }
  buf_putc(p, '"');
}

/* Opens the array; rows add their own leading newline. */
static void jsonBegin(Out *o){
  fputc('[', o->out);
}

/* Writes the current row as one object on its own line. */
static void jsonRow(Out *o){
  Buf *p = &o->line;
  int i;
  buf_reset(p);
  buf_puts(p, o->nOut ? ",\n{" : "\n{");
  for(i=0; i<o->nCol; i++){
    int eType = sqlite3_column_type(o->pStmt, i);
    if( i>0 ) buf_putc(p, ',');
    appendJsonString(p, o->aCol[i].zKey, strlen(o->aCol[i].zKey));
    buf_putc(p, ':');
    if( eType==SQLITE_INTEGER ){
      buf_printf(p, "%lld", (long long)sqlite3_column_int64(o->pStmt, i));
    }else if( eType==SQLITE_FLOAT ){
      double r = sqlite3_column_double(o->pStmt, i);
      char z[64];
      if( nonFinite(r) ){
        buf_puts(p, "null");
      }else{
        fmtDoubleExact(r, z);
        buf_puts(p, z);
      }
    }else if( eType==SQLITE_TEXT ){
      const char *z = (const char *)sqlite3_column_text(o->pStmt, i);
      size_t n = (size_t)sqlite3_column_bytes(o->pStmt, i);
      appendJsonString(p, z ? z : "", z ? n : 0);
    }else if( eType==SQLITE_BLOB ){
      const void *pB = sqlite3_column_blob(o->pStmt, i);
      size_t n = (size_t)sqlite3_column_bytes(o->pStmt, i);
      buf_putc(p, '"');
      appendHex(p, pB, pB ? n : 0);
      buf_putc(p, '"');
    }else{
      buf_puts(p, "null");
    }
  }
  buf_putc(p, '}');
  fwrite(p->z, 1, p->n, o->out);
  o->nOut++;
}

/* Closes the array, only when the statement ran to completion. */
static void jsonEnd(Out *o, int bOk){
  if( !bOk ) fputc('\n', o->out);
  else fputs(o->nOut ? "\n]\n" : "]\n", o->out);
}

/* ------------------------------------------------------------ driver */

/* The output formats; output_parse_format() searches this table. */
static const OutFormatInfo aFormat[] = {
  { "table",    OUT_TABLE,    tableBegin, tableRow, tableEnd },
  { "csv",      OUT_CSV,      csvBegin,   csvRow,   csvEnd   },
  { "json",     OUT_JSON,     jsonBegin,  jsonRow,  jsonEnd  },
  { "markdown", OUT_MARKDOWN, tableBegin, tableRow, tableEnd },
};

/* See output.h.  Names come from aFormat[]. */
int output_parse_format(const char *z, OutFormat *pFmt){
  size_t i;
  if( z==NULL ) return -1;
  for(i=0; i<sizeof(aFormat)/sizeof(aFormat[0]); i++){
    if( strcmp(z, aFormat[i].zName)==0 ){
      *pFmt = aFormat[i].eFmt;
      return 0;
    }
  }
  return -1;
}

/* See output.h. */
const char *output_format_name(OutFormat eFmt){
  size_t i;
  for(i=0; i<sizeof(aFormat)/sizeof(aFormat[0]); i++){
    if( aFormat[i].eFmt==eFmt ) return aFormat[i].zName;
  }
  return "table";
}

/*
** See output.h for the contract.  An unknown eFmt falls back to table.
** All memory allocated here is freed before returning.
*/
int output_stmt(sqlite3_stmt *pStmt, OutFormat eFmt, FILE *out,
                int64_t *pnRow){
  return output_stmt_units(pStmt, eFmt, out, pnRow, NULL, 0);
}

/* See output.h. */
int output_stmt_units(sqlite3_stmt *pStmt, OutFormat eFmt, FILE *out,
                      int64_t *pnRow, const OutUnit *aUnit, int nUnit){
  const OutFormatInfo *pInfo = &aFormat[0];
  Out o;
  int64_t nRow = 0;
  size_t i;
  int rc;
  for(i=0; i<sizeof(aFormat)/sizeof(aFormat[0]); i++){
    if( aFormat[i].eFmt==eFmt ) pInfo = &aFormat[i];
  }
  memset(&o, 0, sizeof(o));
  o.pStmt = pStmt;
  o.out = out;
  o.eFmt = pInfo->eFmt;
  if( o.eFmt==OUT_TABLE || o.eFmt==OUT_MARKDOWN ){
    o.nWidth = output_line_width(out, o.eFmt);
  }
  buf_init(&o.line);
  initColumns(&o, aUnit, nUnit);
  pInfo->xBegin(&o);
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    pInfo->xRow(&o);
    nRow++;
  }
  pInfo->xEnd(&o, rc==SQLITE_DONE);
  freeOut(&o);
  if( pnRow ) *pnRow = nRow;
  return rc;
}

/* See output.h. */
void output_number(Buf *p, const char *zCol, sqlite3_stmt *pStmt, int iCol){
  int eType = sqlite3_column_type(pStmt, iCol);
  int eUnit = unitForName(zCol ? zCol : "");
  if( eUnit==UNIT_BAR || eUnit==UNIT_PCT_BAR || eUnit==UNIT_SPARK ){
    eUnit = UNIT_NONE;
  }
  appendNumber(p, eUnit, eType==SQLITE_INTEGER,
               sqlite3_column_int64(pStmt, iCol),
               sqlite3_column_double(pStmt, iCol));
}

/* See output.h. */
void output_double(Buf *p, const char *zCol, double v){
  int eUnit = unitForName(zCol ? zCol : "");
  if( eUnit==UNIT_BAR || eUnit==UNIT_PCT_BAR || eUnit==UNIT_SPARK ){
    eUnit = UNIT_NONE;
  }
  appendNumber(p, eUnit, 0, 0, v);
}

/* ------------------------------------------------------------ width */

/* See output.h. */
void output_set_width(int nWidth){
  g_nWidth = nWidth;
}

/* Columns of the terminal behind fd: TIOCGWINSZ, else $COLUMNS, else
** 80. */
static int terminalColumns(int fd){
  struct winsize ws;
  const char *z = getenv("COLUMNS");
  if( ioctl(fd, TIOCGWINSZ, &ws)==0 && ws.ws_col>0 ) return ws.ws_col;
  if( z && atoi(z)>0 ) return atoi(z);
  return 80;
}

/* See output.h. */
int output_line_width(FILE *out, OutFormat eFmt){
  int fd;
  if( g_nWidth!=OUTPUT_WIDTH_AUTO ) return g_nWidth;
  if( eFmt!=OUT_TABLE || out==NULL ) return 0;
  fd = fileno(out);
  if( fd<0 || !isatty(fd) ) return 0;
  return terminalColumns(fd);
}

/* ---------------------------------------------------------- documents */

/* See output.h. */
void output_doc_begin(OutDoc *d, OutFormat eFmt, FILE *out,
                      const char *zOnly){
  memset(d, 0, sizeof(*d));
  d->eFmt = eFmt;
  d->out = out;
  d->zOnly = zOnly;
}

/* See output.h. */
int output_doc_wants(const OutDoc *d, const char *zName){
  return d->zOnly==NULL || strcmp(d->zOnly, zName)==0;
}

/* See output.h. */
void output_doc_title(OutDoc *d, const char *zTitle){
  if( d->zOnly || d->eFmt==OUT_CSV || d->eFmt==OUT_JSON ) return;
  fprintf(d->out, "%s\n", zTitle);
  d->bText = 1;
}

/* See output.h. */
int output_doc_section(OutDoc *d, const char *zName, sqlite3_stmt *pStmt,
                       int64_t *pnRow){
  int rc;
  if( !output_doc_wants(d, zName) ){
    d->aUnit = NULL;
    d->nUnit = 0;
    if( pnRow ) *pnRow = 0;
    return SQLITE_DONE;
  }
  if( d->zOnly==NULL ){
    if( d->eFmt==OUT_JSON ){
      Buf b;
      buf_init(&b);
      buf_puts(&b, d->nSec ? ",\n" : "{\n");
      appendJsonString(&b, zName, strlen(zName));
      buf_puts(&b, ": ");
      fwrite(b.z, 1, b.n, d->out);
      buf_free(&b);
    }else{
      fprintf(d->out, "%s%s\n", (d->nSec || d->bText) ? "\n" : "",
              d->zTitle ? d->zTitle : zName);
    }
  }
  d->nSec++;
  d->zTitle = NULL;
  rc = output_stmt_units(pStmt, d->eFmt, d->out, pnRow, d->aUnit, d->nUnit);
  d->aUnit = NULL;
  d->nUnit = 0;
  if( rc!=SQLITE_DONE ) d->bFailed = 1;
  return rc;
}

/* See output.h. */
void output_doc_end(OutDoc *d){
  if( d->zOnly || d->eFmt!=OUT_JSON || d->bFailed ) return;
  fputs(d->nSec ? "}\n" : "{}\n", d->out);
}
