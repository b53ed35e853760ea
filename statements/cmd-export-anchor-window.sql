-- cmd-export-anchor-window.sql — --around ANCHOR (view export_anchor). Used
-- by src/cli/cmd_export.c, window_anchor().
SELECT rank, start_ns, end_ns, label
  FROM export_anchor WHERE run_id=?1 AND anchor=?2
