-- derived-tables.sql — the derived tables a run's derive passes fill, by
-- their role in table_role: those computed across ranks (derived_run:
-- what a merge computes again over the merged run), and with ?1 = 1 also
-- those computed per rank (derived_rank: `profan rebuild` computes both).
-- src/analysis/derive_run.c deletes the run's rows from them first.
SELECT name FROM table_role
WHERE role = 'derived_run' OR (?1 AND role = 'derived_rank')
ORDER BY name;
