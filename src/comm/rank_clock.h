/*
** rank_clock.h — each rank's clock offset, estimated from the end times
** of the collectives every rank ran.
**
** The ranks of a run write their traces with their own host clocks.  A
** collective ends at the same moment on every rank of its group (no rank
** leaves before the last one has sent its data: the ends of a real run
** agree within microseconds), whatever the order the ranks arrived in.
** So a rank whose collectives all end 1 ms "after" the others' has a
** clock 1 ms ahead, and its arrival times must be moved back by 1 ms
** before anyone can say who waited for whom.
**
** The estimate is robust: per group the reference end is the median over
** its ranks (one shifted rank of eight does not move it), per rank the
** offset is the median of its ends' distances from those references, and
** the two are iterated until they settle (several shifted ranks, groups
** of two).  The offsets are centred on the median rank (0 for a run whose
** clocks agree); only their differences matter.
**
** Pipeline position: "derive", used by derive_comm.c; no database access.
*/
#ifndef PROFAN_RANK_CLOCK_H
#define PROFAN_RANK_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* One collective's end on one rank: group = the collective (process
** group and sequence number), rank = an index into the caller's ranks. */
typedef struct ClockObs {
  int64_t group;
  int64_t end;          /* ns, the rank's own clock */
  int32_t rank;         /* 0 .. nRank-1 */
} ClockObs;

/* The estimate for one rank. */
typedef struct ClockEst {
  int64_t offset;       /* ns to subtract from the rank's times */
  int64_t nUsed;        /* collectives (shared with another rank) used */
  int64_t spread;       /* median |end - reference| after alignment, ns */
} ClockEst;

/*
** Estimate the offsets of nRank ranks from the n observations of a
** (sorted here by group; groups with one observation are ignored).
** Fills aEst[0..nRank-1]; a rank without a shared collective gets offset
** 0 and nUsed 0.  Returns the number of ranks with nUsed > 0.
*/
int rank_clock_estimate(ClockObs *a, size_t n, int nRank, ClockEst *aEst);

#endif
