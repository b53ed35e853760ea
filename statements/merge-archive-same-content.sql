-- merge-archive-same-content.sql — --summaries-only: a new run of the target
-- for run srcRun of the source (name, creation time, content hash as there;
-- NAME-2... when the name is taken), or 0 when the target has a run of the
-- same content.  Returns 0, or -1 with pErr set. Used by src/ingest/merge.c,
-- archive_new_run().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT id FROM run WHERE content_hash=%Q
  AND content_hash<>''
