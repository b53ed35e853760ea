/*
** pg_schema.h — the history server's schema: its version, and the
** migrations schema/pg/NNN-name.sql applied on first use.
**
** Pipeline position: the server layer; every command that talks to the
** server calls pg_schema_ensure() once after connecting.
*/
#ifndef PROFAN_PG_SCHEMA_H
#define PROFAN_PG_SCHEMA_H

#include "server/pg_conn.h"

/* The server schema version this profan writes: NNN of its last file
** schema/pg/NNN-name.sql. */
int pg_schema_version(void);

/*
** Make the server's schema this profan's.  Its version is the largest
** in profan.schema_version (0: no schema profan).  A newer one is refused
** ("... newer than this profan's N: upgrade profan"); an older one gets
** the files numbered after it, in one transaction that first takes an
** advisory lock, so that two first uses do not race (the second waits,
** then finds the files applied).  A role without the right to create
** the schema gets one line saying so.  Returns 0 (*pVersion, may be
** NULL: the server's version before), or -1 with pErr set (kind
** PF_KIND_DB).
*/
int pg_schema_ensure(PgConn *c, int *pVersion, PfError *pErr);

/* The advisory-lock keys of the server: the migrations, and the pushes
** (one push at a time assigns ids: pg_push.c). */
#define PG_LOCK_MIGRATE 0x70726f66616e01LL     /* "profan" 1 */
#define PG_LOCK_PUSH    0x70726f66616e02LL     /* "profan" 2 */

#endif
