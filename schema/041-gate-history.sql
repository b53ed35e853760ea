-- 041-gate-history.sql — the defaults the regression gate gained with
-- issue 30 (the work evidence, the history's lineage and configuration)
-- and the snapshot arm of the run fingerprint.  README "The regression
-- gate (`profan check`)"; history_window.c and gate_work.c read them.

-- Defaults of `profan check` added by issue 30 (README "The regression
-- gate"); the options override the first ones.
INSERT INTO gate_param VALUES
  ('history_lineage', 1, 'without --same-tag the history holds only the '
   || 'baseline''s lineage: runs whose name equals the baseline''s with '
   || 'every digit run ignored, or that share a tag (key and value) with '
   || 'it (0: any run with the fingerprint)'),
  ('fingerprint_step_ratio', 1.15, 'history: the steady median step time '
   || 'of a run within this factor of the baseline''s (a configuration '
   || 'change moves it more: num_workers 0 -> 4, 159 -> 126 ms)'),
  ('fingerprint_min_mix_pct', 60, 'history: the share of GPU time the '
   || 'two runs'' kernel mixes have in common (sum over kernel names of '
   || 'the smaller share), %'),
  ('fingerprint_peak_ratio', 1.25, 'history: the peak allocated memory of '
   || 'a run with snapshots within this factor of the baseline''s'),
  ('work_min_pairs', 20, 'fewest matched GPU activities (kernel name and '
   || 'launch shape, memcpy/memset name and bytes) per step for the work '
   || 'evidence of a step-time check');

-- The fingerprint of a run's workload (011) with a third kind: the top
-- user source files of its memory snapshots' stacks (stack.user_frame_id,
-- by number of stacks), so that another model's snapshot is not in a
-- snapshot run's history; `name` holds the file name (name_id is NULL).
DROP VIEW run_fingerprint;
CREATE VIEW run_fingerprint AS
WITH
n AS (SELECT value AS top FROM gate_param WHERE name = 'fingerprint_top'),
k AS (
  SELECT run_id, name_id,
    row_number() OVER (PARTITION BY run_id
                       ORDER BY sum(total_ns) DESC, name_id) AS i
  FROM gpu_op_summary WHERE kind = 'kernel' GROUP BY run_id, name_id
),
o AS (
  SELECT c.run_id, c.name_id,
    row_number() OVER (PARTITION BY c.run_id
                       ORDER BY sum(c.total_ns) DESC, c.name_id) AS i
  FROM cpu_op_summary c JOIN string s ON s.id = c.name_id
  WHERE s.text NOT GLOB 'ProfilerStep#*'
  GROUP BY c.run_id, c.name_id
),
f AS (
  SELECT s.run_id, fr.filename,
    row_number() OVER (PARTITION BY s.run_id
                       ORDER BY count(*) DESC, fr.filename) AS i
  FROM stack s JOIN frame fr ON fr.id = s.user_frame_id
  GROUP BY s.run_id, fr.filename
)
SELECT run_id, 'kernel' AS kind, name_id, NULL AS name FROM k, n
  WHERE i <= n.top
UNION ALL
SELECT run_id, 'op', name_id, NULL FROM o, n WHERE i <= n.top
UNION ALL
SELECT run_id, 'frame', NULL, filename FROM f, n WHERE i <= n.top;
