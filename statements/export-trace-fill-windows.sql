-- export-trace-fill-windows.sql — The windows of every rank in
-- temp.export_win (the big tables' pass and export_derived.c join it). Used
-- by src/report/export_trace.c, fill_windows().
CREATE TEMP TABLE IF NOT EXISTS export_win(
  rank INTEGER PRIMARY KEY, lo INTEGER NOT NULL,
  hi INTEGER NOT NULL); DELETE FROM temp.export_win;
