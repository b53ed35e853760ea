/*
** embedded.h — SQL files compiled into the binary by tools/embed.c.
**
** embedded_schema[]: schema/NNN-NAME.sql in order; embedded_query[]: the
** named queries from queries/NAME.sql; embedded_rule[]: the findings
** rules of `profan report` from rules/NAME.sql.  Each ends with a {0,0}
** entry.
*/
#ifndef PROFAN_EMBEDDED_H
#define PROFAN_EMBEDDED_H

typedef struct EmbeddedFile {
  const char *zName;   /* base file name, e.g. "001-core.sql" */
  const char *zText;   /* whole file content */
} EmbeddedFile;

extern const EmbeddedFile embedded_schema[];
extern const EmbeddedFile embedded_query[];
extern const EmbeddedFile embedded_rule[];

#endif
