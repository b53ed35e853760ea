/*
** embedded.h — SQL files compiled into the binary by tools/embed.c.
**
** embedded_schema[]: schema/NNN-NAME.sql in order; embedded_query[]: the
** named queries from queries/NAME.sql.  Both end with a {0,0} entry.
*/
#ifndef PROFAN_EMBEDDED_H
#define PROFAN_EMBEDDED_H

typedef struct EmbeddedFile {
  const char *zName;   /* base file name, e.g. "001-core.sql" */
  const char *zText;   /* whole file content */
} EmbeddedFile;

extern const EmbeddedFile embedded_schema[];
extern const EmbeddedFile embedded_query[];

#endif
