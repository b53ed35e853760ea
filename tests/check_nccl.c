/*
** check_nccl.c — unit tests for the NCCL debug-log parser (parse_nccl.c).
**
** Pipeline position: tests the parse stage that feeds the NCCL loader.
** Uses hand-written snippets under fixtures/nccl/ and, when present, the
** real logs under ../shared/fixtures/nccl/ (read in place, never copied).
** Real-log tests fail when CI=true and the files are missing; otherwise
** they are skipped with a message on stderr.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/parse_nccl.h"

#define REAL_DIR "../shared/fixtures/nccl/"
#define FIX_DIR "fixtures/nccl/"

/* ------------------------------------------------------- collector */

#define MAXR 64

/* Everything the sink saw; borrowed strings are copied. */
typedef struct Col {
  int nVer, nInit, nConn, nChan, nTim, nTune, nWarn, nDes, nColl;
  NcclVersion ver[4];
  NcclPrefix verX[4];
  NcclInit init[MAXR];
  NcclPrefix initX[MAXR];
  NcclConn conn[MAXR];
  NcclPrefix connX[MAXR];
  NcclChannel chan[MAXR];
  char chanText[MAXR][1100];
  NcclPrefix chanX[MAXR];
  NcclTiming tim[MAXR];
  NcclTuning tune[MAXR];
  NcclWarn warn[MAXR];
  char warnText[MAXR][256];
  NcclPrefix warnX[MAXR];
  NcclDestroy des[MAXR];
  NcclColl coll[MAXR];
  NcclPrefix collX[MAXR];
  /* aggregates over all records */
  int initPhase[3];
  int connKind[6];
  int chanKind[7];
  int tuneKind[3];
  int timKind[2];
  int nWarnDown;
  int collDtype[16];
  int collOp[NCCL_OP_OTHER+1];
  int nCollGlued;
  int64_t collBytes;
  int stopAt;          /* xColl returns 42 on this coll (1-based); 0 off */
} Col;

static int c_ver(void *ctx, const NcclPrefix *x, const NcclVersion *r){
  Col *c = ctx;
  if( c->nVer<4 ){ c->ver[c->nVer] = *r; c->verX[c->nVer] = *x; }
  c->nVer++;
  return 0;
}
static int c_init(void *ctx, const NcclPrefix *x, const NcclInit *r){
  Col *c = ctx;
  if( c->nInit<MAXR ){ c->init[c->nInit] = *r; c->initX[c->nInit] = *x; }
  c->nInit++;
  c->initPhase[r->phase]++;
  return 0;
}
static int c_conn(void *ctx, const NcclPrefix *x, const NcclConn *r){
  Col *c = ctx;
  if( c->nConn<MAXR ){ c->conn[c->nConn] = *r; c->connX[c->nConn] = *x; }
  c->nConn++;
  c->connKind[r->kind]++;
  return 0;
}
static int c_chan(void *ctx, const NcclPrefix *x, const NcclChannel *r){
  Col *c = ctx;
  if( c->nChan<MAXR ){
    c->chan[c->nChan] = *r;
    c->chanX[c->nChan] = *x;
    snprintf(c->chanText[c->nChan], sizeof(c->chanText[0]), "%s", r->zText);
    c->chan[c->nChan].zText = 0;
  }
  c->nChan++;
  c->chanKind[r->kind]++;
  return 0;
}
static int c_tim(void *ctx, const NcclPrefix *x, const NcclTiming *r){
  Col *c = ctx;
  (void)x;
  if( c->nTim<MAXR ) c->tim[c->nTim] = *r;
  c->nTim++;
  c->timKind[r->kind]++;
  return 0;
}
static int c_tune(void *ctx, const NcclPrefix *x, const NcclTuning *r){
  Col *c = ctx;
  (void)x;
  if( c->nTune<MAXR ){
    c->tune[c->nTune] = *r;
    c->tune[c->nTune].zText = 0;
  }
  c->nTune++;
  c->tuneKind[r->kind]++;
  return 0;
}
static int c_warn(void *ctx, const NcclPrefix *x, const NcclWarn *r){
  Col *c = ctx;
  if( c->nWarn<MAXR ){
    c->warn[c->nWarn] = *r;
    c->warnX[c->nWarn] = *x;
    snprintf(c->warnText[c->nWarn], sizeof(c->warnText[0]), "%s", r->zText);
    c->warn[c->nWarn].zText = 0;
  }
  c->nWarn++;
  if( r->bDowngraded ) c->nWarnDown++;
  return 0;
}
static int c_des(void *ctx, const NcclPrefix *x, const NcclDestroy *r){
  Col *c = ctx;
  (void)x;
  if( c->nDes<MAXR ) c->des[c->nDes] = *r;
  c->nDes++;
  return 0;
}
static int c_coll(void *ctx, const NcclPrefix *x, const NcclColl *r){
  Col *c = ctx;
  if( c->nColl<MAXR ){ c->coll[c->nColl] = *r; c->collX[c->nColl] = *x; }
  c->nColl++;
  if( r->dtype>=0 && r->dtype<16 ) c->collDtype[r->dtype]++;
  c->collOp[r->op]++;
  if( x->bGlued ) c->nCollGlued++;
  if( r->bytes>0 ) c->collBytes += r->bytes;
  if( c->stopAt && c->nColl==c->stopAt ) return 42;
  return 0;
}

static const NcclSink SINK = {
  c_ver, c_init, c_conn, c_chan, c_tim, c_tune, c_warn, c_des, c_coll
};

static Col *col_new(void){
  Col *c = calloc(1, sizeof(Col));
  ck_assert_ptr_nonnull(c);
  return c;
}

/* Feed a multi-line string through parse_nccl_line; returns finish(). */
static int feed(Col *c, NcclStats *st, const char *zText, PfError *pErr){
  NcclParser *p = parse_nccl_new(&SINK, c, st);
  const char *z = zText;
  int64_t ln = 0;
  int rc = 0;
  while( *z ){
    const char *e = strchr(z, '\n');
    size_t n = e ? (size_t)(e-z) : strlen(z);
    rc = parse_nccl_line(p, z, n, ++ln);
    ck_assert_int_eq(rc, 0);
    z += n + (e ? 1 : 0);
  }
  rc = parse_nccl_finish(p, pErr);
  parse_nccl_free(p);
  return rc;
}

/* Path of a real log, or NULL (test skipped) when it is absent; with
** CI=true a missing file fails the test. */
static const char *real_log(const char *zName){
  static char zPath[512];
  const char *ci = getenv("CI");
  snprintf(zPath, sizeof(zPath), "%s%s", REAL_DIR, zName);
  if( access(zPath, R_OK)==0 ) return zPath;
  if( ci && strcmp(ci, "true")==0 ){
    ck_abort_msg("real fixture %s missing (CI=true)", zPath);
  }
  fprintf(stderr, "check_nccl: SKIP: %s not found\n", zPath);
  return NULL;
}

/* ------------------------------------------------------ real logs */

/*
** Independent counts for nccl-tests-2.27.7-2rank.log:
**   grep -c '' FILE                          -> 3143 lines
**   grep -o 'AllReduce: opCount' FILE | wc -l -> 990 records
**   grep 'opCount' FILE | grep -vc '^mew0:'  -> 22 glued after table text
**   python3: re.finditer(r'(\w+): opCount .. count (\d+) datatype (\d+)')
**     -> 990 x datatype 7, 495 per comm, sum(count*4) = 1545433251840
**   grep -c 'Init START' / 'Init COMPLETE'   -> 2 / 2
**   grep -c 'nRanks .* nNodes'               -> 2 topology lines
**   grep -o 'via .*' FILE | sort | uniq -c   -> 48 x P2P/direct pointer/read
**   grep -c 'Bytes -> Algo'                  -> 495 tuning decisions
**   grep -cE 'NCCL INFO +(Algorithm|Protocol|Max NThreads|Broadcast|Reduce|
**     AllGather|ReduceScatter|AllReduce) +\|' -> 24 table rows
**   grep -c 'timings'                        -> 4 (2 Init, 2 Bootstrap)
**   grep -c 'Destroy COMPLETE'               -> 2
**   grep -cE 'NCCL INFO (Ring|Tree) '        -> 96; 'Trees \[' -> 2;
**   grep -cE 'Channel [0-9]+/[0-9]+ : [0-9]+ [0-9]' -> 24 ring orders
**   grep -c ' coll channels' -> 2; grep -c 'Connected all' -> 2
**   grep -ciE 'fail|error|refused|timed out|timeout|exceeded|unable|
**     mismatch'                              -> 2 ("dlvsym failed")
**   grep -c 'NCCL WARN' -> 0; grep -c '^$' -> 1
*/
START_TEST(test_real_nccl_tests){
  const char *zPath = real_log("nccl-tests-2.27.7-2rank.log");
  Col *c;
  NcclStats st;
  PfError err;
  int i, nComm = 0;
  uint64_t aComm[4] = {0, 0, 0, 0};
  if( zPath==NULL ) return;
  c = col_new();
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(zPath, &SINK, c, &st, &err), 0);
  ck_assert_int_eq(err.set, 0);
  ck_assert_int_eq(st.nLines, 3143);
  ck_assert_int_eq(st.nBlank, 1);
  ck_assert_int_eq(st.nMalformed, 0);
  ck_assert_int_eq(st.nCut, 0);
  ck_assert_int_eq(st.nGlued, 22);
  ck_assert_int_eq(st.nTruncated, 0);
  /* version */
  ck_assert_int_eq(c->nVer, 1);
  ck_assert_str_eq(c->ver[0].zVersion, "2.27.7+cuda13.0");
  ck_assert_int_eq(c->ver[0].minor, 27);
  ck_assert_int_eq(c->ver[0].cudaMajor, 13);
  /* collectives */
  ck_assert_int_eq(c->nColl, 990);
  ck_assert_int_eq(st.nRec[NCCL_REC_COLL], 990);
  ck_assert_int_eq(c->collOp[NCCL_OP_ALLREDUCE], 990);
  ck_assert_int_eq(c->nCollGlued, 22);
  ck_assert_int_eq(c->collDtype[7], 990);
  ck_assert(c->collBytes==INT64_C(1545433251840));
  ck_assert_str_eq(c->coll[0].zDtype, "float32");
  ck_assert_str_eq(c->coll[0].zRedop, "sum");
  ck_assert_int_eq(c->coll[0].nranks, 2);
  ck_assert_int_eq(c->collX[0].lineno, 523);
  ck_assert_str_eq(c->collX[0].zHost, "mew0");
  ck_assert_int_eq(c->collX[0].pid, 64904);
  /* inits: 2 START + 2 COMPLETE + 2 topology lines, 2 distinct comms */
  ck_assert_int_eq(c->initPhase[NCCL_INIT_START], 2);
  ck_assert_int_eq(c->initPhase[NCCL_INIT_COMPLETE], 2);
  ck_assert_int_eq(c->initPhase[NCCL_INIT_TOPO], 2);
  for(i=0; i<c->nInit; i++){
    int j, seen = 0;
    if( c->init[i].phase!=NCCL_INIT_COMPLETE ) continue;
    ck_assert(c->init[i].commId==UINT64_C(0x54fe282d32a87d85));
    ck_assert_str_eq(c->init[i].zFunc, "ncclCommInitRankConfig");
    ck_assert_int_eq(c->init[i].format, NCCL_INITFMT_FUNC);
    for(j=0; j<nComm; j++) if( aComm[j]==c->init[i].comm ) seen = 1;
    if( !seen ) aComm[nComm++] = c->init[i].comm;
  }
  ck_assert_int_eq(nComm, 2);
  ck_assert(c->init[0].comm==UINT64_C(0x55b6aa64a990));
  ck_assert_int_eq(c->init[0].nvmlDev, 0);
  ck_assert_str_eq(c->init[0].zBusId, "17000");
  /* connections */
  ck_assert_int_eq(c->nConn, 48);
  ck_assert_int_eq(c->connKind[NCCL_CONN_P2P], 48);
  ck_assert_str_eq(c->conn[0].zVia, "P2P/direct pointer/read");
  /* channels */
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_RING_ORDER], 24);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_RING], 48);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_TREE], 48);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_TREES], 2);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_COUNTS], 2);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_CONNECTED], 2);
  /* tuning, timing, teardown, warnings */
  ck_assert_int_eq(c->tuneKind[NCCL_TUNE_DECISION], 495);
  ck_assert_int_eq(c->tuneKind[NCCL_TUNE_TABLE], 24);
  ck_assert_int_eq(c->timKind[NCCL_TIMING_INIT], 2);
  ck_assert_int_eq(c->timKind[NCCL_TIMING_BOOTSTRAP], 2);
  ck_assert_int_eq(c->nDes, 2);
  ck_assert_int_eq(c->nWarn, 2);
  ck_assert_int_eq(c->nWarnDown, 2);
  free(c);
}
END_TEST

/*
** ddp-2rank-interleaved.log (17 lines, two processes spliced):
**   line 8 holds 4 prefixes (3 cut segments: two init lines cut after
**   "nranks " and "cudaDev 0", one "Setting affinity" line); line 15
**   holds 2 (a cut "coll channels" line, then rank 1's Init COMPLETE);
**   line 16 is the orphaned tail " p2p channels, ..." (no NCCL prefix).
**   grep -c 'Init COMPLETE' -> 2; grep -c 'via SHM' -> 2;
**   grep -o 'NCCL INFO' FILE | wc -l -> 20 segments.
**   Cut (never also malformed): the two cut init lines, the cut
**   channel-count line and the cut affinity line.
*/
START_TEST(test_real_ddp_interleaved){
  const char *zPath = real_log("ddp-2rank-interleaved.log");
  Col *c;
  NcclStats st;
  PfError err;
  if( zPath==NULL ) return;
  c = col_new();
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(zPath, &SINK, c, &st, &err), 0);
  ck_assert_int_eq(st.nLines, 17);
  ck_assert_int_eq(st.nSegments, 20);
  ck_assert_int_eq(st.nCut, 4);
  /* cut and malformed are disjoint: the 4 cut segments (3 of them
  ** recognised records that would not parse) are only cut */
  ck_assert_int_eq(st.nMalformed, 0);
  ck_assert_int_eq(st.nDamaged, 4);
  ck_assert_int_eq(st.firstMalformedLine, 0);
  ck_assert_int_eq(st.firstWarnLine, 8);
  ck_assert_int_eq(st.nSkipped, 1);
  ck_assert_int_eq(c->initPhase[NCCL_INIT_COMPLETE], 2);
  ck_assert_int_eq(c->nInit, 2);
  ck_assert_int_eq(c->initX[0].lineno, 15);
  ck_assert_str_eq(c->initX[0].zHost, "ljm");
  ck_assert_int_eq(c->initX[0].pid, 803564);
  ck_assert_int_eq(c->init[0].rank, 1);
  ck_assert(c->init[0].commId==UINT64_C(0x245d75cdaf12704b));
  ck_assert_int_eq(c->init[1].rank, 0);
  ck_assert_int_eq(c->initX[1].pid, 803563);
  ck_assert_int_eq(c->connKind[NCCL_CONN_SHM], 2);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_TREES], 1);
  /* the Trees segment spliced in at the end of line 8 */
  ck_assert_int_eq(c->chanX[0].lineno, 8);
  ck_assert_str_eq(c->chanX[0].zHost, "ljm");
  ck_assert_int_eq(c->chan[0].nChannels, 2);
  free(c);
}
END_TEST

/* ---------------------------------------------------- hand-written */

START_TEST(test_init_variants){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(FIX_DIR "init-variants.log", &SINK, c,
                                   &st, &err), 0);
  /* bare <=2.22 version line */
  ck_assert_int_eq(c->nVer, 1);
  ck_assert_int_eq(c->ver[0].bBare, 1);
  ck_assert_int_eq(c->verX[0].level, NCCL_LVL_BARE);
  ck_assert_str_eq(c->ver[0].zVersion, "2.18.3+cuda12.2");
  ck_assert_int_eq(c->nInit, 11);
  ck_assert_int_eq(c->initPhase[NCCL_INIT_START], 5);
  ck_assert_int_eq(c->initPhase[NCCL_INIT_COMPLETE], 5);
  ck_assert_int_eq(c->initPhase[NCCL_INIT_TOPO], 1);
  /* 2.10 */
  ck_assert_int_eq(c->init[0].format, NCCL_INITFMT_2_10);
  ck_assert_int_eq(c->init[0].hasCommId, 0);
  ck_assert_int_eq(c->init[0].nvmlDev, -1);
  ck_assert_int_eq(c->init[0].busId, 0x18000);
  ck_assert_int_eq(c->init[0].nranks, 4);
  /* 2.16 */
  ck_assert_int_eq(c->init[1].format, NCCL_INITFMT_2_16);
  ck_assert(c->init[1].commId==UINT64_C(0x9f3e2a11c0de7b01));
  ck_assert_str_eq(c->init[1].zBusId, "1b000");
  /* 2.18 START / COMPLETE */
  ck_assert_int_eq(c->init[2].format, NCCL_INITFMT_2_18);
  ck_assert_int_eq(c->init[2].phase, NCCL_INIT_START);
  ck_assert_int_eq(c->init[2].nvmlDev, 3);
  ck_assert_int_eq(c->init[3].phase, NCCL_INIT_COMPLETE);
  /* 2.21 */
  ck_assert_str_eq(c->init[4].zFunc, "ncclCommInitRank");
  ck_assert_int_eq(c->init[4].format, NCCL_INITFMT_FUNC);
  ck_assert_str_eq(c->init[5].zFunc, "ncclCommSplit");
  ck_assert_int_eq(c->init[5].bSplit, 1);
  ck_assert(c->init[5].parent==UINT64_C(0x5583a1b2c700));
  ck_assert_int_eq(c->init[5].color, 7);
  ck_assert_int_eq(c->init[5].key, 1);
  ck_assert_int_eq(c->init[5].hasCommId, 1);
  ck_assert(c->init[5].commId==0);
  /* 2.23+ and the 2.24 split START without a blank before '-' */
  ck_assert_str_eq(c->init[6].zFunc, "ncclCommInitRankConfig");
  ck_assert_int_eq(c->init[7].phase, NCCL_INIT_START);
  ck_assert_int_eq(c->init[7].splitCount, 1);
  ck_assert_int_eq(c->init[7].color, -1);
  ck_assert_int_eq(c->init[7].key, 0);
  ck_assert_int_eq(c->init[8].phase, NCCL_INIT_COMPLETE);
  ck_assert_str_eq(c->init[9].zFunc, "ncclCommShrink");
  ck_assert_int_eq(c->init[9].splitCount, 2);
  /* topology line */
  ck_assert_int_eq(c->init[10].phase, NCCL_INIT_TOPO);
  ck_assert_int_eq(c->init[10].nNodes, 1);
  ck_assert_int_eq(c->init[10].localRanks, 2);
  ck_assert_int_eq(c->init[10].nranks, 2);
  /* timings */
  ck_assert_int_eq(c->nTim, 2);
  ck_assert_str_eq(c->tim[0].zFunc, "ncclCommInitRankConfig");
  ck_assert_int_eq(c->tim[0].nPart, 8);
  ck_assert_str_eq(c->tim[0].aPart[1].zName, "alloc");
  ck_assert(c->tim[0].total>1.249 && c->tim[0].total<1.251);
  ck_assert_str_eq(c->tim[1].zFunc, "");
  ck_assert_int_eq(c->tim[1].rank, 2);
  ck_assert_int_eq(c->tim[1].nPart, 7);
  /* teardown */
  ck_assert_int_eq(c->nDes, 2);
  ck_assert_str_eq(c->des[0].zWhat, "Destroy");
  ck_assert_str_eq(c->des[1].zWhat, "Abort");
  ck_assert(c->des[1].comm==UINT64_C(0x5583a1b2c700));
  ck_assert_int_eq(st.nMalformed, 0);
  ck_assert_int_eq(st.nSkipped, 7);
  free(c);
}
END_TEST

START_TEST(test_p2p_fp8){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(FIX_DIR "p2p-fp8-2.24.log", &SINK, c,
                                   &st, &err), 0);
  ck_assert_str_eq(c->ver[0].zVersion, "2.24.3+cuda12.4");
  ck_assert_int_eq(c->ver[0].bBare, 0);
  ck_assert_int_eq(c->nColl, 8);
  /* Send, 2.12+: sendbuff (nil), buffer in recvbuff, root is the peer */
  ck_assert_int_eq(c->coll[0].op, NCCL_OP_SEND);
  ck_assert(c->coll[0].sendbuff==0);
  ck_assert(c->coll[0].buf==UINT64_C(0x7f1200000000));
  ck_assert_int_eq(c->coll[0].peer, 1);
  ck_assert_str_eq(c->coll[0].zDtype, "bfloat16");
  ck_assert_int_eq(c->coll[0].bytes, 2048);
  ck_assert_int_eq(c->coll[1].op, NCCL_OP_RECV);
  ck_assert_int_eq(c->coll[1].peer, 1);
  ck_assert(c->coll[1].buf==UINT64_C(0x7f1200100000));
  /* fp8 */
  ck_assert_str_eq(c->coll[2].zDtype, "fp8_e4m3");
  ck_assert_int_eq(c->coll[2].dtypeSize, 1);
  ck_assert_int_eq(c->coll[2].bytes, 4096);
  ck_assert_str_eq(c->coll[3].zDtype, "fp8_e5m2");
  ck_assert_str_eq(c->coll[3].zRedop, "dynamic");
  ck_assert_int_eq(c->coll[3].redop, 6);
  /* hex opCount, (nil) stream, per-rank counts */
  ck_assert_int_eq(c->coll[4].opCount, 0xa);
  ck_assert(c->coll[4].stream==0);
  ck_assert_int_eq(c->coll[4].bytes, 200);
  ck_assert_int_eq(c->coll[4].peer, -1);
  ck_assert_int_eq(c->coll[5].opCount, 0x1f);
  ck_assert_str_eq(c->coll[5].zRedop, "max");
  ck_assert_int_eq(c->coll[5].bytes, 400);
  /* no [nranks=] */
  ck_assert_int_eq(c->coll[6].nranks, -1);
  ck_assert_int_eq(c->coll[6].root, 1);
  ck_assert_int_eq(c->coll[6].bytes, 7);
  /* unknown datatype */
  ck_assert_str_eq(c->coll[7].zDtype, "unknown");
  ck_assert_int_eq(c->coll[7].bytes, -1);
  ck_assert_str_eq(c->coll[7].zRedop, "avg");
  ck_assert_int_eq(st.nUnknownDtype, 1);
  free(c);
}
END_TEST

/* Before 2.24 the codes past bfloat16 (9) mean nothing: 9 is bfloat16
** (2 bytes), 10 and 11 are unknown (no size, no bytes), 8 float64. */
START_TEST(test_dtypes_before_2_24){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(FIX_DIR "dtypes-2.23.log", &SINK, c,
                                   &st, &err), 0);
  ck_assert_str_eq(c->ver[0].zVersion, "2.23.4+cuda12.6");
  ck_assert_int_eq(c->nColl, 4);
  ck_assert_int_eq(c->coll[0].dtype, 9);
  ck_assert_str_eq(c->coll[0].zDtype, "bfloat16");
  ck_assert_int_eq(c->coll[0].dtypeSize, 2);
  ck_assert_int_eq(c->coll[0].bytes, 2000);
  ck_assert_str_eq(c->coll[1].zDtype, "unknown");
  ck_assert_int_eq(c->coll[1].dtypeSize, 0);
  ck_assert_int_eq(c->coll[1].bytes, -1);
  ck_assert_str_eq(c->coll[2].zDtype, "unknown");
  ck_assert_int_eq(c->coll[2].bytes, -1);
  ck_assert_str_eq(c->coll[3].zDtype, "float64");
  ck_assert_int_eq(c->coll[3].bytes, 8000);
  ck_assert_int_eq(st.nUnknownDtype, 2);
  free(c);
}
END_TEST

START_TEST(test_ts_warn_launcher){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(FIX_DIR "warn-ts-2.26.log", &SINK, c,
                                   &st, &err), 0);
  ck_assert_int_eq(st.nBlank, 2);
  ck_assert_int_eq(st.nGlued, 0);
  ck_assert_int_eq(st.nMalformed, 0);
  /* launcher prefixes stripped */
  ck_assert_str_eq(c->verX[0].zHost, "nodeC");
  ck_assert_int_eq(c->verX[0].pid, 3333);
  ck_assert_str_eq(c->connX[2].zHost, "nodeD");
  ck_assert_int_eq(c->connX[2].dev, 1);
  /* transports */
  ck_assert_int_eq(c->nConn, 6);
  ck_assert_int_eq(c->conn[0].kind, NCCL_CONN_NET);
  ck_assert_int_eq(c->conn[0].dir, 1);
  ck_assert_str_eq(c->conn[0].zVia, "NET/IB/0/GDRDMA");
  ck_assert_int_eq(c->conn[1].dir, 2);
  ck_assert_int_eq(c->conn[1].rank, 1);
  ck_assert_int_eq(c->conn[1].peer, 0);
  ck_assert_int_eq(c->conn[2].kind, NCCL_CONN_SHM);
  ck_assert_int_eq(c->conn[2].connIndex, -1);
  ck_assert_int_eq(c->conn[2].channel, 1);
  ck_assert_int_eq(c->conn[3].kind, NCCL_CONN_COLLNET);
  ck_assert_int_eq(c->conn[3].connIndex, 1);
  ck_assert_int_eq(c->conn[3].peer, -1);
  ck_assert_int_eq(c->conn[4].kind, NCCL_CONN_P2P);
  ck_assert_str_eq(c->conn[4].zVia, "P2P/indirect/1[1]");
  ck_assert_int_eq(c->conn[5].kind, NCCL_CONN_NVLS);
  ck_assert(c->conn[5].comm==UINT64_C(0x5600aa000000));
  /* WARN after a blank line, with the 2.26+ timestamp */
  ck_assert_int_eq(c->nWarn, 4);
  ck_assert_int_eq(c->warn[0].bDowngraded, 0);
  ck_assert_str_eq(c->warnX[0].zTs, "2025-03-14 09:26:53");
  ck_assert_int_eq(c->warnX[0].level, NCCL_LVL_WARN);
  ck_assert_str_eq(c->warn[0].zFile, "transport/net_ib.cc");
  ck_assert_int_eq(c->warn[0].line, 1234);
  ck_assert_str_eq(c->warnText[0],
    "NET/IB : mlx5_0:1 async fatal event: local catastrophic error");
  ck_assert_int_eq(c->warnX[0].lineno, 10);
  /* downgraded: error trace and NoWarn text */
  ck_assert_int_eq(c->warn[1].bDowngraded, 1);
  ck_assert_str_eq(c->warn[1].zFile, "transport/net_ib.cc");
  ck_assert_int_eq(c->warn[1].line, 1240);
  ck_assert_int_eq(c->warn[2].bDowngraded, 1);
  ck_assert_int_eq(c->warn[2].line, -1);
  ck_assert_str_eq(c->warnText[2],
    "Call to connect returned Connection refused, retrying");
  ck_assert_str_eq(c->warn[3].zFile, "misc/socket.cc");
  ck_assert_str_eq(c->warnX[3].zTs, "2025-03-14 09:27:01");
  /* timestamped INFO with sub-second digits */
  ck_assert_int_eq(c->nColl, 1);
  ck_assert_str_eq(c->collX[0].zTs, "2025-03-14 09:26:54.123456");
  ck_assert_int_eq(c->collX[0].tid, 3362);
  /* Ray prefix, CALL and TRACE lines (the last two are no records) */
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_CONNECTED], 1);
  ck_assert_str_eq(c->chanX[0].zHost, "nodeC");
  ck_assert_int_eq(st.nOther, 2);
  ck_assert_int_eq(st.nSegments, 15);
  free(c);
}
END_TEST

START_TEST(test_not_nccl){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  Buf b;
  memset(&err, 0, sizeof(err));
  ck_assert_int_ne(parse_nccl_file(FIX_DIR "not-nccl.txt", &SINK, c, &st,
                                   &err), 0);
  ck_assert_int_eq(err.set, 1);
  ck_assert_int_eq(err.ePos, ERRPOS_NONE);
  ck_assert_str_eq(err.zMsg, "no NCCL INFO/WARN line found");
  buf_init(&b);
  pf_error_format(&err, "not-nccl.txt", &b);
  ck_assert_str_eq(buf_str(&b), "not-nccl.txt: no NCCL INFO/WARN line found");
  buf_free(&b);
  ck_assert_int_eq(st.nSkipped, 3);
  ck_assert_int_eq(c->nVer, 0);
  /* unreadable file */
  memset(&err, 0, sizeof(err));
  ck_assert_int_ne(parse_nccl_file(FIX_DIR "no-such-file.log", &SINK, c,
                                   NULL, &err), 0);
  ck_assert_str_eq(err.zMsg, "cannot open: No such file or directory");
  free(c);
}
END_TEST

/* A 1023-character Trees line (NCCL's own truncation) is parsed and
** flagged; the channel count is a lower bound. */
START_TEST(test_trunc1023){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  char zLine[1100];
  size_t n;
  int i, nBr = 0;
  memset(&err, 0, sizeof(err));
  n = (size_t)snprintf(zLine, sizeof(zLine),
                       "nodeE:5555:5555 [0] NCCL INFO Trees");
  for(i=0; n<1023+40; i++){
    n += (size_t)snprintf(zLine+n, sizeof(zLine)-n,
                          " [%d] 1/-1/-1->0->-1", i);
  }
  zLine[1023] = 0;
  for(i=0; i<1023; i++) if( zLine[i]=='[' ) nBr++;
  nBr--;                                  /* the "[0]" device field */
  ck_assert_int_eq(strlen(zLine), 1023);
  ck_assert_int_eq(feed(c, &st, zLine, &err), 0);
  ck_assert_int_eq(st.nTrunc1023, 1);
  ck_assert_int_eq(st.nTruncated, 0);
  ck_assert_int_eq(c->nChan, 1);
  ck_assert_int_eq(c->chan[0].kind, NCCL_CHAN_TREES);
  ck_assert_int_eq(c->chanX[0].bTrunc1023, 1);
  ck_assert_int_eq(c->chan[0].nChannels, nBr);
  free(c);
}
END_TEST

/* A physical line longer than NCCL_LINE_CAP is cut and counted; the
** next line keeps its line number. */
START_TEST(test_long_line_cap){
  char zPath[] = "/tmp/check_nccl_XXXXXX";
  int fd = mkstemp(zPath);
  FILE *f;
  size_t i;
  Col *c = col_new();
  NcclStats st;
  PfError err;
  ck_assert_int_ge(fd, 0);
  f = fdopen(fd, "w");
  fputs("h1:1:1 [0] NCCL INFO NET/IB : Using ", f);
  for(i=0; i<3*NCCL_LINE_CAP; i++) fputc('x', f);
  fputs("\nh1:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 "
        "recvbuff 0x2 count 8 datatype 2 op 0 root 0 comm 0x3 "
        "[nranks=1] stream 0x4\n", f);
  fclose(f);
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(parse_nccl_file(zPath, &SINK, c, &st, &err), 0);
  unlink(zPath);
  ck_assert_int_eq(st.nLines, 2);
  ck_assert_int_eq(st.nTruncated, 1);
  ck_assert_int_eq(c->nColl, 1);
  ck_assert_int_eq(c->collX[0].lineno, 2);
  ck_assert_int_eq(c->coll[0].bytes, 32);
  free(c);
}
END_TEST

/* Glued records: perf-table text in front of the prefix; the host is
** repaired from the known (host, pid) or by dropping the numeric run. */
START_TEST(test_glued_and_spliced){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(feed(c, &st,
    "nodeG:77:77 [0] NCCL INFO cudaDriverVersion 12020\n"
    "     8388608       2097152     float     sum      -1nodeG:77:77 [1] "
    "NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 4 "
    "datatype 7 op 0 root 0 comm 0xc1 [nranks=2] stream 0x5\n"
    "    83.33  100.66  100.66      0hostX:88:88 [0] NCCL INFO Broadcast: "
    "opCount 0 sendbuff 0x1 recvbuff 0x2 count 4 datatype 0 op 0 root 0 "
    "comm 0xc2 stream 0x5\n"
    "nodeG:77:78 [0] NCCL INFO comm 0xc1 rank 0 nranks ljm:9:9 [0] NCCL "
    "INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n",
    &err), 0);
  ck_assert_int_eq(c->nColl, 2);
  ck_assert_str_eq(c->collX[0].zHost, "nodeG");
  ck_assert_int_eq(c->collX[0].bGlued, 1);
  ck_assert_int_eq(c->collX[0].dev, 1);
  ck_assert_str_eq(c->collX[1].zHost, "hostX");
  ck_assert_int_eq(c->collX[1].pid, 88);
  ck_assert_int_eq(st.nGlued, 2);
  /* line 4: a cut init line, then a complete connection line */
  ck_assert_int_eq(st.nCut, 1);
  ck_assert_int_eq(st.nMalformed, 0);
  ck_assert_int_eq(st.nDamaged, 1);
  ck_assert_int_eq(st.firstWarnLine, 4);
  ck_assert_int_eq(c->nConn, 1);
  ck_assert_str_eq(c->connX[0].zHost, "ljm");
  ck_assert_str_eq(c->conn[0].zVia, "P2P/CUMEM/read");
  free(c);
}
END_TEST

/* Older connection / ring forms, channel-count variants, tuning forms. */
START_TEST(test_channels_tuning_variants){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(feed(c, &st,
    "h:1:2 [0] NCCL INFO Channel 00 : 0[18000] -> 1[1b000] via P2P/IPC\n"
    "h:1:2 [0] NCCL INFO Channel 01/02 :    0   1   2   3\n"
    "h:1:2 [0] NCCL INFO 2 coll channels, 2 p2p channels, "
    "2 p2p channels per peer\n"
    "h:1:2 [0] NCCL INFO 4 coll channels, 0 nvls channels, 4 p2p channels,"
    " 1 p2p channels per peer\n"
    "h:1:2 [0] NCCL INFO 8 coll channels, 8 collnet channels, 2 nvls "
    "channels, 16 p2p channels, 2 p2p channels per peer\n"
    "h:1:2 [0] NCCL INFO 1048576 Bytes -> Algo 1 proto 2 time 35.500000\n"
    "h:1:2 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo 0 proto 0 time "
    "12.000000\n"
    "h:1:2 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto "
    "SIMPLE channel{Lo..Hi}={0..23}\n"
    "h:1:2 [0] NCCL INFO AllGather [Symmetric]: 4096 Bytes -> Kernel "
    "AllGather_LL nchannels 16 nthreads 512\n"
    "h:1:2 [0] NCCL INFO   Algorithm   |      Tree |      Ring |\n"
    "h:1:2 [0] NCCL INFO     AllReduce |  8.0/37.9 |  7.8/87.7 |\n"
    "h:1:2 [0] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 512 | 512\n",
    &err), 0);
  ck_assert_int_eq(c->nConn, 1);
  ck_assert_str_eq(c->conn[0].zRankDev, "18000");
  ck_assert_str_eq(c->conn[0].zPeerDev, "1b000");
  ck_assert_int_eq(c->conn[0].connIndex, -1);
  ck_assert_int_eq(c->chan[0].kind, NCCL_CHAN_RING_ORDER);
  ck_assert_int_eq(c->chan[0].channel, 1);
  ck_assert_int_eq(c->chan[0].nChannels, 2);
  ck_assert_int_eq(c->chan[1].nColl, 2);
  ck_assert_int_eq(c->chan[1].nNvls, -1);
  ck_assert_int_eq(c->chan[1].nP2pPerPeer, 2);
  ck_assert_int_eq(c->chan[2].nNvls, 0);
  ck_assert_int_eq(c->chan[2].nCollnet, -1);
  ck_assert_int_eq(c->chan[3].nCollnet, 8);
  ck_assert_int_eq(c->chan[3].nP2p, 16);
  ck_assert_int_eq(c->nTune, 6);
  ck_assert_str_eq(c->tune[0].zAlgo, "RING");
  ck_assert_str_eq(c->tune[0].zProto, "SIMPLE");
  ck_assert_str_eq(c->tune[0].zFunc, "");
  ck_assert(c->tune[0].time>35.49 && c->tune[0].time<35.51);
  ck_assert_str_eq(c->tune[1].zFunc, "AllReduce");
  ck_assert_str_eq(c->tune[1].zAlgo, "TREE");
  ck_assert_str_eq(c->tune[1].zProto, "LL");
  ck_assert_int_eq(c->tune[2].bytes, 268435456);
  ck_assert_int_eq(c->tune[2].chanHi, 23);
  ck_assert_int_eq(c->tune[3].kind, NCCL_TUNE_KERNEL);
  ck_assert_str_eq(c->tune[3].zKernel, "AllGather_LL");
  ck_assert_int_eq(c->tune[3].nThreads, 512);
  ck_assert_int_eq(c->tuneKind[NCCL_TUNE_TABLE], 2);
  ck_assert_int_eq(st.nOther, 1);
  ck_assert_int_eq(st.nMalformed, 0);
  free(c);
}
END_TEST

/* Send in 2.10-2.11 printed its buffer in sendbuff; fp8 codes before
** 2.24 are unknown; bare version after a launcher prefix; WARN after a
** blank line without timestamp (<= 2.25). */
START_TEST(test_old_send_and_version_rules){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(feed(c, &st,
    "[1,0]<stdout>:NCCL version 2.10.3+cuda11.4\n"
    "h:1:1 [0] NCCL INFO Send: opCount 0 sendbuff 0x10 recvbuff (nil) "
    "count 2 datatype 8 op 0 root 3 comm 0x1 [nranks=4] stream 0x2\n"
    "h:1:1 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x10 recvbuff 0x10 "
    "count 2 datatype 10 op 0 root 0 comm 0x1 [nranks=4] stream 0x2\n"
    "\n"
    "h:1:1 [0] enqueue.cc:77 NCCL WARN Cuda failure 'an illegal memory "
    "access was encountered'\n",
    &err), 0);
  ck_assert_int_eq(c->nVer, 1);
  ck_assert_int_eq(c->ver[0].bBare, 1);
  ck_assert_int_eq(c->ver[0].minor, 10);
  ck_assert(c->coll[0].buf==0x10);
  ck_assert_int_eq(c->coll[0].peer, 3);
  ck_assert_int_eq(c->coll[0].bytes, 16);
  ck_assert_str_eq(c->coll[1].zDtype, "unknown");
  ck_assert_int_eq(c->coll[1].bytes, -1);
  ck_assert_int_eq(c->nWarn, 1);
  ck_assert_str_eq(c->warn[0].zFile, "enqueue.cc");
  ck_assert_int_eq(c->warn[0].line, 77);
  ck_assert_str_eq(c->warnX[0].zTs, "");
  ck_assert_int_eq(c->warnX[0].lineno, 5);
  ck_assert_int_eq(st.nBlank, 1);
  free(c);
}
END_TEST

/* Shapes users paste (issue 22): rank tags, host-less prefixes, 2.4
** Ring links, WARN "(func)", timestamps without brackets, env notes,
** two prefixes on one line. */
START_TEST(test_paste_shapes){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(feed(c, &st,
    /* 1 */ "s1:5:5 [0] NCCL INFO [2] AllReduce: opCount e sendbuff 0x1 "
    "recvbuff 0x1 count 1 datatype 1 op 0 root 0 comm 0xc0 [nranks=4] "
    "stream 0x9\n"
    /* 2 */ "s1:5:6 [0] NCCL INFO [Rank 3] ncclCommInitRankConfig comm 0xc0 "
    "rank 3 nranks 4 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init "
    "START\n"
    /* 3 */ "s1:5:6 [0] NCCL INFO [Proxy Service] Device 0 CPU core 3\n"
    /* 4 */ "[1] NCCL INFO AllGather: opCount 0 sendbuff 0x1 recvbuff 0x2 "
    "count 8 datatype 0 op 0 root 0 comm 0xc1 [nranks=2] stream 0x9\n"
    /* 5 */ "s1:5:5 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0\n"
    /* 6 */ "s1:5:5 [0] NCCL INFO Ring 01 : 0[0] -> 1[1] via P2P/IPC\n"
    /* 7 */ "s1:5:5 [0] NCCL INFO Ring 02 : 1 -> 0 -> 1\n"
    /* 8 */ "s1:5:5 [0] plugin/net.cc:334 (ncclNetPluginInit) NCCL WARN "
    "no plugin\n"
    /* 9 */ "10:00:00.250 s1:5:5 [0] NCCL INFO Broadcast: opCount 1 "
    "sendbuff 0x1 recvbuff 0x1 count 4 datatype 7 op 0 root 0 comm 0xc0 "
    "stream 0x9\n"
    /* 10 */ "2025-06-01 10:00:01 s1:5:5 [0] NCCL INFO NCCL_IB_TIMEOUT set "
    "by environment to 22.\n"
    /* 11 */ "  1024   256  float  sum  -1 s1:5:5 [0] NCCL INFO Reduce: "
    "opCount 2 sendbuff 0x1 recvbuff 0x1 count 4 datatype 7 op 0 root 0 "
    "comm 0xc0 stream 0x9\n"
    /* 12 */ "s1:5:7 [0] NCCL INFO s2:6:6 [1] NCCL INFO Send: opCount 3 "
    "sendbuff 0x1 recvbuff (nil) count 4 datatype 7 op 0 root 0 comm 0xc2 "
    "stream 0x9\n"
    /* 13 */ "s1:5:7 [0] NCCL INFO AllReduce: opCount 4 sendbuff 0x1 "
    "recvbuff 0x1 count -1 datatype 7 op 0 root 0 comm 0xc0 stream 0x9\n",
    &err), 0);
  /* tags */
  ck_assert_int_eq(c->nColl, 5);
  ck_assert_int_eq(c->collX[0].tagRank, 2);
  ck_assert_str_eq(c->coll[0].zOp, "AllReduce");
  ck_assert_int_eq(c->nInit, 1);
  ck_assert_int_eq(c->initX[0].tagRank, 3);
  ck_assert_str_eq(c->init[0].zFunc, "ncclCommInitRankConfig");
  ck_assert_int_eq(c->init[0].rank, 3);
  /* host-less prefix */
  ck_assert_int_eq(c->collX[1].bNoHost, 1);
  ck_assert_int_eq(c->collX[1].pid, -1);
  ck_assert_int_eq(c->collX[1].dev, 1);
  ck_assert_str_eq(c->collX[1].zHost, "");
  ck_assert_int_eq(c->collX[1].tagRank, -1);
  ck_assert_int_eq(c->collX[0].bNoHost, 0);
  /* 2.4 Ring links, and a ring neighbourhood */
  ck_assert_int_eq(c->nConn, 2);
  ck_assert_int_eq(c->conn[0].rank, 0);
  ck_assert_int_eq(c->conn[0].peer, 1);
  ck_assert_int_eq(c->conn[0].dir, 1);
  ck_assert_str_eq(c->conn[0].zRankDev, "");
  ck_assert_int_eq(c->conn[0].kind, NCCL_CONN_NET);
  ck_assert_int_eq(c->conn[1].channel, 1);
  ck_assert_str_eq(c->conn[1].zPeerDev, "1");
  ck_assert_int_eq(c->conn[1].kind, NCCL_CONN_P2P);
  ck_assert_int_eq(c->chanKind[NCCL_CHAN_RING], 1);
  /* WARN with the function name */
  ck_assert_int_eq(c->nWarn, 1);
  ck_assert_str_eq(c->warn[0].zFile, "plugin/net.cc");
  ck_assert_int_eq(c->warn[0].line, 334);
  ck_assert_str_eq(c->warnText[0], "no plugin");
  /* timestamps without brackets; table text is no timestamp */
  ck_assert_str_eq(c->collX[2].zTs, "10:00:00.250");
  ck_assert_int_eq(c->collX[2].bGlued, 0);
  ck_assert_str_eq(c->collX[3].zTs, "");
  ck_assert_int_eq(c->collX[3].bGlued, 1);
  /* two prefixes: the record is the second process's */
  ck_assert_str_eq(c->collX[4].zHost, "s2");
  ck_assert_int_eq(c->collX[4].pid, 6);
  ck_assert_int_eq(c->collX[4].lineno, 12);
  /* counts: one cut (line 12), one malformed (line 13), disjoint */
  ck_assert_int_eq(st.nCut, 1);
  ck_assert_int_eq(st.nMalformed, 1);
  ck_assert_int_eq(st.nDamaged, 2);
  ck_assert_int_eq(st.firstWarnLine, 12);
  ck_assert_int_eq(st.firstMalformedLine, 13);
  free(c);
}
END_TEST

/* The date-and-time form of a plain timestamp. */
START_TEST(test_plain_timestamp_forms){
  Col *c = col_new();
  NcclStats st;
  PfError err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(feed(c, &st,
    "2025-06-01 10:00:01 h:1:1 [0] NCCL INFO Send: opCount 0 sendbuff 0x1 "
    "recvbuff 0x2 count 1 datatype 0 op 0 root 1 comm 0x1 stream 0x2\n"
    "[0]: 1748772000.5 h:1:1 [0] NCCL INFO Send: opCount 1 sendbuff 0x1 "
    "recvbuff 0x2 count 1 datatype 0 op 0 root 1 comm 0x1 stream 0x2\n"
    "x 12345 h:1:1 [0] NCCL INFO Send: opCount 2 sendbuff 0x1 "
    "recvbuff 0x2 count 1 datatype 0 op 0 root 1 comm 0x1 stream 0x2\n"
    "0614 11:26:37.758169 h:1:1 [0] NCCL INFO Send: opCount 3 sendbuff 0x1 "
    "recvbuff 0x2 count 1 datatype 0 op 0 root 1 comm 0x1 stream 0x2\n"
    "123 11:26:37 h:1:1 [0] NCCL INFO Send: opCount 4 sendbuff 0x1 "
    "recvbuff 0x2 count 1 datatype 0 op 0 root 1 comm 0x1 stream 0x2\n",
    &err), 0);
  ck_assert_int_eq(c->nColl, 5);
  ck_assert_str_eq(c->collX[3].zTs, "0614 11:26:37.758169");
  ck_assert_int_eq(c->collX[3].bGlued, 0);
  /* "123" is no date: the time alone is not at the line start */
  ck_assert_str_eq(c->collX[4].zTs, "");
  ck_assert_int_eq(c->collX[4].bGlued, 1);
  ck_assert_str_eq(c->collX[0].zTs, "2025-06-01 10:00:01");
  ck_assert_int_eq(c->collX[0].bGlued, 0);
  ck_assert_str_eq(c->collX[1].zTs, "1748772000.5");
  ck_assert_int_eq(c->collX[1].bGlued, 0);
  ck_assert_str_eq(c->collX[2].zTs, "");
  ck_assert_int_eq(c->collX[2].bGlued, 1);
  free(c);
}
END_TEST

START_TEST(test_sniff){
  static const char zInfo[] =
    "some banner\n[rank0]:h-1:12:13 [0] NCCL INFO Bootstrap : Using eth0\n";
  static const char zWarn[] =
    "\n[2025-01-01 00:00:00] h:1:2 [3] misc/x.cc:9 NCCL WARN oops\n";
  static const char zBare[] = "NCCL version 2.18.3+cuda12.2\n";
  static const char zProse[] = "the NCCL INFO lines are missing\n";
  static const char zCall[] = "h:1:2 NCCL CALL ncclGroupStart()\n";
  static const char zNoHost[] = "[3] NCCL INFO Trees [0] 1/-1/-1->0->-1\n";
  static const char zDevText[] = "see [3] NCCL INFO above\n";
  ck_assert_int_ne(parse_nccl_sniff(zNoHost, sizeof(zNoHost)-1), 0);
  ck_assert_int_eq(parse_nccl_sniff(zDevText, sizeof(zDevText)-1), 0);
  ck_assert_int_ne(parse_nccl_sniff(zInfo, sizeof(zInfo)-1), 0);
  ck_assert_int_ne(parse_nccl_sniff(zWarn, sizeof(zWarn)-1), 0);
  ck_assert_int_eq(parse_nccl_sniff(zBare, sizeof(zBare)-1), 0);
  ck_assert_int_eq(parse_nccl_sniff(zProse, sizeof(zProse)-1), 0);
  ck_assert_int_eq(parse_nccl_sniff(zCall, sizeof(zCall)-1), 0);
  /* a line cut at the end of the sniff window still counts */
  ck_assert_int_ne(parse_nccl_sniff(zInfo, 43), 0);
  ck_assert_int_eq(parse_nccl_sniff(zInfo, 42), 0);
  ck_assert_int_eq(parse_nccl_sniff(zInfo, 0), 0);
}
END_TEST

START_TEST(test_code_tables){
  int n;
  ck_assert_str_eq(parse_nccl_dtype_name(0, &n), "int8");
  ck_assert_int_eq(n, 1);
  ck_assert_str_eq(parse_nccl_dtype_name(5, &n), "uint64");
  ck_assert_int_eq(n, 8);
  ck_assert_str_eq(parse_nccl_dtype_name(6, &n), "float16");
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(parse_nccl_dtype_name(9, &n), "bfloat16");
  ck_assert_str_eq(parse_nccl_dtype_name(11, &n), "fp8_e5m2");
  ck_assert_int_eq(n, 1);
  ck_assert_str_eq(parse_nccl_dtype_name(12, &n), "unknown");
  ck_assert_int_eq(n, 0);
  ck_assert_str_eq(parse_nccl_dtype_name(-1, &n), "unknown");
  ck_assert_str_eq(parse_nccl_redop_name(4), "avg");
  ck_assert_str_eq(parse_nccl_redop_name(5), "dynamic");
  ck_assert_str_eq(parse_nccl_redop_name(-2), "unknown");
}
END_TEST

/* A callback's non-zero result stops the parse and is returned. */
START_TEST(test_callback_stop){
  Col *c = col_new();
  PfError err;
  memset(&err, 0, sizeof(err));
  c->stopAt = 3;
  ck_assert_int_eq(parse_nccl_file(FIX_DIR "p2p-fp8-2.24.log", &SINK, c,
                                   NULL, &err), 42);
  ck_assert_int_eq(c->nColl, 3);
  ck_assert_int_eq(err.ePos, ERRPOS_LINE);
  ck_assert_int_eq(err.where, 5);
  ck_assert_str_eq(err.zMsg, "parse stopped by the consumer");
  free(c);
}
END_TEST

Suite *make_nccl_suite(void){
  Suite *s = suite_create("nccl");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_real_nccl_tests);
  tcase_add_test(tc, test_real_ddp_interleaved);
  tcase_add_test(tc, test_init_variants);
  tcase_add_test(tc, test_p2p_fp8);
  tcase_add_test(tc, test_dtypes_before_2_24);
  tcase_add_test(tc, test_ts_warn_launcher);
  tcase_add_test(tc, test_not_nccl);
  tcase_add_test(tc, test_trunc1023);
  tcase_add_test(tc, test_long_line_cap);
  tcase_add_test(tc, test_glued_and_spliced);
  tcase_add_test(tc, test_channels_tuning_variants);
  tcase_add_test(tc, test_old_send_and_version_rules);
  tcase_add_test(tc, test_paste_shapes);
  tcase_add_test(tc, test_plain_timestamp_forms);
  tcase_add_test(tc, test_sniff);
  tcase_add_test(tc, test_code_tables);
  tcase_add_test(tc, test_callback_stop);
  suite_add_tcase(s, tc);
  return s;
}
