/*
** fault.h — fault injection for the test build (cmake -DPROFAN_FAULT=ON):
** the Nth allocation fails, the Nth I/O operation fails, or the power goes
** out at the Nth sync.  Driven by environment variables (see fault.c and
** README "Reliability"); tests/e2e/test_fault*.py and scripts/fault.sh run
** the loops.
**
** Pipeline position: beside util.c (allocations), input.c (input reads)
** and SQLite (its allocator and a VFS shim).  In a normal build every hook
** below is the constant 0 or nothing: no code is compiled in.
*/
#ifndef PROFAN_FAULT_H
#define PROFAN_FAULT_H

#ifdef PROFAN_FAULT
/* 1 when the allocation being made is the one to fail. */
int fault_alloc_fails(void);
/* 1 when the input-file read being made is the one to fail (counted with
** the VFS's I/O operations under PROFAN_FAULT_IO). */
int fault_input_read_fails(void);
/* zPath is about to be fsync()ed outside SQLite: a sync point for the
** crash simulation (may stop the process there). */
void fault_sync_point(const char *zPath);
#else
#define fault_alloc_fails() 0
#define fault_input_read_fails() 0
#define fault_sync_point(z) ((void)0)
#endif

#endif
