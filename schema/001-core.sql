-- 001-core.sql — runs, files, tags and interned strings.
-- Applied in order with the other schema/NNN-*.sql files; PRAGMA
-- user_version holds the number of the last file applied.

CREATE TABLE run(
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- run id, never reused
  name TEXT NOT NULL UNIQUE,       -- user-visible name (default: directory name)
  created_at TEXT NOT NULL,        -- ISO-8601 UTC time of the ingest
  source_path TEXT,                -- path(s) given to `profan ingest`
  content_hash TEXT NOT NULL,      -- hash over the input files' content
  tool_version TEXT NOT NULL,      -- profan version that ingested it
  notes TEXT
);
CREATE INDEX run_content_hash ON run(content_hash);

CREATE TABLE run_tag(
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(run_id, key)
) WITHOUT ROWID;

CREATE TABLE run_file(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  path TEXT NOT NULL,              -- path as found
  kind TEXT NOT NULL,              -- 'trace', 'snapshot', 'nccl_log', ...
  rank INTEGER,                    -- rank this file describes
  rank_source TEXT,                -- 'distributedInfo', 'file name', 'default'
  bytes INTEGER NOT NULL,          -- size on disk
  hash TEXT NOT NULL,              -- XXH64 of the bytes on disk, hex
  n_records INTEGER NOT NULL DEFAULT 0, -- events / entries / lines read
  parse_ms REAL,                   -- wall time spent parsing
  warnings INTEGER NOT NULL DEFAULT 0,  -- skipped or repaired records
  time_regime TEXT,                -- trace: 'absolute_us', 'absolute_frac_us', 'relative_us'
  base_time_ns INTEGER,            -- trace: baseTimeNanoseconds when present
  schema_version INTEGER,          -- trace: schemaVersion
  host_name TEXT,                  -- trace metadata when present
  world_size INTEGER               -- trace: distributedInfo.world_size
);
CREATE INDEX run_file_run ON run_file(run_id);

-- Interned names (kernel names, op names, stack frames): stored once.
CREATE TABLE string(
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);
