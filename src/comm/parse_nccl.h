/*
** parse_nccl.h — streaming, line-oriented parser for NCCL debug logs
** (NCCL_DEBUG=INFO, NCCL 2.4 to 2.29).
**
** Pipeline position: parse stage.  The parser turns raw log lines into
** typed records and hands them, one at a time, to a sink of callbacks;
** the NCCL loader is that sink and writes the records to SQLite.  The
** parser never prints, never exits and never touches the database.
**
** Input model (docs/formats.md §3; NCCL 2.4 to 2.29):
**   [launcher]  [ts] host:pid:tid [dev] NCCL INFO [tag] <msg>
**   [launcher]  [ts] host:pid:tid [dev] <file>:<line> [(func)] NCCL WARN <msg>
**   [launcher]  [ts] host:pid:tid [dev] <ms> <file>:<line> NCCL TRACE <msg>
**   [launcher]  [ts] host:pid:tid NCCL CALL <msg>
**   [launcher]  [ts] [dev] NCCL INFO <msg>    (host part trimmed by a user)
**   [launcher]  NCCL version <v>                      (bare version line)
** [ts] is "[...]" starting with a digit or a bracket-less date / time
** (NCCL_DEBUG_TIMESTAMP_FORMAT, 2.26+); [tag] is "[N] " or "[Rank N] ",
** the communicator rank (NcclPrefix.tagRank).  Launcher prefixes
** ("[1,0]<stdout>:", "[rank3]:", "[default0]:", "(Worker pid=..) ",
** "> ") are skipped.  A physical line may hold several
** prefixed segments: text glued in front (nccl-tests perf tables) and
** lines of other processes spliced into it (shared NCCL_DEBUG_FILE).
** Each segment is parsed on its own; a segment cut short by the next
** prefix is flagged (bCut) and counted as cut, never also as malformed,
** so nCut + nMalformed + nTruncated is the warning total.
**
** Memory: one heap object per parser (parse_nccl_new / _free) plus a
** few scratch buffers that grow to the longest message; nothing is
** allocated per line.  Strings in records are either fixed arrays in the
** record or borrowed pointers valid only during the callback: copy what
** you keep.
*/
#ifndef PROFAN_PARSE_NCCL_H
#define PROFAN_PARSE_NCCL_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* Physical lines longer than this are cut here (stats.nTruncated). */
#define NCCL_LINE_CAP 65536
/* NCCL formats each line into a 1024-byte buffer: a 1023-character line
** was most likely cut by NCCL itself (stats.nTrunc1023, prefix.bTrunc1023).
*/
#define NCCL_NCCL_LINE_MAX 1023

/* Log level of a segment. */
enum {
  NCCL_LVL_BARE = 0,   /* prefix-less "NCCL version ..." line */
  NCCL_LVL_INFO = 1,
  NCCL_LVL_WARN = 2,
  NCCL_LVL_TRACE = 3,
  NCCL_LVL_CALL = 4
};

/*
** What every record carries: where it came from.  All strings are
** NUL-terminated copies inside the struct.
*/
typedef struct NcclPrefix {
  int64_t lineno;      /* 1-based physical line number */
  int level;           /* NCCL_LVL_* */
  char zHost[64];      /* short host name ("" on bare lines) */
  int64_t pid;         /* -1 on bare lines */
  int64_t tid;         /* -1 on bare lines */
  int dev;             /* the [dev] field; -1 when absent (CALL, bare) */
  char zTs[48];        /* text inside "[...]" of the 2.26+ timestamp, or "" */
  char zSrcFile[96];   /* <file> of WARN/TRACE prefixes, or "" */
  int srcLine;         /* <line> of WARN/TRACE prefixes, or -1 */
  int bGlued;          /* non-launcher text preceded the segment */
  int bCut;            /* another prefix followed: the message is cut */
  int bTrunc1023;      /* line is exactly 1023 chars: NCCL probably cut it */
  int tagRank;         /* N of a "[N] " or "[Rank N] " tag right after
                       ** "NCCL INFO " (the communicator rank the line
                       ** is about); -1 when absent */
  int bNoHost;         /* "[dev] NCCL INFO" without host:pid:tid (trimmed
                       ** by the user): zHost "", pid and tid -1 */
} NcclPrefix;

/* "NCCL version 2.27.7+cuda13.0" (INFO form or bare form). */
typedef struct NcclVersion {
  char zVersion[64];   /* "2.27.7+cuda13.0" */
  int major, minor, patch;   /* -1 when not parsed */
  int cudaMajor, cudaMinor;  /* from "+cudaX.Y"; -1 when absent */
  int bBare;           /* 1 for the prefix-less form */
} NcclVersion;

/* Communicator init lines (every variant 2.10 .. 2.29). */
enum {
  NCCL_INIT_START = 0,     /* "... - Init START" (2.18+) */
  NCCL_INIT_COMPLETE = 1,  /* "... - Init COMPLETE" */
  NCCL_INIT_TOPO = 2       /* "comm %p rank %d nRanks %d nNodes %d ..." */
};
/* Which historic format the line matched (deduced from its fields). */
enum {
  NCCL_INITFMT_2_10 = 0,   /* no commId, no nvmlDev (2.10-2.15) */
  NCCL_INITFMT_2_16 = 1,   /* commId, no nvmlDev (2.16-2.17) */
  NCCL_INITFMT_2_18 = 2,   /* nvmlDev, no function name (2.18-2.20) */
  NCCL_INITFMT_FUNC = 3,   /* "<funcName> comm ..." (2.21+) */
  NCCL_INITFMT_TOPO = 4,   /* the nRanks/nNodes topology line (2.20+) */
  NCCL_INITFMT_2_4 = 5     /* nvmlDev but no busId (2.4) */
};
typedef struct NcclInit {
  int phase;           /* NCCL_INIT_* */
  int format;          /* NCCL_INITFMT_* */
  char zFunc[40];      /* "ncclCommInitRankConfig", ... or "" */
  uint64_t comm;       /* comm pointer; key with (host, pid) */
  int rank, nranks;    /* -1 when absent */
  int cudaDev, nvmlDev;        /* -1 when absent */
  int64_t busId;       /* busId parsed as hex; -1 when absent */
  char zBusId[24];     /* busId text as printed ("17000"), or "" */
  int hasCommId;       /* commId present */
  uint64_t commId;     /* cross-rank key (0 for some split comms) */
  int bSplit;          /* "parent %p" present (ncclCommSplit/Shrink) */
  uint64_t parent;
  int splitCount, color, key;  /* split fields; -1 / 0 when absent */
  int nNodes, localRanks, localRank, mnnvl;  /* TOPO line; else -1 */
} NcclInit;

/* Connection / link lines. */
enum {
  NCCL_CONN_P2P = 0, NCCL_CONN_SHM = 1, NCCL_CONN_NET = 2,
  NCCL_CONN_COLLNET = 3, NCCL_CONN_NVLS = 4, NCCL_CONN_OTHER = 5
};
typedef struct NcclConn {
  int kind;            /* NCCL_CONN_* from the transport text */
  int channel;         /* "Channel NN": NN; -1 for NVLS */
  int connIndex;       /* "/N" after the channel; -1 when absent */
  int rank, peer;      /* "r[d] -> p[d]"; peer -1 for CollNet/NVLS */
  char zRankDev[24];   /* bracket text: busId hex <=2.17, nvmlDev 2.18+ */
  char zPeerDev[24];
  int dir;             /* 0 none, 1 "[send]", 2 "[receive]" */
  char zVia[160];      /* text after "via " ("P2P/CUMEM/read"), or
                       ** "NVLS" for the "NVLS comm %p headRank" line */
  uint64_t comm;       /* NVLS line: its comm; otherwise commHint */
  uint64_t commHint;   /* last comm seen in init lines of this
                       ** (host, pid, tid); 0 when unknown */
} NcclConn;

/* Channel, ring and tree lines. */
enum {
  NCCL_CHAN_RING_ORDER = 0,  /* "Channel 00/24 : 0 1 2 3" (rank 0 only) */
  NCCL_CHAN_RING = 1,        /* "Ring 00 : 1 -> 0 -> 1" */
  NCCL_CHAN_TREE = 2,        /* "Tree 0 : -1 -> 0 -> 1/-1/-1" */
  NCCL_CHAN_TREES = 3,       /* "Trees [0] 1/-1/-1->0->-1 [1] ..." */
  NCCL_CHAN_NVLS_TREES = 4,  /* "NVLS Trees ..." */
  NCCL_CHAN_COUNTS = 5,      /* "24 coll channels, ... per peer" */
  NCCL_CHAN_CONNECTED = 6    /* "Connected all rings" and friends */
};
typedef struct NcclChannel {
  int kind;            /* NCCL_CHAN_* */
  int channel;         /* channel index; -1 when n/a */
  int nChannels;       /* RING_ORDER: the "/MM"; TREES: number of [c]
                       ** groups (a lower bound if bTrunc1023); COUNTS:
                       ** coll channels; else -1 */
  int nColl, nCollnet, nNvls, nP2p, nP2pPerPeer;  /* COUNTS; else -1 */
  const char *zText;   /* the message, borrowed for the callback */
  uint64_t commHint;   /* as in NcclConn */
} NcclChannel;

/* "Init timings ..." and "Bootstrap timings ..." (seconds). */
enum { NCCL_TIMING_INIT = 0, NCCL_TIMING_BOOTSTRAP = 1 };
#define NCCL_TIMING_MAXPART 12
typedef struct NcclTiming {
  int kind;            /* NCCL_TIMING_* */
  char zFunc[40];      /* 2.23+ "Init timings - <func>:"; else "" */
  int rank, nranks;    /* -1 when absent (bootstrap lines) */
  double total;        /* seconds */
  int nPart;           /* entries used in aPart */
  struct { char zName[16]; double v; } aPart[NCCL_TIMING_MAXPART];
} NcclTiming;

/* TUNING lines (rank 0 only). */
enum {
  NCCL_TUNE_TABLE = 0,     /* latency/bandwidth table rows */
  NCCL_TUNE_DECISION = 1,  /* "<Func>: N Bytes -> Algo X proto Y ..." */
  NCCL_TUNE_KERNEL = 2     /* "<Func> [Symmetric]: N Bytes -> Kernel .." */
};
typedef struct NcclTuning {
  int kind;            /* NCCL_TUNE_* */
  char zFunc[24];      /* "" for the 2.20-2.22 form and table rows */
  int64_t bytes;       /* -1 for table rows */
  char zAlgo[24];      /* name; numeric codes (2.20-2.23) are mapped */
  char zProto[12];     /* "LL", "LL128", "SIMPLE" */
  char zKernel[64];    /* NCCL_TUNE_KERNEL only */
  int chanLo, chanHi;  /* 2.24+ channel{Lo..Hi}; -1 when absent */
  int nChannels, nThreads;  /* NCCL_TUNE_KERNEL; -1 when absent */
  double time;         /* 2.20-2.23 "time %f"; -1 when absent */
  const char *zText;   /* the message, borrowed for the callback */
} NcclTuning;

/* WARN lines and INFO lines that look like (downgraded) warnings. */
typedef struct NcclWarn {
  int bDowngraded;     /* 1: an INFO line (ncclDebugNoWarn or an error
                       ** trace "file:line -> N"); 0: a real NCCL WARN */
  char zFile[96];      /* source file if printed, else "" */
  int line;            /* source line, or -1 */
  const char *zText;   /* message text, borrowed for the callback */
} NcclWarn;

/* "comm %p rank %d nranks %d cudaDev %d busId %lx - Destroy COMPLETE". */
typedef struct NcclDestroy {
  char zWhat[16];      /* "Destroy", "Abort", ... */
  uint64_t comm;
  int rank, nranks, cudaDev;   /* -1 when absent */
  int64_t busId;       /* -1 when absent */
} NcclDestroy;

/* Collective / point-to-point API calls. */
enum {
  NCCL_OP_ALLREDUCE = 0, NCCL_OP_BROADCAST, NCCL_OP_REDUCE,
  NCCL_OP_ALLGATHER, NCCL_OP_REDUCESCATTER, NCCL_OP_SEND, NCCL_OP_RECV,
  NCCL_OP_ALLTOALL, NCCL_OP_GATHER, NCCL_OP_SCATTER, NCCL_OP_PUTSIGNAL,
  NCCL_OP_SIGNAL, NCCL_OP_WAITSIGNAL, NCCL_OP_OTHER
};
typedef struct NcclColl {
  int op;              /* NCCL_OP_* */
  char zOp[24];        /* name as printed ("AllReduce") */
  uint64_t opCount;    /* printed in hex without 0x; NOT unique */
  uint64_t sendbuff, recvbuff;  /* "(nil)" is 0 */
  uint64_t buf;        /* the data buffer: for Send (2.12+ prints it in
                       ** the recvbuff slot) the non-nil one; Recv:
                       ** recvbuff; others: sendbuff */
  int64_t count;       /* elements (per rank for AllGather/RS) */
  int dtype;           /* datatype code */
  const char *zDtype;  /* "float32", ...; "unknown" if code unknown */
  int dtypeSize;       /* bytes per element; 0 if unknown */
  int64_t bytes;       /* count * dtypeSize; -1 if the size is unknown
                       ** or count is negative / absurdly large */
  int redop;           /* reduction op code */
  const char *zRedop;  /* "sum","prod","max","min","avg","dynamic" */
  int root;            /* as printed */
  int peer;            /* Send/Recv: the peer (= root); else -1 */
  uint64_t comm;       /* comm pointer (matches NcclInit.comm) */
  int nranks;          /* "[nranks=N]"; -1 when absent */
  uint64_t stream;     /* cudaStream_t pointer; "(nil)" is 0 */
} NcclColl;

/*
** The sink.  Any callback may be NULL (records of that kind are still
** counted).  A callback returns 0 to continue; a non-zero value stops
** the parse and is returned by parse_nccl_line / parse_nccl_file.
*/
typedef struct NcclSink {
  int (*xVersion)(void *ctx, const NcclPrefix *, const NcclVersion *);
  int (*xInit)(void *ctx, const NcclPrefix *, const NcclInit *);
  int (*xConn)(void *ctx, const NcclPrefix *, const NcclConn *);
  int (*xChannel)(void *ctx, const NcclPrefix *, const NcclChannel *);
  int (*xTiming)(void *ctx, const NcclPrefix *, const NcclTiming *);
  int (*xTuning)(void *ctx, const NcclPrefix *, const NcclTuning *);
  int (*xWarn)(void *ctx, const NcclPrefix *, const NcclWarn *);
  int (*xDestroy)(void *ctx, const NcclPrefix *, const NcclDestroy *);
  int (*xColl)(void *ctx, const NcclPrefix *, const NcclColl *);
} NcclSink;

/* Record kinds, indexes into NcclStats.nRec. */
enum {
  NCCL_REC_VERSION = 0, NCCL_REC_INIT, NCCL_REC_CONN, NCCL_REC_CHANNEL,
  NCCL_REC_TIMING, NCCL_REC_TUNING, NCCL_REC_WARN, NCCL_REC_DESTROY,
  NCCL_REC_COLL, NCCL_REC_COUNT
};

/* Counters; all warnings, never fatal. */
typedef struct NcclStats {
  int64_t nLines;      /* physical lines seen */
  int64_t nBlank;      /* empty or whitespace-only lines */
  int64_t nNcclLines;  /* lines holding >=1 NCCL segment (or bare
                       ** version line) */
  int64_t nSkipped;    /* non-blank lines without NCCL content */
  int64_t nSegments;   /* prefixed NCCL segments (>= nNcclLines) */
  int64_t nGlued;      /* segments preceded by foreign text */
  int64_t nCut;        /* segments cut by a following prefix */
  int64_t nMalformed;  /* complete (not cut) segments holding a
                       ** recognised message that failed to parse */
  int64_t nDamaged;    /* nCut + nMalformed (disjoint) */
  int64_t nOther;      /* NCCL segments that are no record */
  int64_t nTruncated;  /* lines cut at NCCL_LINE_CAP */
  int64_t nTrunc1023;  /* NCCL lines exactly 1023 characters long */
  int64_t nUnknownDtype; /* coll records with an unknown datatype */
  int64_t firstMalformedLine; /* line of the first malformed one, or 0 */
  int64_t firstWarnLine; /* first line with a cut or malformed segment or
                       ** cut at NCCL_LINE_CAP, or 0 */
  int64_t nRec[NCCL_REC_COUNT];  /* records delivered, per kind */
} NcclStats;

typedef struct NcclParser NcclParser;

/*
** Make a parser delivering to pSink with ctx.  pSink is borrowed and must
** outlive the parser; pStats (may be NULL) is zeroed and then updated as
** lines are fed.  Free with parse_nccl_free().  Never returns NULL.
*/
NcclParser *parse_nccl_new(const NcclSink *pSink, void *ctx,
                            NcclStats *pStats);

/*
** Feed one physical line: n bytes at z, without the '\n' (a trailing
** '\r' is ignored).  z need not be NUL-terminated.  lineno is the 1-based
** line number reported in records.  Lines longer than NCCL_LINE_CAP are
** cut (counted).  Returns 0, or the non-zero value a callback returned.
*/
int parse_nccl_line(NcclParser *p, const char *z, size_t n, int64_t lineno);

/*
** End of input.  Returns 0 if at least one NCCL INFO/WARN/TRACE/CALL line
** was seen; otherwise sets pErr ("no NCCL INFO/WARN line found",
** ERRPOS_NONE) and returns 1.
*/
int parse_nccl_finish(NcclParser *p, PfError *pErr);

/* Free the parser (NULL is fine).  Does not touch the stats. */
void parse_nccl_free(NcclParser *p);

/*
** Parse a whole file with bounded memory (1 MiB read buffer; lines over
** NCCL_LINE_CAP are cut and counted).  pStats may be NULL.  Returns 0 on
** success.  Errors (pErr set, non-zero returned): the file cannot be
** opened or read (ERRPOS_NONE), no NCCL line at all (ERRPOS_NONE), or a
** callback returned non-zero (that value is returned; pErr gets "parse
** stopped by the consumer" at the line, ERRPOS_LINE, unless already set).
*/
int parse_nccl_file(const char *zPath, const NcclSink *pSink, void *ctx,
                    NcclStats *pStats, PfError *pErr);

/*
** Non-zero if the n bytes at buf (typically the first 64 KB of a file)
** contain a prefixed "NCCL INFO" or "NCCL WARN" line.
*/
int parse_nccl_sniff(const char *buf, size_t n);

/* Datatype code to name; *pSize gets bytes per element (0 if unknown).
** Codes 10/11 (fp8) exist from 2.24.  Returns "unknown" for others. */
const char *parse_nccl_dtype_name(int code, int *pSize);

/* Reduction op code to name; codes >= 5 are "dynamic" (PreMulSum). */
const char *parse_nccl_redop_name(int code);

#endif
