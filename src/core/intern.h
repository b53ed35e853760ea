/*
** intern.h — the string interner: maps text to string.id, inserting new
** texts into the `string` table.  Owned by the single database writer.
**
** Pipeline position: "normalize"/"load".  Memory grows with the number of
** distinct strings (kernel and op names), never with the number of events.
*/
#ifndef PROFAN_INTERN_H
#define PROFAN_INTERN_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

typedef struct Intern Intern;

/* New interner on db; statements are prepared lazily.  Free with
** intern_free(). */
Intern *intern_new(sqlite3 *db);
void intern_free(Intern *p);                      /* accepts NULL */

/* Id of the text z[0..n), inserting it when new.  Returns -1 on a database
** error (pErr set). */
int64_t intern_id(Intern *p, const char *z, size_t n, PfError *pErr);

/* Forget every cached id (after a rollback the cache may name rows that
** no longer exist). */
void intern_clear(Intern *p);

#endif
