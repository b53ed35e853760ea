/*
** input_kinds.h — the table of input kinds: for each kind of file profan
** ingests, its name, how its first bytes are recognised, its loader, and
** the run_file kinds its files become.  The tables each of those fills
** are not listed here: table_role (the table catalogue of the schema)
** names the raw tables of each kind in input_kind.  discover.c sniffs
** with this table, ingest.c loads with it, run_file.kind is its name,
** and the unit test (tests/check_input_kinds.c) checks it against the
** catalogue: every raw table's kind is one a loader writes, every such
** kind has tables, every table with a file_id is raw (or derived).
**
** Pipeline position: "sniff" and the choice of "load"; read by every stage
** that depends on the kind of a file.
**
** Adding an input kind (CONTRIBUTING.md has the worked recipe):
**   1. schema/NNN-<kind>.sql (a number of your range): its tables, each
**      with run_id and file_id, and their rows in table_role (role 'raw',
**      input_kind: the run_file.kind its files get), so that rm, merge
**      and rebuild know them.
**   2. src/load_<kind>.c: the loader, with the LoadFileFn signature of
**      load_kinds.h (one file, rows tagged (run_id, file_id), problems in
**      PfError with the byte offset or line, never prints); add it to
**      CORE_SOURCES in CMakeLists.txt.
**   3. A sniff function: 1 when the first MiB (after gzip) is this kind;
**      strict enough that no other kind's file passes it.
**   4. A row in aInputKind[] (input_kinds.c), before any kind whose sniff
**      would also accept it, and a value in the InputKindId enum below.
**   5. fuzz/fuzz_<kind>.c and its seeds (fuzz/README.md); CMakeLists.txt
**      and scripts/fuzz.sh find it by its name.
**   6. docs/formats.md: the facts of the format the loader relies on.
**   7. tests/e2e/test_<kind>.py: ingest a real fixture and compare with
**      numbers computed in Python from the input.
*/
#ifndef PROFAN_INPUT_KINDS_H
#define PROFAN_INPUT_KINDS_H

#include <sqlite3.h>
#include <stddef.h>
#include "input/load_kinds.h"
#include "core/util.h"

/* Index into aInputKind[]. */
typedef enum {
  KIND_UNKNOWN = 0,
  KIND_TRACE,          /* Kineto / Chrome trace JSON (plain or gzip) */
  KIND_PICKLE,         /* a pickle: memory snapshot or flight recorder */
  KIND_FR_JSON,        /* flight-recorder dump, JSON variant */
  KIND_NCCL_LOG,       /* text with prefixed NCCL INFO/WARN lines */
  KIND_N
} FileKind;

typedef struct InputKind {
  FileKind eKind;
  const char *zName;   /* run_file.kind (a loader may refine it) */
  /* 1 when buf[0..n), the first bytes of a file, are of this kind */
  int (*xSniff)(const char *buf, size_t n);
  /* load one file in the writer thread; NULL for traces, which are
  ** parsed in worker threads (ingest_trace.c) */
  LoadFileFn xLoad;
  /* the run_file.kind values its files get, space-separated; the tables
  ** its loader fills are table_role's raw tables of those kinds */
  const char *zFileKinds;
} InputKind;

/* The kinds, sniffed in this order; aInputKind[i].eKind==i. */
extern const InputKind aInputKind[KIND_N];

/* The kind of buf[0..n), the first bytes of a file, or KIND_UNKNOWN. */
FileKind input_kind_sniff(const char *buf, size_t n);

/* The first byte of buf[0..n) after a UTF-8 BOM and white space, or -1
** when there is none. */
int input_kind_first_byte(const char *buf, size_t n);

#endif
