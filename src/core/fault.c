/*
** fault.c — fault injection, compiled only into the test build
** (cmake -DPROFAN_FAULT=ON; never into a normal build).  The way SQLite
** tests itself: fail the Nth allocation, fail the Nth I/O operation, or cut
** the power at the Nth sync, and check that profan fails cleanly and the
** database is as before.
**
** Pipeline position: under everything.  A constructor runs before main():
** it installs a failing wrapper around SQLite's allocator (which must be
** configured before sqlite3_initialize) and registers the VFS shim
** "fault" as the default VFS; util.c asks fault_alloc_fails() before each
** allocation and input.c fault_input_read_fails() before each read.
**
** Environment (each N counts from 1; counting starts when main() does):
**   PROFAN_FAULT_MALLOC=N  the Nth allocation (profan's xmalloc family and
**                          SQLite's allocator, counted together) fails
**   PROFAN_FAULT_IO=N      the Nth I/O operation fails: the VFS's open,
**                          delete, access, read, write, truncate, sync,
**                          file size, lock and shared-memory map
**                          (SQLITE_IOERR_*, SQLITE_CANTOPEN), or a read of
**                          an input file (EIO)
**   PROFAN_FAULT_CRASH=N   power loss at the Nth sync (SQLite's syncs and
**                          profan's own fsync of a new database): every
**                          write to a file since that file's last sync is
**                          undone, then the process stops with _exit(86)
**   PROFAN_FAULT_TEAR=S    with CRASH: tear instead of dropping: each
**                          512-byte sector of each unsynced write is kept
**                          or undone at random (seed S), and so is each
**                          file's growth
**   PROFAN_FAULT_COUNTS=F  at exit, write the counts to file F:
**                          "malloc N", "io N", "sync N", one line per I/O
**                          kind ("io.read N", ...) and "fired KIND" when a
**                          fault was injected
*/
#include "core/fault.h"
#include "core/db_config.h"

#ifdef PROFAN_FAULT
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAULT_CRASH_EXIT 86

/* ------------------------------------------------------------ counters */

enum { IO_OPEN, IO_DELETE, IO_ACCESS, IO_READ, IO_WRITE, IO_TRUNCATE,
       IO_SYNC, IO_FSTAT, IO_LOCK, IO_SHMMAP, IO_INPUT, IO_NKIND };
static const char *const azIoKind[IO_NKIND] = {
  "open", "delete", "access", "read", "write", "truncate", "sync", "fstat",
  "lock", "shmmap", "input"
};

static int gArmed;                 /* counting (set when setup is done) */
static long gMallocTarget, gIoTarget, gCrashTarget;
static long gnMalloc, gnIo, gnSync;
static long ganIo[IO_NKIND];
static const char *gzFired;        /* what failed, NULL when nothing yet */
static unsigned gTearSeed;
static int gTear;
static const char *gzCounts;

static long env_long(const char *zName){
  const char *z = getenv(zName);
  return z ? strtol(z, NULL, 10) : 0;
}

int fault_alloc_fails(void){
  long n;
  if( !__atomic_load_n(&gArmed, __ATOMIC_RELAXED) ) return 0;
  n = __atomic_add_fetch(&gnMalloc, 1, __ATOMIC_RELAXED);
  if( n==gMallocTarget ){
    gzFired = "malloc";
    return 1;
  }
  return 0;
}

/* Count an I/O operation of kind k; 1 when it is the one to fail. */
static int io_fails(int k){
  long n;
  if( !__atomic_load_n(&gArmed, __ATOMIC_RELAXED) ) return 0;
  __atomic_add_fetch(&ganIo[k], 1, __ATOMIC_RELAXED);
  n = __atomic_add_fetch(&gnIo, 1, __ATOMIC_RELAXED);
  if( n==gIoTarget ){
    gzFired = azIoKind[k];
    return 1;
  }
  return 0;
}

int fault_input_read_fails(void){
  if( io_fails(IO_INPUT) ){
    errno = EIO;
    return 1;
  }
  return 0;
}

static void write_counts(void){
  FILE *f;
  if( gzCounts==NULL || (f = fopen(gzCounts, "w"))==NULL ) return;
  fprintf(f, "malloc %ld\nio %ld\nsync %ld\n", gnMalloc, gnIo, gnSync);
  for(int k=0; k<IO_NKIND; k++){
    fprintf(f, "io.%s %ld\n", azIoKind[k], ganIo[k]);
  }
  if( gzFired ) fprintf(f, "fired %s\n", gzFired);
  fclose(f);
}

/* ---------------------------------------------------- SQLite allocator */

static sqlite3_mem_methods gMemOrig;

static void *fm_malloc(int n){
  return fault_alloc_fails() ? NULL : gMemOrig.xMalloc(n);
}
static void *fm_realloc(void *p, int n){
  return fault_alloc_fails() ? NULL : gMemOrig.xRealloc(p, n);
}

/* ------------------------------------------- crash simulation: undo log */

/* The bytes a write or truncate replaced, to be put back at power loss. */
typedef struct Undo {
  char *zPath;
  sqlite3_int64 off;         /* where the old bytes were */
  sqlite3_int64 sizeBefore;  /* file size before the write */
  int n;                     /* old bytes kept (within sizeBefore) */
  int nWrite;                /* bytes the write covered */
  unsigned char *a;
  struct Undo *pPrev;        /* older record */
} Undo;

static pthread_mutex_t gMu = PTHREAD_MUTEX_INITIALIZER;
static Undo *gUndo;          /* newest first */

static void undo_forget(const char *zPath){
  Undo **pp = &gUndo;
  pthread_mutex_lock(&gMu);
  while( *pp ){
    Undo *u = *pp;
    if( strcmp(u->zPath, zPath)==0 ){
      *pp = u->pPrev;
      free(u->zPath);
      free(u->a);
      free(u);
    }else{
      pp = &u->pPrev;
    }
  }
  pthread_mutex_unlock(&gMu);
}

static unsigned tear_rand(void){
  gTearSeed = gTearSeed*1103515245u + 12345u;
  return (gTearSeed>>16) & 0x7fff;
}

/* Put back one record's old bytes (all, or sector by sector at random). */
static void undo_apply(int fd, const Undo *u){
  for(int i=0; i<u->n; i+=512){
    int k = u->n-i < 512 ? u->n-i : 512;
    if( gTear && (tear_rand() & 1) ) continue;     /* this sector landed */
    if( pwrite(fd, u->a+i, (size_t)k, (off_t)(u->off+i))!=k ) break;
  }
}

/* The power goes out: undo every unsynced write, newest first, then cut
** each file back to its size at its last sync; stop the process. */
static void crash_now(void){
  pthread_mutex_lock(&gMu);
  for(Undo *u=gUndo; u; u=u->pPrev){
    int fd = open(u->zPath, O_WRONLY);
    const Undo *o;
    if( fd<0 ) continue;
    undo_apply(fd, u);
    /* the oldest record of this path holds the size at the last sync */
    o = u;
    for(Undo *v=u->pPrev; v; v=v->pPrev){
      if( strcmp(v->zPath, u->zPath)==0 ) o = v;
    }
    if( !gTear || (tear_rand() & 1) ){
      if( ftruncate(fd, (off_t)o->sizeBefore) ){ /* best effort */ }
    }
    close(fd);
  }
  _exit(FAULT_CRASH_EXIT);
}

/* Count a sync of zPath; at the target, the power goes out instead. */
static void sync_point(const char *zPath){
  long n;
  if( !__atomic_load_n(&gArmed, __ATOMIC_RELAXED) ) return;
  n = __atomic_add_fetch(&gnSync, 1, __ATOMIC_RELAXED);
  if( gCrashTarget>0 && n==gCrashTarget ) crash_now();
  if( gCrashTarget>0 && zPath ) undo_forget(zPath);
}

void fault_sync_point(const char *zPath){ sync_point(zPath); }

/* ------------------------------------------------------------ VFS shim */

typedef struct FFile {
  sqlite3_file base;         /* pMethods = our io methods */
  const char *zPath;         /* NULL for temporary files */
  sqlite3_file *pReal;       /* the underlying VFS's file, after us */
} FFile;

static sqlite3_vfs *gReal;

/* Record what a write of n bytes at off (or a truncate to off when
** isTrunc) replaces. */
static void undo_record(FFile *f, sqlite3_int64 off, int n, int isTrunc){
  sqlite3_int64 size = 0;
  Undo *u;
  if( gCrashTarget<=0 || f->zPath==NULL ) return;
  if( f->pReal->pMethods->xFileSize(f->pReal, &size)!=SQLITE_OK ) return;
  if( isTrunc ){
    if( off>=size ) return;
    n = (int)(size-off);
  }
  u = calloc(1, sizeof(*u));        /* libc's: never a counted allocation */
  if( u==NULL || (u->zPath = strdup(f->zPath))==NULL ){
    free(u);
    return;
  }
  u->off = off;
  u->sizeBefore = size;
  u->nWrite = n;
  u->n = off>=size ? 0 : (int)((off+n<=size ? off+n : size) - off);
  if( u->n>0 ){
    u->a = malloc((size_t)u->n);
    if( u->a==NULL
        || f->pReal->pMethods->xRead(f->pReal, u->a, u->n, off)!=SQLITE_OK ){
      u->n = 0;
    }
  }
  pthread_mutex_lock(&gMu);
  u->pPrev = gUndo;
  gUndo = u;
  pthread_mutex_unlock(&gMu);
}

#define REAL(pFile) (((FFile*)(pFile))->pReal)

static int f_close(sqlite3_file *p){
  int rc = REAL(p)->pMethods->xClose(REAL(p));
  free(REAL(p));
  return rc;
}
static int f_read(sqlite3_file *p, void *a, int n, sqlite3_int64 off){
  if( io_fails(IO_READ) ) return SQLITE_IOERR_READ;
  return REAL(p)->pMethods->xRead(REAL(p), a, n, off);
}
static int f_write(sqlite3_file *p, const void *a, int n, sqlite3_int64 off){
  if( io_fails(IO_WRITE) ) return SQLITE_IOERR_WRITE;
  undo_record((FFile*)p, off, n, 0);
  return REAL(p)->pMethods->xWrite(REAL(p), a, n, off);
}
static int f_truncate(sqlite3_file *p, sqlite3_int64 size){
  if( io_fails(IO_TRUNCATE) ) return SQLITE_IOERR_TRUNCATE;
  undo_record((FFile*)p, size, 0, 1);
  return REAL(p)->pMethods->xTruncate(REAL(p), size);
}
static int f_sync(sqlite3_file *p, int flags){
  if( io_fails(IO_SYNC) ) return SQLITE_IOERR_FSYNC;
  sync_point(((FFile*)p)->zPath);
  return REAL(p)->pMethods->xSync(REAL(p), flags);
}
static int f_size(sqlite3_file *p, sqlite3_int64 *pSize){
  if( io_fails(IO_FSTAT) ) return SQLITE_IOERR_FSTAT;
  return REAL(p)->pMethods->xFileSize(REAL(p), pSize);
}
static int f_lock(sqlite3_file *p, int e){
  if( io_fails(IO_LOCK) ) return SQLITE_IOERR_LOCK;
  return REAL(p)->pMethods->xLock(REAL(p), e);
}
static int f_unlock(sqlite3_file *p, int e){
  return REAL(p)->pMethods->xUnlock(REAL(p), e);
}
static int f_reserved(sqlite3_file *p, int *pOut){
  return REAL(p)->pMethods->xCheckReservedLock(REAL(p), pOut);
}
static int f_fcntl(sqlite3_file *p, int op, void *pArg){
  return REAL(p)->pMethods->xFileControl(REAL(p), op, pArg);
}
static int f_sector(sqlite3_file *p){
  return REAL(p)->pMethods->xSectorSize(REAL(p));
}
static int f_devchar(sqlite3_file *p){
  return REAL(p)->pMethods->xDeviceCharacteristics(REAL(p));
}
static int f_shmmap(sqlite3_file *p, int i, int sz, int ext,
                    void volatile **pp){
  if( io_fails(IO_SHMMAP) ) return SQLITE_IOERR_SHMMAP;
  return REAL(p)->pMethods->xShmMap(REAL(p), i, sz, ext, pp);
}
static int f_shmlock(sqlite3_file *p, int off, int n, int flags){
  return REAL(p)->pMethods->xShmLock(REAL(p), off, n, flags);
}
static void f_shmbarrier(sqlite3_file *p){
  REAL(p)->pMethods->xShmBarrier(REAL(p));
}
static int f_shmunmap(sqlite3_file *p, int del){
  return REAL(p)->pMethods->xShmUnmap(REAL(p), del);
}
static int f_fetch(sqlite3_file *p, sqlite3_int64 off, int n, void **pp){
  *pp = NULL;        /* no memory-mapped pages: every read goes through us */
  (void)p; (void)off; (void)n;
  return SQLITE_OK;
}
static int f_unfetch(sqlite3_file *p, sqlite3_int64 off, void *pPage){
  (void)p; (void)off; (void)pPage;
  return SQLITE_OK;
}

static const sqlite3_io_methods gIo = {
  3, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock,
  f_reserved, f_fcntl, f_sector, f_devchar, f_shmmap, f_shmlock,
  f_shmbarrier, f_shmunmap, f_fetch, f_unfetch
};

static int v_open(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                  int flags, int *pOutFlags){
  FFile *f = (FFile*)pFile;
  int rc;
  (void)pVfs;
  f->base.pMethods = NULL;
  if( io_fails(IO_OPEN) ) return SQLITE_CANTOPEN;
  f->pReal = calloc(1, (size_t)gReal->szOsFile);
  if( f->pReal==NULL ) return SQLITE_NOMEM;
  rc = gReal->xOpen(gReal, zName, f->pReal, flags, pOutFlags);
  if( rc!=SQLITE_OK || f->pReal->pMethods==NULL ){
    if( f->pReal->pMethods ) f->pReal->pMethods->xClose(f->pReal);
    free(f->pReal);
    f->pReal = NULL;
    return rc!=SQLITE_OK ? rc : SQLITE_CANTOPEN;
  }
  /* SQLite keeps zName valid until the file is closed */
  f->zPath = zName;
  f->base.pMethods = &gIo;
  return SQLITE_OK;
}
static int v_delete(sqlite3_vfs *pVfs, const char *zName, int syncDir){
  (void)pVfs;
  if( io_fails(IO_DELETE) ) return SQLITE_IOERR_DELETE;
  if( gCrashTarget>0 ) undo_forget(zName);
  return gReal->xDelete(gReal, zName, syncDir);
}
static int v_access(sqlite3_vfs *pVfs, const char *zName, int flags,
                    int *pOut){
  (void)pVfs;
  if( io_fails(IO_ACCESS) ) return SQLITE_IOERR_ACCESS;
  return gReal->xAccess(gReal, zName, flags, pOut);
}
static int v_fullpath(sqlite3_vfs *pVfs, const char *zName, int n, char *zOut){
  (void)pVfs;
  return gReal->xFullPathname(gReal, zName, n, zOut);
}
static void *v_dlopen(sqlite3_vfs *pVfs, const char *z){
  (void)pVfs;
  return gReal->xDlOpen(gReal, z);
}
static void v_dlerror(sqlite3_vfs *pVfs, int n, char *z){
  (void)pVfs;
  gReal->xDlError(gReal, n, z);
}
static void (*v_dlsym(sqlite3_vfs *pVfs, void *p, const char *z))(void){
  (void)pVfs;
  return gReal->xDlSym(gReal, p, z);
}
static void v_dlclose(sqlite3_vfs *pVfs, void *p){
  (void)pVfs;
  gReal->xDlClose(gReal, p);
}
static int v_random(sqlite3_vfs *pVfs, int n, char *z){
  (void)pVfs;
  return gReal->xRandomness(gReal, n, z);
}
static int v_sleep(sqlite3_vfs *pVfs, int us){
  (void)pVfs;
  return gReal->xSleep(gReal, us);
}
static int v_time(sqlite3_vfs *pVfs, double *p){
  (void)pVfs;
  return gReal->xCurrentTime(gReal, p);
}
static int v_lasterr(sqlite3_vfs *pVfs, int n, char *z){
  (void)pVfs;
  return gReal->xGetLastError(gReal, n, z);
}
static int v_time64(sqlite3_vfs *pVfs, sqlite3_int64 *p){
  (void)pVfs;
  return gReal->xCurrentTimeInt64(gReal, p);
}

static sqlite3_vfs gVfs = {
  2, sizeof(FFile), 0, NULL, "fault", NULL, v_open, v_delete, v_access,
  v_fullpath, v_dlopen, v_dlerror, v_dlsym, v_dlclose, v_random, v_sleep,
  v_time, v_lasterr, v_time64, NULL, NULL, NULL
};

/* ----------------------------------------------------------- set-up */

__attribute__((constructor)) static void fault_setup(void){
  sqlite3_mem_methods m;
  gMallocTarget = env_long("PROFAN_FAULT_MALLOC");
  gIoTarget = env_long("PROFAN_FAULT_IO");
  gCrashTarget = env_long("PROFAN_FAULT_CRASH");
  gTear = getenv("PROFAN_FAULT_TEAR")!=NULL;
  gTearSeed = (unsigned)env_long("PROFAN_FAULT_TEAR");
  gzCounts = getenv("PROFAN_FAULT_COUNTS");
  /* before sqlite3_initialize, which the VFS calls below run */
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &gMemOrig);
  m = gMemOrig;
  m.xMalloc = fm_malloc;
  m.xRealloc = fm_realloc;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
  /* no memory statistics: they serialise every allocation on a mutex */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  db_config_init();
  gReal = sqlite3_vfs_find(NULL);
  if( gReal==NULL ) return;
  gVfs.mxPathname = gReal->mxPathname;
  gVfs.szOsFile = (int)sizeof(FFile);
  if( sqlite3_vfs_register(&gVfs, 1)!=SQLITE_OK ) return;
  if( gzCounts ) atexit(write_counts);
  __atomic_store_n(&gArmed, 1, __ATOMIC_RELAXED);
}
#endif /* PROFAN_FAULT */
