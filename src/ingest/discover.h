/*
** discover.h — find the input files under the paths given to `ingest` and
** decide each file's kind from its content.
**
** Pipeline position: "discover" and "sniff", first stage of an ingest.
*/
#ifndef PROFAN_DISCOVER_H
#define PROFAN_DISCOVER_H

#include <stdint.h>
#include "ingest/input_kinds.h"
#include "core/util.h"

typedef struct FoundFile {
  char *zPath;         /* owned */
  FileKind eKind;
  int explicitArg;     /* named on the command line (not found in a dir) */
  char zSkip[128];     /* why it is skipped ("" when not skipped) */
  int unreadable;      /* skipped: could not be read (--strict: error) */
} FoundFile;

typedef struct FileList {
  FoundFile *a;
  int n, nAlloc;
} FileList;

/*
** Add the files at zPath (a file, or a directory walked recursively in
** sorted order, hidden entries skipped) to pList, each with its kind.
** Returns 0, or -1 with pErr set when zPath cannot be read at all.
*/
int discover_path(const char *zPath, FileList *pList, PfError *pErr);

/* Kind of a file from its first bytes; sets zWhy for unknown content. */
FileKind discover_sniff(const char *buf, size_t n, char *zWhy, size_t nWhy);

void discover_filelist_free(FileList *p);


#endif
