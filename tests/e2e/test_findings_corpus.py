"""test_findings_corpus.py — issue 31's corpus test: `profan report` (text
and --format json) on every fixture in ../shared/fixtures and fixtures/,
asserting that no percentage in any finding or in the summary leaves
[0, 100] and that each finding's numbers re-derive from the input:
recomputed here from the trace JSON, the snapshot pickles
(snapshot_reference's own decoder) and the log text, where the input
says it alone; from the configuration tables profan ships
(category_rule, category_owner) and from raw rows (nccl_warning, step)
where the number needs them, never from profan's findings, views or
derived tables.

A rule missing from ORACLES fails the test: a new rule needs its oracle.
"""
import fnmatch
import functools
import glob
import os
import re
import sqlite3

import common
import snapshot_reference as sref
import straggler_scenarios as sc
from common import ProfanTest, local
from test_findings import cpu_steps
from test_report import copy_kernel_ns
from test_verdicts import COMM_NAMES
from trace_reference import (kind_of, span, merge, union_ns, intersect_ns,
                             priority_sweep, class_intervals, step_spans)

GPU = ("kernel", "memcpy", "memset")
PCT = re.compile(r"(-?\d+(?:\.\d+)?) ?%")


def corpus():
    """(label, path) of every fixture a run can be ingested from."""
    sh = common.SHARED
    out = []
    if not os.path.isdir(sh):
        common.shared("traces")            # fails under CI, skips otherwise
    for p in sorted(glob.glob(os.path.join(sh, "traces", "*"))):
        out.append(p)
    out.append(os.path.join(sh, "runs", "dlrm-8rank"))
    for p in sorted(glob.glob(os.path.join(sh, "snapshots", "*"))):
        if "not-a-snapshot" not in p:
            out.append(p)
    out += sorted(glob.glob(os.path.join(sh, "nccl", "*.log")))
    out.append(local("sample-run"))
    out += sorted(glob.glob(local("nccl", "*.log")))
    out += sorted(glob.glob(local("nccl", "shapes", "*.log")))
    out += sorted(p for p in glob.glob(local("flight_recorder", "*"))
                  if os.path.isdir(p))
    out += sorted(glob.glob(local("regimes", "*.json")))
    return out


def has_ts(e):
    return isinstance(e.get("ts"), (int, float))


COMM_RE = re.compile("|".join("(?:%s)" % fnmatch.translate(p)
                              for p in COMM_NAMES))


@functools.lru_cache(maxsize=None)
def is_comm(name):
    """comm_pattern's GLOBs (restated in test_verdicts.COMM_NAMES)."""
    return COMM_RE.match(name) is not None


class Input:
    """The fixture's trace files, read once."""

    def __init__(self, path):
        self.path = path
        self._docs = None

    @property
    def docs(self):
        """The trace documents, loaded when an oracle first asks."""
        if self._docs is None:
            files = []
            if os.path.isdir(self.path):
                files = sorted(glob.glob(os.path.join(self.path, "*.json*")))
            elif re.search(r"\.json(\.gz)?$", self.path):
                files = [self.path]
            self._docs = []
            for f in files:
                d = common.load_json(f)
                self._docs.append(d if isinstance(d, dict) else
                                  {"traceEvents": d})
        return self._docs

    def events(self):
        for d in self.docs:
            yield d["traceEvents"]

    def gpu(self):
        return [e for es in self.per_device().values() for e in es]

    def gpu_total(self):
        return sum(span(e)[1] - span(e)[0] for e in self.gpu())

    def per_device(self):
        if getattr(self, "_dev", None) is None:
            self._dev = {}
            for i, evs in enumerate(self.events()):
                for e in evs:
                    if kind_of(e) in GPU and has_ts(e):
                        self._dev.setdefault((i, e.get("pid")), []).append(e)
        return self._dev


# ------------------------------------------------------ the oracles
# each returns the finding's value as the input says it

def o_gpu_util(t, f, db):
    busy = wall = 0
    for es in t.per_device().values():
        iv = [span(e) for e in es]
        busy += union_ns(iv)
        wall += max(b for _, b in iv) - min(a for a, _ in iv)
    # the message's split of the traced time without GPU work
    cls = {}
    for evs in t.events():
        for (_, c), ns in priority_sweep(class_intervals(evs),
                                         step_spans(evs)).items():
            cls[c] = cls.get(c, 0) + ns
    tot = sum(cls.get(c, 0) for c in ("cpu", "runtime", "idle"))
    if tot:
        f["_split"] = tuple(100.0 * cls.get(c, 0) / tot
                            for c in ("cpu", "runtime", "idle"))
    return 100.0 * busy / wall


def o_memory_ops(t, f, db):
    mem = sum(span(e)[1] - span(e)[0] for e in t.gpu()
              if kind_of(e) in ("memcpy", "memset"))
    return 100.0 * mem / t.gpu_total()


def o_fill(t, f, db):
    fill = sum(span(e)[1] - span(e)[0] for e in t.gpu()
               if kind_of(e) == "kernel"
               and ("fill" in e["name"].lower() or "zero" in e["name"].lower()))
    return 100.0 * fill / t.gpu_total()


def o_tiny(t, f, db):
    ks = [e for e in t.gpu() if kind_of(e) == "kernel"]
    tiny = sum(1 for e in ks if span(e)[1] - span(e)[0] < 10000)
    return 100.0 * tiny / len(ks)


def o_copy(t, f, db):
    conv = sum(copy_kernel_ns(evs) for evs in t.events())
    return 100.0 * conv / t.gpu_total()


def top_category_of(t, db):
    """(category, % of GPU time) of the largest detailed category that
    top-category may name (not the default, not one a dedicated rule
    owns), from the trace and the shipped category_rule rows; None when
    there is none."""
    con = sqlite3.connect(db)
    rules = con.execute("SELECT pattern, category FROM category_rule WHERE"
                        " scheme = 'detailed' ORDER BY priority").fetchall()
    owned = {r[0] for r in con.execute("SELECT category FROM category_owner"
                                       " WHERE scheme = 'detailed'")}
    default = con.execute("SELECT default_category FROM category_scheme"
                          " WHERE scheme = 'detailed'").fetchone()[0]
    con.close()
    cat = {}
    for e in t.gpu():
        n = e["name"]
        if kind_of(e) == "kernel" and is_comm(n):
            c = "NCCL / communication"
        else:
            c = next((c for p, c in rules if p.lower() in n.lower()), default)
        cat[c] = cat.get(c, 0) + span(e)[1] - span(e)[0]
    tot = sum(cat.values())
    cand = [c for c in cat if c != default and c not in owned]
    if not cand or tot == 0:
        return None
    top = max(cand, key=lambda c: (cat[c], c))
    return top, 100.0 * cat[top] / tot


def o_top_category(t, f, db):
    top, value = top_category_of(t, db)
    assert f["message"].startswith(top + " takes "), (top, f["message"])
    return value


def o_exposed(t, f, db):
    exposed = span_ns = 0
    for es in t.per_device().values():
        k = [e for e in es if kind_of(e) == "kernel"]
        comm = [span(e) for e in k if is_comm(e["name"])]
        comp = [span(e) for e in k if not is_comm(e["name"])]
        exposed += union_ns(comm + comp) - union_ns(comp)
        span_ns += max(span(e)[1] for e in es) - min(span(e)[0] for e in es)
    waiting = 0
    if len(t.docs) > 1:
        ranks = {i: sc.Rank(d) for i, d in enumerate(t.docs)}
        off = sc.estimate_offsets(ranks)
        comp = {r: merge([span(e) for e in t.docs[r]["traceEvents"]
                          if kind_of(e) == "kernel" and has_ts(e)
                          and not is_comm(e["name"])]) for r in ranks}
        for k, c in enumerate(sc.collectives(ranks, off)):
            for r, (_, w) in c.items():
                s = ranks[r].comm[k][0]
                waiting += w - intersect_ns([(s, s + w)], comp[r])
    return 100.0 * (exposed - waiting) / span_ns


def o_optimizer(t, f, db):
    num = den = 0
    for evs in t.events():
        steps = merge(cpu_steps(evs))
        opt = merge([span(e) for e in evs if e.get("ph") == "X" and has_ts(e)
                     and kind_of(e) in ("user_annotation", "cpu_op")
                     and str(e.get("name", "")).startswith("Optimizer.step")])
        num += intersect_ns(opt, steps)
        den += sum(b - a for a, b in steps)
    return 100.0 * num / den


def steady(durs, p):
    """The steady steps of one rank (durations in time order), by
    schema/040's rule restated: the median M, leading steps before the
    first one within tolerance_pct of M (at most (n - 1) / 2) are warm-up,
    the last one outside it is cut; fewer than min_steps steps: all
    steady."""
    n = len(durs)
    if n < p["min_steps"]:
        return list(durs)
    o = sorted(durs)
    med = (o[(n + 1) // 2 - 1] + o[(n + 2) // 2 - 1]) / 2
    tol = p["tolerance_pct"]
    dev = [100.0 * abs(d - med) / max(med, 1) for d in durs]
    k0 = next((k + 1 for k in range(n) if dev[k] <= tol), 1)
    out = []
    for k in range(1, n + 1):
        if k < k0 and k <= (n - 1) // 2:
            continue
        if k == n and dev[k - 1] > tol:
            continue
        out.append(durs[k - 1])
    return out


def o_step_variation(t, f, db):
    # the steps are rows (a ProfilerStep's ts and dur); which are steady
    # and how much they vary is recomputed here
    con = sqlite3.connect(db)
    # a step's time is the one that bounds its work (step.bound_dur,
    # schema 040) where the run has it
    rows = con.execute("SELECT rank, coalesce(bound_dur, dur) FROM step"
                       " WHERE source <> 'gap'"
                       " ORDER BY rank, ts, step").fetchall()
    p = dict(con.execute("SELECT name, value FROM steady_param"))
    con.close()
    per = {}
    for r, d in rows:
        per.setdefault(r, []).append(d)
    cv = []
    for v in per.values():
        v = steady(v, p)
        if len(v) >= 3:
            m = sum(v) / len(v)
            cv.append(100.0 * (sum((x - m) ** 2 for x in v) / len(v)) ** 0.5
                      / m)
    return max(cv)


def o_straggler(t, f, db):
    ranks = {d["distributedInfo"]["rank"]: sc.Rank(d) for d in t.docs}
    blame, _ = sc.blame(ranks, sc.estimate_offsets(ranks))
    return blame[int(f["message"].split()[1])]["lost"]


def o_snapshot(key):
    def f_(t, f, db):
        ref = sref.reference(t.path)
        dev = f["message"].split()[1].rstrip(":")
        return ref[dev][key]
    return f_


def o_nccl(t, f, db):
    if f["severity"] == "high":
        with open(t.path, encoding="utf-8", errors="replace") as fh:
            return sum(1 for line in fh if " NCCL WARN " in line)
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM nccl_warning WHERE level = 'INFO'"
                    ).fetchone()[0]
    con.close()
    return n


def o_fr(t, f, db):
    # fixtures/flight_recorder/gen.py: one culprit rank in each scenario
    return {"missing_rank": 1, "size_mismatch": 1,
            "stuck_started": 1}[os.path.basename(t.path).replace("_json", "")]


def o_evidence(t, f, db):
    return sum(union_ns([span(e) for e in es])
               for es in t.per_device().values()) / 1e6


ORACLES = {
    "gpu-utilization": o_gpu_util, "memory-ops": o_memory_ops,
    "fill-kernels": o_fill, "tiny-kernels": o_tiny, "copy-ops": o_copy,
    "top-category": o_top_category, "exposed-comm": o_exposed,
    "optimizer": o_optimizer, "step-variation": o_step_variation,
    "straggler": o_straggler,
    "fragmentation": o_snapshot("fragmentation_pct"),
    "reserved-unused": o_snapshot("reserved_unused_pct"),
    "nccl-warnings": o_nccl, "flight-recorder": o_fr,
    "evidence": o_evidence,
}
# values that are counts or times, not shares
NOT_PCT = {"nccl-warnings", "flight-recorder", "evidence"}


class Corpus(ProfanTest):

    def test_every_fixture(self):
        seen = set()
        for i, path in enumerate(corpus()):
            label = os.path.relpath(path, common.ROOT)
            with self.subTest(fixture=label):
                db = os.path.join(self.tmp.name, "%d.db" % i)
                r = common.run("ingest", path, db=db)
                self.assertEqual(r.rc, 0, r.err)
                js = common.run("--format", "json", "report", db=db)
                self.assertEqual(js.rc, 0, js.err)
                fs = js.json()["findings"]
                # no share in the summary leaves [0, 100] either
                for x in js.json()["summary"]:
                    v = x["value"]
                    shares = [float(m) for m in PCT.findall(str(v))]
                    if x["item"].endswith("%") and v is not None:
                        shares.append(float(v))
                    for m in shares:
                        self.assertTrue(0 <= m <= 100, (label, x))
                txt = common.run("--no-truncate", "report", db=db)
                self.assertEqual(txt.rc, 0, txt.err)
                self.assertIn("findings (%d)" % len(fs), txt.out)
                t = Input(path)
                for f in fs:
                    seen.add(f["rule"])
                    self.assertIn(f["message"], txt.out)
                    for m in PCT.findall(f["message"]):
                        self.assertTrue(0 <= float(m) <= 100,
                                        (f["rule"], f["message"]))
                    if f["rule"] not in NOT_PCT:
                        self.assertTrue(0 <= f["value"] <= 100, f)
                    self.assertIn(f["rule"], ORACLES,
                                  "no oracle for rule " + f["rule"])
                    want = ORACLES[f["rule"]](t, f, db)
                    self.assertAlmostEqual(f["value"], want, delta=0.006,
                                           msg=(label, f["message"]))
                    if "_split" in f:
                        self.assertTrue(f["message"].endswith(
                            "; of the traced time without GPU work, %.1f %%"
                            " had CPU operators running, %.1f %% only"
                            " runtime calls and %.1f %% nothing recorded"
                            % f["_split"]), f["message"])
        # the corpus exercises most rules (a rule that fires nowhere has
        # its scenario in test_findings / test_verdicts)
        self.assertTrue({"gpu-utilization", "memory-ops", "tiny-kernels",
                         "exposed-comm", "optimizer", "straggler",
                         "reserved-unused", "nccl-warnings",
                         "flight-recorder", "evidence", "step-variation",
                         "top-category", "fill-kernels"} <= seen, seen)
