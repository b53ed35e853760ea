-- 129-trace-id-base.sql — each trace file's operator and runtime-call
-- row ids as a recorded range (issue 35, the footprint).  The in-stream
-- linker numbered them (file id << 32) + n: 5-byte rowids and 6-byte
-- references (cpu_op.parent_id, runtime_call.op_id and top_op_id,
-- kernel.runtime_id and op_id, op_gpu_time.op_id, ...).  A new file's
-- ids are id_base + n, n = 1, 2, ..., its base chosen when the ingest
-- registers it, above every id there is (src/trace/trace_ids.c), so the
-- first file of a database numbers from 1.  Its range reaches id_last:
-- reserved from a bound known before the parse (the file's bytes over
-- the smallest event's), then the largest id it used once loaded.
-- Stored ids are never renumbered: the files already stored keep
-- (file id << 32) + n, recorded below as their base.  A merge moves a
-- shard file's range with its rows (both columns map as cpu_op ids).

CREATE TABLE trace_id_base(
  file_id INTEGER PRIMARY KEY REFERENCES run_file(id) ON DELETE CASCADE,
  run_id INTEGER NOT NULL,
  id_base INTEGER NOT NULL,        -- ids of its cpu_op, runtime_call rows
                                   -- are id_base + n, n >= 1
  id_last INTEGER NOT NULL         -- the largest id of the range
);

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('trace_id_base', 'raw', 'trace', 0,
   'the row id range of each trace file''s operators and runtime calls');

INSERT INTO trace_id_base(file_id, run_id, id_base, id_last)
SELECT id, run_id, id << 32, (id << 32) + 4294967295 FROM run_file
WHERE kind = 'trace';
