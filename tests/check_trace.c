/*
** check_trace.c — unit tests for the trace parser (parse_trace.c), field
** helpers (trace_args.c) and file sniffing (discover.c).
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingest/discover.h"
#include "input/input.h"
#include "trace/parse_trace.h"
#include "trace/trace_args.h"

START_TEST(test_us_to_ns){
  int64_t ns;
  int frac;
  ck_assert_int_eq(parse_trace_us_to_ns("1669783687464181", 16, &ns, &frac), 0);
  ck_assert_int_eq(ns, 1669783687464181000LL);
  ck_assert_int_eq(frac, 0);
  ck_assert_int_eq(parse_trace_us_to_ns("4458676522690.655", 17, &ns, &frac), 0);
  ck_assert_int_eq(ns, 4458676522690655LL);
  ck_assert_int_eq(frac, 1);
  /* 19 significant digits survive (a double would not) */
  ck_assert_int_eq(parse_trace_us_to_ns("1712195495519689.047", 20, &ns, NULL), 0);
  ck_assert_int_eq(ns, 1712195495519689047LL);
  ck_assert_int_eq(parse_trace_us_to_ns("1712195495519695.8", 18, &ns, NULL), 0);
  ck_assert_int_eq(ns, 1712195495519695800LL);
  ck_assert_int_eq(parse_trace_us_to_ns("607904.0", 8, &ns, NULL), 0);
  ck_assert_int_eq(ns, 607904000LL);
  ck_assert_int_eq(parse_trace_us_to_ns("1.5e3", 5, &ns, NULL), 0);
  ck_assert_int_eq(ns, 1500000LL);
  ck_assert_int_eq(parse_trace_us_to_ns("0.0004", 6, &ns, NULL), 0);
  ck_assert_int_eq(ns, 0);
  ck_assert_int_eq(parse_trace_us_to_ns("0.0006", 6, &ns, NULL), 0);
  ck_assert_int_eq(ns, 1);
  ck_assert_int_eq(parse_trace_us_to_ns("-3", 2, &ns, NULL), 0);
  ck_assert_int_eq(ns, -3000);
  ck_assert_int_eq(parse_trace_us_to_ns("abc", 3, &ns, NULL), -1);
  ck_assert_int_eq(parse_trace_us_to_ns("99999999999999999999", 20, &ns, NULL), -1);
}
END_TEST

START_TEST(test_memcpy_kind){
  MemcpyKind k;
  trace_args_memcpy_kind("Memcpy HtoD (Pageable -> Device)", &k);
  ck_assert_str_eq(k.zDirection, "HtoD");
  ck_assert_str_eq(k.zSrc, "Pageable");
  ck_assert_str_eq(k.zDst, "Device");
  trace_args_memcpy_kind("Memcpy DtoH (Device -> Pinned)", &k);
  ck_assert_str_eq(k.zDirection, "DtoH");
  ck_assert_str_eq(k.zDst, "Pinned");
  trace_args_memcpy_kind("Memset (Device)", &k);
  ck_assert_str_eq(k.zDirection, "");
  ck_assert_str_eq(k.zDst, "Device");
}
END_TEST

START_TEST(test_step_number){
  ck_assert_int_eq(trace_args_step_number("ProfilerStep#12"), 12);
  ck_assert_int_eq(trace_args_step_number("ProfilerStep # 7"), 7);
  ck_assert_int_eq(trace_args_step_number("ProfilerStep#"), -1);
  ck_assert_int_eq(trace_args_step_number("ProfilerStep#3x"), -1);
  ck_assert_int_eq(trace_args_step_number("## forward ##"), -1);
}
END_TEST

START_TEST(test_flops_estimate){
  ck_assert_double_eq(trace_args_estimate_flops("aten::mm", "[[8, 16], [16, 4]]"),
                      2.0*8*16*4);
  ck_assert_double_eq(trace_args_estimate_flops("aten::addmm",
                      "[[4], [8, 16], [16, 4], [], []]"), 2.0*8*16*4);
  ck_assert_double_eq(trace_args_estimate_flops("aten::bmm",
                      "[[3, 8, 16], [3, 16, 4]]"), 2.0*3*8*16*4);
  ck_assert_double_eq(trace_args_estimate_flops("aten::mm", "[[8, 16], [15, 4]]"), -1);
  /* nested ops are not estimated (their children are) */
  ck_assert_double_eq(trace_args_estimate_flops("aten::linear",
                      "[[8, 16], [4, 16], [4]]"), -1);
  ck_assert_double_eq(trace_args_estimate_flops("aten::mm", ""), -1);
}
END_TEST

START_TEST(test_sniff){
  char zWhy[128];
  ck_assert_int_eq(discover_sniff("{\"traceEvents\": []}", 19, zWhy, 128), KIND_TRACE);
  ck_assert_int_eq(discover_sniff("\x80\x04\x95", 3, zWhy, 128), KIND_PICKLE);
  ck_assert_int_eq(discover_sniff("x:1:2 [0] NCCL INFO hi\n", 23, zWhy, 128),
                   KIND_NCCL_LOG);
  ck_assert_int_eq(discover_sniff("{\"a\": 1}", 8, zWhy, 128), KIND_UNKNOWN);
  ck_assert_str_eq(zWhy, "JSON without \"traceEvents\" in its first MiB");
  ck_assert_int_eq(discover_sniff("   \n", 4, zWhy, 128), KIND_UNKNOWN);
  ck_assert_str_eq(zWhy, "empty file");
}
END_TEST

START_TEST(test_rank_from_name){
  ck_assert_int_eq(input_rank_from_name("run/worker3_step_12.1694.pt.trace.json.gz"), 3);
  ck_assert_int_eq(input_rank_from_name("trace_rank_12.json"), 12);
  ck_assert_int_eq(input_rank_from_name("rank-5.json"), 5);
  ck_assert_int_eq(input_rank_from_name("host_1234.1694.pt.trace.json"), -1);
  ck_assert_int_eq(input_rank_from_name("franky7.json"), -1);
}
END_TEST

/* ---- parser on inline documents ---- */

typedef struct Collect {
  int n;
  TraceEvent aEv[16];
  char azName[16][64];
  char azDims[16][64];
} Collect;

static int collect_sink(void *ctx, const TraceEvent *e){
  Collect *c = ctx;
  if( e->kind==TEV_OTHER || c->n>=16 ) return 0;
  c->aEv[c->n] = *e;
  snprintf(c->azName[c->n], 64, "%s", e->zName);
  snprintf(c->azDims[c->n], 64, "%s", e->zInputDims);
  c->n++;
  return 0;
}

/* Parse text through a temporary file; returns the parser's rc. */
static int parse_text(const char *zText, Collect *c, TraceInfo *pInfo,
                      PfError *pErr){
  char zPath[] = "/tmp/profan_check_XXXXXX";
  int fd = mkstemp(zPath);
  Input *in;
  int rc;
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, zText, strlen(zText)), (ssize_t)strlen(zText));
  close(fd);
  memset(c, 0, sizeof(*c));
  in = input_open(zPath, pErr);
  ck_assert_ptr_nonnull(in);
  rc = parse_trace(in, collect_sink, c, pInfo, pErr);
  input_close(in);
  unlink(zPath);
  return rc;
}

START_TEST(test_parse_events_and_trailer){
  Collect c;
  TraceInfo info;
  PfError e = {0};
  const char *z =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,"
    "  \"ts\":100.5,\"dur\":2.25,\"args\":{\"correlation\":9,\"grid\":[4,2,1],"
    "  \"block\":[128,1,1],\"blocks per SM\":\"inf\",\"occupancy\":{\"a\":1}}},\n"
    " {\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::mm\",\"pid\":1,"
    "  \"tid\":\"1890023232\",\"ts\":90,\"dur\":20,"
    "  \"args\":{\"Input dims\":[[8, 16],[16,4]],\"external id\":3}},\n"
    " {\"ph\":\"f\",\"id\":9,\"pid\":0,\"tid\":\"stream 7\",\"ts\":100,\"cat\":\"ac2g\"},\n"
    " {\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
    "  \"pid\":0,\"tid\":\"stream 7 \",\"ts\":80,\"dur\":-4,\"args\":{\"bytes\":64}}\n"
    "], \"baseTimeNanoseconds\": 1000000000000, "
    "\"distributedInfo\": {\"rank\": 5, \"world_size\": 8}}";
  ck_assert_int_eq(parse_text(z, &c, &info, &e), 0);
  ck_assert_int_eq(c.n, 3);
  ck_assert_int_eq(info.nEvents, 4);
  ck_assert_int_eq(c.aEv[0].kind, TEV_KERNEL);
  ck_assert_str_eq(c.azName[0], "gemm");
  ck_assert_int_eq(c.aEv[0].ts, 100500);
  ck_assert_int_eq(c.aEv[0].dur, 2250);
  ck_assert_int_eq(c.aEv[0].correlation, 9);
  ck_assert_int_eq(c.aEv[0].grid[1], 2);
  ck_assert_int_eq(c.aEv[0].block[0], 128);
  ck_assert(!(c.aEv[0].has & TF_BLOCKS_PER_SM));      /* "inf" dropped */
  ck_assert_int_eq(c.aEv[1].kind, TEV_CPU_OP);
  ck_assert_int_eq(c.aEv[1].tid, 1890023232LL);
  ck_assert_str_eq(c.azDims[1], "[[8,16],[16,4]]");
  ck_assert_int_eq(c.aEv[1].external_id, 3);
  ck_assert_int_eq(c.aEv[2].kind, TEV_MEMCPY);
  ck_assert_int_eq(c.aEv[2].tid, 7);
  ck_assert_int_eq(c.aEv[2].dur, 0);                 /* clamped */
  ck_assert_int_eq(info.nWarnings, 1);
  ck_assert(info.hasBaseTime && info.baseTimeAfterEvents);
  ck_assert_int_eq(info.baseTimeNs, 1000000000000LL);
  ck_assert(info.hasRank && info.rankAfterEvents);
  ck_assert_int_eq(info.rank, 5);
  ck_assert_int_eq(info.worldSize, 8);
  ck_assert_str_eq(info.zTimeRegime, "relative_us");
}
END_TEST

START_TEST(test_parse_errors){
  Collect c;
  TraceInfo info;
  PfError e;
  memset(&e, 0, sizeof(e));
  ck_assert_int_ne(parse_text("", &c, &info, &e), 0);
  ck_assert_str_eq(e.zMsg, "empty file");
  memset(&e, 0, sizeof(e));
  ck_assert_int_ne(parse_text("{\"traceEvents\": [{\"ph\": \"X\"", &c, &info, &e), 0);
  ck_assert_str_eq(e.zMsg, "truncated JSON: the file ends inside the trace");
  memset(&e, 0, sizeof(e));
  ck_assert_int_ne(parse_text("{\"traceEvents\": [{\"ph\" \"X\"}]}", &c, &info, &e), 0);
  ck_assert_int_eq(e.ePos, ERRPOS_BYTE);
  ck_assert(strncmp(e.zMsg, "invalid JSON: ", 14)==0);
  memset(&e, 0, sizeof(e));
  ck_assert_int_ne(parse_text("{\"a\": 1}", &c, &info, &e), 0);
  ck_assert_str_eq(e.zMsg, "no \"traceEvents\" array: not a PyTorch profiler trace");
  memset(&e, 0, sizeof(e));
  ck_assert_int_ne(parse_text("{\"traceEvents\": {}}", &c, &info, &e), 0);
  ck_assert_str_eq(e.zMsg, "\"traceEvents\" is not an array");
  memset(&e, 0, sizeof(e));
  ck_assert_int_ne(parse_text("42", &c, &info, &e), 0);
  ck_assert(strncmp(e.zMsg, "top level is not an object", 26)==0);
}
END_TEST

START_TEST(test_parse_deep_nesting_refused){
  Collect c;
  TraceInfo info;
  PfError e = {0};
  Buf b;
  buf_init(&b);
  buf_puts(&b, "{\"traceEvents\": [{\"ph\":\"X\",\"args\":{\"x\":");
  for(int i=0; i<1000; i++) buf_putc(&b, '[');
  for(int i=0; i<1000; i++) buf_putc(&b, ']');
  buf_puts(&b, "}}]}");
  ck_assert_int_ne(parse_text(buf_str(&b), &c, &info, &e), 0);
  ck_assert_str_eq(e.zMsg, "nesting deeper than 256 levels");
  buf_free(&b);
}
END_TEST

START_TEST(test_parse_control_chars_in_name){
  Collect c;
  TraceInfo info;
  PfError e = {0};
  const char *z = "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\","
                  "\"name\":\"a\tb\x01" "c\",\"ts\":1,\"dur\":1}]}";
  ck_assert_int_eq(parse_text(z, &c, &info, &e), 0);
  ck_assert_int_eq(c.n, 1);
  ck_assert_str_eq(c.azName[0], "a b c");
}
END_TEST

/* The conversion digit by digit, as parse_trace_us_to_ns() did before it took
** eight digits at a time (no exponent form): the reference below. */
static int ref_us_to_ns(const char *z, size_t n, int64_t *pNs){
  size_t i = 0;
  int neg = 0, nFrac = 0, roundUp = 0;
  uint64_t ip = 0, fp = 0, u;
  if( n==0 ) return -1;
  if( z[0]=='-' ){ neg = 1; i++; }
  if( i>=n || z[i]<'0' || z[i]>'9' ) return -1;
  for(; i<n && z[i]>='0' && z[i]<='9'; i++){
    if( ip > (uint64_t)(INT64_MAX/1000 - 1)/10 ) return -1;
    ip = ip*10 + (uint64_t)(z[i]-'0');
  }
  if( i<n && z[i]=='.' ){
    for(i++; i<n && z[i]>='0' && z[i]<='9'; i++){
      if( nFrac<3 ){ fp = fp*10 + (uint64_t)(z[i]-'0'); nFrac++; }
      else if( nFrac==3 ){ roundUp = z[i]>='5'; nFrac++; }
    }
  }
  if( i!=n ) return -1;
  while( nFrac<3 ){ fp *= 10; nFrac++; }
  u = ip*1000 + fp + (uint64_t)roundUp;
  if( u>=((uint64_t)1<<62) ) return -1;
  *pNs = neg ? -(int64_t)u : (int64_t)u;
  return 0;
}

/* 300,000 random numbers of 1 to 40 integer digits (leading zeros, signs,
** fractions, a stray letter) and the values around the overflow limit:
** the same result and value as the reference. */
START_TEST(test_us_to_ns_words){
  static const char *azEdge[] = {
    "922337203685476", "922337203685477", "9223372036854775",
    "9223372036854776", "4611686018427387", "4611686018427388",
    "4611686018427387.903", "4611686018427387.9035", "99999999999999999",
    "0000000000000000001", "12345678", "-12345678", "1234567.8", "00000000",
    "100000000000000000000000", "18446744073709551616000",
    "000000000000000000000000000000012", "36893488147419103232",
  };
  char z[48];
  srand(42);
  for(int k=0; k<300000+(int)(sizeof(azEdge)/sizeof(azEdge[0])); k++){
    int64_t a = -7, b = -7;
    size_t n = 0;
    int ra, rb;
    if( k<(int)(sizeof(azEdge)/sizeof(azEdge[0])) ){
      n = strlen(azEdge[k]);
      memcpy(z, azEdge[k], n);
    }else{
      int nInt = 1 + (rand()%10 ? rand()%20 : rand()%40), nFr = rand()%4 ? 0 : rand()%6;
      if( rand()%8==0 ) z[n++] = '-';
      for(int i=0; i<nInt; i++) z[n++] = (char)('0' + (i==0 && rand()%3 ? 1+rand()%9 : rand()%10));
      if( nFr ){ z[n++] = '.'; for(int i=0; i<nFr; i++) z[n++] = (char)('0'+rand()%10); }
      if( rand()%50==0 ) z[rand()%n] = 'x';
    }
    z[n] = 0;
    ra = parse_trace_us_to_ns(z, n, &a, NULL);
    rb = ref_us_to_ns(z, n, &b);
    if( ra!=rb || (ra==0 && a!=b) ){
      ck_abort_msg("%s: %d %lld, reference %d %lld", z, ra, (long long)a, rb,
                   (long long)b);
    }
  }
}
END_TEST

Suite *make_trace_suite(void){
  Suite *s = suite_create("trace");
  TCase *tc = tcase_create("fields");
  tcase_add_test(tc, test_us_to_ns);
  tcase_add_test(tc, test_us_to_ns_words);
  tcase_add_test(tc, test_memcpy_kind);
  tcase_add_test(tc, test_step_number);
  tcase_add_test(tc, test_flops_estimate);
  tcase_add_test(tc, test_sniff);
  tcase_add_test(tc, test_rank_from_name);
  suite_add_tcase(s, tc);
  tc = tcase_create("parser");
  tcase_add_test(tc, test_parse_events_and_trailer);
  tcase_add_test(tc, test_parse_errors);
  tcase_add_test(tc, test_parse_deep_nesting_refused);
  tcase_add_test(tc, test_parse_control_chars_in_name);
  suite_add_tcase(s, tc);
  return s;
}
