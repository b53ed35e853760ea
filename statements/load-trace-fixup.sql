-- load-trace-fixup.sql — update. Used by src/trace/load_trace.c,
-- load_trace_fixup().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel | 1 | 1 | 1
UPDATE %s SET ts=ts+%lld, rank=%lld
  WHERE file_id=%lld
