"""straggler_scenarios.py — scenarios with a known straggler and a known
clock skew, built from the real 8-rank DLRM run
(../shared/fixtures/runs/dlrm-8rank), and the independent oracle of who
made the others wait, for how long, and why.

A scenario replays the real run (its own warm-up, stalls and GPU lag
stay) with one change of known size:

  * a clock offset: every time stamp of rank r moves by O (its host clock
    is off; nothing happened later);
  * a delay of rank r by D before a known set of its collectives, of one
    of three kinds:
      host     its host stalls D just before launching collective k: the
               launch call, the kernel and everything the rank does after
               it move D later (the GPU sits idle, nothing is queued);
      queued   the collective's kernel starts D later although it was
               launched on time (the GPU waits on a dependency);
      compute  the rank's last GPU work before collective k runs D longer
               (the kernel starts as soon as that work is done, so the
               arrival moves by D minus the idle slack that was there).
    The collective then ends M_k = the largest arrival delay of its ranks
    later on every rank (the others wait: their kernels run longer), and
    everything each rank does after a collective moves by the sum of the
    M's so far.  Intervals are mapped through one non-decreasing shift
    function per rank, so nesting (a ProfilerStep around its ops, an op
    around its launch) is kept.

The oracle reads the scenario's JSON only (never profan's output): each
rank's collectives in order, their windows and launches, the arrival on
the common clock (with the true offsets the scenario applied, or with
estimate_offsets(), the documented estimator restated here), the wait of
each kernel, the waiting each rank caused and the lost share of the
others' traced GPU time.

Run as a script: the short detection table (the full matrix is
straggler_matrix.py):
    python3 tests/e2e/straggler_scenarios.py build/profan
"""
import bisect
import glob
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DLRM = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures", "runs",
                                     "dlrm-8rank"))

# communication kernel name prefixes of this run's NCCL generation (the
# oracle's own list, not profan's comm_pattern table)
COMM_PREFIXES = ("ncclKernel_", "ncclDevKernel_")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

# the thresholds the README documents (advice_threshold straggler.*)
LOST_PCT, HIGH_PCT, MIN_SPREAD_US = 10.0, 25.0, 50.0


def is_comm(e):
    return (e.get("cat") == "kernel"
            and e.get("name", "").startswith(COMM_PREFIXES))


def has_ts(e):
    return isinstance(e.get("ts"), (int, float))


def load_run(path=DLRM):
    """{rank: (file name, trace document)} of the run directory."""
    out = {}
    for p in sorted(glob.glob(os.path.join(path, "*.json.gz"))):
        with gzip.open(p, "rt") as f:
            doc = json.load(f)
        out[doc["distributedInfo"]["rank"]] = (os.path.basename(p), doc)
    return out


def ns(us):
    """µs (int or float from the JSON) to integer ns, as profan stores."""
    return int(round(us * 1000))


# ------------------------------------------------------------ the rank

class Rank:
    """What the oracle needs of one rank's trace, in ns."""

    def __init__(self, doc):
        ev = [e for e in doc["traceEvents"] if has_ts(e)]
        launch = {}
        for e in ev:
            if e.get("cat") in ("cuda_runtime", "cuda_driver") \
                    and "correlation" in e.get("args", {}):
                launch[e["args"]["correlation"]] = ns(e["ts"]) \
                    + ns(e.get("dur", 0))
        self.comm = []              # (start, end, launch end or None)
        self.work = []              # (start, end, is_kernel): not comm
        self.first = None
        devs = {}
        for e in ev:
            if e.get("cat") not in GPU_CATS:
                continue
            s = ns(e["ts"])
            t = s + ns(e.get("dur", 0))
            self.first = s if self.first is None else min(self.first, s)
            devs.setdefault(e.get("pid"), []).append((s, t))
            if is_comm(e):
                self.comm.append((s, t, launch.get(
                    e.get("args", {}).get("correlation"))))
            else:
                self.work.append((s, t, e["cat"] == "kernel"))
        self.comm.sort()
        self.span = sum(max(t for _, t in iv) - min(s for s, _ in iv)
                        for iv in devs.values())

    def windows(self):
        """Per collective: (window, gpu work, host idle, queued idle) ns,
        as collective_window defines them."""
        out = []
        for k, (c, end, launch) in enumerate(self.comm):
            w0 = self.comm[k - 1][1] if k else self.first
            w0 = min(w0, c)
            inside = [(s, t) for s, t, _ in self.work if w0 < t <= c]
            work = min(sum(t - s for s, t in inside), c - w0)
            last = max([w0] + [t for _, t in inside])
            queued = 0
            if launch is not None and c - last > 0:
                queued = max(0, c - max(launch, last))
            queued = min(queued, c - w0 - work)
            out.append((c - w0, work, c - w0 - work - queued, queued))
        return out


def ranks_of(run):
    return {r: Rank(doc) for r, (_, doc) in run.items()}


# ----------------------------------------------------------- the clocks

def _median(v):
    v = sorted(v)
    lo, hi = v[(len(v) - 1) // 2], v[len(v) // 2]
    return lo + (hi - lo) // 2


def estimate_offsets(ranks):
    """The estimator rank_clock.c documents, restated: per collective the
    median of the ranks' ends, per rank the median distance of its ends
    from those, iterated; centred on the median rank.  {rank: ns}."""
    n = min(len(x.comm) for x in ranks.values())
    off = {r: 0 for r in ranks}
    for _ in range(20):
        res = {r: [] for r in ranks}
        for k in range(n):
            ends = {r: x.comm[k][1] - off[r] for r, x in ranks.items()}
            ref = _median(list(ends.values()))
            for r, e in ends.items():
                res[r].append(e - ref)
        moved = 0
        for r in ranks:
            m = _median(res[r])
            off[r] += m
            moved = max(moved, abs(m))
        if moved == 0:
            break
    c = _median(list(off.values()))
    return {r: v - c for r, v in off.items()}


# ---------------------------------------------------- who made who wait

def collectives(ranks, offsets):
    """Per collective k: {rank: (arrival, wait)} on the common clock
    (arrival = start - offset; wait = last arrival - arrival, at most the
    kernel's duration)."""
    n = min(len(x.comm) for x in ranks.values())
    out = []
    for k in range(n):
        arr = {r: x.comm[k][0] - offsets.get(r, 0) for r, x in ranks.items()}
        last = max(arr.values())
        out.append({r: (a, min(max(last - a, 0),
                               ranks[r].comm[k][1] - ranks[r].comm[k][0]))
                    for r, a in arr.items()})
    return out


def blame(ranks, offsets, min_spread_us=MIN_SPREAD_US):
    """{rank: dict(waited ns, n_late, max_spread, compute/host/queued
    excess ns, lost %)} of the ranks that arrived last at a collective
    whose arrival spread exceeds min_spread_us; and the decisive count."""
    win = {r: x.windows() for r, x in ranks.items()}
    out, nd = {}, 0
    for k, c in enumerate(collectives(ranks, offsets)):
        arr = {r: a for r, (a, _) in c.items()}
        spread = max(arr.values()) - min(arr.values())
        if spread <= min_spread_us * 1000:
            continue
        nd += 1
        late = min(r for r in arr if arr[r] == max(arr.values()))
        others = [r for r in c if r != late]
        b = out.setdefault(late, dict(waited=0.0, n_late=0, max_spread=0,
                                      comp=0.0, host=0.0, queued=0.0))
        b["waited"] += sum(c[r][1] for r in others) / len(others)
        b["n_late"] += 1
        b["max_spread"] = max(b["max_spread"], spread)
        for i, key in ((1, "comp"), (2, "host"), (3, "queued")):
            b[key] += win[late][k][i] - sum(win[r][k][i] for r in others) \
                / len(others)
    span = sum(x.span for x in ranks.values()) / len(ranks)
    for b in out.values():
        b["lost"] = 100.0 * b["waited"] / span
        xs = {"compute": b["comp"], "host": b["host"], "queued": b["queued"]}
        best = max(xs, key=lambda k: (xs[k], k == "compute", k == "host"))
        b["cause"] = best if xs[best] > 0 else "none"
    return out, nd


def expected_stragglers(ranks, offsets, lost_pct=LOST_PCT,
                        min_spread_us=MIN_SPREAD_US):
    """Ranks whose waiting caused exceeds lost_pct of the others' traced
    GPU time, most waiting first."""
    b, _ = blame(ranks, offsets, min_spread_us)
    return [r for r in sorted(b, key=lambda r: (-b[r]["waited"], r))
            if b[r]["lost"] > lost_pct]


CAUSE_WORDS = {"compute": "computing", "host": "stalled on the host",
               "queued": "itself waiting",
               "none": "not behind in its GPU timeline"}


# ----------------------------------------------------------- the edits

def _gpu_pids(doc):
    return {e.get("pid") for e in doc["traceEvents"]
            if e.get("cat") in GPU_CATS}


def edit(run, offsets=None, delays=()):
    """A copy of run with clock offsets {rank: µs} and delays, a list of
    (rank, kind, D µs, collective indexes), applied as described above.
    Integer µs keep the times exact."""
    offsets = offsets or {}
    ranks = sorted(run)
    info = {}
    for r in ranks:
        doc = run[r][1]
        ev = [e for e in doc["traceEvents"] if has_ts(e)]
        corr = {}
        for e in ev:
            if e.get("cat") in ("cuda_runtime", "cuda_driver"):
                corr[e.get("args", {}).get("correlation")] = e["ts"]
        comm = sorted((e["ts"], e["ts"] + e.get("dur", 0),
                       corr.get(e.get("args", {}).get("correlation")))
                      for e in ev if is_comm(e))
        work = sorted((e["ts"] + e.get("dur", 0), e["ts"])
                      for e in ev if e.get("cat") in GPU_CATS
                      and not is_comm(e))
        info[r] = (comm, work)
    n = min(len(c) for c, _ in info.values())
    delta = {r: [0] * n for r in ranks}      # arrival delay per collective
    kind = {}
    stretch = {}                             # (r, k): (work start, end)
    for r, how, d, ks in delays:
        comm, work = info[r]
        for k in ks:
            c, _, launch = comm[k]
            kind[(r, k)] = (how, d)
            if how in ("host", "queued"):
                if how == "host" and (launch is None or
                                      (k and launch <= comm[k - 1][0])):
                    raise ValueError("rank %d collective %d: launch before"
                                     " the previous collective" % (r, k))
                delta[r][k] = d
            elif how == "compute":
                w0 = comm[k - 1][1] if k else -1
                before = [(t, s) for t, s in work if w0 < t <= c]
                if not before:
                    raise ValueError("rank %d collective %d: no GPU work"
                                     " before it" % (r, k))
                t, s = max(before)
                stretch[(r, k)] = (s, t)
                delta[r][k] = max(0, t + d - c)
            else:
                raise ValueError("kind " + how)
    m = [max(delta[r][k] for r in ranks) for k in range(n)]
    base = [0]
    for k in range(n):
        base.append(base[-1] + m[k])         # base[k]: before collective k
    out = {}
    for r in ranks:
        name, doc = run[r]
        comm, _ = info[r]
        starts = [c for c, _, _ in comm[:n]]
        host = {k: (comm[k][2], d) for (rr, k), (h, d) in kind.items()
                if rr == r and h == "host"}

        def f(t, r=r, starts=starts, host=host):
            k = bisect.bisect_left(starts, t)
            v = t + base[k]
            if k in host and t >= host[k][0]:
                v += host[k][1]
            return v + offsets.get(r, 0)

        doc = json.loads(json.dumps(doc))
        gpu = _gpu_pids(doc)
        special = {}                         # (pid, tid, ts): new ts
        for e in doc["traceEvents"]:
            if not has_ts(e) or e.get("ph") != "X":
                continue
            ts, end = e["ts"], e["ts"] + e.get("dur", 0)
            k = starts.index(ts) if is_comm(e) and ts in starts else None
            if k is not None:
                new = ts + base[k] + delta[r][k] + offsets.get(r, 0)
                e["ts"] = new
                e["dur"] = end + base[k] + m[k] + offsets.get(r, 0) - new
                special[(e.get("pid"), e.get("tid"), ts)] = new
                continue
            new_end = f(end)
            for (rr, kk), (s, t) in stretch.items():
                if rr == r and e.get("pid") in gpu and ts == s and end == t \
                        and e.get("cat") in GPU_CATS:
                    new_end = f(end) + kind[(rr, kk)][1]
            e["ts"] = f(ts)
            e["dur"] = new_end - e["ts"]
        for e in doc["traceEvents"]:
            if has_ts(e) and e.get("ph") != "X":
                key = (e.get("pid"), e.get("tid"), e["ts"])
                e["ts"] = special.get(key, f(e["ts"]))
        out[r] = (name, doc)
    return out


def write_run(run, directory):
    os.makedirs(directory, exist_ok=True)
    for r, (name, doc) in run.items():
        with gzip.open(os.path.join(directory, name), "wt") as f:
            json.dump(doc, f)
    return directory


def profan_stragglers(profan, db, directory):
    """The straggler findings of profan's report after ingesting
    directory: [(rank, finding)] in the order given."""
    if os.path.exists(db):
        os.remove(db)
    p = subprocess.run([profan, "--db", db, "ingest", directory],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    p = subprocess.run([profan, "--db", db, "--format", "json", "report"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return [(int(f["message"].split()[1]), f)
            for f in json.loads(p.stdout)["findings"]
            if f["rule"] == "straggler"]


# --------------------------------------------------------- the scenarios

KINDS = ("host", "queued", "compute")


def eligible(run, rank, how):
    """The collectives of rank a delay of kind how can be put before: all
    of them, but compute needs GPU work in the window."""
    x = Rank(run[rank][1])
    n = min(len(Rank(doc).comm) for _, doc in run.values())
    if how != "compute":
        return list(range(n))
    return [k for k in range(n)
            if any((x.comm[k - 1][1] if k else -1) < t <= x.comm[k][0]
                   for _, t, _ in x.work)]


def scenario(run, rng, offset_us, delay_us, how, n_coll, shifted, delayed):
    """One scenario: rank `shifted` off by offset_us, rank `delayed`
    delayed by delay_us (kind how) before n_coll of its collectives chosen
    by rng.  Returns (edited run, true offsets in ns, delays)."""
    pool = eligible(run, delayed, how)
    ks = sorted(rng.sample(pool, min(n_coll, len(pool)))) if delay_us else []
    delays = [(delayed, how, delay_us, ks)] if delay_us else []
    offsets = {shifted: offset_us} if offset_us else {}
    return edit(run, offsets, delays), {r: 1000 * v for r, v in
                                        offsets.items()}, delays


def grade(sc, named, true_offsets):
    """(oracle's ranks, profan's false alarms) of profan's named ranks
    against the oracle on the true clocks: a false alarm is a rank named
    that the oracle does not name."""
    want = expected_stragglers(ranks_of(sc), true_offsets)
    return want, [r for r in named if r not in want]


def table(profan, cells, seed=31, progress=False):
    """Rows (offset ms, delay ms, scenarios, costly, detected, false
    alarms, agreement, unaligned false alarms) over the scenario cells
    [(offset_us, delay_us, how, n_coll)], one scenario each with shifted
    and delayed ranks drawn by a seeded generator.  costly: the delay
    makes the oracle (true clocks) name the delayed rank where it would
    not name it without the delay (rank 7, the base run's straggler,
    is named anyway); detected: profan names it then; unaligned false
    alarms: the oracle without clock alignment would name the shifted
    rank wrongly (what the alignment prevents)."""
    run = load_run()
    rows = {}
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        for off, d, how, nc in cells:
            shifted, delayed = rng.randrange(8), rng.randrange(8)
            sc, true_off, _ = scenario(run, rng, off, d, how, nc, shifted,
                                       delayed)
            named = [r for r, _ in profan_stragglers(
                profan, db, write_run(sc, os.path.join(tmp, "run")))]
            want, false = grade(sc, named, true_off)
            base = expected_stragglers(ranks_of(edit(
                run, {shifted: off} if off else {})), true_off)
            raw = expected_stragglers(ranks_of(sc), {})
            costly = delayed in want and delayed not in base and d > 0
            if progress:
                sys.stderr.write("%d/%d O=%gms D=%gms %s x%d shifted %d"
                                 " delayed %d: named %s, oracle %s\n"
                                 % (sum(v[0] for v in rows.values()) + 1,
                                    len(cells), off / 1000.0, d / 1000.0,
                                    how, nc, shifted, delayed, named, want))
            row = rows.setdefault((off, d), [0, 0, 0, 0, 0, 0])
            row[0] += 1
            row[1] += costly
            row[2] += costly and delayed in named
            row[3] += bool(false)
            row[4] += named == want
            row[5] += off > 0 and shifted in raw and shifted not in want
    return [(off / 1000.0, d / 1000.0) + tuple(v)
            for (off, d), v in sorted(rows.items())]


def short_cells(seed=31):
    """The seeded short version (CI, the README's quick table)."""
    rng = random.Random(seed)
    cells = []
    for off in (0, 1000, 5000):
        for d in (0, 300, 1000, 5000):
            cells.append((off, d, rng.choice(KINDS), rng.choice((1, 4, 8))))
    return cells


def print_table(rows):
    print("| clock offset (ms) | delay (ms) | scenarios | costly |"
          " detected | false alarms | agrees with the oracle |"
          " unaligned: shifted rank named |")
    print("|---|---|---|---|---|---|---|---|")
    for off, d, n, want, det, false, agree, raw in rows:
        print("| %g | %g | %d | %d | %d | %d | %d | %d |"
              % (off, d, n, want, det, false, agree, raw))


if __name__ == "__main__":
    prof = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build",
                                                               "profan")
    print_table(table(os.path.abspath(prof), short_cells()))
