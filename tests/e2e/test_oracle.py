"""test_oracle.py — every derived number profan stores against its
specification, on every trace fixture and on adversarial orderings of
real traces (issue 29: one runtime path per number, the SQL definitions
kept as the specification and test oracle).

profan computes each number one way, in C, in the writer's streaming pass
(the in-stream linker, the totals and spans kept of every row); a file
whose order the stream cannot link in one pass is fed to the same linker
again from its rows, and a merge feeds the stored rows to the same totals.
The specifications are kept apart from that code:

  tests/oracle/links.sql        kernel/memcpy -> runtime call by
                                correlation, op and step inherited or by
                                start; steps of ops and calls
  tests/oracle/summaries.sql    the 009 summary tables as GROUP BYs
  tests/oracle/annotations.sql  013's annotation parent and innermost
                                annotation of each launch
  tests/oracle/comm.sql         the windows of the host (gloo / MPI)
                                collectives
  tests/oracle/hta_series.sql   070's idle intervals, launch-queue change
                                points and kernel-sequence counts (the
                                window functions the queries ran)
  tests/oracle/overlap.sql      100's overlap slices per device (the
                                window view hta_overlap_piece grouped)
  tests/oracle/memory_timeline.sql  memory-timeline before 071 (a whole
                                query, checked against the stored series
                                by test_trace_queries.StoredMemorySeries)
  schema views op_sig_calc, op_call_time_calc, op_metric_calc (022, 027,
                                028): op_sig, op_gpu_time, op_run_metric
  Python (this file)            op nesting, depth and self time, and the
                                innermost and outermost op of each runtime
                                call and its recompute flag: a stack per
                                thread over the JSON (an op that sticks out
                                of another is its sibling)

Each fixture of ../shared/fixtures/traces, the 8 dlrm ranks as one run
and the trace fixtures of fixtures/ is ingested and checked.  Then real
traces are written again in orders that break every assumption of a
streaming linker and must give the same rows (by content: the same
specification holds, and each row's links name the same rows as in the
file's own order):
  shuffled      every event of the file in a random (seeded) order
  end_order     each thread's CPU ops moved to the end, in end order
  launch_last   every GPU record before every runtime call
  calls_first   every runtime call before every op
  steps_last    the ProfilerStep annotations written last
  export        the whole run written by profan export-trace, ingested
The same orders run with the linker's spools in temporary files from the
first byte (PROFAN_SPOOL_KB=0) on one trace.

Size (issue 34: CI's 30-minute budget).  The whole module is about 500
CPU-seconds (SQLite running the specifications, Python reading the JSON),
most of it on the one 3 MB trace (hta-mtia-rank0: more than 290
CPU-seconds for its first check alone); the subset below 37 (2026-11-29).
By default (scripts/test.sh, CI) it runs a seeded subset: every trace
under BIG bytes (compressed) and the dlrm, sample-run and regime
fixtures, plus SAMPLE_BIG of the larger traces under HUGE bytes; every
order of the small traces; SAMPLE_ORDERS orders of the 1 MB 2021 trace;
the export of the control trace.  The choice is random.Random(seed) with
seed PROFAN_ORACLE_SEED (default 34), printed by the tests that sample.
PROFAN_ORACLE_FULL=1 runs every fixture in every order
(scripts/oracle-full.sh).  The checks themselves are the same in both.
"""
import collections
import decimal
import glob
import gzip
import json
import os
import random
import re
import sqlite3

import common
import trace_reference as ref
from common import ProfanTest, ROOT, local, shared

ORACLE = os.path.join(ROOT, "tests", "oracle")

FULL = os.environ.get("PROFAN_ORACLE_FULL") == "1"
SEED = int(os.environ.get("PROFAN_ORACLE_SEED", "34"))
BIG = 512 * 1024            # a trace at least this large is sampled
HUGE = 2 * 1024 * 1024      # ... and at least this large: full runs only
SAMPLE_BIG = 2
SAMPLE_ORDERS = 2


def sample(items, k, what):
    """items when PROFAN_ORACLE_FULL=1, else k of them chosen by the
    seed (in their own order); the choice is printed."""
    items = list(items)
    if FULL or k >= len(items):
        return items
    rng = random.Random("%d %s" % (SEED, what))
    picked = sorted(rng.sample(range(len(items)), k))
    out = [items[i] for i in picked]
    print("\ntest_oracle: %s: %s of %d (PROFAN_ORACLE_SEED=%d; "
          "PROFAN_ORACLE_FULL=1 for all)"
          % (what, ", ".join(os.path.basename(str(x)) for x in out),
             len(items), SEED))
    return out


def shared_traces():
    """The shared trace fixtures this run checks: every one when
    PROFAN_ORACLE_FULL=1, else those under BIG bytes and SAMPLE_BIG of
    those under HUGE."""
    paths = sorted(glob.glob(os.path.join(shared("traces"), "*.json*")))
    if FULL:
        return paths, len(paths)
    small = [p for p in paths if os.path.getsize(p) < BIG]
    big = [p for p in paths if BIG <= os.path.getsize(p) < HUGE]
    return sorted(small + sample(big, SAMPLE_BIG, "traces of 0.5-2 MB")), \
        len(paths)

# op_gpu_time's columns and its signature (ids of op_sig depend on the
# order signatures were inserted: compared by value)
GPU_COLS = ("op_id, run_id, rank, name_id, device, n_gpu, union_ns, sum_ns,"
            " host_copies, tf32")
SIG = ("(SELECT name_id || ',' || dims_id || ',' || types_id || ',' ||"
       " conc_id FROM op_sig g WHERE g.id = x.sig_id)")


def specs(name):
    """[(label, stored sql, spec sql)] of tests/oracle/NAME.sql, and its
    setup statements."""
    text = open(os.path.join(ORACLE, name)).read()
    out, setup = [], []
    for part in re.split(r"^-- (?=spec:|setup)", text, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        lines = body.split("\n")
        stored = [l[len("-- stored: "):] for l in lines
                  if l.startswith("-- stored: ")]
        sql = "\n".join(l for l in lines if not l.startswith("--")).strip()
        if head.startswith("setup"):
            setup.append(sql)
        else:
            out.append((head[len("spec:"):].strip(), stored[0],
                        sql.rstrip(";")))
    return setup, out


def norm(rows):
    """Rows as a multiset, REALs to 12 significant digits."""
    def v(x):
        return float("%.12g" % x) if isinstance(x, float) else x
    return collections.Counter(tuple(v(x) for x in r) for r in rows)


def load_exact(path):
    """The JSON document at path, numbers with a fraction as Decimal (a
    float cannot hold an epoch microsecond with three decimals)."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=decimal.Decimal)


def trace_events(path):
    doc = load_exact(path)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


NUM = (int, float, decimal.Decimal)


def ops_by_thread(evs):
    """{tid: [(start, dur, External id or None, file index, name)]} of the
    CPU ops of the JSON, each thread's in the order ops of one start are
    placed: start, longest first, External id (none last), file order."""
    by_tid = {}
    for i, e in enumerate(evs):
        if ref.kind_of(e) == "cpu_op" and isinstance(e.get("ts"), NUM):
            s, t = ref.span(e)
            ext = (e.get("args") or {}).get("External id")
            ext = ext if isinstance(ext, int) else None
            by_tid.setdefault(str(e.get("tid")), []).append(
                (s, t - s, ext, i, e["name"]))
    for ops in by_tid.values():
        ops.sort(key=lambda o: (o[0], -o[1], o[2] is None, o[2] or 0, o[3]))
    return by_tid


def push_op(stack, op):
    """Open op on the stack of a thread: the ops that ended at or before
    its start, or end before it ends (it sticks out of them: a sibling),
    are closed first."""
    while stack and (stack[-1][0] <= op[0] or stack[-1][0] < op[0] + op[1]):
        stack.pop()
    stack.append([op[0] + op[1], op])


RECOMPUTE = re.compile("checkpoint|recompute", re.I)


def calls_oracle(evs):
    """Multiset of (dur, name, start - op start, op name, start - top start,
    top name, recompute) of the runtime calls of the JSON: the innermost
    and outermost op of the call's thread open at its start, and whether
    any op open there is a checkpoint or recompute op (None, "" when no op
    is open)."""
    ops = ops_by_thread(evs)
    calls = {}
    for e in evs:
        if ref.kind_of(e) == "runtime" and isinstance(e.get("ts"), NUM):
            s, t = ref.span(e)
            calls.setdefault(str(e.get("tid")), []).append(
                (s, t - s, e["name"]))
    out = collections.Counter()
    for tid, cs in calls.items():
        cs.sort()
        todo, stack, i = ops.get(tid, []), [], 0
        for s, d, name in cs:
            while i < len(todo) and todo[i][0] <= s:
                push_op(stack, todo[i])
                i += 1
            while stack and stack[-1][0] <= s:
                stack.pop()
            if stack:
                inner, top = stack[-1][1], stack[0][1]
                rc = int(any(RECOMPUTE.search(x[1][4]) for x in stack))
                out[(d, name, s - inner[0], inner[4], s - top[0], top[4],
                     rc)] += 1
            else:
                out[(d, name, None, "", None, "", 0)] += 1
    return out


def nesting_oracle(evs):
    """Multiset of (ts, dur, name, depth, self, parent name) of the CPU ops
    of the JSON, ts from the first op's start: each thread's ops in the
    order ops are placed (ops_by_thread) on a stack (push_op); an op's
    self time is its duration minus its direct children's."""
    out = collections.Counter()
    for todo in ops_by_thread(evs).values():
        stack = []                     # [end, op, child dur, depth, parent]
        def close():
            _, op, child, depth, parent = stack.pop()
            out[(op[0], op[1], op[4], depth, max(0, op[1] - child),
                 parent)] += 1
        for op in todo:
            while stack and (stack[-1][0] <= op[0]
                             or stack[-1][0] < op[0] + op[1]):
                close()
            parent = stack[-1][1][4] if stack else ""
            if stack:
                stack[-1][2] += op[1]
            stack.append([op[0] + op[1], op, 0, len(stack), parent])
        while stack:
            close()
    t0 = min((k[0] for k in out), default=0)
    return collections.Counter({(k[0] - t0,) + k[1:]: n
                                for k, n in out.items()})


CALLS_ORACLE_SQL = (
    "SELECT c.dur, s.text, c.ts - o.ts, coalesce(os.text, ''),"
    " c.ts - t.ts, coalesce(ts_.text, ''), c.in_recompute"
    " FROM runtime_call c JOIN string s ON s.id = c.name_id"
    " LEFT JOIN cpu_op o ON o.id = c.op_id"
    " LEFT JOIN string os ON os.id = o.name_id"
    " LEFT JOIN cpu_op t ON t.id = c.top_op_id"
    " LEFT JOIN string ts_ ON ts_.id = t.name_id")

NESTING_SQL = (
    "SELECT o.ts, o.dur, s.text, o.depth, o.self_dur, coalesce(ps.text, '')"
    " FROM cpu_op o JOIN string s ON s.id = o.name_id"
    " LEFT JOIN cpu_op p ON p.id = o.parent_id"
    " LEFT JOIN string ps ON ps.id = p.name_id")

# Each GPU row and what it is linked to, by content (row ids differ from
# one ordering of a file to another).
LINKS_SQL = (
    "SELECT g.ts, g.dur, s.text, r.ts, rs.text, o.ts, os.text, g.step"
    " FROM %s g JOIN string s ON s.id = g.name_id"
    " LEFT JOIN runtime_call r ON r.id = g.runtime_id"
    " LEFT JOIN string rs ON rs.id = r.name_id"
    " LEFT JOIN cpu_op o ON o.id = g.op_id"
    " LEFT JOIN string os ON os.id = o.name_id")
CALLS_SQL = (
    "SELECT c.ts, c.dur, s.text, o.ts, os.text, t.ts, ts_.text,"
    " c.in_recompute, c.step FROM runtime_call c"
    " JOIN string s ON s.id = c.name_id"
    " LEFT JOIN cpu_op o ON o.id = c.op_id"
    " LEFT JOIN string os ON os.id = o.name_id"
    " LEFT JOIN cpu_op t ON t.id = c.top_op_id"
    " LEFT JOIN string ts_ ON ts_.id = t.name_id")
# The derived tables per rank and run, names as texts.
TABLES_SQL = {
    "step": "SELECT rank, step, ts, dur, source FROM step",
    "gpu_busy": "SELECT * FROM gpu_busy",
    "step_time": "SELECT * FROM step_time",
    "step_kernel_summary": "SELECT * FROM step_kernel_summary",
    "cpu_op_summary": "SELECT c.rank, s.text, coalesce(p.text, ''), c.calls,"
                      " c.total_ns, c.self_ns, c.gpu_n, c.gpu_ns"
                      " FROM cpu_op_summary c JOIN string s"
                      " ON s.id = c.name_id LEFT JOIN string p"
                      " ON p.id = c.parent_name_id",
    "runtime_summary": "SELECT r.rank, s.text, r.kind, r.calls, r.total_ns,"
                       " r.max_ns, r.launches, r.delay_ns, r.max_delay_ns,"
                       " r.short_launches, r.recompute_kernels,"
                       " r.recompute_kernel_ns FROM runtime_summary r"
                       " JOIN string s ON s.id = r.name_id",
    "hta_run_metric": "SELECT metric, round(value, 6) FROM hta_run_metric",
    "op_run_metric": "SELECT metric, round(value, 6) FROM op_run_metric",
}


def content(db):
    """What an ingest derived, by content: the same for every order of
    the same events."""
    con = sqlite3.connect(db)
    out = {"nesting": norm(con.execute(NESTING_SQL)),
           "calls": norm(con.execute(CALLS_SQL))}
    for t in ("kernel", "gpu_mem_op"):
        out[t] = norm(con.execute(LINKS_SQL % t))
    for t, q in TABLES_SQL.items():
        out[t] = norm(con.execute(q))
    con.close()
    return out


# --------------------------------------------------------- orderings

def is_step(e):
    return str(e.get("name", "")).startswith("ProfilerStep#") \
        and ref.kind_of(e) == "user_annotation"


ORDERS = {
    "shuffled": lambda evs: random.Random(29).sample(evs, len(evs)),
    "end_order": lambda evs: (
        [e for e in evs if ref.kind_of(e) != "cpu_op"]
        + sorted((e for e in evs if ref.kind_of(e) == "cpu_op"),
                 key=lambda e: (str(e.get("tid")), ref.span(e)[1],
                                -ref.span(e)[0]))),
    "launch_last": lambda evs: (
        [e for e in evs if ref.kind_of(e) in ("kernel", "memcpy", "memset")]
        + [e for e in evs if ref.kind_of(e) not in ("kernel", "memcpy",
                                                    "memset")]),
    "calls_first": lambda evs: (
        [e for e in evs if ref.kind_of(e) == "runtime"]
        + [e for e in evs if ref.kind_of(e) != "runtime"]),
    "steps_last": lambda evs: (
        [e for e in evs if not is_step(e)] + [e for e in evs if is_step(e)]),
}


def write_order(path, out, order):
    """path's document with its events in order `order`, written to out."""
    doc = load_exact(path)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    evs = ORDERS[order](list(evs))
    if isinstance(doc, dict):
        doc["traceEvents"] = evs
    else:
        doc = evs
    # a Decimal goes out as a marked string, then as the number it was
    text = json.dumps(doc, default=lambda v: "\x00D" + str(v))
    with open(out, "w") as f:
        f.write(re.sub(r'"\\u0000D([-+0-9.eE]+)"', r"\1", text))
    return evs


class Oracle(ProfanTest):

    def ingest_db(self, name, paths, env=None):
        db = os.path.join(self.tmp.name, name + ".db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        e = {"PROFAN_TIMING": "1"}
        e.update(env or {})
        r = common.run("ingest", *paths, db=db, env=e)
        self.assertEqual(r.rc, 0, r.err)
        return db, r.err

    def check_specs(self, db, label):
        """Every specification of tests/oracle/ and the op-model views
        against the stored rows of db (one run)."""
        con = sqlite3.connect(db)
        n = 0
        for name in ("links.sql", "summaries.sql", "annotations.sql",
                     "comm.sql", "hta_series.sql", "overlap.sql"):
            setup, secs = specs(name)
            for sql in setup:
                con.executescript(sql)
            for spec, stored, sql in secs:
                got = norm(con.execute(stored))
                want = norm(con.execute(sql))
                self.assertEqual(got - want, collections.Counter(),
                                 (label, spec, "stored, not specified"))
                self.assertEqual(want - got, collections.Counter(),
                                 (label, spec, "specified, not stored"))
                n += sum(got.values())
        # the operator model: the views of schema 022/027/028
        con.execute("BEGIN")
        con.execute("DELETE FROM op_target")
        con.execute("INSERT INTO op_target SELECT id FROM run")
        for stored, view in (
                ("SELECT %s, %s FROM op_gpu_time x" % (GPU_COLS, SIG),
                 "SELECT %s, %s FROM op_call_time_calc x" % (GPU_COLS, SIG)),
                ("SELECT run_id, metric, round(value, 9) FROM op_run_metric",
                 "SELECT run_id, metric, round(value, 9) FROM op_metric_calc"),
                ("SELECT name_id, dims_id, types_id, conc_id FROM op_sig",
                 "SELECT * FROM op_sig_calc")):
            self.assertEqual(norm(con.execute(stored)),
                             norm(con.execute(view)), (label, stored))
        con.execute("ROLLBACK")
        con.close()
        return n

    def check_nesting(self, db, evs, label):
        """Op nesting and each call's ops against the Python stack."""
        con = sqlite3.connect(db)
        got = norm(con.execute(NESTING_SQL))
        calls = norm(con.execute(CALLS_ORACLE_SQL))
        con.close()
        self.assertEqual(calls, calls_oracle(evs), (label, "call ops"))
        t0 = min((k[0] for k in got), default=0)
        got = collections.Counter({(k[0] - t0,) + k[1:]: n
                                   for k, n in got.items()})
        self.assertEqual(got, nesting_oracle(evs), (label, "nesting"))

    def check_fixture(self, paths, label):
        db, _ = self.ingest_db(label, paths)
        self.check_specs(db, label)
        evs = []
        for p in paths:
            evs += trace_events(p)
        if len(paths) == 1:
            self.check_nesting(db, evs, label)
        return db

    def test_every_shared_trace(self):
        paths, n_all = shared_traces()
        self.assertGreaterEqual(n_all, 18)
        self.assertGreaterEqual(len(paths), 10 if not FULL else 18)
        for p in paths:
            with self.subTest(trace=os.path.basename(p)):
                self.check_fixture([p], os.path.basename(p))

    def test_dlrm_ranks_and_local_fixtures(self):
        files = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json.gz")))
        self.check_fixture(files, "dlrm")
        self.check_fixture(sorted(glob.glob(os.path.join(
            local("sample-run"), "*.json.gz"))), "sample-run")
        for p in sorted(glob.glob(os.path.join(local("regimes"), "*.json"))):
            with self.subTest(trace=os.path.basename(p)):
                self.check_fixture([p], os.path.basename(p))

    # ---------------------------------------------------- orderings

    def check_orders(self, path, orders, env=None):
        """path in each order: every specification holds, and the rows
        derived are those of the file's own order."""
        name = os.path.basename(path)
        base_db = self.check_fixture([path], name)
        want = content(base_db)
        relinked = []
        for order in orders:
            label = "%s %s%s" % (name, order, " " + str(env) if env else "")
            with self.subTest(order=label):
                out = os.path.join(self.tmp.name, order + ".json")
                if order == "export":
                    r = common.run("export-trace", "1", "-o", out, db=base_db)
                    self.assertEqual(r.rc, 0, r.err)
                    evs = trace_events(out)
                else:
                    evs = write_order(path, out, order)
                db, err = self.ingest_db(order, [out], env)
                if "linked again from its rows" in err:
                    relinked.append(order)
                self.check_specs(db, label)
                self.check_nesting(db, evs, label)
                got = content(db)
                for k in want:
                    if order == "export" and k in ("hta_run_metric",
                                                    "op_run_metric"):
                        continue            # the export adds no shapes
                    self.assertEqual(got[k], want[k], (label, k))
        return relinked

    def test_orders_of_a_2022_trace(self):
        relinked = self.check_orders(
            shared("traces", "hta-triton.json.gz"),
            ("shuffled", "end_order", "launch_last", "calls_first",
             "steps_last", "export"))
        # orders the stream cannot link in one pass were linked again
        self.assertIn("shuffled", relinked)

    def test_orders_of_the_2021_trace(self):
        self.check_orders(
            shared("traces", "kineto-resnet50-2021.pt.trace.json.gz"),
            sample(("shuffled", "launch_last", "steps_last", "export"),
                   SAMPLE_ORDERS, "orders of the 2021 trace"))

    def test_orders_of_a_dlrm_rank_with_spools_in_files(self):
        rank0 = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json.gz")))[0]
        self.check_orders(rank0, ("shuffled", "end_order", "launch_last",
                                  "calls_first", "steps_last", "export"))
        self.check_orders(rank0, ("shuffled", "calls_first", "steps_last"),
                          env={"PROFAN_SPOOL_KB": "0"})

    def test_gap_steps_of_every_gpu_row(self):
        """param-linear-2080ti has no ProfilerStep (its steps come from GPU
        idle gaps) and is a sampled trace here: every kernel and
        memcpy/memset gets the gap step holding its own start after the
        load (derive_trace.c: a read in rowid order, an UPDATE per run of
        rows), checked on it each time: links.sql's gpu_launch and the
        per-step kernel time of summaries.sql (step_kernel_summary, the
        writer's totals of the rows given a step)."""
        db, _ = self.ingest_db("gap", [shared("traces",
                                              "param-linear-2080ti.json.gz")])
        con = sqlite3.connect(db)
        self.assertEqual(con.execute("SELECT DISTINCT source FROM step")
                         .fetchall(), [("gap",)])
        # the rows lie in several steps (a wrong step is not the only one)
        self.assertEqual(con.execute(
            "SELECT count(DISTINCT step), count(*) - count(step) FROM kernel")
            .fetchone(), (3, 0))
        checked = []
        for name, want in (("links.sql", "gpu_launch"),
                           ("summaries.sql", "step_kernel_summary")):
            setup, secs = specs(name)
            for sql in setup:
                con.executescript(sql)
            for spec, stored, sql in secs:
                if spec != want:
                    continue
                self.assertEqual(norm(con.execute(stored)),
                                 norm(con.execute(sql)), spec)
                checked.append(spec)
        con.close()
        self.assertEqual(checked, ["gpu_launch", "step_kernel_summary"])

    def test_gpu_rows_written_at_their_final_size(self):
        """A kernel or memcpy/memset row that comes without a step is
        written with the pending step -1 (one byte, as the steps 2-127 it
        gets), not NULL, so that the UPDATE giving it its step leaves it
        the same size: param-linear's kernel leaf pages (all of its steps
        from gap detection) at most 3 % free (5.6 % when written NULL: the
        rows grew and full pages split).  No row keeps the pending step:
        on hta-compare-base (ProfilerStep steps) the two memcpy rows that
        start outside every step get NULL, by gpu_launch of links.sql."""
        db, _ = self.ingest_db("gap", [shared("traces",
                                              "param-linear-2080ti.json.gz")])
        con = sqlite3.connect(db)
        free, pages = con.execute(
            "SELECT sum(unused) * 1.0 / sum(pgsize), count(*) FROM dbstat"
            " WHERE name = 'kernel' AND pagetype = 'leaf'").fetchone()
        self.assertGreater(pages, 40)
        self.assertLess(free, 0.03)
        con.close()
        db, _ = self.ingest_db("base", [shared("traces",
                                               "hta-compare-base.json.gz")])
        con = sqlite3.connect(db)
        for db_ in (os.path.join(self.tmp.name, "gap.db"), db):
            c = sqlite3.connect(db_)
            self.assertEqual(c.execute(
                "SELECT (SELECT count(*) FROM kernel WHERE step < 0)"
                " + (SELECT count(*) FROM gpu_mem_op WHERE step < 0)")
                .fetchone()[0], 0, db_)
            c.close()
        self.assertEqual(con.execute(
            "SELECT count(*) - count(step) FROM gpu_mem_op").fetchone()[0], 2)
        self.assertEqual(con.execute("SELECT DISTINCT source FROM step")
                         .fetchall(), [("ProfilerStep",)])
        setup, secs = specs("links.sql")
        for sql in setup:
            con.executescript(sql)
        checked = 0
        for spec, stored, sql in secs:
            if spec == "gpu_launch":
                self.assertEqual(norm(con.execute(stored)),
                                 norm(con.execute(sql)), spec)
                checked += 1
        con.close()
        self.assertEqual(checked, 1)

    def test_export_of_the_control_trace(self):
        """Issue 32 point 6: the whole run exported and ingested again keeps
        every link (745 kernels and 89 memcpy/memset rows had none)."""
        self.check_orders(shared("traces",
                                 "hta-diff-control-a100-rank3.json.gz"),
                          ("export",))
