"""straggler_scenarios.py — scenarios with a known straggler, built from
the real 8-rank DLRM run (../shared/fixtures/runs/dlrm-8rank), and the
independent oracle of who arrives last at each collective.

A scenario delays chosen ranks' arrival at every collective by a known
time and rewrites the JSON as the run would then have been recorded:

  * collective k of rank r (its k-th communication kernel, in time order)
    starts d[r][k] later than it did, as if the rank's host had stalled
    for d[r][k] just before it (the GPU sits idle);
  * the collective then ends M_k = max over ranks of d[r][k] later on
    every rank: the ranks that were not delayed wait, so their kernel
    gets M_k - d[r][k] longer (NCCL kernels spin while they wait);
  * everything of rank r after its collective k starts moves by the sum
    S_k of M_0..M_k; everything between collectives by S_(k-1).

d[r][k] = D for the delayed rank (0 for the others), plus uniform noise
U(0, J) on every rank when J > 0.  The truth is the delayed rank.

Run as a script it prints the detection table of the README:
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


def is_comm(e):
    return (e.get("cat") == "kernel"
            and e.get("name", "").startswith(COMM_PREFIXES))


def load_run(path=DLRM):
    """{rank: (file name, trace document)} of the run directory."""
    out = {}
    for p in sorted(glob.glob(os.path.join(path, "*.json.gz"))):
        with gzip.open(p, "rt") as f:
            doc = json.load(f)
        out[doc["distributedInfo"]["rank"]] = (os.path.basename(p), doc)
    return out


def comm_starts(doc):
    """Start times (µs) of a rank's communication kernels, in order."""
    return sorted(e["ts"] for e in doc["traceEvents"] if is_comm(e))


def late_ranks(run, min_spread_us=50.0):
    """Oracle: for the k-th collective of every rank, the rank that started
    last and the others' mean wait (µs), when the start spread is above
    min_spread_us.  Returns (list of (rank, mean_wait_us), decisive count).
    Ties at the last start go to the lowest rank."""
    starts = {r: comm_starts(doc) for r, (_, doc) in run.items()}
    n = min(len(v) for v in starts.values())
    out = []
    for k in range(n):
        s = {r: v[k] for r, v in starts.items()}
        t1, t0 = max(s.values()), min(s.values())
        if t1 - t0 <= min_spread_us:
            continue
        last = min(r for r in s if s[r] == t1)
        wait = sum(t1 - t for t in s.values()) / (len(s) - 1)
        out.append((last, wait))
    return out


def ns(us):
    """µs (int or float from the JSON) to integer ns, as profan stores."""
    return int(round(us * 1000))


def before_collectives(doc):
    """Per collective k of one rank: (window, compute, idle) in ns.  The
    window runs from the end of the rank's previous communication kernel
    (the first: its first GPU activity) to this one's start; compute is
    the time of the other kernels that end inside it (at most the window);
    idle is the rest."""
    ev = doc["traceEvents"]
    gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy",
                                             "gpu_memset")
           and isinstance(e.get("ts"), (int, float))]
    comm = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)))
                  for e in gpu if is_comm(e))
    ends = sorted(ns(e["ts"]) + ns(e.get("dur", 0)) for e in gpu
                  if e.get("cat") == "kernel" and not is_comm(e))
    durs = {}
    for e in gpu:
        if e.get("cat") == "kernel" and not is_comm(e):
            t = ns(e["ts"]) + ns(e.get("dur", 0))
            durs.setdefault(t, []).append(ns(e.get("dur", 0)))
    first = min(ns(e["ts"]) for e in gpu)
    out = []
    for k, (ts, _) in enumerate(comm):
        w0 = comm[k - 1][1] if k else first
        w = max(ts - w0, 0)
        w0 = ts - w
        comp = sum(sum(durs[t]) for t in set(ends) if w0 < t <= ts)
        comp = min(comp, w)
        out.append((w, comp, w - comp))
    return out


def before_excess(run, rank, min_spread_us=50.0):
    """(idle, compute) in ns: summed over the collectives where rank was
    last, its value minus the other ranks' mean."""
    starts = {r: comm_starts(doc) for r, (_, doc) in run.items()}
    bef = {r: before_collectives(doc) for r, (_, doc) in run.items()}
    n = min(len(v) for v in starts.values())
    idle = comp = 0.0
    for k in range(n):
        s = {r: v[k] for r, v in starts.items()}
        t1, t0 = max(s.values()), min(s.values())
        if t1 - t0 <= min_spread_us or min(r for r in s if s[r] == t1) != rank:
            continue
        others = [r for r in s if r != rank]
        idle += bef[rank][k][2] - sum(bef[r][k][2] for r in others) / len(others)
        comp += bef[rank][k][1] - sum(bef[r][k][1] for r in others) / len(others)
    return idle, comp


def expected_stragglers(run, late_pct=50.0, min_spread_us=50.0):
    """Ranks last at more than late_pct % of the decisive collectives."""
    late = late_ranks(run, min_spread_us)
    if not late:
        return []
    counts = {}
    for r, _ in late:
        counts[r] = counts.get(r, 0) + 1
    return sorted(r for r, c in counts.items() if 100.0 * c / len(late) > late_pct)


def delayed(run, delays):
    """A copy of run with delays[r][k] (µs) applied as described above."""
    ranks = sorted(run)
    starts = {r: comm_starts(run[r][1]) for r in ranks}
    n = min(len(v) for v in starts.values())
    m = [max(delays[r][k] for r in ranks) for k in range(n)]
    s_after = []                    # S_k
    acc = 0.0
    for k in range(n):
        acc += m[k]
        s_after.append(acc)
    out = {}
    for r in ranks:
        name, doc = run[r]
        doc = json.loads(json.dumps(doc))
        c = starts[r][:n]
        seen = {}
        for e in doc["traceEvents"]:
            ts = e.get("ts")
            if not isinstance(ts, (int, float)):
                continue
            if is_comm(e) and ts in c:
                k = c.index(ts) + seen.get(ts, 0)
                seen[ts] = seen.get(ts, 0) + 1
                if k < n:
                    before = s_after[k - 1] if k > 0 else 0.0
                    e["ts"] = ts + before + delays[r][k]
                    e["dur"] = e.get("dur", 0) + m[k] - delays[r][k]
                    continue
            k = bisect.bisect_left(c, ts)      # collectives started before ts
            if k > 0:
                e["ts"] = ts + s_after[k - 1]
        out[r] = (name, doc)
    return out


def scenario(run, rank, delay_us, jitter_us=0.0, seed=0):
    rng = random.Random(seed)
    n = min(len(comm_starts(doc)) for _, doc in run.values())
    d = {r: [(delay_us if r == rank else 0.0)
             + (rng.uniform(0, jitter_us) if jitter_us else 0.0)
             for _ in range(n)] for r in run}
    return delayed(run, d)


def write_run(run, directory):
    os.makedirs(directory, exist_ok=True)
    for r, (name, doc) in run.items():
        with gzip.open(os.path.join(directory, name), "wt") as f:
            json.dump(doc, f)
    return directory


def profan_stragglers(profan, db, directory):
    """Ranks the straggler finding names, after ingesting directory."""
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
    names = []
    for f in json.loads(p.stdout)["findings"]:
        if f["rule"] == "straggler":
            names.append(int(f["message"].split()[1]))
    return sorted(names)


DELAYS_MS = (0.1, 0.3, 1.0, 3.0)
JITTERS_MS = (0.0, 0.2)
RANKS = (0, 2, 3, 5)


def table(profan, seeds=3):
    """Rows (delay_ms, jitter_ms, scenarios, detected, other_named)."""
    run = load_run()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        for dms in DELAYS_MS:
            for jms in JITTERS_MS:
                n = det = other = 0
                for rank in RANKS:
                    for seed in (range(seeds) if jms else (0,)):
                        sc = scenario(run, rank, dms * 1000, jms * 1000, seed)
                        d = write_run(sc, os.path.join(tmp, "run"))
                        named = profan_stragglers(profan, db, d)
                        n += 1
                        det += rank in named
                        other += any(x != rank for x in named)
                rows.append((dms, jms, n, det, other))
    return rows


if __name__ == "__main__":
    prof = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build",
                                                               "profan")
    print("| delay (ms) | noise (ms) | scenarios | delayed rank named |"
          " another rank named |")
    print("|---|---|---|---|---|")
    for dms, jms, n, det, other in table(os.path.abspath(prof)):
        print("| %g | %g | %d | %d (%.0f %%) | %d (%.0f %%) |"
              % (dms, jms, n, det, 100.0 * det / n, other, 100.0 * other / n))
