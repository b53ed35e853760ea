-- export-anchor-names.sql — --around ANCHOR (view export_anchor). Used by
-- src/cli/cmd_export.c, window_anchor() and by src/cli/cli_docs.c,
-- cli_complete().
SELECT anchor FROM export_anchor WHERE run_id=?1
  ORDER BY anchor LIKE 'gap-%', length(anchor), anchor
