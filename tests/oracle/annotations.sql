-- annotations.sql — the specification of the nesting of CPU user
-- annotations (record_function ranges) that schema 013 computed with
-- correlated subqueries: each annotation's parent, and the innermost
-- annotation around each launched GPU op's runtime call.  profan decides
-- them one way, by a sweep per thread in C (src/analysis/hta_annot.c,
-- src/analysis/derive_hta_annot.c) over the rows kept of the run;
-- tests/e2e/test_oracle.py compares on every fixture and ordering.
-- ProfilerStep#N ranges are steps, not annotations: left out of both.
--
-- Format: as summaries.sql.

-- spec: annotation_parent
-- The parent of an annotation: the innermost other annotation of the same
-- (rank, tid) containing it, an equal range with a lower id counting as
-- the outer one.
-- stored: SELECT annotation_id, parent_id FROM hta_annotation_parent
WITH a AS MATERIALIZED (
  SELECT a.id, a.run_id, a.rank, a.tid, a.ts, a.dur
  FROM annotation a JOIN string s ON s.id = a.name_id
  WHERE a.kind = 'user' AND s.text NOT LIKE 'ProfilerStep#%'
)
SELECT c.id, (SELECT q.id FROM a q
   WHERE q.run_id = c.run_id AND q.rank = c.rank AND q.tid = c.tid
     AND q.id <> c.id AND q.ts <= c.ts AND q.ts + q.dur >= c.ts + c.dur
     AND (q.ts < c.ts OR q.dur > c.dur OR q.id < c.id)
   ORDER BY q.ts DESC, q.dur, q.id DESC LIMIT 1)
FROM a c;

-- spec: launch_annotation
-- The annotation of a launched GPU op: the innermost annotation of its
-- launch call's (rank, tid) around the call's start (the latest start,
-- then the shortest, then the highest id).
-- stored: SELECT kind, row_id, annotation_id FROM hta_annotation_kernel
SELECT g.kind, g.row_id,
  (SELECT a.id FROM annotation a JOIN string s ON s.id = a.name_id
   WHERE a.run_id = r.run_id AND a.rank = r.rank AND a.kind = 'user'
     AND a.tid = r.tid AND a.ts <= r.ts AND a.ts + a.dur >= r.ts
     AND s.text NOT LIKE 'ProfilerStep#%'
   ORDER BY a.ts DESC, a.dur, a.id DESC LIMIT 1)
FROM hta_gpu_op g JOIN runtime_call r ON r.id = g.runtime_id;
