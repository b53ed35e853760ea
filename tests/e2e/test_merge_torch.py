"""test_merge_torch.py — python/profan_torch.py, the on_trace_ready helper
(issue 19), driven by a fake profiler that calls it the way
torch.profiler.profile does: once per completed wait/warmup/active cycle,
with the profiler object as its one argument, the handler then calling
prof.export_chrome_trace(path).  No torch needed.

Two "nodes" of four ranks each (the dlrm-8rank traces) write through the
handler into their node's shard; merging the two shards gives the same
rows for the core queries as one ingest of the 8 original files.
"""
import gzip
import importlib.util
import io
import json
import os
import re
import socket
import subprocess
import contextlib

from common import ProfanTest, PROFAN, ROOT, shared, load_json

spec = importlib.util.spec_from_file_location(
    "profan_torch", os.path.join(ROOT, "python", "profan_torch.py"))
profan_torch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profan_torch)


class FakeProfile:
    """What torch.profiler.profile does with on_trace_ready, for a
    schedule(wait, warmup, active): after every wait+warmup+active calls
    of step() it calls on_trace_ready(self); export_chrome_trace(path)
    writes the trace (gzip when path ends in .gz, as torch does)."""

    def __init__(self, on_trace_ready, doc, wait=1, warmup=1, active=2):
        self.on_trace_ready = on_trace_ready
        self.doc = doc
        self.cycle = wait + warmup + active
        self.n = 0
        self.results = []

    def export_chrome_trace(self, path):
        """doc: the trace, or a list of them, one per cycle."""
        doc = self.doc
        if isinstance(doc, list):
            doc = doc[(self.n // self.cycle - 1) % len(doc)]
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "wt") as f:
            json.dump(doc, f)

    def step(self):
        self.n += 1
        if self.n % self.cycle == 0 and self.on_trace_ready:
            self.results.append(self.on_trace_ready(self))


class TorchHelper(ProfanTest):

    def setUp(self):
        super().setUp()
        d = shared("runs", "dlrm-8rank")
        self.files = sorted(os.path.join(d, f) for f in os.listdir(d))
        self.docs = [load_json(f) for f in self.files]

    def run_node(self, node, ranks, **kw):
        trace_dir = os.path.join(self.tmp.name, node)
        db = os.path.join(self.tmp.name, node + ".db")
        for r in ranks:
            h = profan_torch.profan_trace_handler(
                trace_dir, db=db, run_name="job7", profan=PROFAN, **kw)
            prof = FakeProfile(h, self.docs[r])
            for _ in range(4):
                prof.step()
            self.assertEqual(len(prof.results), 1)
        return trace_dir, db

    def test_merge_torch_handler_two_nodes_equal_one_ingest(self):
        da, a = self.run_node("nodeA", range(4))
        db_, b = self.run_node("nodeB", range(4, 8), use_gzip=True)
        # file names as tensorboard_trace_handler writes them
        pat = re.compile(r"^%s_%d\.\d{19}\.pt\.trace\.json(\.gz)?$"
                         % (re.escape(socket.gethostname()), os.getpid()))
        names = sorted(os.listdir(da)) + sorted(os.listdir(db_))
        self.assertEqual(len(names), 8, names)
        for n in names:
            self.assertRegex(n, pat)
        self.assertEqual(sum(n.endswith(".gz") for n in names), 4)
        # each node's shard is one run of its four ranks
        for shard, ranks in ((a, "0,1,2,3"), (b, "4,5,6,7")):
            p = subprocess.run([PROFAN, "--db", shard, "--format", "csv",
                                "sql", "SELECT group_concat(rank) AS r,"
                                " count(DISTINCT run_id) AS n FROM (SELECT"
                                " rank, run_id FROM run_file ORDER BY"
                                " rank)"], capture_output=True, text=True)
            self.assertEqual(p.stdout.splitlines()[1], '"%s",1' % ranks)
        job = os.path.join(self.tmp.name, "job.db")
        p = subprocess.run([PROFAN, "merge", "--into", job, a, b],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("merged 2 shards into run 1 (job7): 8 files", p.stderr)
        self.ingest_ok(*self.files, extra=["--name", "job7", "--quiet"])
        for q in ("top-kernels", "rank-skew", "collective-skew", "steps",
                  "category-breakdown", "comm-overlap", "critical-path"):
            want = self.query(q, run_ref="job7")
            p = subprocess.run([PROFAN, "--db", job, "--format", "csv",
                                "query", q, "--run", "job7"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertGreater(len(want), 0, q)
            self.assertEqual(self.query(q, run_ref="job7"), want)
            import csv
            self.assertEqual(list(csv.DictReader(io.StringIO(p.stdout))),
                             want, q)

    def test_merge_torch_handler_failure_keeps_training_going(self):
        trace_dir = os.path.join(self.tmp.name, "t")
        h = profan_torch.profan_trace_handler(
            trace_dir, db=os.path.join(self.tmp.name, "x.db"),
            run_name="r", profan="/nonexistent/profan", worker_name="w0")
        prof = FakeProfile(h, self.docs[0])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            for _ in range(8):
                prof.step()
        self.assertEqual(len(prof.results), 2)
        for path in prof.results:
            self.assertTrue(os.path.exists(path))     # trace kept
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 2, lines)
        self.assertRegex(lines[0], r"^profan_torch: .*/t/w0\.\d{19}\.pt\."
                         r"trace\.json not ingested into .*x\.db \(exit "
                         r"127\): ")
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "x.db")))

    def later_cycle(self, doc, dt_us, dstep):
        """The profiler's next cycle of a real trace: every event dt_us
        later and every ProfilerStep#N numbered N+dstep (the variation of
        the real steps kept)."""
        later = json.loads(json.dumps(doc))
        for e in later["traceEvents"]:
            if "ts" in e:
                e["ts"] += dt_us
            m = re.match(r"^ProfilerStep#(\d+)$", e.get("name", ""))
            if m:
                e["name"] = "ProfilerStep#%d" % (int(m.group(1)) + dstep)
        return later

    def test_merge_torch_handler_later_cycles_add_to_the_run(self):
        """Each cycle of the profiler is merged into the node's run: the
        run holds both windows of the rank, and every named query equals
        one ingest of the two trace files."""
        trace_dir = os.path.join(self.tmp.name, "t")
        shard = os.path.join(self.tmp.name, "n.db")
        h = profan_torch.profan_trace_handler(
            trace_dir, db=shard, run_name="r", profan=PROFAN)
        later = self.later_cycle(self.docs[3], 30 * 10**6, 100)
        prof = FakeProfile(h, [self.docs[3], later])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            for _ in range(8):
                prof.step()
        self.assertEqual(err.getvalue(), "")
        p = subprocess.run([PROFAN, "--db", shard, "--format", "csv", "sql",
                            "SELECT r.name, f.rank FROM run r JOIN run_file f"
                            " ON f.run_id = r.id ORDER BY f.id"],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.splitlines()[1:], ["r,3", "r,3"])
        self.ingest_ok(*prof.results, extra=["--name", "r", "--quiet"])
        for q in ("steps", "top-kernels", "operators", "rank-skew",
                  "collective-skew", "category-breakdown", "comm-overlap",
                  "gpu-utilization", "launch-overhead", "idle-gaps",
                  "step-breakdown"):
            want = self.query(q, run_ref="r")
            p = subprocess.run([PROFAN, "--db", shard, "--format", "csv",
                                "query", q, "--run", "r"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            if q not in ("rank-skew", "collective-skew", "idle-gaps"):
                self.assertGreater(len(want), 0, q)   # one rank: no skew
            import csv
            self.assertEqual(list(csv.DictReader(io.StringIO(p.stdout))),
                             want, q)
        first = {int(e["name"].split("#")[1])
                 for e in self.docs[3]["traceEvents"]
                 if re.match(r"^ProfilerStep#\d+$", e.get("name", ""))}
        steps = self.query("steps", run_ref="r")
        self.assertEqual(sorted(int(r["step"]) for r in steps),
                         sorted(first | {n + 100 for n in first}))

    def test_merge_torch_handler_same_steps_again_refused(self):
        """A trace of the same rank with the same step numbers is not
        another window: the merge refuses it, the handler says so in one
        line and training goes on; the run keeps the first cycle."""
        trace_dir = os.path.join(self.tmp.name, "t")
        shard = os.path.join(self.tmp.name, "n.db")
        h = profan_torch.profan_trace_handler(
            trace_dir, db=shard, run_name="r", profan=PROFAN)
        later = self.later_cycle(self.docs[3], 30 * 10**6, 0)
        prof = FakeProfile(h, [self.docs[3], later])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            for _ in range(8):
                prof.step()
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^profan_torch: .* not ingested into "
                         r".*n\.db \(exit 2\): profan: .*: rank 3 is also in"
                         r" run r: colliding ranks")
        p = subprocess.run([PROFAN, "--db", shard, "--format", "csv", "sql",
                            "SELECT count(*) FROM run_file"],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.splitlines()[1:], ["1"])
