-- links.sql — the specification of the trace rows' link columns, as SQL
-- over the raw columns (correlation ids, threads, times, ProfilerStep
-- names).  profan links in one way only, in C: the in-stream linker
-- (src/trace/link_trace.c), fed by the parser in file order or, for a
-- file whose order it could not link in one pass, by the stored rows
-- (src/trace/trace_relink.c); GPU rows without a step then get the step
-- holding their own start (src/trace/derive_trace.c).
-- tests/e2e/test_oracle.py runs these on every fixture and on adversarial
-- orderings of real traces (events shuffled, ops in end order, launches
-- after their kernels, calls before their ops, steps annotated last, an
-- export ingested again).  The op nesting (parent, depth, self time) and
-- each runtime call's ops (op_id, top_op_id, in_recompute) are checked
-- there against a Python stack over the JSON instead (the linker's own
-- definition was never SQL: a recursive sweep would be needed to say "an
-- op that sticks out of its parent is a sibling").
--
-- Format: as summaries.sql; "-- setup" sections run first, once.

-- setup
-- Each file's runtime calls by correlation id (a correlation repeated in
-- one file is ambiguous: those GPU rows are left out of gpu_launch).
CREATE TEMP TABLE spec_call AS
  SELECT file_id, correlation, count(*) AS n, max(id) AS id
  FROM runtime_call WHERE correlation IS NOT NULL
  GROUP BY file_id, correlation;
CREATE INDEX temp.spec_call_key ON spec_call(file_id, correlation);
-- The run's steps (the step table) and each file's own ProfilerStep#N
-- ranges (CPU annotations and 2021 step ops), which the rows of that file
-- take by their start.
CREATE TEMP TABLE spec_step AS
  SELECT run_id, rank, step, ts, ts + dur AS e FROM step;
CREATE INDEX temp.spec_step_key ON spec_step(run_id, rank, ts);
CREATE TEMP TABLE spec_fstep AS
  SELECT DISTINCT file_id, CAST(substr(name, 14) AS INTEGER) AS step, ts,
    ts + dur AS e
  FROM (SELECT a.file_id, s.text AS name, a.ts, a.dur FROM annotation a
        JOIN string s ON s.id = a.name_id WHERE a.kind = 'user'
        UNION ALL
        SELECT o.file_id, s.text, o.ts, o.dur FROM cpu_op o
        JOIN string s ON s.id = o.name_id)
  WHERE name GLOB 'ProfilerStep#[0-9]*'
    AND substr(name, 14) NOT GLOB '*[^0-9]*';
CREATE INDEX temp.spec_fstep_key ON spec_fstep(file_id, ts);

-- spec: gpu_launch
-- A kernel or memcpy/memset is launched by the runtime call of its file
-- with its correlation id; it has that call's op, and the call's step or,
-- when the call has none (or there is no call), the step of the run's
-- rank that holds its own start (the step that starts last at or before
-- it, if it has not ended).
-- stored: SELECT 'kernel', k.id, k.runtime_id, k.op_id, k.step FROM kernel k LEFT JOIN spec_call c ON c.file_id = k.file_id AND c.correlation = k.correlation WHERE coalesce(c.n, 0) <= 1 UNION ALL SELECT 'gpu_mem_op', g.id, g.runtime_id, g.op_id, g.step FROM gpu_mem_op g LEFT JOIN spec_call c ON c.file_id = g.file_id AND c.correlation = g.correlation WHERE coalesce(c.n, 0) <= 1
WITH g AS (
  SELECT 'kernel' AS tab, id, run_id, rank, file_id, ts, correlation
  FROM kernel
  UNION ALL
  SELECT 'gpu_mem_op', id, run_id, rank, file_id, ts, correlation
  FROM gpu_mem_op)
SELECT g.tab, g.id, r.id, r.op_id,
  coalesce(r.step,
    (SELECT CASE WHEN g.ts < s.e THEN s.step END FROM spec_step s
     WHERE s.run_id = g.run_id AND s.rank = g.rank AND s.ts <= g.ts
     ORDER BY s.ts DESC LIMIT 1))
FROM g LEFT JOIN spec_call c ON c.file_id = g.file_id
  AND c.correlation = g.correlation
LEFT JOIN runtime_call r ON r.id = c.id
WHERE coalesce(c.n, 0) <= 1;

-- spec: row_step
-- An op or runtime call has the step of its file that holds its start:
-- the ProfilerStep#N range starting last at or before it, if it has not
-- ended.
-- stored: SELECT 'cpu_op', id, step FROM cpu_op UNION ALL SELECT 'runtime_call', id, step FROM runtime_call
SELECT 'cpu_op', o.id,
  (SELECT CASE WHEN o.ts < s.e THEN s.step END FROM spec_fstep s
   WHERE s.file_id = o.file_id AND s.ts <= o.ts
   ORDER BY s.ts DESC, s.e DESC LIMIT 1)
FROM cpu_op o
UNION ALL
SELECT 'runtime_call', r.id,
  (SELECT CASE WHEN r.ts < s.e THEN s.step END FROM spec_fstep s
   WHERE s.file_id = r.file_id AND s.ts <= r.ts
   ORDER BY s.ts DESC, s.e DESC LIMIT 1)
FROM runtime_call r;
