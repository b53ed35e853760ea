/*
** pq_api.h — libpq, loaded when a history server is first used rather
** than linked: a profan that never talks to PostgreSQL (ingest, report,
** every command on a local database) does not pay for loading libpq and
** its ~20 libraries (TLS, Kerberos, LDAP) at every start (about 7 ms of
** CPU, a tenth of a small ingest).
**
** The files of src/server/ include this header (through pg_conn.h)
** instead of <libpq-fe.h> alone: libpq's types and constants are the
** header's; each PQ* function name below stands for the pointer that
** pq_api_load() resolved.  pg_conn_open() loads it before any call.
**
** Pipeline position: the server layer, under pg_conn.c.
*/
#ifndef PROFAN_PQ_API_H
#define PROFAN_PQ_API_H

#include <libpq-fe.h>
#include "core/util.h"

/* Every libpq function profan calls (a new call: add it here, and a
** #define below). */
#define PQ_API_LIST(X) \
  X(PQclear) X(PQconnectdbParams) X(PQconninfoFree) X(PQconninfoParse) \
  X(PQdb) X(PQenterPipelineMode) X(PQerrorMessage) X(PQexec) \
  X(PQexecParams) X(PQexitPipelineMode) X(PQfinish) X(PQfreemem) \
  X(PQftype) X(PQgetResult) X(PQgetisnull) X(PQgetlength) X(PQgetvalue) \
  X(PQhost) X(PQnfields) X(PQntuples) X(PQpipelineSync) X(PQport) \
  X(PQputCopyData) X(PQputCopyEnd) X(PQresultErrorField) \
  X(PQresultErrorMessage) X(PQresultStatus) X(PQsendQueryParams) \
  X(PQsetNoticeProcessor) X(PQstatus) X(PQunescapeBytea)

typedef struct PqApi {
#define PQ_API_FIELD(f) __typeof__(f) *x##f;
  PQ_API_LIST(PQ_API_FIELD)
#undef PQ_API_FIELD
} PqApi;
extern PqApi pq_api;

/*
** Load libpq (libpq.so.5) once, thread-safe.  Returns 0, or -1 with
** "history server: cannot load libpq: REASON" in pErr (kind PF_KIND_DB).
*/
int pq_api_load(PfError *pErr);

#ifndef PQ_API_IMPL
#define PQclear (*pq_api.xPQclear)
#define PQconnectdbParams (*pq_api.xPQconnectdbParams)
#define PQconninfoFree (*pq_api.xPQconninfoFree)
#define PQconninfoParse (*pq_api.xPQconninfoParse)
#define PQdb (*pq_api.xPQdb)
#define PQenterPipelineMode (*pq_api.xPQenterPipelineMode)
#define PQerrorMessage (*pq_api.xPQerrorMessage)
#define PQexec (*pq_api.xPQexec)
#define PQexecParams (*pq_api.xPQexecParams)
#define PQexitPipelineMode (*pq_api.xPQexitPipelineMode)
#define PQfinish (*pq_api.xPQfinish)
#define PQfreemem (*pq_api.xPQfreemem)
#define PQftype (*pq_api.xPQftype)
#define PQgetResult (*pq_api.xPQgetResult)
#define PQgetisnull (*pq_api.xPQgetisnull)
#define PQgetlength (*pq_api.xPQgetlength)
#define PQgetvalue (*pq_api.xPQgetvalue)
#define PQhost (*pq_api.xPQhost)
#define PQnfields (*pq_api.xPQnfields)
#define PQntuples (*pq_api.xPQntuples)
#define PQpipelineSync (*pq_api.xPQpipelineSync)
#define PQport (*pq_api.xPQport)
#define PQputCopyData (*pq_api.xPQputCopyData)
#define PQputCopyEnd (*pq_api.xPQputCopyEnd)
#define PQresultErrorField (*pq_api.xPQresultErrorField)
#define PQresultErrorMessage (*pq_api.xPQresultErrorMessage)
#define PQresultStatus (*pq_api.xPQresultStatus)
#define PQsendQueryParams (*pq_api.xPQsendQueryParams)
#define PQsetNoticeProcessor (*pq_api.xPQsetNoticeProcessor)
#define PQstatus (*pq_api.xPQstatus)
#define PQunescapeBytea (*pq_api.xPQunescapeBytea)
#endif

#endif
