-- cmd-history-tag.sql — profan tag RUN K=V... [--rm K]...   (or --baseline
-- NAME instead of RUN) Adds or replaces tags of an existing run; --rm
-- removes a tag. Used by src/cli/cmd_history.c, tag_cmd().
INSERT OR REPLACE INTO run_tag(run_id, key,
  value) VALUES(?1, ?2, ?3)
