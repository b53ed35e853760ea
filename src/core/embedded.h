/*
** embedded.h — SQL files compiled into the binary by tools/embed.c.
**
** embedded_schema[]: schema/NNN-NAME.sql in increasing NNN (001 the
** baseline); embedded_query[]: the named queries from queries/NAME.sql;
** embedded_rule[]: the findings rules of `profan report` from
** rules/NAME.sql; embedded_statement[]: the statements the program runs
** itself, from statements/NAME.sql (db_statement() finds one by NAME);
** embedded_pg_schema[]: the history server's migrations, schema/pg/
** NNN-NAME.sql in increasing NNN (server/pg_schema.c applies them).
** Each ends with a {0,0} entry.
**
** embedded_image: the database file that replaying every schema file
** makes (tools/schema_image.c at build time), as its runs of non-zero
** bytes; db_open() writes it to create a new database.
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
extern const EmbeddedFile embedded_statement[];
extern const EmbeddedFile embedded_pg_schema[];

typedef struct EmbeddedImage {
  long long nSize;             /* bytes of the file (nPage * pageSize) */
  int pageSize;                /* its page size */
  int nRun;                    /* runs of non-zero bytes; 0: no image */
  const unsigned int *aRun;    /* nRun pairs (offset, length) */
  const unsigned char *aByte;  /* the runs' bytes, one after another */
  int version;                 /* its user_version (last schema file number) */
} EmbeddedImage;

extern const EmbeddedImage embedded_image;

#endif
