-- named-query-type-words.sql — Reads category_scheme. Used by
-- src/report/named_query.c, named_query_type_words().
SELECT scheme FROM category_scheme
  ORDER BY scheme
