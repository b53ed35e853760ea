-- 132-rank-traced-span-by-file.sql — rank_traced_span's host clock
-- (ranks without GPU rows) per trace file, not per operator (issue 35:
-- rank-skew on bench shape hta-mtia-rank0 x10, 1.09M operators and no
-- GPU rows, took 1.0-1.2 CPU s).  105's definition tested every operator
-- of the run for GPU rows of its rank and sorted them all by rank for the
-- GROUP BY.  Here a trace file's rank is tested once; the file's
-- operators are its recorded row id range (trace_id_base, schema 129) and
-- a file's rows all carry its rank (load-trace-fixup).  A rank with one
-- trace file (the usual case) is grouped by the file: the loop over
-- run_file_run (run_id, id) comes in that order, so nothing is sorted.
-- A rank with several (profiling windows of one job, profan merge) is
-- grouped by rank and sorted.  Same columns, same rows; both branches
-- group by run_id, so a reader's run_id = ? reaches run_file_run.

DROP VIEW rank_traced_span;
CREATE VIEW rank_traced_span AS
SELECT run_id, rank, span_ns, 'gpu' AS clock FROM rank_gpu_span
UNION ALL
SELECT f.run_id, f.rank, max(o.ts + o.dur) - min(o.ts), 'host'
FROM run_file f
CROSS JOIN trace_id_base t ON t.file_id = f.id
CROSS JOIN cpu_op o ON o.id BETWEEN t.id_base + 1 AND t.id_last
WHERE NOT EXISTS (SELECT 1 FROM gpu_busy b
                  WHERE b.run_id = f.run_id AND b.rank = f.rank)
  AND NOT EXISTS (SELECT 1 FROM run_file g
                  JOIN trace_id_base u ON u.file_id = g.id
                  WHERE g.run_id = f.run_id AND g.rank = f.rank
                    AND g.id <> f.id)
GROUP BY f.run_id, f.id
UNION ALL
SELECT f.run_id, f.rank, max(o.ts + o.dur) - min(o.ts), 'host'
FROM run_file f
CROSS JOIN trace_id_base t ON t.file_id = f.id
CROSS JOIN cpu_op o ON o.id BETWEEN t.id_base + 1 AND t.id_last
WHERE NOT EXISTS (SELECT 1 FROM gpu_busy b
                  WHERE b.run_id = f.run_id AND b.rank = f.rank)
  AND EXISTS (SELECT 1 FROM run_file g
              JOIN trace_id_base u ON u.file_id = g.id
              WHERE g.run_id = f.run_id AND g.rank = f.rank
                AND g.id <> f.id)
GROUP BY f.run_id, f.rank;
