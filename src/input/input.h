/*
** input.h — reading input files: plain or gzip, streamed, with the
** uncompressed byte offset kept for error messages; whole-file hashing.
**
** Pipeline position: below "parse"; discover uses input_peek() to sniff.
*/
#ifndef PROFAN_INPUT_H
#define PROFAN_INPUT_H

#include <stdint.h>
#include <sys/types.h>
#include "core/util.h"

typedef struct Input Input;

/* Open zPath for streaming (gzip detected by magic bytes).  Returns NULL
** with pErr set when the file cannot be opened.  Close with input_close(). */
Input *input_open(const char *zPath, PfError *pErr);
/* Read up to n bytes; returns the count, 0 at end of input, -1 on error
** (pErr set: corrupt gzip, I/O error). */
ssize_t input_read(Input *p, void *buf, size_t n, PfError *pErr);
/* Uncompressed bytes delivered so far. */
int64_t input_offset(const Input *p);
void input_close(Input *p);                       /* accepts NULL */

/* Read the first n (uncompressed) bytes of zPath into buf; *pn gets the
** count.  Returns 0, or -1 with pErr set. */
int input_peek(const char *zPath, char *buf, size_t n, size_t *pn,
               PfError *pErr);

/* Hash the bytes delivered from now on (call right after input_open).
** input_hash_end() reads the rest of the input and gives the hash; for a
** plain file it equals input_hash_file()'s.  Returns 0, or -1 with pErr. */
void input_hash_begin(Input *p);
int input_hash_end(Input *p, uint64_t *pHash, PfError *pErr);
/* 1 when zPath starts with the gzip magic bytes. */
int input_path_is_gzip(const char *zPath);

/* Hash the bytes of zPath as stored on disk; also returns its size. */
int input_hash_file(const char *zPath, uint64_t *pHash, int64_t *pBytes,
                    PfError *pErr);

/* Read a whole (possibly gzip) file into memory.  Returns the buffer
** (caller frees with free()) and its length in *pn, or NULL with pErr set.
** Refuses files above nMax bytes uncompressed. */
unsigned char *input_slurp(const char *zPath, size_t nMax, size_t *pn,
                           PfError *pErr);

/* Rank from a file name: "rank3", "rank_3", "rank-3", "worker3_" ...;
** -1 when the name carries none. */
int64_t input_rank_from_name(const char *zPath);

#endif
