/*
** pickle.h — a strict, safe decoder for the plain-data subset of Python
** pickle (protocols 2 to 5).
**
** Pipeline position: the first stage of snapshot ingest (CUDA caching-
** allocator snapshots written by torch.cuda.memory._dump_snapshot, CPython
** pickler, protocol 4/5) and of flight-recorder ingest (TorchScript
** pickler, protocol 2).  It turns the bytes into a tree of PkValue nodes;
** the snapshot and flight-recorder layers then walk that tree and decide
** whether it has the shape they expect.  For a snapshot, the long device
** trace lists can instead be handed over item by item while decoding
** (pickle_decode_stream), so that the tree never holds them.  This module
** knows nothing else about snapshots: any pickle made only of None, bool,
** int, float, str, bytes, list, tuple, dict and set decodes.
**
** Safety: nothing from the file is ever executed or looked up.  Opcodes
** that name or call code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
** NEWOBJ, NEWOBJ_EX, EXT1/2/4), persistent ids and out-of-band buffers are
** refused with an error naming the opcode.  Every length is checked
** against the bytes left before it is used, the memo and stacks grow only
** with the input, nesting is limited to PICKLE_MAX_DEPTH containers and
** reference cycles are refused, so a consumer may walk the tree
** recursively.
**
** Sharing: a value fetched from the memo (BINGET and friends) is the same
** node as the one stored, not a copy, so the result is a DAG; never free or
** modify nodes, the PkDoc owns them all.
*/
#ifndef PROFAN_PICKLE_H
#define PROFAN_PICKLE_H

#include <stddef.h>
#include <stdint.h>
#include "core/util.h"

/* Deepest container nesting accepted (the root list/dict counts as 1). */
#define PICKLE_MAX_DEPTH 1000

typedef enum { PK_NONE, PK_BOOL, PK_INT, PK_BIGINT, PK_FLOAT, PK_STR, PK_BYTES,
               PK_LIST, PK_TUPLE, PK_DICT } PkType;

typedef struct PkValue PkValue;
struct PkValue {
  PkType t;
  union {
    int64_t i;                 /* PK_BOOL (0/1), PK_INT */
    double f;                  /* PK_FLOAT */
    /* PK_STR: the UTF-8 bytes exactly as stored in the file (not validated;
    **   CPython writes lone surrogates with surrogatepass), NOT
    **   NUL-terminated; points into the input buffer.
    ** PK_BYTES: raw bytes, points into the input buffer.
    ** PK_BIGINT: little-endian two's complement, at least 9 bytes, minimal
    **   (an integer that fits int64_t is always PK_INT), points into the
    **   input buffer. */
    struct { const char *z; size_t n; } s;
    struct { PkValue **a; size_t n; } seq;  /* PK_LIST, PK_TUPLE */
    /* PK_DICT: k[i] maps to v[i], in insertion order.  Duplicate keys are
    ** all kept; pk_dict_get() returns the last one, as Python would. */
    struct { PkValue **k; PkValue **v; size_t n; } dict;
  } u;
};

/* Owns every value of one decoded pickle (arena).  Opaque. */
typedef struct PkDoc PkDoc;

/*
** Decode the n bytes at data.  On success returns 0, *ppDoc owns the tree
** (free it with pickle_free()) and *ppRoot is the top value.  On failure
** returns non-zero, sets *ppDoc and *ppRoot to NULL and fills pErr with
** ERRPOS_BYTE and the offset of the offending opcode (the message names
** neither the file nor the offset).
**
** Zero-copy: PK_STR, PK_BYTES and PK_BIGINT values point into `data`, so
** `data` must stay valid and unchanged until pickle_free(*ppDoc).
**
** Protocol 0/1 text pickles are refused; sets and frozensets decode as
** PK_LIST; SHORT_BINSTRING/BINSTRING (Python 2 str) decode as PK_STR when
** the bytes are 7-bit ASCII (what Python 3 returns by default) and as
** PK_BYTES otherwise; BYTEARRAY8 decodes as PK_BYTES.  NUL bytes after
** STOP are ignored (HTML-embedded snapshots carry such padding); any other
** trailing byte is an error.
**
** Strictness beyond CPython's unpickler (no real writer trips these): the
** file must start with PROTO 2..5 and have no other PROTO; STOP must leave
** exactly one value and no open MARK; an opcode may not run past the end
** of its FRAME nor a FRAME start inside another; memo indexes must be below
** (input size + 256); lists, dicts and sets may not be dict keys or set
** elements; a container may not (even indirectly) contain itself.
*/
int pickle_decode(const unsigned char *data, size_t n, PkDoc **ppDoc,
                  const PkValue **ppRoot, PfError *pErr);

/*
** Called by pickle_decode_stream() with each item of a streamed list, in
** order: iList is the list's position in the outer list.  The item, and
** every container reachable from it for which pk_is_transient() is true,
** is freed once the call returns, so keep no pointer to them (strings'
** bytes point into the input and stay valid).  Non-zero stops the decode,
** which then returns -1: record the error in your own PfError first.
*/
typedef int (*PkItemFn)(void *pCtx, size_t iList, const PkValue *pItem);

/*
** As pickle_decode(), but the items of the lists in root[zKey] (the root
** a dict, root[zKey] a list of lists: the device traces of a memory
** snapshot) are not stored: each is handed to xItem as soon as its batch
** is complete, and its memory reused, so that memory stays bounded by the
** rest of the file.  In the tree those inner lists are empty.
**
** Returns 0 (done), -1 (error, as pickle_decode()), or 1 when the file is
** a legal pickle laid out otherwise than the writer of such files lays it
** out (an item reached twice through the memo, items appended out of
** place, ...): nothing is returned then, and the caller must forget what
** xItem was given and decode the file with pickle_decode().
*/
int pickle_decode_stream(const unsigned char *data, size_t n,
                         const char *zKey, PkItemFn xItem, void *pCtx,
                         PkDoc **ppDoc, const PkValue **ppRoot,
                         PfError *pErr);

/* Non-zero if container v lives only until the current xItem call of a
** streamed decode returns (so its address must not be remembered). */
int pk_is_transient(const PkValue *v);

/* Free a document and every value in it.  Accepts NULL. */
void pickle_free(PkDoc *p);

/* Bytes of heap the document holds (arena chunks, large arrays and the
** document header), for memory accounting. */
size_t pickle_mem_used(const PkDoc *p);

/* The value of the last entry of dict d whose key is the string zKey, or
** NULL if d is not a dict or has no such key.  Linear in the dict size. */
const PkValue *pk_dict_get(const PkValue *d, const char *zKey);
/* As pk_dict_get() with a key of n bytes (no NUL needed). */
const PkValue *pk_dict_get_n(const PkValue *d, const char *zKey, size_t n);

/* INT, BOOL (0/1) and BIGINT that fits int64_t: store it in *pOut and
** return 0.  Anything else (including NULL) returns -1, *pOut untouched. */
int pk_as_int(const PkValue *v, int64_t *pOut);

/* FLOAT, INT or BOOL as a double: store in *pOut, return 0; else -1. */
int pk_as_double(const PkValue *v, double *pOut);

/* Non-zero if v is a PK_STR whose bytes equal the C string z. */
int pk_str_eq(const PkValue *v, const char *z);

/* Number of items of a list, tuple or dict; 0 for anything else. */
size_t pk_len(const PkValue *v);

/* Number of bytes of z[0..n) that are not part of a valid UTF-8 sequence
** (overlong forms, surrogates and code points past U+10FFFF included):
** 0 when the string is valid UTF-8.  PK_STR bytes are not validated by the
** decoder; a consumer that stores them checks them with this. */
size_t pk_utf8_bad(const char *z, size_t n);

/* Copy the n bytes at z to zOut (n bytes, not NUL-terminated), each byte
** that is not part of a valid UTF-8 sequence replaced by '?'. */
void pk_utf8_fix(const char *z, size_t n, char *zOut);

/* As util_sanitize(), for text from the file shown in a message: control
** characters and bytes that are not valid UTF-8 become '?', and long text
** is cut at a character boundary and ends with "...". */
void pk_sanitize(const char *z, size_t n, char *zOut, size_t nOut);

/* "none", "bool", "int", "bigint", "float", "str", "bytes", "list",
** "tuple", "dict" (or "?" for an out-of-range value); static storage. */
const char *pk_type_name(PkType t);

#endif
