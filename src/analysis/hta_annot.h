/*
** hta_annot.h — the nesting of CPU user annotations (record_function) on
** their thread, in memory: each annotation's parent and the innermost
** annotation around each GPU op's launch call, by one sweep per thread.
** No SQL here: derive_hta.c reads the annotations, stores the answers
** in hta_annotation_parent and hta_launch_annotation (schema 030).
**
** Both answers are "the last one in the order (ts, longest first, id)
** among those that contain the point or range and come before it":
** ORDER BY ts DESC, dur, id DESC LIMIT 1 over the containing ones, as
** 013's hta_annotation_tree and hta_annotation_kernel stated them.
**
** Pipeline position: "derive" (called by derive_hta.c).
*/
#ifndef PROFAN_HTA_ANNOT_H
#define PROFAN_HTA_ANNOT_H

#include <stddef.h>
#include <stdint.h>

/* An annotation: [ts, end] on (rank, tid); id > 0. */
typedef struct HaAnnot {
  int64_t rank, tid, ts, end, id;
} HaAnnot;

/* Sort annotations by (rank, tid, ts, end descending, id): the order
** hta_annot_parents and hta_annot_map want. */
void hta_annot_sort(HaAnnot *a, size_t n);

/* aParent[i] = the id of a[i]'s parent (the innermost other annotation
** of its thread containing it, an equal range with a lower id counting
** as the outer one), 0 when none.  a sorted by hta_annot_sort. */
void hta_annot_parents(const HaAnnot *a, size_t n, int64_t *aParent);

/* The innermost annotation of every point of every thread: per thread
** the times where it changes and the annotation from each on. */
typedef struct HaMap HaMap;

/* The map of annotations a (sorted by hta_annot_sort); caller frees it
** with hta_annot_map_free(). */
HaMap *hta_annot_map(const HaAnnot *a, size_t n);
void hta_annot_map_free(HaMap *p);                /* accepts NULL */

/* The id of the innermost annotation of (rank, tid) with ts <= t <= end
** (ties: the shorter, then the higher id, is inner), 0 when none. */
int64_t hta_annot_at(HaMap *p, int64_t rank, int64_t tid, int64_t t);

#endif
