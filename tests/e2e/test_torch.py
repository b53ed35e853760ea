"""test_torch.py — the PyTorch installed on this machine in the loop
(issue 37): traces written by torch.profiler while the test runs, through
python/profan_torch.py and `profan ingest`, checked against numbers
computed here from the same trace files.

- one process trains a small model on the CPU for two profiler cycles
  with profan_trace_handler (record_shapes, profile_memory, with_stack):
  one run named $PROFAN_RUN holding both cycles, its steps with their
  ProfilerStep numbers and times, the top operators with their calls,
  total and self time, the memory events, the clock the trace counts
  from;
- two processes (torch.multiprocessing, gloo, 127.0.0.1 only), rank 1
  sleeping a known time before known all-reduces: one run of two ranks,
  the gloo collectives stored as communication, the straggler finding
  naming rank 1 with the waiting it caused;
- the handler with a directory it cannot write and with no profan binary:
  one line each, training goes on;
- docs/guide.md's "Your own PyTorch run in five minutes", its lines run
  as written.

Any PyTorch works: a build without Kineto (Debian's python3-torch) writes
the legacy bare-array trace, one with Kineto the object form; the oracle
reads both.  The interpreter is $PROFAN_TORCH_PYTHON, else this one, else
/usr/bin/python3 (the one Debian's package installs into), else python3
on PATH: the first that imports torch.  Without one the tests skip, and
fail under CI=true (scripts/setup.sh installs python3-torch).  The
version is printed once per run.
"""
import csv
import io
import json
import os
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import unittest

import trace_reference as ref
from common import ProfanTest, PROFAN, ROOT

PROBE = ("import json, torch\n"
         "k = getattr(torch.autograd, 'kineto_available', None)\n"
         "print(json.dumps([torch.__version__, bool(k and k())]))\n")

_found = {}


def torch_python():
    """(interpreter, torch version, kineto) of the first interpreter that
    imports torch; SkipTest without one, AssertionError under CI=true."""
    if "py" in _found:
        return _found["py"]
    cands = [os.environ.get("PROFAN_TORCH_PYTHON"), sys.executable,
             "/usr/bin/python3", shutil.which("python3")]
    for c in cands:
        if not c or not os.path.exists(c):
            continue
        try:
            p = subprocess.run([c, "-c", PROBE], capture_output=True,
                               text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if p.returncode == 0:
            version, kineto = json.loads(p.stdout.strip().splitlines()[-1])
            _found["py"] = (c, version, kineto)
            sys.stderr.write("test_torch: PyTorch %s (%s), %s\n"
                             % (version, c, "Kineto" if kineto else
                                "no Kineto: legacy JSON-array traces"))
            return _found["py"]
    msg = ("torch is not importable by %s: install python3-torch"
           " (scripts/setup.sh)" % ", ".join(c for c in cands if c))
    if os.environ.get("CI") == "true":
        raise AssertionError(msg)
    raise unittest.SkipTest(msg)


def trace_events(path):
    """(events, legacy) of a trace file as Python's json reads it."""
    doc = ref_load(path)
    if isinstance(doc, list):
        return doc, True
    return doc["traceEvents"], False


def ref_load(path):
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return json.load(f)


def abs_ns(e, doc_base_ns):
    """An event's start in epoch ns: its ts (µs) plus the base its file
    counts from (0 when the times are absolute)."""
    return doc_base_ns + ref.us_to_ns(e["ts"])


def file_base_ns(path, start_us):
    """What the times of a trace count from: baseTimeNanoseconds when the
    file has it, the profiler's start for a legacy array (what the handler
    passes as --base-time), else 0 (absolute epoch µs)."""
    doc = ref_load(path)
    if isinstance(doc, list):
        return start_us * 1000 if start_us else 0
    return int(doc.get("baseTimeNanoseconds", 0))


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


# The training script of the one-process test: two cycles of the
# profiler, each trace handed to profan_trace_handler; the side file
# records each trace's path and the profiler's start (the oracle's clock).
SINGLE = r'''
import json, os, sys
import torch
sys.path.insert(0, os.environ["PROFAN_PYDIR"])
from profan_torch import profan_trace_handler

out, side = sys.argv[1], sys.argv[2]
handler = profan_trace_handler(out, profan=os.environ["PROFAN_BIN"])

def ready(prof):
    path = handler(prof)
    r = getattr(prof.profiler, "kineto_results", None)
    with open(side, "a") as f:
        f.write(json.dumps({"path": path,
                            "start_us": r.trace_start_us() if r else None})
                + "\n")

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
n = 0
with torch.profiler.profile(
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=3,
                                         repeat=2),
        on_trace_ready=ready, record_shapes=True, profile_memory=True,
        with_stack=True) as prof:
    for step in range(10):
        x, y = torch.randn(32, 128), torch.randint(0, 10, (32,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        prof.step()
        n += 1
print("trained", n)
'''

# Two ranks on 127.0.0.1 (gloo), rank 1 sleeping SLEEP_S before each
# all-reduce of the iterations in SLEPT; each rank's trace goes through
# the handler into the node's shard, as one run of two ranks.
DIST = r'''
import json, os, sys, time
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
sys.path.insert(0, os.environ["PROFAN_PYDIR"])
from profan_torch import profan_trace_handler

SLEEP_S = float(os.environ["T37_SLEEP_S"])
SLEPT = set(json.loads(os.environ["T37_SLEPT"]))

def worker(rank, world, port, out, side):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = torch.nn.Linear(64, 64)
    handler = profan_trace_handler(out, profan=os.environ["PROFAN_BIN"])

    def ready(prof):
        path = handler(prof)
        r = getattr(prof.profiler, "kineto_results", None)
        with open("%s.%d" % (side, rank), "w") as f:
            json.dump({"path": path, "rank": rank,
                       "start_us": r.trace_start_us() if r else None}, f)

    with torch.profiler.profile(
            schedule=torch.profiler.schedule(wait=1, warmup=1, active=4),
            on_trace_ready=ready) as prof:
        for it in range(6):
            model(torch.randn(32, 64)).sum().backward()
            for p in model.parameters():
                if rank == 1 and it in SLEPT:
                    time.sleep(SLEEP_S)
                dist.all_reduce(p.grad)
            prof.step()
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(worker, args=(2, int(sys.argv[1]), sys.argv[2], sys.argv[3]),
             nprocs=2, join=True)
    print("trained 2 ranks")
'''

# The handler where it cannot work: a directory it cannot write, then no
# profan binary; each profiler fires once and training goes on.
FAILING = r'''
import os, sys
import torch
sys.path.insert(0, os.environ["PROFAN_PYDIR"])
from profan_torch import profan_trace_handler

model = torch.nn.Linear(16, 4)
n = 0
for h in (profan_trace_handler(sys.argv[1], profan=os.environ["PROFAN_BIN"]),
          profan_trace_handler(sys.argv[2], profan="/nonexistent/profan")):
    with torch.profiler.profile(
            schedule=torch.profiler.schedule(wait=0, warmup=1, active=2),
            on_trace_ready=h) as prof:
        for step in range(3):
            model(torch.randn(8, 16)).sum().backward()
            prof.step()
            n += 1
print("trained", n)
'''


class TorchCase(ProfanTest):
    """Helpers: the torch interpreter, a training script run with it."""

    def setUp(self):
        super().setUp()
        self.py, self.version, self.kineto = torch_python()

    def train(self, script, *args, env=None, timeout=300, user=None):
        path = os.path.join(self.tmp.name, "train_%d.py" % abs(hash(script)))
        with open(path, "w") as f:
            f.write(script)
        e = dict(os.environ)
        e.update({"PROFAN_PYDIR": os.path.join(ROOT, "python"),
                  "PROFAN_BIN": PROFAN, "GLOO_SOCKET_IFNAME": "lo",
                  "MASTER_ADDR": "127.0.0.1", "OMP_NUM_THREADS": "1"})
        e.update(env or {})
        cmd = [self.py, path] + [str(a) for a in args]
        if user is not None:
            cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
                   "--clear-groups"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, env=e,
                           timeout=timeout, cwd=self.tmp.name,
                           stdin=subprocess.DEVNULL)
        return p

    def on(self, db, *args):
        p = subprocess.run([PROFAN, "--db", db, "--format", "csv"]
                           + [str(a) for a in args],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, "%s: %s" % (args, p.stderr))
        return csv_rows(p.stdout)


def profiler_lines(stderr):
    """The handler's lines in a script's stderr (torch's own warnings
    left out)."""
    return [l for l in stderr.splitlines() if l.startswith("profan_torch:")]


class OneProcess(TorchCase):

    def test_torch_one_process_two_cycles(self):
        out = os.path.join(self.tmp.name, "traces")
        side = os.path.join(self.tmp.name, "side.jsonl")
        p = self.train(SINGLE, out, side, env={"PROFAN_RUN": "t37-run"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), ["trained", "10"])
        self.assertEqual(profiler_lines(p.stderr), [])
        cycles = [json.loads(l) for l in open(side)]
        self.assertEqual(len(cycles), 2)
        shard = os.path.join(out, socket.gethostname() + ".profan.db")

        # the run is $PROFAN_RUN and holds both cycles' traces
        files = self.on(shard, "sql", "SELECT r.name, f.path, f.rank,"
                        " f.base_time_ns, f.time_regime FROM run r JOIN"
                        " run_file f ON f.run_id = r.id ORDER BY f.id")
        self.assertEqual([(f["name"], f["rank"]) for f in files],
                         [("t37-run", "0"), ("t37-run", "0")])
        self.assertEqual(sorted(os.path.basename(f["path"]) for f in files),
                         sorted(os.path.basename(c["path"]) for c in cycles))

        evs, bases, legacy = [], [], None
        for c in cycles:
            e, legacy = trace_events(c["path"])
            base = file_base_ns(c["path"], c["start_us"])
            bases.append(base)
            evs.append(e)
        if legacy:
            # the handler passed the profiler's start: the times are epoch
            self.assertEqual([int(f["base_time_ns"]) for f in files],
                             [c["start_us"] * 1000 for c in cycles])
            self.assertEqual({f["time_regime"] for f in files},
                             {"relative_us"})

        # steps: the ProfilerStep numbers of both traces, their times
        want = {}
        for e_list, base in zip(evs, bases):
            for e in e_list:
                m = ref.STEP.match(str(e.get("name", "")))
                if m and e.get("ph") == "X":
                    want[int(m.group(1))] = (abs_ns(e, base),
                                             ref.us_to_ns(e["dur"]))
        self.assertEqual(len(want), 6, want)          # 3 active x 2 cycles
        got = self.on(shard, "sql", "SELECT step, ts, dur FROM step"
                      " ORDER BY step")
        self.assertEqual({int(r["step"]): (int(r["ts"]), int(r["dur"]))
                          for r in got}, want)

        # top operators: calls, total and self time over both cycles
        ops = []
        for e_list in evs:
            ops += [e for e in e_list if ref.kind_of(e, legacy) == "cpu_op"
                    and isinstance(e.get("ts"), (int, float))]
        key = [((k, str(e.get("tid"))), ref.us_to_ns(e["ts"]),
                ref.us_to_ns(e.get("dur", 0)))
               for k, e_list in enumerate(evs) for e in e_list
               if ref.kind_of(e, legacy) == "cpu_op"
               and isinstance(e.get("ts"), (int, float))]
        selfs = ref.self_ns(key)
        agg = {}
        for e, s in zip(ops, selfs):
            a = agg.setdefault(e["name"], [0, 0, 0])
            a[0] += 1
            a[1] += ref.us_to_ns(e.get("dur", 0))
            a[2] += s
        top = sorted(agg.items(), key=lambda kv: (-kv[1][2], kv[0]))[:10]
        got = self.on(shard, "query", "operators", "--run", "t37-run",
                      "--limit", "10")
        self.assertEqual([(r["name"], int(r["calls"])) for r in got],
                         [(n, a[0]) for n, a in top])
        for r, (n, a) in zip(got, top):       # ms printed to 3 decimals
            self.assertAlmostEqual(float(r["total_ms"]), a[1] / 1e6,
                                   delta=0.00051, msg=n)
            self.assertAlmostEqual(float(r["self_ms"]), a[2] / 1e6,
                                   delta=0.00051, msg=n)
        self.assertIn("aten::addmm", agg)             # the model's matmuls

        # memory events: as many as the traces hold (the legacy exporter
        # writes none, whatever profile_memory says)
        n_mem = sum(1 for e_list in evs for e in e_list
                    if ref.kind_of(e, legacy) == "memory")
        got = self.on(shard, "sql", "SELECT count(*) AS n, coalesce(sum("
                      "bytes), 0) AS b FROM memory_event")
        want_b = sum(int(e.get("args", {}).get("Bytes", 0))
                     for e_list in evs for e in e_list
                     if ref.kind_of(e, legacy) == "memory")
        self.assertEqual((int(got[0]["n"]), int(got[0]["b"])), (n_mem, want_b))
        if legacy:
            self.assertEqual(n_mem, 0)
            sys.stderr.write("test_torch: the legacy exporter wrote no"
                             " memory events (profile_memory=True)\n")
        # no GPU rows from a CPU run
        got = self.on(shard, "sql", "SELECT (SELECT count(*) FROM kernel)"
                      " + (SELECT count(*) FROM gpu_mem_op) AS n")
        self.assertEqual(got[0]["n"], "0")


class TwoProcesses(TorchCase):

    job = None
    SLEEP_S = 0.03
    SLEPT = [2, 3, 5]            # iterations of the active steps (2..5)

    def free_port(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        return port

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "job_tmp", None):
            cls.job_tmp.cleanup()
        super().tearDownClass()

    def run_job(self):
        """The two-process job, run once for the tests of the class (its
        traces and shard live in the class's own directory)."""
        cls = type(self)
        if getattr(cls, "job", None) is None:
            import tempfile
            cls.job_tmp = tempfile.TemporaryDirectory()
            out = os.path.join(cls.job_tmp.name, "traces")
            side = os.path.join(cls.job_tmp.name, "side")
            p = self.train(DIST, self.free_port(), out, side,
                           env={"PROFAN_RUN": "t37-dist",
                                "T37_SLEEP_S": str(self.SLEEP_S),
                                "T37_SLEPT": json.dumps(self.SLEPT)},
                           timeout=180)
            cls.job = (p, out, side)
        p, out, side = cls.job
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("trained 2 ranks", p.stdout)
        self.assertEqual(profiler_lines(p.stderr), [])
        ranks = [json.load(open("%s.%d" % (side, r))) for r in (0, 1)]
        return os.path.join(out, socket.gethostname() + ".profan.db"), ranks

    def collectives(self, ranks, shift_ns=(0, 0)):
        """Per rank, the gloo collective ranges of its trace: (start epoch
        ns, dur ns), in start order."""
        out = []
        for r, s in zip(ranks, shift_ns):
            evs, legacy = trace_events(r["path"])
            base = file_base_ns(r["path"], r["start_us"]) + s
            c = sorted((abs_ns(e, base), ref.us_to_ns(e["dur"]))
                       for e in evs if str(e.get("name", "")).startswith(
                           "gloo:") and e.get("ph") == "X")
            out.append(c)
        return out

    def straggler_oracle(self, colls):
        """The straggler as the issue defines it, from the traces: at each
        collective (k-th of every rank) the rank that started last, when
        the starts spread over 50 µs; its waiting caused = the others'
        mean wait for it.  Returns (rank, late count, decisive count,
        waited ns)."""
        late, waited, decisive = {}, {}, 0
        for k in range(min(len(c) for c in colls)):
            starts = [c[k][0] for c in colls]
            t0, t1 = min(starts), max(starts)
            if t1 - t0 <= 50000:
                continue
            decisive += 1
            r = max(range(len(starts)), key=lambda i: (starts[i], -i))
            late[r] = late.get(r, 0) + 1
            waited[r] = waited.get(r, 0) + sum(t1 - s for s in starts) \
                / (len(starts) - 1)
        r = max(late, key=lambda i: late[i])
        return r, late[r], decisive, waited[r]

    def check_straggler(self, db, run, colls):
        r, n_late, n_dec, waited = self.straggler_oracle(colls)
        self.assertEqual(r, 1)                        # the rank that slept
        slept = 2 * len(self.SLEPT)                   # 2 all-reduces a step
        self.assertGreaterEqual(n_late, slept)
        # it caused at least the sleeps, less the jitter
        self.assertGreater(waited, 0.8 * slept * self.SLEEP_S * 1e9)
        p = subprocess.run([PROFAN, "--db", db, "--format", "json", "report",
                            run], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        found = [f for f in json.loads(p.stdout)["findings"]
                 if f["rule"] == "straggler"]
        self.assertEqual(len(found), 1, found)
        m = re.match(r"^rank (\d+) made the other ranks wait ([\d.]+) ms"
                     r" \([\d.]+ % of their traced host time\)",
                     found[0]["message"])
        self.assertIsNotNone(m, found[0]["message"])
        self.assertEqual(int(m.group(1)), 1, found[0]["message"])
        # profan measures the waits on the common clock (rank_clock: each
        # rank's offset from the collectives' ends) and caps each at the
        # waiting collective's own range; the oracle above reads the raw
        # starts: within 5 % (test_verdicts checks the exact figures)
        self.assertAlmostEqual(float(m.group(2)), waited / 1e6,
                               delta=0.05 * waited / 1e6)

    def test_torch_two_ranks_gloo_straggler(self):
        shard, ranks = self.run_job()
        files = self.on(shard, "sql", "SELECT r.name, f.rank, f.rank_source,"
                        " f.time_regime FROM run r JOIN run_file f"
                        " ON f.run_id = r.id ORDER BY f.rank")
        self.assertEqual([(f["name"], f["rank"]) for f in files],
                         [("t37-dist", "0"), ("t37-dist", "1")])
        evs, legacy = trace_events(ranks[0]["path"])
        if legacy:
            self.assertEqual({f["rank_source"] for f in files}, {"option"})
            self.assertEqual({f["time_regime"] for f in files},
                             {"relative_us"})
        # the gloo collectives are communication: collective rows
        colls = self.collectives(ranks)
        got = self.on(shard, "sql", "SELECT rank, count(*) AS n, sum(dur)"
                      " AS ns, group_concat(DISTINCT op) AS op,"
                      " group_concat(DISTINCT c10d_name) AS name,"
                      " sum(kernel_id IS NULL) AS host FROM collective"
                      " GROUP BY rank ORDER BY rank")
        self.assertEqual([(int(g["n"]), int(g["ns"])) for g in got],
                         [(len(c), sum(d for _, d in c)) for c in colls])
        self.assertEqual({(g["op"], g["name"]) for g in got},
                         {("all_reduce", "gloo:all_reduce")})
        self.assertEqual([int(g["host"]) for g in got],
                         [len(c) for c in colls])
        self.check_straggler(shard, "t37-dist", colls)

    def check_window_spec(self, db):
        """The stored host windows of db against their SQL
        specification (tests/oracle/comm.sql)."""
        import test_oracle
        con = sqlite3.connect(db)
        for spec, stored, sql in test_oracle.specs("comm.sql")[1]:
            got = sorted(con.execute(stored))
            self.assertTrue(got, spec)
            self.assertEqual(got, sorted(con.execute(sql)), spec)
        con.close()

    def test_torch_two_ranks_host_windows(self):
        """What each rank did before each collective: the window since
        its previous collective ended (the first: since its first op),
        the time in it covered by its CPU ops on any thread (not the gloo
        ranges, not the ProfilerStep ranges), the rest idle."""
        shard, ranks = self.run_job()
        want = []
        for r in ranks:
            evs, legacy = trace_events(r["path"])
            base = file_base_ns(r["path"], r["start_us"])
            ops = [e for e in evs if ref.kind_of(e, legacy) == "cpu_op"]
            coll = sorted((abs_ns(e, base), ref.us_to_ns(e["dur"]))
                          for e in ops if e["name"].startswith("gloo:"))
            work = ref.merge([(abs_ns(e, base), abs_ns(e, base)
                               + ref.us_to_ns(e["dur"])) for e in ops
                              if not e["name"].startswith("gloo:")
                              and not ref.STEP.match(e["name"])])
            prev = min(abs_ns(e, base) for e in ops)
            for ts, dur in coll:
                t0 = min(prev, ts)
                comp = ref.intersect_ns(work, [(t0, ts)])
                want.append((r["rank"], ts, ts - t0, comp))
                prev = ts + dur
        sql = ("SELECT c.rank, c.ts, w.window_ns, w.compute_ns, w.idle_ns"
               " FROM collective c JOIN collective_window w"
               " ON w.collective_id = c.id ORDER BY c.rank, c.ts")
        got = self.on(shard, "sql", sql)
        self.assertEqual([(int(g["rank"]), int(g["ts"]), int(g["window_ns"]),
                           int(g["compute_ns"])) for g in got], want)
        # the shard's windows come from the rows merge fed again
        # (trace_feed.c); each trace ingested alone gets its rank's from
        # what the writer kept while inserting
        for r in ranks:
            db = os.path.join(self.tmp.name, "alone%d.db" % r["rank"])
            p = subprocess.run([PROFAN, "--db", db, "ingest", "--quiet",
                                "--rank", str(r["rank"]), "--base-time",
                                str(file_base_ns(r["path"], r["start_us"])),
                                r["path"]], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            alone = self.on(db, "sql", sql)
            self.assertEqual([(int(g["rank"]), int(g["ts"]),
                               int(g["window_ns"]), int(g["compute_ns"]))
                              for g in alone],
                             [w for w in want if w[0] == r["rank"]])
            self.check_window_spec(db)
        self.check_window_spec(shard)
        for g in got:
            self.assertEqual(int(g["idle_ns"]),
                             int(g["window_ns"]) - int(g["compute_ns"]))
        # the sleeps are idle time of rank 1 before its late collectives
        idle1 = sorted((int(g["idle_ns"]) for g in got if g["rank"] == "1"),
                       reverse=True)
        slept = 2 * len(self.SLEPT)
        self.assertGreater(min(idle1[:slept]), 0.9 * self.SLEEP_S * 1e9)

    def test_torch_two_ranks_clock_offset(self):
        """The same two processes with rank 0's clock twice the sleep
        ahead (its trace ingested with --base-time moved by 60 ms, so that
        from the starts alone rank 0 looks late at every collective): the
        waiting is the same, so rank 1 must still be named with the same
        waiting caused.  Needs the straggler's clock alignment of issue 31
        (branch find31: per-rank offsets from collective end times, which
        agree across ranks); expected to fail until it is merged."""
        shard, ranks = self.run_job()
        offset = int(2 * self.SLEEP_S * 1e9)
        dbs = []
        for r, s in zip(ranks, (offset, 0)):
            db = os.path.join(self.tmp.name, "r%d.db" % r["rank"])
            p = subprocess.run([PROFAN, "--db", db, "ingest", "--quiet",
                                "--name", "shifted", "--rank", str(r["rank"]),
                                "--base-time",
                                str(file_base_ns(r["path"], r["start_us"])
                                    + s), r["path"]],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            dbs.append(db)
        job = os.path.join(self.tmp.name, "job.db")
        p = subprocess.run([PROFAN, "merge", "--quiet", "--into", job] + dbs,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check_straggler(job, "shifted", self.collectives(ranks))


class HandlerFailures(TorchCase):

    def test_torch_handler_failures_keep_training(self):
        """A directory the handler cannot write, then a missing profan
        binary: one line each on stderr, the script trains to the end."""
        os.chmod(self.tmp.name, 0o755)
        ro = os.path.join(self.tmp.name, "readonly")
        ok = os.path.join(self.tmp.name, "ok")
        os.mkdir(ro)
        os.mkdir(ok)
        user = None
        if os.geteuid() == 0:           # root writes anywhere: be nobody
            if shutil.which("setpriv") is None:
                raise AssertionError("setpriv (util-linux) is not installed:"
                                     " run scripts/setup.sh")
            user = 65534
            os.chmod(ok, 0o777)
        os.chmod(ro, 0o555)
        p = self.train(FAILING, os.path.join(ro, "traces"), ok, user=user,
                       env={"HOME": ok, "TMPDIR": ok})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), ["trained", "6"])
        lines = profiler_lines(p.stderr)
        self.assertEqual(len(lines), 2, p.stderr)
        self.assertRegex(lines[0], r"^profan_torch: trace not written to "
                         + re.escape(os.path.join(ro, "traces"))
                         + r": \[Errno 13\] Permission denied")
        self.assertRegex(lines[1], r"^profan_torch: " + re.escape(ok)
                         + r"/[^ ]+\.\d{19}\.pt\.trace\.json not ingested"
                         r" into [^ ]+\.profan\.db \(exit 127\): \[Errno 2\]"
                         r" No such file or directory: '/nonexistent/profan'$")
        kept = [n for n in os.listdir(ok) if n.endswith(".pt.trace.json")]
        self.assertEqual(len(kept), 1, os.listdir(ok))  # the trace is kept
        self.assertEqual(os.listdir(ro), [])


class FiveMinutes(TorchCase):
    """docs/guide.md's "Your own PyTorch run in five minutes", as written
    there."""

    def readme_section(self):
        text = open(os.path.join(ROOT, "docs", "guide.md"),
                    encoding="utf-8").read()
        m = re.search(r"^## Your own PyTorch run in five minutes\n(.*?)^## ",
                      text, re.S | re.M)
        self.assertIsNotNone(m, "docs/guide.md section missing")
        blocks, cur = [], None
        for line in m.group(1).split("\n"):
            if line.startswith("    ") or (cur is not None and line == ""):
                cur = (cur or []) + [line[4:]]
            elif cur is not None:
                blocks.append("\n".join(cur).strip("\n"))
                cur = None
        if cur:
            blocks.append("\n".join(cur).strip("\n"))
        self.assertEqual(len(blocks), 2, blocks)
        return blocks[0] + "\n", [l for l in blocks[1].split("\n") if l]

    def test_torch_readme_five_minutes(self):
        script, lines = self.readme_section()
        with open(os.path.join(self.tmp.name, "train.py"), "w") as f:
            f.write(script)
        bindir = os.path.join(self.tmp.name, "bin")
        os.mkdir(bindir)
        os.symlink(PROFAN, os.path.join(bindir, "profan"))
        os.symlink(self.py, os.path.join(bindir, "python3"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
                   OMP_NUM_THREADS="1")
        env.pop("PROFAN_DB", None)
        rc = {}
        out = {}
        for line in lines:
            p = subprocess.run(["bash", "-c", line], capture_output=True,
                               text=True, cwd=self.tmp.name, env=env,
                               timeout=300)
            rc[line] = p.returncode
            out[line] = p.stdout
            if not line.startswith("profan check"):
                self.assertEqual(p.returncode, 0, "%s\n%s" % (line, p.stderr))
        db = os.path.join(self.tmp.name, "profan.db")

        # the steps of each run: the ProfilerStep ranges of its trace
        durs = {}
        for name in ("base", "new"):
            d = os.path.join(self.tmp.name, "traces", name)
            (path,) = [os.path.join(d, n) for n in os.listdir(d)]
            evs, legacy = trace_events(path)
            durs[name] = {int(ref.STEP.match(e["name"]).group(1)):
                          ref.us_to_ns(e["dur"]) for e in evs
                          if ref.STEP.match(str(e.get("name", "")))
                          and e.get("ph") == "X"}
            self.assertEqual(len(durs[name]), 10)
            got = self.on(db, "query", "steps", "--run", name)
            self.assertEqual(sorted(int(r["step"]) for r in got),
                             sorted(durs[name]))
            for r in got:                     # ms printed to 3 decimals
                self.assertAlmostEqual(float(r["dur_ms"]),
                                       durs[name][int(r["step"])] / 1e6,
                                       delta=0.00051, msg=r)
            steady = [durs[name][int(r["step"])] for r in got
                      if r["steady"] == "1"]
            durs[name + "_median"] = statistics.median(steady) / 1e6
            durs[name + "_n"] = len(steady)

        # report: the summary holds the run's steps and their median
        rep = [l for l in lines if re.match(r"^profan report new$", l)][0]
        self.assertRegex(out[rep], r"(?m)^steps +10 *$")
        m = re.search(r"(?m)^step time median ms +([\d.]+) *$", out[rep])
        self.assertIsNotNone(m, out[rep])
        # printed to 3 decimals: a median of an even count may end in .5
        self.assertAlmostEqual(float(m.group(1)), durs["new_median"],
                               delta=0.00051)
        html = open(os.path.join(self.tmp.name, "new.html"),
                    encoding="utf-8").read()
        self.assertTrue(html.lstrip().lower().startswith("<!doctype html"))
        self.assertIn("new", html)

        # check: a verdict on the steady steps of both runs
        chk = [l for l in lines if l.startswith("profan check")][0]
        self.assertIn(rc[chk], (0, 1, 5), out[chk])
        verdict = out[chk].split("\n")[0]
        self.assertRegex(verdict, {0: r"^OK: ", 1: r"^REGRESSION: ",
                                   5: r"^INCONCLUSIVE: "}[rc[chk]])
        row = [l for l in out[chk].split("\n")
               if l.startswith("step_time_median_ms")][0].split()
        self.assertAlmostEqual(float(row[1]), durs["base_median"],
                               delta=0.00051, msg=row)
        self.assertAlmostEqual(float(row[2]), durs["new_median"],
                               delta=0.00051, msg=row)

        # export-trace: the slowest step of the run, with its events
        d = os.path.join(self.tmp.name, "traces", "new")
        path = os.path.join(d, os.listdir(d)[0])
        evs, legacy = trace_events(path)
        slow = max(durs["new"], key=lambda k: (durs["new"][k], -k))
        (st,) = [e for e in evs if e.get("name") == "ProfilerStep#%d" % slow]
        # the step's end as profan stores it (start + length, each in ns);
        # an op overlaps it when it starts before the end and ends after
        # the start, a zero-length op counting 1 ns (docs/export.md)
        t0 = ref.us_to_ns(st["ts"])
        t1 = t0 + ref.us_to_ns(st["dur"])
        want = sorted(e["name"] for e in evs
                      if ref.kind_of(e, legacy) == "cpu_op"
                      and ref.us_to_ns(e["ts"]) < t1
                      and ref.us_to_ns(e["ts"])
                      + max(ref.us_to_ns(e["dur"]), 1) > t0)
        exp = ref_load(os.path.join(self.tmp.name, "slowest.json"))
        got = sorted(e["name"] for e in exp["traceEvents"]
                     if e.get("cat") == "cpu_op" and e.get("ph") == "X")
        self.assertEqual(got, want)
