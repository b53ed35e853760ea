/*
** group_map.h — totals per group: a hash map from a key of up to four
** integers to a fixed-size value, for the summary tables of
** schema/009-query-summaries.sql, and small codes for the few distinct
** texts of a column ('runtime'/'driver', 'arg'/'estimate').
**
** Pipeline position: shared by "load" (load_trace.c totals the summaries
** while inserting rows) and "derive" (derive_summary.c totals them from
** the rows when the database did the linking).
*/
#ifndef PROFAN_GROUP_MAP_H
#define PROFAN_GROUP_MAP_H

#include <stddef.h>
#include <stdint.h>

/* The key of a group: up to four integers (unused ones 0). */
typedef struct GroupKey { int64_t a, b, c, d; } GroupKey;

/* Hash map from GroupKey to a zeroed value of szVal bytes; groups keep
** their creation order and are numbered 0, 1, ... in it. */
typedef struct GroupMap {
  size_t szVal;          /* bytes of one value */
  GroupKey *aKey;        /* key of each group */
  unsigned char *aVal;   /* value of each group, szVal bytes each */
  int nGroup, nAlloc;    /* groups used / allocated */
  int *aSlot;            /* hash slots: group index + 1, 0 = empty */
  int nSlot;             /* a power of two, at least 2 * nGroup */
} GroupMap;

void group_map_init(GroupMap *p, size_t szVal);
void group_map_free(GroupMap *p);          /* frees what p holds, not p */

/* The value of group (a, b, c, d), created zeroed when new; *piGroup, when
** not NULL, receives its index.  Valid until the next group_map_get(). */
void *group_map_get(GroupMap *p, int64_t a, int64_t b, int64_t c, int64_t d,
                int *piGroup);

/* 1 when group (a, b, c, d) exists (its index in *piGroup when not
** NULL), else 0; creates nothing. */
int group_map_find(const GroupMap *p, int64_t a, int64_t b, int64_t c,
                   int64_t d, int *piGroup);

/* The value of group g (0 <= g < nGroup). */
void *group_map_val(const GroupMap *p, int g);

/* The distinct texts of a column with few values as small codes: 0 is
** NULL, i > 0 is az[i-1]. */
typedef struct TextCodes {
  char **az;             /* owned copies */
  int n;
} TextCodes;

/* Code of text z (NULL: 0), added when new. */
int64_t group_map_text_code(TextCodes *p, const char *z);
/* Text of code, or NULL for 0 or an unknown code. */
const char *group_map_text_of(const TextCodes *p, int64_t code);
void group_map_text_free(TextCodes *p);          /* frees what p holds, not p */

#endif
