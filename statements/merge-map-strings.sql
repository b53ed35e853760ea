-- merge-map-strings.sql — a new string's id: the next one, above the floor
-- when there is one. Used by src/ingest/merge.c, map_strings().
INSERT INTO string(id, text)
  VALUES(max(coalesce((SELECT max(id) FROM string), 0), ?2)
  + 1, ?1) ON CONFLICT(text) DO NOTHING
