/*
** pg_conn.h — a connection to a team's history server (PostgreSQL,
** through libpq): connect with libpq's own means for credentials, run
** statements with bound parameters, several at once in one round trip,
** and errors in one line that never hold a credential.
**
** Pipeline position: the server layer (push, the history source of
** --history); nothing below it knows PostgreSQL.
*/
#ifndef PROFAN_PG_CONN_H
#define PROFAN_PG_CONN_H

#include "server/pq_api.h"
#include "core/util.h"

typedef struct PgConn PgConn;

/*
** Connect to zUrl, a libpq connection string ("host=... dbname=...") or
** a postgresql:// URL.  Credentials come the ways libpq reads them
** (PGPASSWORD, ~/.pgpass, the URL; sslmode and the other settings from
** the string or PG* variables); connect_timeout is 10 s unless the string
** or PGCONNECT_TIMEOUT says otherwise.  Returns the connection, or NULL
** with one line in pErr: kind PF_KIND_USAGE when zUrl is no connection
** string (its text is never repeated: it may hold a password), else
** PF_KIND_DB with libpq's reason.  Close with pg_conn_close().
*/
PgConn *pg_conn_open(const char *zUrl, PfError *pErr);
void pg_conn_close(PgConn *c);                    /* accepts NULL */

/* What messages call the server: "DB on HOST:PORT" (a socket directory
** for HOST), never a password.  Static to the connection. */
const char *pg_conn_name(const PgConn *c);

/* libpq's handle, for PQ* calls on results. */
PGconn *pg_conn_pq(PgConn *c);

/*
** Run zSql with nParam text parameters (an entry NULL: SQL NULL).
** Returns the result (tuples or command ok; the caller PQclear()s it),
** or NULL with "history server NAME: MSG" in pErr (kind PF_KIND_DB).
*/
PGresult *pg_conn_exec(PgConn *c, const char *zSql, int nParam,
                       const char *const *azParam, PfError *pErr);
/* pg_conn_exec() for a statement whose result is not needed: 0 or -1. */
int pg_conn_run(PgConn *c, const char *zSql, int nParam,
                const char *const *azParam, PfError *pErr);
/* Run the statements of zSql (several, separated by ';', no parameters:
** the program's own DDL) in one go: 0 or -1 (pErr). */
int pg_conn_script(PgConn *c, const char *zSql, PfError *pErr);

/* One statement of a batch: its text and parameters in, its result out
** (pRes: the caller PQclear()s it; NULL after an error). */
typedef struct PgQuery {
  const char *zSql;
  int nParam;
  const char *const *azParam;
  PGresult *pRes;
} PgQuery;

/*
** Send the nQ statements of aQ at once and read their results (libpq's
** pipeline mode: one round trip to the server for all of them).  Returns
** 0 with every aQ[i].pRes set, or -1 with the first error in pErr (the
** results are cleared).  Inside a transaction an error aborts it, as a
** single statement's would.
*/
int pg_conn_batch(PgConn *c, PgQuery *aQ, int nQ, PfError *pErr);

/*
** COPY zSql ("COPY t(cols) FROM STDIN", text format) with the rows
** z[0..n) (each ending in a newline, values escaped as COPY's text
** format wants them): two round trips whatever the number of rows, and
** the server parses no statement per row.  0, or -1 with pErr set;
** inside a transaction an error aborts it.
*/
int pg_conn_copy(PgConn *c, const char *zSql, const char *z, size_t n,
                 PfError *pErr);

/* Set pErr (may be NULL: nothing) to "history server NAME: MSG" with MSG
** zMsg, or libpq's message of the connection when zMsg is NULL (zWhat,
** when not NULL, before it: "push: ..."). */
void pg_conn_error(PgConn *c, const char *zWhat, const char *zMsg,
                   PfError *pErr);

/* The SQLSTATE of the last statement that failed ("55P03": a lock
** timeout), "" when none said. */
const char *pg_conn_sqlstate(const PgConn *c);

/* 1 when the connection is gone (the server stopped, the network). */
int pg_conn_lost(PgConn *c);

#endif
