"""test_export.py — end-to-end tests of `profan export-trace` (issue 18).

Round trip: every shared trace fixture (and the 8-rank dlrm run) is
ingested, one step, one time window and all ranks are exported, the export
is checked as strict Chrome-trace JSON and ingested into a fresh database,
and that database's kernels (count, total time), CPU ops, annotations and
steps are compared with the events of the ORIGINAL JSON in the same range,
computed here with Python's json module (decimal µs text -> integer ns).
The ac2g flows of the export are compared with the launch -> GPU pairs of
the original (same correlation id, both in the range).  Bad input: exit 2
and the valid choices.
"""
import decimal
import glob
import gzip
import html as html_lib
import json
import os
import re
import subprocess

import common
from common import ProfanTest, SHARED, shared, run

STEP = re.compile(r"^ProfilerStep\s*#\s*(\d+)$")
KIND = {
    "kernel": "kernel", "cpu_op": "cpu_op", "operator": "cpu_op",
    "cuda_runtime": "runtime", "runtime": "runtime", "hip_runtime": "runtime",
    "cuda_driver": "runtime", "hip_driver": "runtime",
    "gpu_memcpy": "memcpy", "memcpy": "memcpy",
    "gpu_memset": "memset", "memset": "memset",
    "user_annotation": "user", "gpu_user_annotation": "gpu_user",
    "cuda_sync": "sync", "python_function": "python",
}
GPU = ("kernel", "memcpy", "memset")


def ns(v):
    """µs (a Decimal from the JSON text, or an int) -> int ns, as profan
    rounds: three fraction digits kept, the fourth rounds half up."""
    d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(v)
    return int((d * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8", errors="replace") as f:
        return json.load(f, parse_float=decimal.Decimal)


class Trace:
    """The events of one original trace file, in its own time base (ns)."""

    def __init__(self, path):
        doc = load(path)
        evs = doc["traceEvents"] if isinstance(doc, dict) else doc
        self.offset = 0          # what profan adds: baseTimeNanoseconds
        if isinstance(doc, dict) and "baseTimeNanoseconds" in doc:
            self.offset = int(doc["baseTimeNanoseconds"])
        self.rows = []           # (kind, name, ts, dur, event)
        for e in evs:
            if not isinstance(e, dict):
                continue
            ts = e.get("ts")
            if not isinstance(ts, (int, decimal.Decimal)) or isinstance(ts, bool):
                continue
            if e.get("ph") != "X":
                continue
            k = KIND.get(str(e.get("cat", "")).lower())
            if k is None:
                continue
            dur = e.get("dur", 0)
            dur = max(0, ns(dur)) if isinstance(dur, (int, decimal.Decimal)) else 0
            self.rows.append((k, str(e.get("name", "")), ns(ts), dur, e))

    def within(self, lo, hi, kind=None):
        """Rows overlapping [lo, hi) (a zero-length row counts 1 ns)."""
        return [r for r in self.rows if (kind is None or r[0] == kind)
                and r[2] < hi and r[2] + max(r[3], 1) > lo]

    def steps(self):
        """{N: (ts, dur)} of the CPU ProfilerStep#N annotations."""
        out = {}
        for k, name, ts, dur, _ in self.rows:
            m = STEP.match(name)
            if k == "user" and m and int(m.group(1)) not in out:
                out[int(m.group(1))] = (ts, dur)
        return out

    def first(self):
        return min(r[2] for r in self.rows)

    def last(self):
        return max(r[2] + r[3] for r in self.rows)

    def launched(self, lo, hi):
        """GPU rows in [lo, hi) whose correlation id is that of a runtime
        call also in the range: the rows an ingest of the export links."""
        def corr(e):
            c = (e.get("args") or {}).get("correlation")
            return None if c is None else int(c)
        calls = {corr(r[4]) for r in self.within(lo, hi, "runtime")}
        return sum(1 for r in self.within(lo, hi) if r[0] in GPU
                   and corr(r[4]) is not None and corr(r[4]) in calls)

    def flows(self, lo, hi):
        """Launch -> GPU pairs in [lo, hi): GPU rows whose correlation id
        is that of a runtime call also in the range."""
        def corr(e):
            a = e.get("args") or {}
            return a.get("correlation")
        launches = {}
        for r in self.within(lo, hi, "runtime"):
            c = corr(r[4])
            if c is not None:
                launches[int(c)] = launches.get(int(c), 0) + 1
        n = 0
        for r in self.within(lo, hi):
            if r[0] in GPU and corr(r[4]) is not None \
                    and launches.get(int(corr(r[4])), 0) == 1:
                n += 1
        return n


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def exposed_ns(kernels):
    """Communication kernel time (NCCL kernels) with no other kernel
    running on the same device, over the rows given."""
    total = 0
    for dev in {r[4]["pid"] for r in kernels}:
        mine = [r for r in kernels if r[4]["pid"] == dev]
        comm = union((r[2], r[2] + r[3]) for r in mine
                     if r[1].startswith(("ncclKernel_", "ncclDevKernel_")))
        comp = union((r[2], r[2] + r[3]) for r in mine
                     if not r[1].startswith(("ncclKernel_", "ncclDevKernel_")))
        for a, b in comm:
            total += b - a
            for c, d in comp:
                total -= max(0, min(b, d) - max(a, c))
    return total


def check_strict(tc, path):
    """The export is strict JSON with the fields the Chrome trace format
    requires; returns the document."""
    def no_const(name):
        raise ValueError("non-JSON constant " + name)
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_constant=no_const, parse_float=decimal.Decimal)
    tc.assertIsInstance(doc, dict)
    tc.assertIsInstance(doc["traceEvents"], list)
    tc.assertIn("deviceProperties", doc)
    tc.assertIn("distributedInfo", doc)
    flows = {}
    for e in doc["traceEvents"]:
        tc.assertIn(e["ph"], ("X", "i", "C", "M", "s", "f"), e)
        tc.assertIsInstance(e["name"], str)
        tc.assertIsInstance(e["pid"], int)
        tc.assertIsInstance(e["tid"], int)
        if e["ph"] != "M":
            tc.assertIsInstance(e["ts"], (int, decimal.Decimal), e)
            tc.assertIsInstance(e["cat"], str)
        else:
            tc.assertIsInstance(e["args"], dict)
        if e["ph"] == "X":
            tc.assertGreaterEqual(e["dur"], 0)
        if e["ph"] in ("s", "f"):
            flows.setdefault(e["id"], []).append(e["ph"])
        if e["ph"] == "f":
            tc.assertEqual(e["bp"], "e")
    for fid, phs in flows.items():
        tc.assertEqual(sorted(phs), ["f", "s"], fid)
    return doc


def tr_rank(path):
    """The rank profan gives a single trace file (distributedInfo, else 0)."""
    doc = load(path)
    info = doc.get("distributedInfo") if isinstance(doc, dict) else None
    return int(info["rank"]) if info and "rank" in info else 0


# Under a sanitizer build (common.sanitized(): the ASan lane) the round
# trip takes the ten small trace fixtures (under 100 kB, one layout each:
# Triton, CPU-only, multi-stream syncs, ROCm, the 2026 Kineto, no rank,
# ...) and three of the eight large ones, a fixed choice of the layouts
# the small ones lack: the 2021 trace (calls before ops, ops in end
# order), the MI300 trace (HIP runtime, steps written before the other
# threads' ops) and the B200 vLLM trace.  The other five are the same
# export code over more rows (most of the module's CPU under ASan); the
# gcc lane round trips all eighteen.
SANITIZED_LARGE = ("kineto-resnet50-2021.pt.trace.json.gz",
                   "tracelens-mi300-resnet-ckpt.json.gz",
                   "tracelens-b200-vllm-rank0.json.gz")


def trace_fixtures():
    """The trace fixtures to round trip: all, or under a sanitizer build
    the part above."""
    paths = sorted(glob.glob(os.path.join(SHARED, "traces", "*.json*")))
    if common.sanitized():
        paths = [p for p in paths if os.path.getsize(p) < 100 * 1000
                 or os.path.basename(p) in SANITIZED_LARGE]
    return paths


class ExportRoundTripTest(ProfanTest):

    def export(self, *args, db=None):
        out = os.path.join(self.tmp.name, "export.json")
        r = run("export-trace", *args, "-o", out, db=db or self.db)
        self.assertEqual(r.rc, 0, r.err)
        return out

    def reingest(self, path):
        db2 = os.path.join(self.tmp.name, "fresh.db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db2 + suffix):
                os.unlink(db2 + suffix)
        r = run("ingest", "--strict", path, db=db2)
        self.assertEqual(r.rc, 0, r.err)

        def q(text):
            r = run("--format", "json", "sql", text, db=db2)
            self.assertEqual(r.rc, 0, r.err)
            return json.loads(r.out)
        return q

    def compare(self, name, tr, lo, hi, doc, q):
        """Fresh database of the export == original rows in [lo, hi)."""
        off = tr.offset
        k = tr.within(lo, hi, "kernel")
        got = q("SELECT count(*) AS n, coalesce(sum(dur), 0) AS t FROM kernel")[0]
        self.assertEqual((got["n"], got["t"]),
                         (len(k), sum(r[3] for r in k)), name + " kernels")
        for kind, table, where in (("cpu_op", "cpu_op", ""),
                                   ("runtime", "runtime_call", ""),
                                   ("python", "python_function", ""),
                                   ("sync", "gpu_sync", ""),
                                   ("memcpy", "gpu_mem_op", " WHERE kind='memcpy'"),
                                   ("memset", "gpu_mem_op", " WHERE kind='memset'")):
            want = tr.within(lo, hi, kind)
            got = q("SELECT count(*) AS n, coalesce(sum(dur), 0) AS t FROM %s%s"
                    % (table, where))[0]
            self.assertEqual((got["n"], got["t"]),
                             (len(want), sum(r[3] for r in want)),
                             "%s %s" % (name, kind))
        for kind in ("user", "gpu_user"):
            want = sorted((r[1], r[2] + off, r[3])
                          for r in tr.within(lo, hi, kind))
            got = sorted((a["name"], a["ts"], a["dur"]) for a in q(
                "SELECT s.text AS name, a.ts, a.dur FROM annotation a JOIN"
                " string s ON s.id = a.name_id WHERE a.kind = '%s'" % kind))
            self.assertEqual(got, want, "%s %s annotations" % (name, kind))
        # steps: every ProfilerStep of the range, same boundaries
        want = sorted((n, ts + off, d) for n, (ts, d) in tr.steps().items()
                      if ts < hi and ts + max(d, 1) > lo)
        if want:
            got = sorted((s["step"], s["ts"], s["dur"]) for s in q(
                "SELECT step, ts, dur FROM step"))
            self.assertEqual(got, want, name + " steps")
        # flows rebuilt from correlation ids
        nflow = sum(1 for e in doc["traceEvents"] if e["ph"] == "s")
        self.assertEqual(nflow, tr.flows(lo, hi), name + " flows")
        # every GPU row whose launch was exported is linked to it, whatever
        # order the export wrote them in (issue 32 point 6)
        got = sum(q("SELECT count(runtime_id) AS n FROM %s" % t)[0]["n"]
                  for t in ("kernel", "gpu_mem_op"))
        self.assertEqual(got, tr.launched(lo, hi), name + " launched")

    LINKS = ("SELECT g.ts, g.dur, s.text AS name, r.ts AS call_ts,"
             " rs.text AS call, o.ts AS op_ts, os.text AS op, g.step"
             " FROM %s g JOIN string s ON s.id = g.name_id"
             " LEFT JOIN runtime_call r ON r.id = g.runtime_id"
             " LEFT JOIN string rs ON rs.id = r.name_id"
             " LEFT JOIN cpu_op o ON o.id = g.op_id"
             " LEFT JOIN string os ON os.id = o.name_id"
             " WHERE g.run_id = %s")

    def compare_links(self, name, q):
        """The whole run exported and ingested again: every GPU row has the
        launch, op and step it had in the original ingest."""
        for t in ("kernel", "gpu_mem_op"):
            want = self.sql(self.LINKS % (t, "(SELECT id FROM run WHERE"
                                          " name = '%s')" % name))
            got = q(self.LINKS % (t, "1"))
            key = lambda r: tuple("" if r[c] is None else str(r[c])
                                  for c in ("ts", "dur", "name", "call_ts",
                                            "call", "op_ts", "op", "step"))
            self.assertEqual(sorted(map(key, got)), sorted(map(key, want)),
                             name + " " + t + " links")

    def round_trip(self, path):
        name = os.path.basename(path)
        tr = Trace(path)
        if not tr.rows:
            return
        self.ingest_ok(path, extra=("--name", name))
        off = tr.offset
        # 1. a step: the middle step of the run
        steps = [int(s["step"]) for s in self.sql(
            "SELECT step FROM step WHERE run_id = (SELECT id FROM run WHERE"
            " name = '%s') ORDER BY step" % name)]
        if steps:
            n = steps[len(steps) // 2]
            out = self.export(name, "--step", n)
            doc = check_strict(self, out)
            w = doc["profanExport"]["windows"]
            self.assertEqual(len(w), 1)
            lo, hi = int(w[0]["start_ns"]) - off, int(w[0]["end_ns"]) - off
            if n in tr.steps():              # the step is the annotation's
                ts, d = tr.steps()[n]
                self.assertEqual((lo, hi), (ts, ts + max(d, 1)), name)
            self.compare(name + " step %d" % n, tr, lo, hi, doc,
                         self.reingest(out))
        # 2. a window: 30 % to 45 % of the run, in ns from its first event
        first, last = tr.first(), tr.last()
        a = (last - first) * 30 // 100
        b = (last - first) * 45 // 100
        if b > a and not tr.within(first + a, first + b):
            r = self.profan("export-trace", name, "--window",
                            "%dns:%dns" % (a, b), "-o", "w.json")
            self.assertEqual((r.rc, r.err.strip()), (
                2, "profan: export-trace: nothing to export: no event of"
                " rank(s) %s in the window" % tr_rank(path)))
        elif b > a:
            out = self.export(name, "--window", "%dns:%dns" % (a, b))
            doc = check_strict(self, out)
            self.compare(name + " window", tr, first + a, first + b, doc,
                         self.reingest(out))
        # 3. all ranks, whole run, gzip
        out = os.path.join(self.tmp.name, "all.json.gz")
        r = self.profan("export-trace", name, "--rank", "all", "-o", out)
        self.assertEqual(r.rc, 0, r.err)
        with open(out, "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b")
        doc = check_strict(self, out)
        q = self.reingest(out)
        self.compare(name + " all", tr, -2**62, 2**62, doc, q)
        self.compare_links(name, q)

    def test_export_round_trip_every_fixture(self):
        paths = trace_fixtures()
        if not paths:
            shared("traces")
        self.assertGreaterEqual(len(paths), 10)
        # the large layouts kept under a sanitizer are still there
        names = [os.path.basename(p) for p in paths]
        for name in SANITIZED_LARGE:
            self.assertIn(name, names)
        for path in paths:
            with self.subTest(fixture=os.path.basename(path)):
                self.round_trip(path)

    def test_export_all_ranks_dlrm(self):
        files = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json*")))
        self.assertEqual(len(files), 8)
        self.ingest_ok(shared("runs", "dlrm-8rank"), extra=("--name", "dlrm"))
        traces = {}
        for p in files:
            rank = int(re.search(r"worker(\d+)", p).group(1))
            traces[rank] = Trace(p)
        step = int(self.sql("SELECT min(step) AS s FROM step")[0]["s"])
        out = self.export("dlrm", "--rank", "all", "--step", step)
        doc = check_strict(self, out)
        wins = {int(w["rank"]): (int(w["start_ns"]), int(w["end_ns"]))
                for w in doc["profanExport"]["windows"]}
        self.assertEqual(sorted(wins), list(range(8)))
        # per rank: its kernels sit in its own process group (pid block)
        tot_n = tot_t = tot_ops = 0
        for rank, tr in traces.items():
            lo, hi = wins[rank][0] - tr.offset, wins[rank][1] - tr.offset
            if step in tr.steps():
                ts, d = tr.steps()[step]
                self.assertEqual((lo, hi), (ts, ts + d))
            k = tr.within(lo, hi, "kernel")
            mine = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"
                    and e["pid"] // 1000 == rank + 1]
            self.assertEqual(len(mine), len(k), "rank %d" % rank)
            self.assertEqual(sum(ns(e["dur"]) for e in mine),
                             sum(r[3] for r in k), "rank %d" % rank)
            tot_n += len(k)
            tot_t += sum(r[3] for r in k)
            tot_ops += len(tr.within(lo, hi, "cpu_op"))
            # the exposed-communication track: NCCL kernel time of the
            # window with no other kernel running, per device
            want_exp = exposed_ns(k)
            got_exp = sum(ns(e["dur"]) for e in doc["traceEvents"]
                          if e.get("cat") == "profan"
                          and e["name"] == "exposed communication"
                          and e["pid"] == (rank + 1) * 1000 + 999)
            self.assertEqual(got_exp, want_exp, "rank %d exposed" % rank)
            if rank == 0:
                self.assertGreater(want_exp, 0)
            # the critical-path track: a chain of segments inside the
            # step that covers it exactly (the step's ProfilerStep in the
            # JSON), one after another
            if step in tr.steps():
                ts, d = tr.steps()[step]
                cp = sorted((ns(e["ts"]), ns(e["dur"]))
                            for e in doc["traceEvents"]
                            if e.get("cat") == "profan"
                            and e["name"] and e["tid"] == 2
                            and e["pid"] == (rank + 1) * 1000 + 999)
                self.assertTrue(cp, "rank %d critical path" % rank)
                self.assertEqual(sum(x[1] for x in cp), d,
                                 "rank %d critical path" % rank)
                for (a, da), (b, _) in zip(cp, cp[1:]):
                    self.assertEqual(a + da, b, "rank %d chain" % rank)
            # the steps track: the step, its boundaries
            st = [e for e in doc["traceEvents"] if e.get("cat") == "profan"
                  and e["pid"] == (rank + 1) * 1000 + 999
                  and e["name"].startswith("step ")]
            self.assertEqual([(e["args"]["step"], ns(e["ts"]), ns(e["dur"]))
                              for e in st],
                             [(step, wins[rank][0] - int(doc["baseTimeNanoseconds"]),
                               wins[rank][1] - wins[rank][0])])
        names = {e["args"]["name"] for e in doc["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "process_name"}
        for rank in range(8):
            self.assertTrue(any(n.startswith("rank %d: GPU" % rank) for n in names))
        # the whole export is not read back as one rank (issue 32 point
        # 7: it is refused); each rank exported alone is read back with
        # its rows
        r = run("ingest", out, db=os.path.join(self.tmp.name, "fresh.db"))
        self.assertNotEqual(r.rc, 0)
        self.assertIn("a profan export of several ranks", r.err)
        got_n = got_t = got_ops = nstep = 0
        for rank in range(8):
            one = self.export("dlrm", "--rank", rank, "--step", step)
            q = self.reingest(one)
            got = q("SELECT count(*) AS n, coalesce(sum(dur), 0) AS t,"
                    " count(DISTINCT rank) AS r, min(rank) AS rk FROM kernel")[0]
            if got["n"]:
                self.assertEqual((got["r"], got["rk"]), (1, rank))
            got_n += got["n"]
            got_t += got["t"]
            got_ops += q("SELECT count(*) AS n FROM cpu_op")[0]["n"]
            nstep += q("SELECT count(*) AS n FROM annotation WHERE"
                       " kind='user' AND name_id IN (SELECT id FROM string"
                       " WHERE text = 'ProfilerStep#%d')" % step)[0]["n"]
        self.assertEqual((got_n, got_t), (tot_n, tot_t))
        self.assertEqual(got_ops, tot_ops)
        self.assertEqual(nstep, sum(1 for tr in traces.values()
                                    if step in tr.steps()))

    def test_export_collective_args(self):
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        keys = ("Collective name", "dtype", "In msg nelems", "Out msg nelems",
                "Group size", "Process Group Name", "Process Group Ranks")

        def colls(evs):
            return sorted((e["cat"], e["name"]) + tuple(
                str(e["args"].get(k)) for k in keys) for e in evs
                if e.get("ph") == "X" and "Collective name" in (e.get("args") or {}))
        want = colls(load(path)["traceEvents"])
        self.assertEqual(len(want), 2)
        self.ingest_ok(path)
        out = self.export("latest")
        self.assertEqual(colls(check_strict(self, out)["traceEvents"]), want)

    def test_export_odd_names_stay_exact(self):
        names = ['q"uote', 'back\\slash', 'ctl\x01\x1f', 'tab\there', 'caf\u00e9',
                 'emoji \U0001F600', '</script><b>', 'del\x7f']
        evs = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7,
                "ts": 1000 + 10 * i, "dur": 5,
                "args": {"correlation": i + 1, "device": 0, "stream": 7}}
               for i, n in enumerate(names)]
        evs.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3",
                    "pid": 1, "tid": 1, "ts": 990, "dur": 200})
        path = os.path.join(self.tmp.name, "odd.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": evs}, f)
        self.ingest_ok(path)
        out = self.export("latest", "--step", "3")
        doc = check_strict(self, out)
        # the ingest stores control characters as spaces (a name is one
        # line); everything else comes back byte for byte
        names = [re.sub(r"[\x00-\x1f]", " ", n) for n in names]
        got = sorted(e["name"] for e in doc["traceEvents"] if e.get("cat") == "kernel")
        self.assertEqual(got, sorted(names))
        q = self.reingest(out)
        self.assertEqual(sorted(r["text"] for r in q(
            "SELECT s.text FROM kernel k JOIN string s ON s.id = k.name_id")),
            sorted(names))

    def test_export_window_all_ranks_common_clock(self):
        """--window is one instant range on every rank: each rank's rows of
        that absolute range land in its own process group."""
        files = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json*")))
        self.ingest_ok(shared("runs", "dlrm-8rank"), extra=("--name", "dlrm"))
        traces = {int(re.search(r"worker(\d+)", p).group(1)): Trace(p)
                  for p in files}
        self.assertTrue(all(t.offset == 0 for t in traces.values()))
        first = min(t.first() for t in traces.values())
        last = max(t.last() for t in traces.values())
        a, b = (last - first) * 40 // 100, (last - first) * 60 // 100
        out = self.export("dlrm", "--window", "%dus:%dus" % (a // 1000, b // 1000))
        doc = check_strict(self, out)
        lo, hi = first + a // 1000 * 1000, first + b // 1000 * 1000
        for w in doc["profanExport"]["windows"]:
            self.assertEqual((int(w["start_ns"]), int(w["end_ns"])), (lo, hi))
        self.assertGreater(sum(len(t.within(lo, hi, "kernel"))
                               for t in traces.values()), 100)
        for rank, tr in traces.items():
            for cat, kind in (("kernel", "kernel"), ("cpu_op", "cpu_op")):
                want = tr.within(lo, hi, kind)
                mine = [e for e in doc["traceEvents"] if e.get("cat") == cat
                        and e["pid"] // 1000 == rank + 1]
                self.assertEqual((len(mine), sum(ns(e["dur"]) for e in mine)),
                                 (len(want), sum(r[3] for r in want)),
                                 "rank %d %s" % (rank, kind))

    def test_export_around_slowest_step(self):
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        tr = Trace(path)
        self.ingest_ok(path)
        out = self.export("latest", "--around", "slowest-step")
        doc = check_strict(self, out)
        n, (ts, d) = max(tr.steps().items(), key=lambda kv: (kv[1][1], -kv[0]))
        w = doc["profanExport"]["windows"][0]
        self.assertEqual((int(w["start_ns"]), int(w["end_ns"])),
                         (ts + tr.offset, ts + d + tr.offset))
        self.assertIn("slowest step %d on rank 3" % n, doc["profanExport"]["what"])
        # the derived step track names the step
        self.assertTrue(any(e.get("cat") == "profan"
                            and e["name"].startswith("step %d" % n)
                            for e in doc["traceEvents"]))


class ExportBadInputTest(ProfanTest):

    def setUp(self):
        super().setUp()
        self.ingest_fixture(shared("traces",
                                   "hta-diff-control-a100-rank3.json.gz"),
                            extra=("--name", "ctl"))
        self.out = os.path.join(self.tmp.name, "x.json")

    def bad(self, *args):
        before = self.db_bytes()
        r = self.profan("export-trace", *args, "-o", self.out)
        self.assertEqual(r.rc, 2, r.err)
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(self.db_bytes(), before)
        self.assertEqual(len(r.err.strip().splitlines()), 1, r.err)
        return r.err.strip()

    def test_export_unknown_run(self):
        # as every command says it (issue 33)
        self.assertEqual(self.bad("nope"),
                         "profan: no run 'nope' (give an id, a name, or"
                         " 'latest'; 'profan runs' lists them)")

    def test_export_unknown_rank(self):
        self.assertEqual(self.bad("ctl", "--rank", "9"),
                         "profan: export-trace: no rank '9' in run 1"
                         " (ranks: 3, or all)")

    def test_export_unknown_step(self):
        self.assertEqual(self.bad("ctl", "--rank", "3", "--step", "99"),
                         "profan: export-trace: no step 99 on rank 3 of run 1"
                         " (steps: 1009-1014)")
        self.assertEqual(self.bad("ctl", "--step", "x"),
                         "profan: export-trace: --step wants a step number,"
                         " not 'x' (steps: 1009-1014)")

    def test_export_empty_window(self):
        tr = Trace(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        span = "%.3f" % ((tr.last() - tr.first()) / 1e6)
        for w in ("5:5", "9:2", "1e9:2e9"):
            self.assertEqual(self.bad("ctl", "--window", w),
                             "profan: export-trace: empty window '%s': the"
                             " run spans 0:%s ms" % (w, span))

    def test_export_unknown_anchor(self):
        err = self.bad("ctl", "--around", "nowhere")
        self.assertTrue(err.startswith(
            "profan: export-trace: no anchor 'nowhere' in run 1 (anchors:"
            " slowest-step, slowest-step-rank-3, gap-1, gap-2,"), err)


class ExportHtmlHintTest(ProfanTest):

    def test_export_html_report_offers_commands(self):
        files = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json*")))
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        # the slowest step of any rank, from the original JSON
        best = None
        for p in files:
            rank = int(re.search(r"worker(\d+)", p).group(1))
            for n, (ts, d) in Trace(p).steps().items():
                if best is None or (d, -rank, -n) > (best[0], -best[1], -best[2]):
                    best = (d, rank, n)
        html = os.path.join(self.tmp.name, "r.html")
        r = self.profan("report", "--html", html)
        self.assertEqual(r.rc, 0, r.err)
        with open(html, encoding="utf-8") as f:
            text = f.read()
        cmds = re.findall(r'<p class="note export">[^<]*<code>([^<]*)</code>',
                          text)
        # the database is not ./profan.db: the commands name it (issue 33)
        want = ("profan --db %s export-trace 1 --rank %d --step %d -o"
                " run1-rank%d-step%d.json.gz" % (self.db, best[1], best[2],
                                                 best[1], best[2]))
        self.assertIn(want, cmds)
        self.assertTrue(any("--around gap-1" in c for c in cmds), cmds)
        # every command offered runs as printed, pasted into a shell in
        # another directory (where no ./profan.db is)
        elsewhere = os.path.join(self.tmp.name, "elsewhere")
        os.mkdir(elsewhere)
        env = dict(os.environ)
        env.pop("PROFAN_DB", None)
        env["PATH"] = os.path.dirname(common.PROFAN) + ":" + env["PATH"]
        for c in sorted(set(html_lib.unescape(x) for x in cmds)):
            p = subprocess.run(["sh", "-c", c], cwd=elsewhere, env=env,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, c + ": " + p.stderr)
            with gzip.open(os.path.join(elsewhere, c.split()[-1]), "rt") as f:
                self.assertTrue(json.load(f)["traceEvents"])
