-- named-query-type-words.sql — The category schemes, the words a query
-- parameter of type scheme takes. Used by src/report/named_query.c,
-- named_query_type_words().
SELECT scheme FROM category_scheme
  ORDER BY scheme
